// The DG solver's mesh tables (solver/numerics/dg_mesh.hpp) of a forest's leaf mesh, built by kernels in the
// forest's backend memory, so that the solver can rebuild them after each adaptation with no mesh array crossing
// to the host. On a conforming leaf mesh they are the tables DGMesh computes on the host from the same mesh, bit
// for bit (the same point functions, in the same order of operations), except the boundary curve's angles, which
// agree to rounding at the face ends; on a mesh with hanging faces the coarse element's half-faces and its second
// neighbour across a split edge come in the half tables.
#pragma once

#include <cstdint>

#include "adapt/forest.hpp"

namespace kempe::adapt {

/// Where the tables go (the caller's arrays in the forest's backend memory). Shapes: [elements], [faces],
/// [elements][3] (local edge j of an element joins its vertices j and j + 1) and [nodes + 1] as stated.
template <class Real>
struct DGTablePtrs {
  // [elements]: the affine map's Jacobian and inverse derivatives (kernels/triangle.hpp), and the radii.
  Real *jacobian = nullptr, *dr_dx = nullptr, *dr_dy = nullptr, *ds_dx = nullptr, *ds_dy = nullptr;
  Real *inradius = nullptr, *circumradius = nullptr;
  // [faces], in the forest's face order (by color, each color by left element).
  index_t *face_left = nullptr, *face_right = nullptr;
  std::int8_t *face_left_local = nullptr, *face_right_local = nullptr;
  /// whole_edge, first_half or second_half (adapt/forest_K.hpp): the part of each side's edge the face covers
  std::int8_t *face_left_half = nullptr, *face_right_half = nullptr;
  std::int32_t* face_boundary = nullptr;
  Real *normal_x = nullptr, *normal_y = nullptr, *length = nullptr;
  Real *x0 = nullptr, *y0 = nullptr, *x1 = nullptr, *y1 = nullptr;  ///< the face's ends, in its left side's direction
  /// [faces][3] or null: the boundary curve's tangent angle relative to a boundary face at its first vertex,
  /// middle and second vertex (kernels/dg_K.hpp, Faces::bend); required when the forest's boundary bends.
  Real* bend = nullptr;
  // [elements][3]. Across a split edge (two finer neighbours) the first half, counterclockwise from vertex j, is
  // in the main tables and the second half in the half tables; elsewhere the half tables hold no_element and 0.
  index_t *element_faces = nullptr, *element_half_faces = nullptr;
  index_t *element_neighbors = nullptr, *element_half_neighbors = nullptr;  ///< no_element on the boundary
  index_t* element_vertices = nullptr;
  Real *vertex_dx = nullptr, *vertex_dy = nullptr;      ///< centroid to each vertex
  /// Centroid to the neighbour's centroid across the face. All four null: not built (only the moment limiter
  /// reads them, and reading each neighbour's centroid is a quarter of the tables' time).
  Real *neighbor_dx = nullptr, *neighbor_dy = nullptr;
  Real *half_neighbor_dx = nullptr, *half_neighbor_dy = nullptr;
  // The vertex-to-element table (CSR): vertex v's elements, ascending, are
  // vertex_elements[vertex_element_begin[v] .. vertex_element_begin[v + 1]). All three pointers below null: not
  // built (only the vertex limiter reads it, and its sort is about a fifth of the tables' time).
  index_t* vertex_element_begin = nullptr;  ///< [nodes + 1]
  index_t* vertex_elements = nullptr;       ///< [elements * 3]
  /// [elements * 3] scratch: the sort keys of the vertex-to-element table, each entry's vertex (kept by the
  /// caller, so that a rebuild allocates nothing)
  index_t* sort_keys = nullptr;
};

/// What the host learns of the tables built: counts only.
struct DGTableCounts {
  std::int32_t boundary_groups = 0;  ///< the largest boundary group of a boundary face + 1
};

/// Fills every table of `t` from the forest's current leaf mesh, on the forest's backend (the neighbour offsets
/// and the vertex-to-element table only where their places are given). std::invalid_argument naming the mesh
/// when it is not planar (the solver works in the xy plane), when `t.bend` is missing for a forest whose
/// boundary bends, or when only some places of the offsets or of the vertex-to-element table are given;
/// std::runtime_error when a leaf is degenerate or clockwise; std::length_error when the vertex-to-element table
/// would not fit a 32-bit index.
template <class Real>
DGTableCounts build_dg_tables(const TriangleForest& forest, const DGTablePtrs<Real>& t);

extern template DGTableCounts build_dg_tables<float>(const TriangleForest&, const DGTablePtrs<float>&);
extern template DGTableCounts build_dg_tables<double>(const TriangleForest&, const DGTablePtrs<double>&);

}  // namespace kempe::adapt
