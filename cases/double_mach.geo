// Double Mach reflection (Woodward & Colella, J. Comput. Phys. 54, 1984), the case of Table 10 of
// Giuliani & Krivodonova, "Face coloring in unstructured CFD codes" (Parallel Computing, 2017).
// Domain [0,4] x [0,1]; the bottom is split at the shock foot x0 = 1/6: post-shock state left of it
// ("bottom_inflow"), reflecting wall right of it ("wall"). Element size: `--size H` on the command line
// (Mesh.MeshSizeMax); the paper's 627,326 triangles correspond to about H = 0.0038.
x0 = 1/6;
Point(1) = {0, 0, 0};
Point(2) = {x0, 0, 0};
Point(3) = {4, 0, 0};
Point(4) = {4, 1, 0};
Point(5) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 1};
Curve Loop(1) = {1, 2, 3, 4, 5};
Plane Surface(1) = {1};
Physical Curve("bottom_inflow") = {1};
Physical Curve("wall") = {2};
Physical Curve("right") = {3};
Physical Curve("top") = {4};
Physical Curve("left") = {5};
Physical Surface("domain") = {1};
Mesh.Algorithm = 6;  // Frontal-Delaunay: well-shaped triangles
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
