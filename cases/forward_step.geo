// Mach 3 forward-facing step (Woodward & Colella, J. Comput. Phys. 54, 1984): a 3 x 1 channel with a step of
// height 0.2 from x = 0.6. Groups: "inflow" (left), "outflow" (right), "wall" (bottom, step, top).
// Element size: mesh.size in the case (Mesh.MeshSizeMax).
Point(1) = {0, 0, 0};
Point(2) = {0.6, 0, 0};
Point(3) = {0.6, 0.2, 0};
Point(4) = {3, 0.2, 0};
Point(5) = {3, 1, 0};
Point(6) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6};
Plane Surface(1) = {1};
Physical Curve("wall") = {1, 2, 3, 5};
Physical Curve("outflow") = {4};
Physical Curve("inflow") = {6};
Physical Surface("domain") = {1};
Mesh.Algorithm = 6;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
