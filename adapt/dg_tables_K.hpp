// Point functions that build the DG solver's mesh tables from a forest's leaf mesh (adapt/dg_tables.hpp). Each
// writes only its own element's or face's rows; the vertex-to-element table comes from a sort (Thrust).
//
// They repeat DGMesh's host computation (solver/numerics/dg_mesh.hpp) operation for operation: the same point
// functions for the affine map and the radii, the same sums for centroids and face midpoints. The offset to a
// neighbour is computed from each side's own view, (m_e - c_e) + (c_n - m_n); the host computes it once per
// face and negates it for the right side, which is the same number, since x - y = -(y - x) and
// -(a + b) = (-a) + (-b) exactly in IEEE arithmetic.
#pragma once

#include <cmath>
#include <cstdint>

#include "adapt/dg_tables.hpp"
#include "adapt/forest_K.hpp"
#include "kernels/triangle.hpp"

namespace kempe::adapt {

struct Point2 {
  double x, y;
};

/// The midpoint of the part `half` of leaf e's local edge j, in e's own frame (on a periodic edge each side has
/// its own nodes).
KEMPE_HD Point2 segment_midpoint(const ForestPtrs& f, index_t e, int j, int half) {
  index_t a = f.elem_vertices[3 * e + j], b = f.elem_vertices[3 * e + (j + 1) % 3];
  if (half != whole_edge) {
    const index_t mid = f.edge_mid[2 * std::size_t(f.elem_edges[3 * e + j]) + side_of(f, e, j)];
    if (half == first_half)
      b = mid;
    else
      a = mid;
  }
  return {(f.x[a] + f.x[b]) / 2, (f.y[a] + f.y[b]) / 2};
}

/// Per leaf: the affine map, the radii, the limiters' vertex and neighbour tables, and its faces. Neighbours come
/// from the forest's edges, which are stored near their leaves, rather than from the face records, which are
/// spread over the 2K color ranges.
template <class Real>
struct DGElementTables {
  static constexpr bool cpu_balanced = true;
  ForestPtrs f;
  const index_t* edge_face;
  /// [elements] the forest's centroids (adapt/forest_K.hpp, ElementGeometry: (x0 + x1 + x2) / 3, the sum DGMesh
  /// forms on the host), read rather than formed again from three scattered nodes per neighbour
  const double *centroid_x, *centroid_y;
  DGTablePtrs<Real> t;

  /// The neighbour across part `own_half` of leaf e's local edge j (the leaf edge `edge`, whose other side is
  /// `other`: edge_side), and, where the tables have the offsets (dx non-null), the offset between their
  /// centroids, (m_e - c_e) + (c_n - m_n) with m the part's midpoint in each side's own frame. Off a periodic join
  /// (a split edge's halves keep its flag) both sides' parts join the same two nodes, and a midpoint's sum does
  /// not depend on their order, so m_n is m_e bit for bit and is not formed again from the neighbour's nodes.
  KEMPE_HD void across(index_t e, int j, const Point2& ce, index_t edge, int own_half, int other, index_t& neighbor, Real* dx,
                       Real* dy) const {
    const EdgeSide n = edge_side(f, edge, other);
    neighbor = n.elem;
    if (dx == nullptr) return;
    if (n.elem == no_element) {
      *dx = Real(0), *dy = Real(0);
      return;
    }
    const Point2 me = segment_midpoint(f, e, j, own_half);
    const Point2 mn = (f.edge_flags[edge] & edge_periodic) ? segment_midpoint(f, n.elem, n.local, n.half) : me;
    const Point2 cn{centroid_x[n.elem], centroid_y[n.elem]};
    *dx = Real((me.x - ce.x) + (cn.x - mn.x));
    *dy = Real((me.y - ce.y) + (cn.y - mn.y));
  }

  KEMPE_HD void operator()(index_t e) const {
    const index_t* v = f.elem_vertices + 3 * e;
    const double x0 = f.x[v[0]], x1 = f.x[v[1]], x2 = f.x[v[2]], y0 = f.y[v[0]], y1 = f.y[v[1]], y2 = f.y[v[2]];
    const dg::TriangleGeometry g = dg::affine_triangle_geometry(x0, x1, x2, y0, y1, y2);
    t.jacobian[e] = Real(g.jacobian);
    t.dr_dx[e] = Real(g.dr_dx), t.dr_dy[e] = Real(g.dr_dy), t.ds_dx[e] = Real(g.ds_dx), t.ds_dy[e] = Real(g.ds_dy);
    const dg::TriangleRadii radii = dg::triangle_radii(x0, x1, x2, y0, y1, y2, 2 * g.jacobian);
    t.inradius[e] = Real(radii.inradius), t.circumradius[e] = Real(radii.circumradius);
    const Point2 ce{centroid_x[e], centroid_y[e]};
    const double vx[3] = {x0, x1, x2}, vy[3] = {y0, y1, y2};
    const bool offsets = t.neighbor_dx != nullptr;
    for (int j = 0; j < 3; ++j) {
      const std::size_t row = 3 * std::size_t(e) + j;
      Real* dx = offsets ? t.neighbor_dx + row : nullptr;
      Real* dy = offsets ? t.neighbor_dy + row : nullptr;
      Real* half_dx = offsets ? t.half_neighbor_dx + row : nullptr;
      Real* half_dy = offsets ? t.half_neighbor_dy + row : nullptr;
      t.element_vertices[row] = v[j];
      t.vertex_dx[row] = Real(vx[j] - ce.x);
      t.vertex_dy[row] = Real(vy[j] - ce.y);
      const index_t edge = f.elem_edges[row];
      const int s = side_of(f, e, j);
      const index_t child = f.edge_child[edge];
      if (child == no_element) {
        t.element_faces[row] = edge_face[edge];
        across(e, j, ce, edge, whole_edge, 1 - s, t.element_neighbors[row], dx, dy);
        t.element_half_faces[row] = no_element;
        t.element_half_neighbors[row] = no_element;
        if (offsets) *half_dx = Real(0), *half_dy = Real(0);
      } else {
        // Side 0 runs along the edge from its first child to its second, side 1 the other way.
        const index_t first = child + s, second = child + 1 - s;
        t.element_faces[row] = edge_face[first];
        across(e, j, ce, first, first_half, 1 - s, t.element_neighbors[row], dx, dy);
        t.element_half_faces[row] = edge_face[second];
        across(e, j, ce, second, second_half, 1 - s, t.element_half_neighbors[row], half_dx, half_dy);
      }
    }
  }
};

/// Angle (radians, counterclockwise) from direction (dx, dy) to direction (tx, ty).
KEMPE_HD double angle_between(double dx, double dy, double tx, double ty) {
  return std::atan2(dx * ty - dy * tx, dx * tx + dy * ty);
}

/// Per face: connectivity, geometry in the kernels' precision, and the boundary curve's angles.
template <class Real>
struct DGFaceTables {
  ForestPtrs f;
  FacePtrs faces;
  Geometry geometry;
  DGTablePtrs<Real> t;
  KEMPE_HD void operator()(index_t k) const {
    t.face_left[k] = faces.face[k].left, t.face_right[k] = faces.face[k].right;
    t.face_left_local[k] = faces.face[k].left_local, t.face_right_local[k] = faces.face[k].right_local;
    t.face_left_half[k] = faces.face[k].left_half, t.face_right_half[k] = faces.face[k].right_half;
    t.face_boundary[k] = faces.face[k].boundary;
    t.normal_x[k] = Real(geometry.normal_x[k]), t.normal_y[k] = Real(geometry.normal_y[k]);
    t.length[k] = Real(geometry.length[k]);
    const index_t a = faces.face[k].vertices[0], b = faces.face[k].vertices[1];
    t.x0[k] = Real(f.x[a]), t.y0[k] = Real(f.y[a]), t.x1[k] = Real(f.x[b]), t.y1[k] = Real(f.y[b]);
    if (t.bend == nullptr) return;
    Real* bend = t.bend + 3 * std::size_t(k);
    const index_t edge = faces.face[k].edge;
    if (faces.face[k].right != no_element || !is_bent(f, edge)) {
      bend[0] = bend[1] = bend[2] = Real(0);
      return;
    }
    // The edge's tangents run in side 0's direction; the face runs in its left leaf's, which is side 1's when
    // the leaf is on side 1. A boundary face is whole: its leaf has the edge itself.
    const double* tangent = f.edge_tangent + 4 * std::size_t(edge);
    const bool reversed = side_of(f, faces.face[k].left, faces.face[k].left_local) == 1;
    const double dx = f.x[b] - f.x[a], dy = f.y[b] - f.y[a];
    const double sign = reversed ? -1.0 : 1.0;
    const CurveMiddle mid = reversed ? curve_middle(f.x[b], f.y[b], f.x[a], f.y[a], tangent)
                                     : curve_middle(f.x[a], f.y[a], f.x[b], f.y[b], tangent);
    const int at_first = reversed ? 2 : 0, at_second = reversed ? 0 : 2;
    bend[0] = Real(angle_between(dx, dy, sign * tangent[at_first], sign * tangent[at_first + 1]));
    bend[1] = Real(angle_between(dx, dy, sign * mid.tx, sign * mid.ty));
    bend[2] = Real(angle_between(dx, dy, sign * tangent[at_second], sign * tangent[at_second + 1]));
  }
};

/// 1 for a leaf that is degenerate or clockwise (the affine map's Jacobian not positive).
struct BadLeaf {
  ForestPtrs f;
  KEMPE_HD int operator()(index_t e) const {
    const index_t* v = f.elem_vertices + 3 * e;
    const dg::TriangleGeometry g =
        dg::affine_triangle_geometry(f.x[v[0]], f.x[v[1]], f.x[v[2]], f.y[v[0]], f.y[v[1]], f.y[v[2]]);
    return !(g.jacobian > 0);
  }
};

/// The entries of the vertex-to-element table before its sort: each leaf's three (vertex, leaf) pairs, the
/// vertices as sort keys and the leaf as value.
struct VertexElementEntries {
  ForestPtrs f;
  index_t* keys;      ///< [elements][3]
  index_t* elements;  ///< [elements][3]
  KEMPE_HD void operator()(index_t e) const {
    for (int j = 0; j < 3; ++j) {
      keys[3 * std::size_t(e) + j] = f.elem_vertices[3 * e + j];
      elements[3 * std::size_t(e) + j] = e;
    }
  }
};

/// After the sort, item i of entries + 1 writes vertex_element_begin[w] = i for the vertices w after entry i - 1's
/// vertex up to entry i's (the vertex after the last entry is `nodes`, so the last item closes the lists after it).
/// Every offset is written by exactly one item: a scatter in one pass instead of a binary search per vertex.
/// Vertices no leaf uses get empty lists.
struct VertexElementBegin {
  const index_t* keys;  ///< [entries] sorted: each entry's vertex
  index_t entries, nodes;
  index_t* begin;  ///< [nodes + 1]
  KEMPE_HD index_t vertex(index_t i) const { return i < entries ? keys[i] : nodes; }
  KEMPE_HD void operator()(index_t i) const {
    for (index_t w = i == 0 ? 0 : vertex(i - 1) + 1; w <= vertex(i); ++w) begin[w] = i;
  }
};

struct BoundaryGroupPlusOne {
  FacePtrs faces;
  KEMPE_HD std::int32_t operator()(index_t k) const { return faces.face[k].right == no_element ? faces.face[k].boundary + 1 : 0; }
};

}  // namespace kempe::adapt
