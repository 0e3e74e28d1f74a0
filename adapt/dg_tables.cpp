// The DG solver's mesh tables of a forest's leaf mesh, by kernels on the forest's backend (adapt/dg_tables.hpp).
// Compiled by nvcc in a CUDA build, like forest.cpp.
#include "adapt/dg_tables.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "adapt/dg_tables_K.hpp"
#include "adapt/fused_passes.hpp"
#include "kernels/algorithms.hpp"

namespace kempe::adapt {

namespace {
/// Above every boundary group + 1: a bad leaf's value in LeafOrGroup.
constexpr std::int64_t bad_leaf_mark = std::int64_t(1) << 40;

/// For i below the leaves, bad_leaf_mark when leaf i is degenerate or clockwise; and the boundary group + 1 of
/// face i below the faces: one maximum answers both (one wait for the device instead of two).
struct LeafOrGroup {
  BadLeaf bad;
  BoundaryGroupPlusOne group;
  index_t leaves, faces;
  KEMPE_HD std::int64_t operator()(index_t i) const {
    const std::int64_t b = i < leaves && bad(i) ? bad_leaf_mark : 0;
    const std::int64_t g = i < faces ? std::int64_t(group(i)) : 0;
    return b > g ? b : g;
  }
};
}  // namespace

template <class Real>
DGTableCounts build_dg_tables(const TriangleForest& forest, const DGTablePtrs<Real>& t) {
  const std::string& name = forest.source();
  if (!forest.planar())
    throw std::invalid_argument(name + ": the DG solver needs a 2D mesh in the xy plane; this adapted mesh is a surface in 3D");
  const ForestPtrs& f = forest.arrays();
  const FacePtrs& faces = forest.faces();
  if (f.edge_tangent != nullptr && t.bend == nullptr)
    throw std::invalid_argument(name + ": its boundary bends, and the DG tables were given no place for the curve's angles");
  const Backend b = forest.backend();
  const index_t ne = f.num_elements, nf = faces.num_faces, nn = f.num_nodes;

  if (3 * std::int64_t(ne) > std::numeric_limits<index_t>::max())
    throw std::length_error(name + ": the adapted mesh's " + std::to_string(ne) +
                            " leaves have more vertex-to-element entries than a 32-bit index holds");
  // The optional tables come whole or not at all: a kernel that reads one of them must find all.
  const int offsets = (t.neighbor_dx != nullptr) + (t.neighbor_dy != nullptr) + (t.half_neighbor_dx != nullptr) +
                      (t.half_neighbor_dy != nullptr);
  const int vertex_lists = (t.vertex_element_begin != nullptr) + (t.vertex_elements != nullptr) + (t.sort_keys != nullptr);
  if (offsets % 4 != 0 || vertex_lists % 3 != 0)
    throw std::invalid_argument(name + ": the DG tables' neighbour offsets and vertex-to-element lists are built whole or not at "
                                "all; some of their places were given and some not");
  DGTableCounts counts;
  const std::int64_t most = maximum(b, std::max(ne, nf), LeafOrGroup{BadLeaf{f}, BoundaryGroupPlusOne{faces}, ne, nf}, 0);
  if (most >= bad_leaf_mark)
    throw std::runtime_error(name + ": " + std::to_string(sum(b, ne, BadLeaf{f})) +
                             " leaves of the adapted mesh are degenerate or clockwise");
  counts.boundary_groups = static_cast<std::int32_t>(most);
  const Geometry geometry = forest.geometry();
  const DGElementTables<Real> element_tables{f, forest.edge_faces(), geometry.centroid_x, geometry.centroid_y, t};
  const DGFaceTables<Real> face_tables{f, faces, geometry, t};
  if (t.vertex_element_begin == nullptr) {
    forall_both(b, ne, element_tables, nf, face_tables);
    return counts;
  }
  // Vertex v's elements in ascending order: the (vertex, element) entries, listed in element order, sorted stably
  // by vertex; each vertex's list starts at the first entry of its own (VertexElementBegin). Nodes no leaf uses (a
  // start mesh's stray nodes) get empty lists. 32-bit keys with the elements as values sort in half the passes
  // of (vertex, element) pairs packed in 64-bit keys: 7.0-8.0 ms against 9.3-10.5 for 1.3M entries on 2 threads
  // (bench/results/2026-11-29-edge-records/vertex_sort.txt).
  forall_three(b, ne, element_tables, nf, face_tables, ne, VertexElementEntries{f, t.sort_keys, t.vertex_elements});
  stable_sort_by_key(b, t.sort_keys, t.vertex_elements, 3 * ne);
  forall(b, 3 * ne + 1, VertexElementBegin{t.sort_keys, 3 * ne, nn, t.vertex_element_begin});
  return counts;
}

template DGTableCounts build_dg_tables<float>(const TriangleForest&, const DGTablePtrs<float>&);
template DGTableCounts build_dg_tables<double>(const TriangleForest&, const DGTablePtrs<double>&);

}  // namespace kempe::adapt
