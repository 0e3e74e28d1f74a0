// The passes of one adaptation of a triangle forest (adapt/forest.hpp), as point functions run through forall
// on either backend. Every pass reads the old arrays and writes new ones, or gathers into its own row: no two
// threads write one place, so the result is the same for any thread count, on the CPU and on the GPU.
//
// Conventions (adapt/forest.hpp says why):
// - A triangle's vertices v0 v1 v2 run counterclockwise; its local edge j joins v_j and v_{j+1}.
// - Children: 0 = (v0, m0, m2), 1 = (m0, v1, m1), 2 = (m2, m1, v2), 3 = (m1, m2, m0), m_j the midpoint of edge j.
//   Corner child j keeps vertex j of its parent; the centre child's edge j is parallel to the parent's edge j.
// - An edge node has two sides; the element on side 0 runs along it from its first vertex to its second, the
//   one on side 1 the other way. Its first child is the half at the first vertex (counterclockwise as seen from
//   side 0, the paper's left element), its second child the other half.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/types.hpp"
#include "kernels/backend.hpp"

namespace kempe::adapt {

/// Which part of an element's edge a face covers (base/types.hpp).
using kempe::first_half;
using kempe::second_half;
using kempe::whole_edge;

/// edge_flags bits.
inline constexpr std::uint8_t edge_periodic = 1;  ///< the two sides see the edge at different places (a periodic join)
inline constexpr std::uint8_t edge_interior = 2;  ///< made inside a refined triangle (no parent edge)

/// edge_state bits of one adaptation.
inline constexpr std::uint8_t edge_splits = 1;    ///< a leaf edge that gets two children
inline constexpr std::uint8_t edge_unsplits = 2;  ///< a split edge whose children go
/// The leaf on side 0 (side 1) refines and has the edge as its local edge 0: its three interior edges follow the
/// edge in the new numbering (EdgeCounts). Noted here by EdgeActions, which reads those leaves anyway, so that
/// the passes that number edges read one byte per edge instead of the leaves' actions.
inline constexpr std::uint8_t edge_inner_side0 = 4;
inline constexpr std::uint8_t edge_inner_side1 = 8;

/// Raw pointers to every array of a forest (in the backend's memory). Shapes: [nodes], [elements][3],
/// [edges][2] (per side) as stated.
struct ForestPtrs {
  index_t num_nodes = 0, num_elements = 0, num_edges = 0;
  index_t root_nodes = 0;  ///< nodes below this index are the start mesh's and never go
  int num_colors = 0;      ///< K, the start mesh's colors; faces use 0 .. 2K-1
  double *x = nullptr, *y = nullptr, *z = nullptr;
  index_t* node_edge = nullptr;  ///< [nodes] the edge a midpoint node halves (no_element for root nodes)

  index_t* elem_vertices = nullptr;      ///< [elements][3]
  index_t* elem_edges = nullptr;         ///< [elements][3]
  std::uint8_t* elem_sides = nullptr;    ///< [elements] bit j: the element's side of its edge j
  std::uint8_t* elem_level = nullptr;    ///< [elements] 0 for the start mesh's triangles
  std::uint64_t* elem_path = nullptr;    ///< [elements] child number at level l in bits 2l-2, 2l-1
  index_t* elem_root = nullptr;          ///< [elements] the start mesh's triangle it lies in

  index_t* edge_parent = nullptr;       ///< [edges] no_element for start edges and interior edges
  index_t* edge_child = nullptr;        ///< [edges] first child (the second follows it), no_element for a leaf
  index_t* edge_mid = nullptr;          ///< [edges][2] midpoint node as seen from each side, no_element for a leaf
  std::int8_t* edge_color = nullptr;    ///< [edges]
  std::int32_t* edge_boundary = nullptr;  ///< [edges] boundary group, no_boundary inside
  std::uint8_t* edge_flags = nullptr;   ///< [edges] edge_periodic, edge_interior
  std::uint8_t* edge_shift = nullptr;   ///< [edges] periodic edges: which translation takes side 0 to side 1
  /// [edges][4] or null: unit tangents (x, y) of the boundary curve at the edge's first and second vertex, in side
  /// 0's direction; zero on straight edges. Planar meshes whose boundary bends (mesh/boundary_curve.hpp).
  double* edge_tangent = nullptr;
  index_t* edge_elem = nullptr;         ///< [edges][2] the leaf on each side that has this edge itself, or no_element
  std::int8_t* edge_local = nullptr;    ///< [edges][2] that leaf's local edge index
};

/// One face of the leaf mesh, in 32 bytes: BuildFaces writes each face as one record at its place, and faces
/// are spread over 2K color ranges, so a face is one write stream per color instead of one per field.
struct alignas(16) Face {
  index_t left = no_element, right = no_element;  ///< right = no_element on the boundary; left < right otherwise
  index_t edge = no_element;                      ///< the edge node it is
  std::int32_t boundary = no_boundary;
  index_t vertices[2] = {no_element, no_element};  ///< in the left element's direction
  std::int8_t left_local = -1, right_local = -1;
  std::int8_t left_half = 0, right_half = 0;  ///< whole_edge, first_half or second_half
  std::int8_t color = -1;
};
static_assert(sizeof(Face) == 32, "a face record is 32 bytes");

/// Faces of the leaf mesh: [faces] records.
struct FacePtrs {
  index_t num_faces = 0;
  Face* face = nullptr;
};

/// Up to this many translations between periodic sides (the table of ForestPtrs::edge_shift).
inline constexpr int max_periodic_shifts = 16;
struct PeriodicShifts {
  double dx[max_periodic_shifts] = {}, dy[max_periodic_shifts] = {}, dz[max_periodic_shifts] = {};
};

KEMPE_HD int child_number(std::uint64_t path, int level) { return level == 0 ? 0 : int((path >> (2 * (level - 1))) & 3u); }
KEMPE_HD std::uint64_t parent_path(std::uint64_t path, int level) {
  return level == 0 ? path : path & ~(std::uint64_t(3) << (2 * (level - 1)));
}
KEMPE_HD int side_of(const ForestPtrs& f, index_t e, int j) { return (f.elem_sides[e] >> j) & 1; }

/// Whether elements g .. g+3 are the four children of one parent, all leaves (the only groups that coarsen).
KEMPE_HD bool is_sibling_group(const ForestPtrs& f, index_t g) {
  if (g < 0 || g + 3 >= f.num_elements) return false;
  const int level = f.elem_level[g];
  if (level == 0) return false;
  const std::uint64_t parent = parent_path(f.elem_path[g], level);
  for (int k = 0; k < 4; ++k) {
    const index_t e = g + k;
    if (f.elem_level[e] != level || f.elem_root[e] != f.elem_root[g] || parent_path(f.elem_path[e], level) != parent ||
        child_number(f.elem_path[e], level) != k)
      return false;
  }
  return true;
}

/// visit(neighbour) for every leaf across the edges of leaf e: the one on the same edge, the two finer ones on its
/// halves, or the coarser one whose edge contains it.
template <class Visit>
KEMPE_HD void for_each_neighbor(const ForestPtrs& f, index_t e, Visit&& visit) {
  for (int j = 0; j < 3; ++j) {
    const index_t edge = f.elem_edges[3 * e + j];
    const int other = 1 - side_of(f, e, j);
    const index_t same = f.edge_elem[2 * edge + other];
    if (same != no_element) {
      visit(same);
    } else if (f.edge_child[edge] != no_element) {
      for (int c = 0; c < 2; ++c) {
        const index_t finer = f.edge_elem[2 * (f.edge_child[edge] + c) + other];
        if (finer != no_element) visit(finer);
      }
    } else if (f.edge_parent[edge] != no_element) {
      const index_t coarser = f.edge_elem[2 * f.edge_parent[edge] + other];
      if (coarser != no_element) visit(coarser);
    }
  }
}

/// splitmix64: the seeded random flags are a function of (seed, cycle, element), the same on every backend.
KEMPE_HD std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
KEMPE_HD double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  return double(mix64(mix64(seed ^ mix64(stream)) ^ i) >> 11) * 0x1.0p-53;
}

/// Flags a random fraction of the leaves for refinement and of the sibling groups for coarsening (a group's four
/// leaves draw one number, by the index of its first child).
struct FlagRandom {
  ForestPtrs f;
  double refine_fraction, coarsen_fraction;
  std::uint64_t seed, cycle;
  std::uint8_t *refine, *coarsen;
  KEMPE_HD void operator()(index_t e) const {
    refine[e] = uniform01(seed, 2 * cycle, std::uint64_t(e)) < refine_fraction;
    const int level = f.elem_level[e];
    const index_t g = e - child_number(f.elem_path[e], level);
    coarsen[e] = level > 0 && uniform01(seed, 2 * cycle + 1, std::uint64_t(g)) < coarsen_fraction;
  }
};

struct FlagAll {
  std::uint8_t *refine, *coarsen;
  std::uint8_t refine_value, coarsen_value;
  KEMPE_HD void operator()(index_t e) const {
    refine[e] = refine_value;
    coarsen[e] = coarsen_value;
  }
};

/// delta[e] = +1 (refine), -1 (coarsen: the whole group is flagged and none of it refines) or 0; clears the
/// first balance pass's flags.
struct InitDelta {
  ForestPtrs f;
  const std::uint8_t *refine, *coarsen;
  int max_level;
  std::int8_t* delta;
  std::uint8_t* raise;
  KEMPE_HD bool refines(index_t e) const { return refine[e] && f.elem_level[e] < max_level; }
  KEMPE_HD void operator()(index_t e) const {
    raise[e] = 0;
    if (refines(e)) {
      delta[e] = 1;
      return;
    }
    const int level = f.elem_level[e];
    const index_t g = e - child_number(f.elem_path[e], level);
    bool group = coarsen[e] && is_sibling_group(f, g);
    for (int k = 0; group && k < 4; ++k) group = coarsen[g + k] && !refines(g + k);
    delta[e] = group ? -1 : 0;
  }
};

/// 2:1 balance, one pass: raise[e] = 1 where a neighbour's new level would exceed leaf e's by more than one. A
/// refining leaf is never raised (its neighbours are at most one level finer now, so at most two after), nor is
/// one whose new level is within one of the maximum (can_rise). Only leaves whose new level can be changing look,
/// so that a pass costs those, not the mesh:
/// - a refining leaf raises the neighbours it exceeds (a push), once: in the first pass, or in the pass after it
///   was raised itself (raised_before). Its new level stays, and a kept neighbour it raises refines, after which
///   it exceeds that neighbour no more; a coarsening neighbour it raises only stays, and looks again itself:
/// - a coarsening leaf, and one whose group the last pass kept from coarsening (vetoed), look for neighbours
///   that exceed them (a pull) in every pass, as any neighbour's rise can catch them.
/// Every raise is one the rule asks for and none it asks for is missed, so the passes reach the same least
/// balanced levels as raising every leaf that a neighbour exceeds, pass after pass. (The flags are or-ed:
/// several leaves may set one flag, with the same value, so the result does not depend on their order.)
/// Pushing from a vetoed leaf instead, and pulling only there after the first pass, does less work in the later
/// passes but took the balance 1.2 times as long on the CPU (docs/benchmarks.md).
struct FindRaise {
  ForestPtrs f;
  const std::int8_t* delta;
  const std::uint8_t* raised_before;  ///< [elements] the last pass's raise flags; null in the first pass
  const std::uint8_t* vetoed;         ///< [elements] ApplyRaise's; null in the first pass
  int max_level;
  std::uint8_t* raise;  ///< [elements] zero before
  KEMPE_HD int target(index_t e) const { return f.elem_level[e] + delta[e]; }
  KEMPE_HD bool can_rise(index_t e) const { return delta[e] <= 0 && target(e) + 1 < max_level; }
  KEMPE_HD void operator()(index_t e) const {
    const int d = delta[e];
    if (d > 0) {
      if (raised_before != nullptr && !raised_before[e]) return;  // it pushed when it began to refine
      const int below = target(e) - 1;
      for_each_neighbor(f, e, [&](index_t n) {
        if (can_rise(n) && target(n) < below) store_shared(raise + n, std::uint8_t(1));
      });
      return;
    }
    if ((d < 0 || (vetoed != nullptr && vetoed[e])) && can_rise(e)) {
      const int above = target(e) + 1;
      bool exceeded = false;
      for_each_neighbor(f, e, [&](index_t n) { exceeded = exceeded || target(n) > above; });
      if (exceeded) store_shared(raise + e, std::uint8_t(1));
    }
  }
};

/// Applies a pass's raises: a coarsening group with a raised member stays (all four read the same flags, and
/// are vetoed: FindRaise's next pass looks from them), a kept leaf that is raised refines. Clears `clear` (the
/// flags the next pass writes) on the way.
struct ApplyRaise {
  ForestPtrs f;
  const std::uint8_t* raise;
  std::int8_t* delta;
  std::uint8_t* vetoed;
  std::uint8_t* clear;
  KEMPE_HD void operator()(index_t e) const {
    bool kept = false;
    if (delta[e] < 0) {
      const index_t g = e - child_number(f.elem_path[e], f.elem_level[e]);
      for (int k = 0; k < 4; ++k) kept = kept || raise[g + k];
      if (kept) delta[e] = 0;
    } else if (delta[e] == 0 && raise[e]) {
      delta[e] = 1;
    }
    vetoed[e] = kept;
    clear[e] = 0;
  }
};

/// Whether a leaf edge splits (a leaf that has the edge itself refines) or a split edge loses its children
/// (every leaf on them coarsens and no leaf that has the edge itself refines), and which refining leaves have it
/// as their local edge 0 (edge_inner_side0, edge_inner_side1).
struct EdgeActions {
  ForestPtrs f;
  const std::int8_t* delta;
  std::uint8_t* state;
  KEMPE_HD void operator()(index_t edge) const {
    bool refined_side = false;
    std::uint8_t inner = 0;
    for (int s = 0; s < 2; ++s) {
      const index_t e = f.edge_elem[2 * edge + s];
      const bool refines = e != no_element && delta[e] > 0;
      refined_side = refined_side || refines;
      if (refines && f.edge_local[2 * edge + s] == 0) inner |= s == 0 ? edge_inner_side0 : edge_inner_side1;
    }
    std::uint8_t st = 0;
    const index_t child = f.edge_child[edge];
    if (child == no_element) {
      if (refined_side) st = edge_splits;
    } else if (!refined_side && f.edge_child[child] == no_element && f.edge_child[child + 1] == no_element) {
      bool all_coarsen = true;
      for (int c = 0; c < 2; ++c)
        for (int s = 0; s < 2; ++s) {
          const index_t e = f.edge_elem[2 * (child + c) + s];
          all_coarsen = all_coarsen && (e == no_element || delta[e] < 0);
        }
      if (all_coarsen) st = edge_unsplits;
    }
    state[edge] = st | inner;
  }
};

/// The new edges that come from old edge `edge`: its two children when it splits now, then the interior edges of
/// the leaves that refine and have it as their local edge 0 (side 0's leaf first).
KEMPE_HD index_t edges_made(const std::uint8_t* state, index_t edge) {
  const unsigned st = state[edge];
  return ((st & edge_splits) ? 2 : 0) + ((st & edge_inner_side0) ? 3 : 0) + ((st & edge_inner_side1) ? 3 : 0);
}
/// Whether `edge` is the first of its parent's two children (the second is edge + 1: siblings are numbered
/// next to each other at every adaptation).
KEMPE_HD bool is_first_child(const ForestPtrs& f, index_t edge) {
  const index_t parent = f.edge_parent[edge];
  return parent != no_element && f.edge_child[parent] == edge;
}

/// Per old edge, what the new numbering gives it. Edges: none when it goes; else itself, followed by the edges
/// made from it (edges_made), except that a split edge's two children stay next to each other: what is made
/// from a first child follows its sibling, before what is made from the sibling itself. Nodes: the midpoints
/// it has after the adaptation (two on a periodic edge), in edge order after the start mesh's nodes. Numbering
/// new edges and midpoints next to the old edge they come from keeps edges, nodes and elements in one order
/// (elements are in tree order), so that a pass over the leaves finds their edges and nodes nearby in memory
/// instead of scattered over it, as appending them would leave them after a few adaptations.
struct EdgeCounts {
  ForestPtrs f;
  const std::int8_t* delta;
  const std::uint8_t* state;
  index_t *edges, *midpoints;
  KEMPE_HD void operator()(index_t edge) const {
    bool kept = true;
    const index_t parent = f.edge_parent[edge];
    if (parent != no_element) {
      kept = !(state[parent] & edge_unsplits);
    } else if (f.edge_flags[edge] & edge_interior) {
      // The centre child's edges go with its group; a split interior edge has no leaf on it, and stays.
      const index_t e = f.edge_elem[2 * edge + 1];
      kept = !(e != no_element && delta[e] < 0);
    }
    const bool split = state[edge] & edge_splits;
    const bool split_after = kept && (split || (f.edge_child[edge] != no_element && !(state[edge] & edge_unsplits)));
    index_t count = 0;
    if (kept) {
      count = 1;
      if (!is_first_child(f, edge)) {
        count += edges_made(state, edge);
        if (f.edge_parent[edge] != no_element) count += edges_made(state, edge - 1);  // its sibling's
      }
    }
    edges[edge] = count;
    midpoints[edge] = split_after ? ((f.edge_flags[edge] & edge_periodic) ? 2 : 1) : 0;
  }
};

/// New elements per leaf: four when it refines, one when it stays, one for the first of a coarsening group.
struct ElementCounts {
  ForestPtrs f;
  const std::int8_t* delta;
  index_t* count;
  KEMPE_HD void operator()(index_t e) const {
    const int d = delta[e];
    count[e] = d > 0 ? 4 : d == 0 ? 1 : (child_number(f.elem_path[e], f.elem_level[e]) == 0 ? 1 : 0);
  }
};

struct Refines {
  const std::int8_t* delta;
  KEMPE_HD int operator()(index_t e) const { return delta[e] > 0; }
};

/// Where the new arrays put what the old ones had: exclusive prefix sums of the counts above. The start mesh's
/// nodes keep their indices; every other node is the midpoint of a split edge, numbered in the order of its edge.
struct AdaptOffsets {
  const index_t* edge_count;   ///< [old edges] EdgeCounts: 0 when the edge goes
  const index_t* edge_new;     ///< [old edges] new index of a kept edge (exclusive scan of edge_count)
  const index_t* mid_offset;   ///< [old edges] its midpoints at root_nodes + this (exclusive scan of EdgeCounts::midpoints)
  const index_t* node_new;     ///< [old nodes] new index of a kept node, no_element for one that goes
  const index_t* elem_offset;  ///< [old elements] first new element
  const std::uint8_t* state;
  const std::int8_t* delta;
  index_t root_nodes = 0;
};

/// The new index of the midpoint of old edge `edge` as seen from `side`, once it is split (now or before): side
/// 1's is the second of a periodic edge's two.
KEMPE_HD index_t new_midpoint(const ForestPtrs& f, const AdaptOffsets& o, index_t edge, int side) {
  return o.root_nodes + o.mid_offset[edge] + ((f.edge_flags[edge] & edge_periodic) && side == 1 ? 1 : 0);
}
/// The new index of the first edge made from old edge `edge` (EdgeCounts says where they go).
KEMPE_HD index_t first_made(const ForestPtrs& f, const AdaptOffsets& o, index_t edge) {
  if (is_first_child(f, edge)) return o.edge_new[edge + 1] + 1;
  index_t at = o.edge_new[edge] + 1;
  if (f.edge_parent[edge] != no_element) at += edges_made(o.state, edge - 1);
  return at;
}
/// The new index of the first child of old edge `edge`, once it is split.
KEMPE_HD index_t new_first_child(const ForestPtrs& f, const AdaptOffsets& o, index_t edge) {
  if (o.state[edge] & edge_splits) return first_made(f, o, edge);
  return o.edge_new[f.edge_child[edge]];
}

/// New node numbers: the start mesh's stay; a midpoint follows its edge (none when the edge unsplits).
struct NodeNumbers {
  ForestPtrs f;
  AdaptOffsets o;
  index_t* node_new;
  KEMPE_HD void operator()(index_t n) const {
    if (n < f.root_nodes) {
      node_new[n] = n;
      return;
    }
    const index_t edge = f.node_edge[n];
    if (o.edge_count[edge] == 0 || (o.state[edge] & edge_unsplits)) {
      node_new[n] = no_element;
      return;
    }
    node_new[n] = o.root_nodes + o.mid_offset[edge] + (f.edge_mid[2 * edge] == n ? 0 : 1);
  }
};

/// Clears edge i's incidence (BuildElements fills it, each new leaf on its own three edge sides).
KEMPE_HD void clear_incidence(const ForestPtrs& to, index_t i) {
  to.edge_elem[2 * i] = no_element;
  to.edge_elem[2 * i + 1] = no_element;
  to.edge_local[2 * i] = -1;
  to.edge_local[2 * i + 1] = -1;
}

/// Writes edge i of `to` as a leaf edge (no children, no midpoint, no incidence yet).
KEMPE_HD void set_leaf_edge(const ForestPtrs& to, index_t i, index_t parent, int color, std::int32_t boundary,
                            std::uint8_t flags, std::uint8_t shift, const double* tangent = nullptr) {
  if (to.edge_tangent != nullptr)
    for (int k = 0; k < 4; ++k) to.edge_tangent[4 * i + k] = tangent != nullptr ? tangent[k] : 0.0;
  to.edge_parent[i] = parent;
  to.edge_child[i] = no_element;
  to.edge_mid[2 * i] = no_element;
  to.edge_mid[2 * i + 1] = no_element;
  to.edge_color[i] = static_cast<std::int8_t>(color);
  to.edge_boundary[i] = boundary;
  to.edge_flags[i] = flags;
  to.edge_shift[i] = shift;
  clear_incidence(to, i);
}

/// The first and second vertex of `edge` as seen from side s (whose leaf must have the edge itself).
KEMPE_HD void edge_ends(const ForestPtrs& f, index_t edge, int s, index_t& a, index_t& b) {
  const index_t e = f.edge_elem[2 * edge + s];
  const int j = f.edge_local[2 * edge + s];
  a = f.elem_vertices[3 * e + j], b = f.elem_vertices[3 * e + (j + 1) % 3];
  if (s == 1) {
    const index_t t = a;
    a = b, b = t;
  }
}

/// The boundary curve through a bent edge from a to b (side 0's direction) is the cubic Hermite arc with the
/// unit end tangents ta, tb scaled by the chord length L: its middle is (a + b) / 2 + L (ta - tb) / 8, and its
/// tangent there 3 (b - a) / 2 - L (ta + tb) / 4. Halving the arc keeps the same cubic, so a refined boundary
/// samples the curve reconstructed on the start mesh, to its O(h^4) accuracy, at every level.
struct CurveMiddle {
  double x, y;    ///< position
  double tx, ty;  ///< unit tangent
};
KEMPE_HD CurveMiddle curve_middle(double ax, double ay, double bx, double by, const double* tangent) {
  const double dx = bx - ax, dy = by - ay;
  const double length = std::sqrt(dx * dx + dy * dy);
  CurveMiddle m;
  m.x = 0.5 * (ax + bx) + 0.125 * length * (tangent[0] - tangent[2]);
  m.y = 0.5 * (ay + by) + 0.125 * length * (tangent[1] - tangent[3]);
  const double tx = 1.5 * dx - 0.25 * length * (tangent[0] + tangent[2]), ty = 1.5 * dy - 0.25 * length * (tangent[1] + tangent[3]);
  const double n = std::sqrt(tx * tx + ty * ty);
  m.tx = tx / n, m.ty = ty / n;
  return m;
}
KEMPE_HD bool is_bent(const ForestPtrs& f, index_t edge) {
  if (f.edge_tangent == nullptr) return false;
  const double* t = f.edge_tangent + 4 * std::size_t(edge);
  return t[0] != 0 || t[1] != 0 || t[2] != 0 || t[3] != 0;
}

/// Kept nodes, moved to their new places.
struct MoveNodes {
  ForestPtrs from, to;
  AdaptOffsets o;
  KEMPE_HD void operator()(index_t n) const {
    const index_t m = o.node_new[n];
    if (m == no_element) return;
    to.x[m] = from.x[n];
    to.y[m] = from.y[n];
    to.z[m] = from.z[n];
    to.node_edge[m] = n < from.root_nodes ? no_element : o.edge_new[from.node_edge[n]];
  }
};

/// Midpoints of the splitting edges: from the leaf that has the edge itself (the one refining), on the other
/// side of a periodic edge translated by its shift; a bent boundary edge's on its curve (curve_middle).
struct NewMidpoints {
  static constexpr bool cpu_balanced = true;
  ForestPtrs from, to;
  AdaptOffsets o;
  PeriodicShifts shifts;
  KEMPE_HD void operator()(index_t edge) const {
    if (!(o.state[edge] & edge_splits)) return;
    const int s = from.edge_elem[2 * edge] != no_element ? 0 : 1;
    index_t a, b;
    edge_ends(from, edge, s, a, b);
    double mx = 0.5 * (from.x[a] + from.x[b]), my = 0.5 * (from.y[a] + from.y[b]);
    const double mz = 0.5 * (from.z[a] + from.z[b]);
    if (is_bent(from, edge)) {
      const CurveMiddle c = curve_middle(from.x[a], from.y[a], from.x[b], from.y[b], from.edge_tangent + 4 * edge);
      mx = c.x, my = c.y;
    }
    const index_t first = o.root_nodes + o.mid_offset[edge];
    const index_t new_edge = o.edge_new[edge];
    if (from.edge_flags[edge] & edge_periodic) {
      const int k = from.edge_shift[edge];
      const double sign = s == 0 ? 1.0 : -1.0;  // the shift takes side 0's place to side 1's
      const index_t here = first + s, there = first + 1 - s;
      to.x[here] = mx, to.y[here] = my, to.z[here] = mz;
      to.x[there] = mx + sign * shifts.dx[k], to.y[there] = my + sign * shifts.dy[k], to.z[there] = mz + sign * shifts.dz[k];
      to.node_edge[here] = new_edge;
      to.node_edge[there] = new_edge;
    } else {
      to.x[first] = mx, to.y[first] = my, to.z[first] = mz;
      to.node_edge[first] = new_edge;
    }
  }
};

/// Kept edges in their new places, and the two children of each splitting edge: Alg. 4 of Giuliani &
/// Krivodonova (2017), child m of a face of color c gets ((c + 3m - 4) mod 6) + 1 in the paper's 1-based
/// colors, here with K start colors: the first child keeps c, the second gets (c + K) mod 2K. With the interior
/// edges of BuildElements every new edge is written once, its incidence cleared for BuildElements.
struct MoveEdges {
  static constexpr bool cpu_balanced = true;
  ForestPtrs from, to;
  AdaptOffsets o;
  KEMPE_HD void operator()(index_t edge) const {
    if (o.edge_count[edge] == 0) return;
    const index_t m = o.edge_new[edge];
    const std::uint8_t st = o.state[edge];
    const index_t parent = from.edge_parent[edge];
    to.edge_parent[m] = parent == no_element ? no_element : o.edge_new[parent];
    const bool split = (st & edge_splits) || (from.edge_child[edge] != no_element && !(st & edge_unsplits));
    to.edge_child[m] = split ? new_first_child(from, o, edge) : no_element;
    to.edge_mid[2 * m] = split ? new_midpoint(from, o, edge, 0) : no_element;
    to.edge_mid[2 * m + 1] = split ? new_midpoint(from, o, edge, 1) : no_element;
    to.edge_color[m] = from.edge_color[edge];
    to.edge_boundary[m] = from.edge_boundary[edge];
    to.edge_flags[m] = from.edge_flags[edge];
    to.edge_shift[m] = from.edge_shift[edge];
    clear_incidence(to, m);
    if (from.edge_tangent != nullptr)
      for (int k = 0; k < 4; ++k) to.edge_tangent[4 * m + k] = from.edge_tangent[4 * edge + k];
    if (st & edge_splits) {
      const index_t c = first_made(from, o, edge);
      const int K = from.num_colors;
      const int c0 = from.edge_color[edge];
      const auto periodic = static_cast<std::uint8_t>(from.edge_flags[edge] & edge_periodic);
      // The halves of a bent edge: the first from its first vertex to the curve's middle, the second on.
      double first_tangent[4] = {0, 0, 0, 0}, second_tangent[4] = {0, 0, 0, 0};
      if (is_bent(from, edge)) {
        const double* t = from.edge_tangent + 4 * edge;
        index_t a, b;
        edge_ends(from, edge, from.edge_elem[2 * edge] != no_element ? 0 : 1, a, b);
        const CurveMiddle mid = curve_middle(from.x[a], from.y[a], from.x[b], from.y[b], t);
        first_tangent[0] = t[0], first_tangent[1] = t[1], first_tangent[2] = mid.tx, first_tangent[3] = mid.ty;
        second_tangent[0] = mid.tx, second_tangent[1] = mid.ty, second_tangent[2] = t[2], second_tangent[3] = t[3];
      }
      set_leaf_edge(to, c, m, c0, from.edge_boundary[edge], periodic, from.edge_shift[edge], first_tangent);
      set_leaf_edge(to, c + 1, m, (c0 + K) % (2 * K), from.edge_boundary[edge], periodic, from.edge_shift[edge], second_tangent);
    }
  }
};

/// The new elements: kept leaves moved, refined leaves replaced by their four children (stored together where
/// the parent was, with the three interior edges), coarsened groups by their parent; each enters itself on the
/// sides of its three edges (which MoveEdges cleared, or this thread for the interior edges).
struct BuildElements {
  static constexpr bool cpu_balanced = true;
  ForestPtrs from, to;
  AdaptOffsets o;
  KEMPE_HD void set(index_t m, index_t v0, index_t v1, index_t v2, index_t e0, index_t e1, index_t e2, unsigned sides,
                    int level, std::uint64_t path, index_t root) const {
    to.elem_vertices[3 * m] = v0, to.elem_vertices[3 * m + 1] = v1, to.elem_vertices[3 * m + 2] = v2;
    to.elem_edges[3 * m] = e0, to.elem_edges[3 * m + 1] = e1, to.elem_edges[3 * m + 2] = e2;
    to.elem_sides[m] = static_cast<std::uint8_t>(sides);
    to.elem_level[m] = static_cast<std::uint8_t>(level);
    to.elem_path[m] = path;
    to.elem_root[m] = root;
    // The leaf enters itself on its three edges: one leaf per edge side, so no two threads write one place.
    const index_t edges[3] = {e0, e1, e2};
    for (int j = 0; j < 3; ++j) {
      const index_t slot = 2 * edges[j] + ((sides >> j) & 1u);
      to.edge_elem[slot] = m;
      to.edge_local[slot] = static_cast<std::int8_t>(j);
    }
  }
  KEMPE_HD void operator()(index_t e) const {
    const int d = o.delta[e];
    const index_t m = o.elem_offset[e];
    const int level = from.elem_level[e];
    const std::uint64_t path = from.elem_path[e];
    const index_t root = from.elem_root[e];
    const index_t* v = from.elem_vertices + 3 * e;
    const index_t* ed = from.elem_edges + 3 * e;
    if (d == 0) {
      set(m, o.node_new[v[0]], o.node_new[v[1]], o.node_new[v[2]], o.edge_new[ed[0]], o.edge_new[ed[1]], o.edge_new[ed[2]],
          from.elem_sides[e], level, path, root);
      return;
    }
    if (d < 0) {
      if (child_number(path, level) != 0) return;
      // The parent's vertex j is corner child j's, its edge j the parent of corner child j's edge j.
      index_t pv[3], pe[3];
      unsigned sides = 0;
      for (int j = 0; j < 3; ++j) {
        pv[j] = o.node_new[from.elem_vertices[3 * (e + j) + j]];
        pe[j] = o.edge_new[from.edge_parent[from.elem_edges[3 * (e + j) + j]]];
        sides |= unsigned(side_of(from, e + j, j)) << j;
      }
      set(m, pv[0], pv[1], pv[2], pe[0], pe[1], pe[2], sides, level - 1, parent_path(path, level), root);
      return;
    }
    index_t vn[3], mid[3], first[3], second[3];
    int s[3];
    for (int j = 0; j < 3; ++j) {
      vn[j] = o.node_new[v[j]];
      s[j] = side_of(from, e, j);
      mid[j] = new_midpoint(from, o, ed[j], s[j]);
      const index_t c = new_first_child(from, o, ed[j]);
      // Going counterclockwise round this element, side 0 meets the edge's first child first.
      first[j] = s[j] == 0 ? c : c + 1;
      second[j] = s[j] == 0 ? c + 1 : c;
    }
    // Interior edges I0 I1 I2 follow edge 0 (and its children when it splits now), after side 0's leaf's.
    const index_t inner = first_made(from, o, ed[0]) + ((o.state[ed[0]] & edge_splits) ? 2 : 0) +
                          (s[0] == 1 && (o.state[ed[0]] & edge_inner_side0) ? 3 : 0);
    const unsigned s0 = unsigned(s[0]), s1 = unsigned(s[1]), s2 = unsigned(s[2]);
    const std::uint64_t step = std::uint64_t(1) << (2 * level);
    // Interior edge I_j lies between the centre child (side 1) and a corner child (side 0) and is parallel to
    // the parent's edge j, whose color it takes (Alg. 4, line 10; a split edge's first child has its color).
    // Written (incidence cleared) before the children enter themselves on them.
    for (int j = 0; j < 3; ++j) set_leaf_edge(to, inner + j, no_element, from.edge_color[ed[j]], no_boundary, edge_interior, 0);
    set(m + 0, vn[0], mid[0], mid[2], first[0], inner + 1, second[2], s0 | (0u << 1) | (s2 << 2), level + 1, path, root);
    set(m + 1, mid[0], vn[1], mid[1], second[0], first[1], inner + 2, s0 | (s1 << 1) | (0u << 2), level + 1, path + step, root);
    set(m + 2, mid[2], mid[1], vn[2], inner + 0, second[1], first[2], 0u | (s1 << 1) | (s2 << 2), level + 1, path + 2 * step, root);
    set(m + 3, mid[1], mid[2], mid[0], inner + 0, inner + 1, inner + 2, 7u, level + 1, path + 3 * step, root);
  }
};

/// The leaf on one side of leaf edge `edge`: the leaf that has the edge itself (whole_edge), or the coarser leaf
/// that has its parent, on half of its own edge; elem is no_element when there is neither (a boundary side).
struct EdgeSide {
  index_t elem;
  int local, half;
};

KEMPE_HD EdgeSide edge_side(const ForestPtrs& f, index_t edge, int side) {
  EdgeSide s{f.edge_elem[2 * edge + side], f.edge_local[2 * edge + side], whole_edge};
  const index_t parent = f.edge_parent[edge];
  if (s.elem == no_element && parent != no_element && f.edge_elem[2 * parent + side] != no_element) {
    s.elem = f.edge_elem[2 * parent + side];
    s.local = f.edge_local[2 * parent + side];
    // Side 0 runs along the parent from its first child to its second, side 1 the other way.
    const bool first_child = f.edge_child[parent] == edge;
    s.half = (first_child == (side == 0)) ? first_half : second_half;
  }
  return s;
}

/// The sides of leaf edge `edge` as a face (edge_side); the lower-numbered leaf is the left one.
struct FaceSides {
  index_t elem[2];
  int local[2], half[2];
  int left;  ///< which side is the face's left element
};

/// Fills `s` and says whether `edge` is a face: a leaf edge that a leaf has itself.
KEMPE_HD bool face_sides(const ForestPtrs& f, index_t edge, FaceSides& s) {
  if (f.edge_child[edge] != no_element) return false;
  if (f.edge_elem[2 * edge] == no_element && f.edge_elem[2 * edge + 1] == no_element) return false;
  for (int side = 0; side < 2; ++side) {
    const EdgeSide one = edge_side(f, edge, side);
    s.elem[side] = one.elem, s.local[side] = one.local, s.half[side] = one.half;
  }
  s.left = s.elem[0] != no_element ? 0 : 1;
  if (s.elem[0] != no_element && s.elem[1] != no_element && s.elem[1] < s.elem[0]) s.left = 1;
  return true;
}

/// Whether a face color can index the face order's marks and words (CheckColors counts those that cannot).
KEMPE_HD bool in_color_range(const ForestPtrs& f, int c) { return c >= 0 && c < 2 * f.num_colors; }

/// The face order. Faces go in the order of (color, left element), which a valid coloring makes unique, so a
/// face's place is the number of (color, leaf) pairs before its own that have a face: a rank, counted without a
/// sort. MarkFaces marks each face's pair in a byte table [elements][2K]; PackFaceMarks turns each color's marks
/// of 64 leaves into one 64-bit word and its count; the exclusive scan of the counts, colors first, gives each
/// word's first place; and a face's place is its word's first place plus the set bits below its leaf. The words
/// and their places take about one byte and a half a leaf for 2K = 6 (a table of places per pair took 24), so
/// that the face pass finds them in cache.
inline constexpr int face_rank_word = 64;

/// The words of the face order (PackFaceMarks), [2K][blocks] each, blocks = ceil(elements / 64).
struct FaceRanks {
  index_t blocks = 0;
  const std::uint64_t* bits = nullptr;  ///< bit i of word (c, b): leaf 64 b + i is the left leaf of a face of color c
  const index_t* first = nullptr;       ///< the place of word (c, b)'s first face
  KEMPE_HD index_t place(int color, index_t leaf) const {
    const std::size_t k = std::size_t(color) * std::size_t(blocks) + std::size_t(leaf / face_rank_word);
    const std::uint64_t below = (std::uint64_t(1) << (leaf % face_rank_word)) - 1u;
    return first[k] + popcount64(bits[k] & below);
  }
};

KEMPE_HD index_t face_rank_blocks(index_t elements) { return (elements + face_rank_word - 1) / face_rank_word; }

/// Marks each face's (left leaf, color) byte of `marks` ([elements][2K], zero before). Two faces of one color
/// with one left leaf would share a mark (and a place); CheckColors counts them.
struct MarkFaces {
  ForestPtrs f;
  std::uint8_t* marks;
  KEMPE_HD void operator()(index_t edge) const {
    FaceSides s;
    const int c = f.edge_color[edge];
    if (face_sides(f, edge, s) && in_color_range(f, c))
      marks[std::size_t(s.elem[s.left]) * std::size_t(2 * f.num_colors) + std::size_t(c)] = 1;
  }
};

/// Item k = c blocks + b: the word of color c's marks of leaves 64 b .. 64 b + 63, and its count of faces.
struct PackFaceMarks {
  const std::uint8_t* marks;  ///< [elements][colors]
  index_t num_elements, blocks;
  int colors;
  std::uint64_t* bits;  ///< [colors][blocks]
  index_t* count;       ///< [colors][blocks]
  KEMPE_HD void operator()(index_t k) const {
    const index_t c = k / blocks, first = (k % blocks) * face_rank_word;
    const index_t n = num_elements - first < face_rank_word ? num_elements - first : face_rank_word;
    const std::uint8_t* m = marks + std::size_t(first) * std::size_t(colors) + std::size_t(c);
    std::uint64_t word = 0;
    for (index_t i = 0; i < n; ++i) word |= std::uint64_t(m[std::size_t(i) * std::size_t(colors)] != 0) << i;
    bits[k] = word;
    count[k] = popcount64(word);
  }
};

/// Each face written at its place (FaceRanks); each leaf edge learns its face (no_element for others).
struct BuildFaces {
  ForestPtrs f;
  FaceRanks ranks;
  FacePtrs out;
  index_t* edge_face;
  KEMPE_HD void operator()(index_t edge) const {
    FaceSides s;
    if (!face_sides(f, edge, s) || !in_color_range(f, f.edge_color[edge])) {
      edge_face[edge] = no_element;
      return;
    }
    const int l = s.left, r = 1 - l;
    const index_t k = ranks.place(f.edge_color[edge], s.elem[l]);
    Face face;
    face.left = s.elem[l];
    face.right = s.elem[r];
    face.left_local = static_cast<std::int8_t>(s.local[l]);
    face.right_local = static_cast<std::int8_t>(s.elem[r] == no_element ? -1 : s.local[r]);
    face.left_half = static_cast<std::int8_t>(s.half[l]);
    face.right_half = static_cast<std::int8_t>(s.elem[r] == no_element ? whole_edge : s.half[r]);
    face.color = f.edge_color[edge];
    face.boundary = f.edge_boundary[edge];
    face.edge = edge;
    // Vertices in the left element's direction: its own edge, or the half of it that this face covers. Chosen
    // as values, not by an index into the record: an indexed store kept the record in memory, and its copy out
    // then waited for that store (a 16-byte load over smaller stores).
    const index_t* v = f.elem_vertices + 3 * s.elem[l];
    index_t first = v[s.local[l]], second = v[(s.local[l] + 1) % 3];
    if (s.half[l] != whole_edge) {
      const index_t mid = f.edge_mid[2 * f.edge_parent[edge] + l];
      first = s.half[l] == first_half ? first : mid;
      second = s.half[l] == first_half ? mid : second;
    }
    face.vertices[0] = first, face.vertices[1] = second;
    out.face[k] = face;
    edge_face[edge] = k;
  }
};

/// Geometry of the leaves and faces, as mesh/build.cpp's compute_geometry gives it for triangles: area (signed in
/// the xy plane, unsigned on a surface in 3D) and centroid per leaf; length and unit normal per face, out of the
/// left leaf (on a surface in 3D, the left leaf's in-plane conormal).
struct Geometry {
  double *area = nullptr, *centroid_x = nullptr, *centroid_y = nullptr, *centroid_z = nullptr;  ///< [elements]
  double *length = nullptr, *normal_x = nullptr, *normal_y = nullptr, *normal_z = nullptr;      ///< [faces]
};

/// Twice the vector area of leaf e (the cross product of two edges).
KEMPE_HD void twice_vector_area(const ForestPtrs& f, index_t e, double& ax, double& ay, double& az) {
  const index_t a = f.elem_vertices[3 * e], b = f.elem_vertices[3 * e + 1], c = f.elem_vertices[3 * e + 2];
  const double ux = f.x[b] - f.x[a], uy = f.y[b] - f.y[a], uz = f.z[b] - f.z[a];
  const double vx = f.x[c] - f.x[a], vy = f.y[c] - f.y[a], vz = f.z[c] - f.z[a];
  ax = uy * vz - uz * vy, ay = uz * vx - ux * vz, az = ux * vy - uy * vx;
}

struct ElementGeometry {
  static constexpr bool cpu_balanced = true;
  ForestPtrs f;
  Geometry g;
  bool planar;
  KEMPE_HD void operator()(index_t e) const {
    double ax, ay, az;
    twice_vector_area(f, e, ax, ay, az);
    g.area[e] = planar ? 0.5 * az : 0.5 * std::sqrt(ax * ax + ay * ay + az * az);
    const index_t a = f.elem_vertices[3 * e], b = f.elem_vertices[3 * e + 1], c = f.elem_vertices[3 * e + 2];
    g.centroid_x[e] = (f.x[a] + f.x[b] + f.x[c]) / 3.0;
    g.centroid_y[e] = (f.y[a] + f.y[b] + f.y[c]) / 3.0;
    g.centroid_z[e] = (f.z[a] + f.z[b] + f.z[c]) / 3.0;
  }
};

struct FaceGeometry {
  static constexpr bool cpu_balanced = true;
  ForestPtrs f;
  FacePtrs faces;
  Geometry g;
  bool planar;
  KEMPE_HD void operator()(index_t i) const {
    const index_t p = faces.face[i].vertices[0], q = faces.face[i].vertices[1];
    const double tx = f.x[q] - f.x[p], ty = f.y[q] - f.y[p], tz = f.z[q] - f.z[p];
    g.length[i] = std::sqrt(tx * tx + ty * ty + tz * tz);
    // Edges run counterclockwise: the outward normal is the tangent turned clockwise, in the left leaf's plane.
    double nx = ty, ny = -tx, nz = 0;
    if (!planar) {
      double ax, ay, az;
      twice_vector_area(f, faces.face[i].left, ax, ay, az);
      nx = ty * az - tz * ay, ny = tz * ax - tx * az, nz = tx * ay - ty * ax;
    }
    // Scaled by the reciprocal, as compute_geometry does: a planar mesh's normals are then its bit for bit.
    const double scale = 1.0 / std::sqrt(nx * nx + ny * ny + nz * nz);
    g.normal_x[i] = scale * nx, g.normal_y[i] = scale * ny, g.normal_z[i] = scale * nz;
  }
};

/// The coloring check of an adapted mesh, per leaf, as start-up checks a coloring: the faces on its edges (its
/// own edge's, or the two halves' where a finer neighbour split it) have distinct colors below 2K. Reads the
/// leaf's edges only, so that every adaptation can afford it. Returns the number of failures (0 or more).
/// The colors of one leaf's faces, as they are taken: counts a color outside [0, 2K) or taken twice.
struct LeafColors {
  int colors;  ///< 2K
  unsigned used = 0;
  int failures = 0;
  KEMPE_HD void take(int c) {
    if (c < 0 || c >= colors || (used >> c) & 1u) ++failures;
    used |= 1u << (c & 31);
  }
};

struct CheckColors {
  ForestPtrs f;
  KEMPE_HD int operator()(index_t e) const {
    LeafColors taken{2 * f.num_colors};
    for (int j = 0; j < 3; ++j) {
      const index_t edge = f.elem_edges[3 * e + j];
      const index_t child = f.edge_child[edge];
      if (child == no_element) {
        taken.take(f.edge_color[edge]);
      } else {
        taken.take(f.edge_color[child]);
        taken.take(f.edge_color[child + 1]);
      }
    }
    return taken.failures;
  }
};

/// The O(faces) check of an adapted mesh, per leaf: each of its edges is covered by its own face or by the two
/// faces of its halves, each naming this leaf on the right side with the right local edge and half; their colors
/// are distinct and below 2K; neighbours differ by at most one level. Returns the number of failures (0 or more).
struct CheckElement {
  ForestPtrs f;
  FacePtrs faces;
  const index_t* edge_face;
  KEMPE_HD bool names(index_t face, index_t e, int j, int half) const {
    if (face < 0 || face >= faces.num_faces) return false;
    if (faces.face[face].left == e && faces.face[face].left_local == j && faces.face[face].left_half == half) return true;
    return faces.face[face].right == e && faces.face[face].right_local == j && faces.face[face].right_half == half;
  }
  KEMPE_HD int operator()(index_t e) const {
    int failures = 0;
    LeafColors taken{2 * f.num_colors};
    for (int j = 0; j < 3; ++j) {
      const index_t edge = f.elem_edges[3 * e + j];
      const int s = side_of(f, e, j);
      const index_t child = f.edge_child[edge];
      if (child == no_element) {
        const index_t face = edge_face[edge];
        if (!names(face, e, j, whole_edge)) { ++failures; continue; }
        taken.take(faces.face[face].color);
      } else {
        for (int c = 0; c < 2; ++c) {
          const index_t face = edge_face[child + c];
          const int half = (c == 0) == (s == 0) ? first_half : second_half;
          if (f.edge_child[child + c] != no_element || !names(face, e, j, half)) { ++failures; continue; }
          taken.take(faces.face[face].color);
        }
      }
    }
    const int level = f.elem_level[e];
    for_each_neighbor(f, e, [&](index_t n) {
      const int d = int(f.elem_level[n]) - level;
      if (d > 1 || d < -1) ++failures;
    });
    return failures + taken.failures;
  }
};

/// The same check per face: each side it names has the face's edge itself, or (on half of it) the edge's parent;
/// a face inside the mesh has two sides, and only a boundary edge has one.
struct CheckFace {
  ForestPtrs f;
  FacePtrs faces;
  KEMPE_HD bool side_ok(index_t e, int j, int half, index_t edge) const {
    if (e < 0 || e >= f.num_elements || j < 0 || j > 2) return false;
    const index_t own = f.elem_edges[3 * e + j];
    if (half == whole_edge) return own == edge;
    const index_t parent = f.edge_parent[edge];
    if (parent == no_element || own != parent) return false;
    const bool first_child = f.edge_child[parent] == edge;
    return half == ((first_child == (side_of(f, e, j) == 0)) ? first_half : second_half);
  }
  KEMPE_HD int operator()(index_t i) const {
    const index_t edge = faces.face[i].edge;
    int failures = side_ok(faces.face[i].left, faces.face[i].left_local, faces.face[i].left_half, edge) ? 0 : 1;
    if (faces.face[i].right == no_element) {
      failures += faces.face[i].boundary == no_boundary;
    } else {
      failures += !side_ok(faces.face[i].right, faces.face[i].right_local, faces.face[i].right_half, edge);
      failures += faces.face[i].right < faces.face[i].left;
    }
    return failures;
  }
};

}  // namespace kempe::adapt
