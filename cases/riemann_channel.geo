// A thin channel for the one-dimensional Riemann problems (Toro, Riemann Solvers and Numerical Methods for
// Fluid Dynamics, ch. 4): [0, 1] x [0, 0.1], slip walls top and bottom ("walls"), "left" and "right" ends.
// Element size: mesh.size in the case (Mesh.MeshSizeMax).
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1, 0.1, 0};
Point(4) = {0, 0.1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("walls") = {1, 3};
Physical Curve("right") = {2};
Physical Curve("left") = {4};
Physical Surface("domain") = {1};
Mesh.Algorithm = 6;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
