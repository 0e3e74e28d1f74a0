// The isentropic vortex's domain (Shu, ICASE report 97-65 / 2001-11): [0, 10]^2, periodic in x and y. The
// boundary meshes of opposite sides match under the translation, so that the case can join them
// (boundaries.*.condition: periodic). Groups "left", "right", "bottom", "top".
// Element size: mesh.size in the case (Mesh.MeshSizeMax).
L = 10;
Point(1) = {0, 0, 0};
Point(2) = {L, 0, 0};
Point(3) = {L, L, 0};
Point(4) = {0, L, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {4, 3};
Line(4) = {1, 4};
Curve Loop(1) = {1, 2, -3, -4};
Plane Surface(1) = {1};
Periodic Curve {2} = {4} Translate {L, 0, 0};
Periodic Curve {3} = {1} Translate {0, L, 0};
Physical Curve("bottom") = {1};
Physical Curve("right") = {2};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Surface("domain") = {1};
Mesh.Algorithm = 6;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
