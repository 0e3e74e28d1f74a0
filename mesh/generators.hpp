// Structured meshes of every element type, built in code (no Gmsh): the meshes of the coloring, ordering and
// solver tests and of the benchmarks. The first ones return a RawMesh for build_mesh; the triangle meshes of
// the solver come built, not yet colored.
#pragma once

#include <cstdint>

#include "mesh/mesh.hpp"

namespace kempe {

/// How cube_grid splits each cube.
enum class CellSplit { hexahedra, prisms, tetrahedra };

/// nx x ny unit squares on [0, nx] x [0, ny], each split into two triangles (or kept as a quadrilateral).
/// Groups: "wall".
RawMesh rectangle_grid(int nx, int ny, bool triangles);

/// n x n unit squares on [0, n]^2 (rectangle_grid).
RawMesh square_grid(int n, bool triangles);

/// n^3 unit cubes on [0, n]^3 as hexahedra, 2 prisms each, or 6 tetrahedra each (Kuhn's split along the
/// main diagonal, conforming across cubes).
RawMesh cube_grid(int n, CellSplit split);

/// The unit sphere as a closed triangle surface: an icosahedron whose triangles are split into four, `levels`
/// times (20 * 4^levels triangles), every node pushed onto the sphere. Its dual graph is cubic with no boundary.
RawMesh icosphere(int levels);

/// A closed torus (genus 1): an n x m grid of quadrilaterals wrapped both ways, each split into two triangles
/// along alternating diagonals, on the torus of radii 2 and 1. No boundary; its dual graph is cubic.
RawMesh torus_grid(int n, int m);

/// Each triangle of a 2D triangle mesh split into three quadrilaterals (a vertex, two edge midpoints and the
/// centroid), as Gmsh does: the dual graph has a triangle inside every old triangle, so it is not bipartite.
RawMesh split_into_quads(const RawMesh& tri);

/// An n x n triangle grid on [0, size]^2. `distortion` > 0 moves interior nodes at random by up to that many
/// cells; < 0 bends the grid by a smooth map of that amplitude (in cells of an 8 x 8 grid), the same domain map
/// at every n, so that the meshes of a convergence study are one family. Sides stay straight.
Mesh grid_mesh(int n, double size, double distortion, std::uint64_t seed);

/// grid_mesh (seed 5) with its sides named bottom, top, left and right, then joined periodically in x and y.
Mesh periodic_grid_mesh(int n, double size, double distortion);

/// The double Mach reflection domain [0, 4] x [0, 1] (docs/cases.md) as a 4 ny x ny grid of squares split into
/// 8 ny^2 triangles (ny = 280: 627,200, the size of Table 10 in Giuliani & Krivodonova, "Face coloring in
/// unstructured CFD codes", Parallel Computing 2017). Groups: 0 "shock" (left, top, and the bottom for x < 1/6:
/// the moving shock's states), 1 "wall" (the bottom beyond x = 1/6), 2 "outflow" (right). ny must be a multiple
/// of 6 for a grid line to meet the bottom at the shock foot. With shuffle_seed != 0 the triangles (and so the
/// faces) come in a random order, as an unstructured mesh generator's numbering would: first-fit greedy then
/// needs 4-5 colors, as in that paper, instead of the 3 the grid's own order gives it.
Mesh double_mach_mesh(int ny, unsigned shuffle_seed = 0);

}  // namespace kempe
