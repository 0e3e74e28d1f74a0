#!/usr/bin/python3
"""The strip of tests/unit/shock_tubes.hpp (n x 2 squares of two triangles on [0, 1] x [0, 2 / n]) as a Gmsh 2.2
file, for `kempe run`. Physical lines bottom, top, left, right. Usage: strip_msh.py N OUT.msh [MODE]
MODE: tests     the tests' strip: every square split along the same diagonal, nodes sheared by (7 i + 3 j) mod 5
      column    the same split, the shear by column only (7 i mod 5), so that top and bottom can be paired
      mirrored  the column shear, the upper row mirrored about y = 1 / n (its diagonals run the other way)"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "tests"
nx, ny = n, 2
node = lambda i, j: j * (nx + 1) + i + 1
nodes = []
for j in range(ny + 1):
    for i in range(nx + 1):
        shift = (i * 7 + j * 3) % 5 if mode == "tests" else (i * 7) % 5
        nodes.append(((i + 0.1 * shift / 5.0 * (1 if 0 < i < nx else 0)) / n, j / n))
elements = [(1, 1, [node(i, 0), node(i + 1, 0)]) for i in range(nx)]
elements += [(1, 2, [node(i, ny), node(i + 1, ny)]) for i in range(nx)]
elements += [(1, 3, [node(0, j), node(0, j + 1)]) for j in range(ny)]
elements += [(1, 4, [node(nx, j), node(nx, j + 1)]) for j in range(ny)]
for j in range(ny):
    for i in range(nx):
        a, b, c, d = node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)
        if mode == "mirrored" and j == 1:
            elements += [(2, 5, [a, b, d]), (2, 5, [b, c, d])]
        else:
            elements += [(2, 5, [a, b, c]), (2, 5, [a, c, d])]
with open(out, "w") as f:
    f.write('$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n5\n1 1 "bottom"\n1 2 "top"\n1 3 "left"\n1 4 "right"\n'
            '2 5 "fluid"\n$EndPhysicalNames\n')
    f.write("$Nodes\n%d\n" % len(nodes))
    for k, (x, y) in enumerate(nodes):
        f.write("%d %.17g %.17g 0\n" % (k + 1, x, y))
    f.write("$EndNodes\n$Elements\n%d\n" % len(elements))
    for k, (kind, tag, ns) in enumerate(elements):
        f.write("%d %d 2 %d %d %s\n" % (k + 1, kind, tag, tag, " ".join(map(str, ns))))
    f.write("$EndElements\n")
