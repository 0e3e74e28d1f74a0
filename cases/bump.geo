// The High-Order CFD Workshop's subsonic Gaussian bump (case C1.1): a channel x in [-1.5, 1.5] between the
// bump y = 0.0625 exp(-25 x^2) and y = 0.8. Groups "inflow" (left), "outflow" (right), "wall" (bottom, top).
// Element size: mesh.size in the case (Mesh.MeshSizeMax); the bump is a spline through 321 points (finer than any
// mesh here, so that the spline's own error stays below the scheme's: with 81 the entropy error stalled at h = 0.025).
n = 320;
For i In {0 : n}
  x = -1.5 + 3 * i / n;
  Point(100 + i) = {x, 0.0625 * Exp(-25 * x * x), 0};
EndFor
Point(1) = {1.5, 0.8, 0};
Point(2) = {-1.5, 0.8, 0};
Spline(1) = {100 : 100 + n};
Line(2) = {100 + n, 1};
Line(3) = {1, 2};
Line(4) = {2, 100};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("wall") = {1, 3};
Physical Curve("outflow") = {2};
Physical Curve("inflow") = {4};
Physical Surface("domain") = {1};
Mesh.Algorithm = 6;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
