// A thin channel for the one-dimensional Riemann problems (Toro, Riemann Solvers and Numerical Methods for
// Fluid Dynamics, ch. 4): [0, 1] x [0, 0.1], slip walls top and bottom ("walls"), "left" and "right" ends.
// Element size: mesh.size in the case (Mesh.MeshSizeMax).
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1, 0.1, 0};
Point(4) = {0, 0.1, 0};
// The diaphragm x = 0.5 is a mesh line, so that every element starts on one side of it: the initial jump is
// then projected exactly, the same at every height. Cut by unstructured triangles it would start as a jump
// whose position wanders by up to an element across the channel, and that wandering leaves transverse sound
// waves between the walls that no scheme removes (otherwise a third of Sod's error at p = 2: docs/theory.md).
Point(5) = {0.5, 0, 0};
Point(6) = {0.5, 0.1, 0};
Line(1) = {1, 5};
Line(5) = {5, 2};
Line(2) = {2, 3};
Line(3) = {3, 6};
Line(6) = {6, 4};
Line(4) = {4, 1};
Line(7) = {5, 6};
Curve Loop(1) = {1, 7, 6, 4};
Plane Surface(1) = {1};
Curve Loop(2) = {5, 2, 3, -7};
Plane Surface(2) = {2};
Physical Curve("bottom") = {1, 5};
Physical Curve("top") = {3, 6};
Periodic Curve {-6} = {1} Translate {0, 0.1, 0};
Periodic Curve {-3} = {5} Translate {0, 0.1, 0};
Physical Curve("right") = {2};
Physical Curve("left") = {4};
Physical Surface("domain") = {1, 2};
Mesh.Algorithm = 6;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
