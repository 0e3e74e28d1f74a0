// The subcells of the shock-capturing blend (kernels/subcell_K.hpp), built once on the host per order.
//
// A triangle of order p holds as many subcells as modes: the median-dual cells of the lattice that splits it
// into p^2 sub-triangles (one cell per lattice node, (p + 1)(p + 2) / 2 in all), so that the subcell averages
// and the modal coefficients determine each other (the matrices `average` and `modes_from_averages`). Where the
// lattice meets the element's edges, the cells' boundaries do not sit at the midpoints of the lattice segments
// but at the cumulative weights of the face's Gauss rule: the cell of the q-th node along a local face owns
// exactly the part of the edge that the face's Gauss point q weighs. The flux a face computes at its point q
// then is, for the DG scheme and for the subcell finite volumes alike, the flux through that one cell's piece of
// the edge, so that both schemes share one set of piece fluxes and any blend of them is conservative and keeps a
// uniform flow (Hennemann, Rueda-Ramirez, Hindenlang & Gassner, "A provably entropy stable subcell shock capturing
// approach for high order split form DG for the compressible Euler equations", J. Comput. Phys. 2021, who place
// the subcell boundaries of Legendre-Gauss-Lobatto nodes at their cumulative weights for the same reason).
#pragma once

#include <vector>

namespace kempe::dg {

/// The room for the edge pieces of one face in the blend's face arrays (kernels/subcell_K.hpp): its p + 1 face
/// points' pieces, and on a hanging face the finer pieces that the coarse element's pieces cut them into (at
/// most p / 2 more: the coarse pieces' ends inside one half of its edge).
constexpr int subcell_face_slots(int order) { return order + 1 + order / 2; }

struct SubcellOperators {
  int order = 0;
  int num_cells = 0;  ///< = basis::num_modes(order)
  /// [cells] the reference areas (summing to 2, the reference triangle's) and centres (means of the points).
  std::vector<double> cell_area, cell_r, cell_s;
  /// [dual faces][2] the two cells each interior dual face joins, `from` then `to`, and [dual faces][2] its
  /// reference normal scaled by its length, pointing from `from` to `to` (a lattice segment's dual face: the
  /// pieces from the centroids of its one or two sub-triangles to the point where it crosses the segment).
  std::vector<int> dual_face_cells;
  std::vector<double> dual_face_normal;
  int num_dual_faces = 0;
  /// [dual faces][modes] each mode at the point where the dual face crosses the lattice segment of its two
  /// cells: where the second-order subcell fluxes read the DG polynomial (kernels/subcell_K.hpp).
  std::vector<double> dual_face_basis;
  /// [3 local faces][p + 1 face points] the cell that owns face point q of local face k (face points run from
  /// vertex k to vertex k + 1, kernels/triangle.hpp).
  std::vector<int> face_point_cell;
  /// Hanging faces of an adapted mesh: a fine element's edge meets half of the coarse element's, and the two
  /// sides' pieces (each owned by one cell) cut each other into the pieces these tables list, per half of the
  /// coarse edge (first, second) in order along it: [2] their number; [2][subcell_face_slots] each one's face
  /// point on the fine side and on the coarse side (the points whose pieces overlap there, both numbered along
  /// the coarse element's edge: the fine element's own number of the first is p - it) and its length as a share
  /// of the fine face's. Each such piece joins one cell on either side and carries one flux, and a uniform flow
  /// stays uniform: the pieces of a cell add up to its part of the edge.
  std::vector<int> hanging_count, hanging_point, hanging_coarse;
  std::vector<double> hanging_length;
  /// [cells][modes]: the mean of mode m over cell s. [modes][cells]: its inverse.
  std::vector<double> average, modes_from_averages;
  /// [dual faces][cells]: the dual-face fluxes of least norm whose net outflow from every cell is the given one
  /// (the pseudo-inverse of the cells' incidence on the dual faces, `from` +1 and `to` -1). Any net outflows
  /// that sum to zero are met exactly. The bounded blend (kernels/subcell_K.hpp) writes the DG scheme's rate in
  /// flux form with it, as Pazner does on his subcells ("Sparse invariant domain preserving discontinuous
  /// Galerkin methods with subcell convex limiting", Comput. Methods Appl. Mech. Engrg. 2021).
  std::vector<double> dual_flux_from_outflow;
};

/// The subcells of order p (0..basis::max_order; at p = 0 one cell, the element). std::invalid_argument outside.
SubcellOperators subcell_operators(int order);

}  // namespace kempe::dg
