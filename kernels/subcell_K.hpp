// Subcell shock capturing: each element's right-hand side is a convex blend of the DG scheme's and that of
// finite volumes on its subcells (kernels/subcell.hpp), in the manner of Hennemann, Rueda-Ramirez, Hindenlang &
// Gassner (J. Comput. Phys. 2021), on modal triangles. The finite volumes are of first order (each cell's mean on
// its side of every flux) or of second order: on each side of a subcell face, the element's DG polynomial at the
// face, moved from the cell's mean by no more than half the way to the neighbouring cell's mean (subcell_state),
// a MUSCL-type reconstruction whose slope comes from the DG solution itself, so that it needs no wider stencil.
//
// The subcells are as many as the modes, so the blend is formed on subcell averages: for the cell s of element
// K with DG share beta_K (1: pure DG) and area A_s,
//
//   d(u_s)/dt = beta_K dg_s + (1 - beta_K) fv_s - (1 / A_s) sum over s's edge pieces b of (beta_b - beta_K)(H_b - L_b)
//
// where dg_s is the subcell average of the DG right-hand side, fv_s the finite-volume rate (numerical fluxes
// between neighbouring subcells, and across the element's edges between the two elements' subcells), H_b and
// L_b the DG and the finite-volume flux through edge piece b, and beta_b the face's share (the smaller of the two
// elements'). Each edge piece is the part of the edge that one face point weighs, so H_b is exactly the flux the
// DG surface term takes there; the last term makes every face carry one flux, L_b + beta_b (H_b - L_b), to both
// its elements: conservative for any shares, and a uniform flow stays uniform. The modes follow from the
// subcell averages (SubcellOperators::modes_from_averages).
//
// The passes of a right-hand side, one work item each: TroubledCells (kernels/limiter_K.hpp, the KXRCF flags),
// BlendingShares (per element: Hennemann's modal indicator on density times pressure, in flagged elements only;
// alone, the modal indicator also blends the smooth isentropic vortex, whose rates then fall to 1.6, 1.1 and 1.9
// at p = 1, 2, 3, while gated they are the DG scheme's), SmoothShares (per element: half a neighbour's share
// bounds one's own from below), SubcellFaceFluxes (per face whose share is below 1: H and L at each face point)
// and SubcellBlend (per element, the formula above). The last two (and SubcellBoundedBlend's passes) run over work
// lists of the faces and elements they change, selected where the shares are formed (FaceBlends, ElementBlends,
// ElementBounded). On a hanging face of an adapted mesh the fine side's pieces and the coarse side's cut each
// other into finer ones (SubcellOperators' hanging tables), each joining one cell on either side and carrying
// one flux: the DG flux of the fine side's face point it lies in, and the finite volumes' flux of its two cells.
#pragma once

#include <cmath>
#include <cstdint>

#include <string_view>

#include "base/registry.hpp"
#include "kernels/basis.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"
#include "kernels/subcell.hpp"

namespace kempe::dg {

/// Shock capturing in the right-hand side, chosen by name (solver.shock_capturing).
enum class ShockCapturing : std::int8_t { none, subcell };
inline constexpr Named<ShockCapturing> shock_capturings[] = {
    {ShockCapturing::none, "none", "the DG scheme alone (limiters, if any, act after each stage)"},
    {ShockCapturing::subcell, "subcell",
     "blend of DG and finite volumes (first or second order) on as many subcells as modes, by Hennemann et al.'s modal "
     "indicator (shocks at p >= 1)"},
};
inline ShockCapturing shock_capturing_from_name(std::string_view name) {
  return find_by_name("shock capturing", name, shock_capturings).value;
}

/// Where the repair of the bounds' overshoots (SubcellBoundedBlend::repair, solver.subcell_repair_reach) moves a
/// subcell's excess: to any of the element's subcells below their bounds, or only to the subcell's dual-face
/// neighbours. The first removes more of an overshoot; the second smears less where the overshoot sits at a
/// contact next to a strong shock (Toro's tests 3 and 4, docs/theory.md). `by_order` is a case's choice that
/// resolved_repair_reach turns into one of the two by the order.
enum class RepairReach : std::int8_t { element, neighbours, by_order };
inline constexpr Named<RepairReach> repair_reaches[] = {
    {RepairReach::element, "element", "to any of the element's subcells below their bounds, in proportion to their room"},
    {RepairReach::neighbours, "neighbours",
     "only to the exceeding subcell's dual-face neighbours below their bounds, in proportion to their room"},
    {RepairReach::by_order, "auto", "neighbours at orders 1 and 2, element from order 3"},
};
inline RepairReach repair_reach_from_name(std::string_view name) {
  return find_by_name("subcell repair reach", name, repair_reaches).value;
}
/// The reach a solver of order p repairs with. From p = 3 (10 subcells or more) the dual-face neighbours of an
/// exceeding subcell are a smaller part of the element and leave Toro's test 4 1.3 % above the exact density; the
/// whole element takes it to 0.8 % for 5 % more L1 error, still below p = 2's (docs/theory.md).
inline constexpr RepairReach resolved_repair_reach(RepairReach reach, int p) {
  if (reach != RepairReach::by_order) return reach;
  return p <= 2 ? RepairReach::neighbours : RepairReach::element;
}

/// The largest finite-volume share of an element by order and subcell order when the case leaves it open:
/// higher orders have finer subcells (less diffusive finite volumes) and need more of them to stay bounded, and
/// second-order finite volumes diffuse less than first-order ones, so a larger share of them pays. First order:
/// chosen on the shock tubes of tests/unit/test_subcell.cpp (at p = 2, 0.05 and 0.25 gave larger errors than 0.1
/// on four of the five; at p = 3, 0.25 and 0.2 lost to p = 2 on Toro's 123 problem, 0.15 beats it on all five).
/// Second order at p = 2, on the cases' channel meshes: of 0.1 to 0.5, 0.4 gave the least error on Toro's tests
/// 3 and 4 and within 2 % of the least on Sod; test 2 wants less (0.1) and test 5 more (0.5). At p = 3, 0.5 came
/// within 5 % of the first order's errors at 0.15 on the cases' meshes (0.2 and 0.3 did worse); p >= 4 takes it
/// too, unmeasured.
inline constexpr double default_blending_max(int p, int subcell_order = 1) {
  if (subcell_order >= 2) return p <= 1 ? 0.1 : p == 2 ? 0.4 : 0.5;
  return p <= 2 ? 0.1 : p == 3 ? 0.15 : 0.25;
}

/// The subcell tables as the kernels read them (SubcellOperators of kernels/subcell.hpp, in Real).
template <class Real>
struct SubcellTables {
  const Real* average;             ///< [cells][modes]
  const Real* modes_from_averages;  ///< [modes][cells]
  const Real* cell_area;           ///< [cells] reference areas
  const Real* dual_face_normal;    ///< [dual faces][2] reference normals times lengths
  const std::int32_t* dual_face_cells;  ///< [dual faces][2] from, to
  const std::int32_t* face_point_cell;  ///< [3][face points]
  const Real* dual_face_basis;          ///< [dual faces][modes]
  const Real* dual_flux_from_outflow;   ///< [dual faces][cells]
  int order;                            ///< of the finite volumes: 1 or 2 (subcell_state)
  /// The pieces of hanging faces: [2 halves] their number, [2 halves][subcell_face_slots] their fine and coarse
  /// face points and lengths (shares of the fine face's); null where the mesh is conforming.
  const std::int32_t *hanging_count = nullptr, *hanging_point = nullptr, *hanging_coarse = nullptr;
  const Real* hanging_length = nullptr;
};

/// subcell_face_slots(P) as a constant the device code reads (it calls no host function).
template <int P>
inline constexpr int edge_piece_slots = subcell_face_slots(P);

/// Whether face f is a hanging face: it covers half of one side's edge.
template <class Real>
KEMPE_HD bool is_hanging(const Faces<Real>& fc, index_t f) {
  return fc.left_half != nullptr && (fc.left_half[f] != whole_edge || fc.right_half[f] != whole_edge);
}

/// Piece j of a half edge's hanging-face pieces (SubcellOperators' tables), seen from local face k of an
/// element on the face's coarse side or not (coarse_left: the coarse element is the face's left one): the cell
/// that owns it there and the face point of its DG flux in the face's own order.
struct HangingPiece {
  int cell, point;
};
template <int P, class Real>
KEMPE_HD HangingPiece hanging_piece(const SubcellTables<Real>& s, int half, int j, int k, bool coarse, bool coarse_left) {
  constexpr int nq = face_points(P), ns = edge_piece_slots<P>;
  const int along = s.hanging_point[half * ns + j], coarse_point = s.hanging_coarse[half * ns + j];
  // The fine side's points run against the coarse side's along their shared edge.
  return {s.face_point_cell[k * nq + (coarse ? coarse_point : nq - 1 - along)], coarse_left ? along : nq - 1 - along};
}

/// One edge piece of an element as the blend's passes see it: its face, whether the element is the face's left
/// one, the element's cell that owns the piece, its slot in the face arrays of the finite-volume fluxes,
/// densities and shares ([..][subcell_face_slots][faces]; the face point on a conforming face) and the face
/// point of its DG flux ([vars][face points][faces], the face's own order).
struct EdgePiece {
  index_t face;
  bool left;
  int cell, slot, point;
};

/// visit(piece, length) for each edge piece of element e, in local face order; an edge split by hanging faces
/// (element_half_faces: [elements][3], the second half's face, or null on a conforming mesh) gives the pieces
/// of both halves, first then second. On a conforming face the pieces are the face points'; on a hanging face
/// the finer ones where the fine side's and the coarse side's pieces overlap (SubcellOperators), in order along
/// the coarse element's edge: piece j of the half lies in the fine side's face point hanging_point (numbered
/// along the coarse edge; the face's own number is that along its left element) and in the coarse side's
/// hanging_coarse.
template <int P, class Real, class Visit>
KEMPE_HD void for_each_edge_piece(const Faces<Real>& fc, const SubcellTables<Real>& s, const Real* face_weight, const index_t* element_faces,
                                  const index_t* element_half_faces, index_t e, Visit&& visit) {
  constexpr int nq = face_points(P), ns = edge_piece_slots<P>;
  // One call of visit (inlined once per caller: two would double the passes' code and their compile time).
  for (int k = 0; k < 3; ++k) {
    const index_t second = element_half_faces == nullptr ? no_element : element_half_faces[3 * e + k];
    for (int part = 0; part < 2; ++part) {  // a split edge's two faces, else its one
      const index_t f = part == 0 ? element_faces[3 * e + k] : second;
      if (f == no_element) break;
      const bool left = fc.left[f] == e, hanging = is_hanging(fc, f);
      const bool coarse_left = hanging && fc.left_half[f] != whole_edge, coarse = hanging && left == coarse_left;
      const int half = hanging ? (coarse_left ? fc.left_half[f] : fc.right_half[f]) - first_half : 0;
      const int count = hanging ? s.hanging_count[half] : nq;
      for (int j = 0; j < ns; ++j) {
        if (j >= count) break;
        int cell, slot, point;
        Real length;
        if (hanging) {
          const HangingPiece b = hanging_piece<P>(s, half, j, k, coarse, coarse_left);
          cell = b.cell, slot = j, point = b.point;
          length = fc.length[f] * s.hanging_length[half * ns + j];
        } else {
          const int qf = left ? j : nq - 1 - j;  // the face's own point order runs along its left element
          cell = s.face_point_cell[k * nq + j];
          slot = point = qf;
          length = fc.length[f] * face_weight[qf] / Real(2);
        }
        visit(EdgePiece{f, left, cell, slot, point}, length);
      }
    }
  }
}

/// minmod(a, b): the smaller in magnitude when both have one sign, else 0.
template <class Real>
KEMPE_HD Real minmod(Real a, Real b) {
  if (!(a * b > Real(0))) return Real(0);
  return (a < Real(0) ? -a : a) < (b < Real(0) ? -b : b) ? a : b;
}

/// The state the finite volumes take on cell a's side of a piece of its boundary: the mean `a` at first order;
/// at second order the DG polynomial's value `w` there, limited so that it moves from the mean by no more than
/// half the way to the mean `b` on the other side, and not at all against it (minmod per variable: the value
/// lies between a and the two means' midpoint, so the two sides never cross and no new extremum appears), and
/// the mean again where that state has no positive density or pressure.
template <class Real>
KEMPE_HD void subcell_state(int order, const Real* a, const Real* b, const Real* w, Real gamma, Real* out) {
  constexpr int nv = euler::num_vars;
  for (int v = 0; v < nv; ++v) out[v] = a[v];
  if (order < 2) return;
  Real r[nv];
  for (int v = 0; v < nv; ++v) r[v] = a[v] + minmod(w[v] - a[v], (b[v] - a[v]) / Real(2));
  if (!(r[euler::density] > Real(0)) || !(euler::pressure(r, gamma) > Real(0))) return;
  for (int v = 0; v < nv; ++v) out[v] = r[v];
}

/// Hennemann et al.'s indicator constants (their eq. 42-44): the threshold and sharpness of the logistic map
/// from the modal energy to the finite-volume share.
KEMPE_HD double blending_threshold(int p) { return 0.5 * std::pow(10.0, -1.8 * std::pow(double(p + 1), 0.25)); }
inline constexpr double blending_sharpness = 9.21024036697585;  // log((1 - 1e-4) / 1e-4)

/// share[e] = the finite-volume share alpha of element e (0: pure DG): the energy E of density times pressure (of
/// pressure alone at p >= 2 under bounds on the subcell averages, `bounded`) in the highest modes, the larger of
/// (degree P) / (all) and (degree P - 1) / (degree below P) of the squared orthonormal coefficients, mapped by
/// alpha = 1 / (1 + exp(-s / T (E - T))); below alpha_min it is 0, above alpha_max it is alpha_max.
template <int P, class Real>
struct BlendingShares {
  index_t num_elements;
  Real gamma, alpha_min, alpha_max;
  const Real* c;
  Tables<Real> t;
  const std::uint8_t* troubled;  ///< [elements] KXRCF flags (TroubledCells), or null: only these blend
  Real* share;                   ///< [elements]
  /// Under bounds on the subcell averages (SubcellBoundedBlend), at p >= 2, the indicator looks at pressure alone:
  /// the bounds keep density in range at a contact, where pressure is uniform, and the DG scheme resolves it far
  /// more sharply than the finite volumes; at shocks, where pressure jumps, the bounds alone leave the strong
  /// shocks of Toro's tests 3-5 with larger errors than the blend. At p = 1 pressure alone loses on tests 3-5
  /// (docs/theory.md).
  bool bounded = false;
  static constexpr bool of_pressure_at_bounds = P >= 2;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars, nq = volume_points(P);
    if (troubled != nullptr && troubled[e] == 0) {
      share[e] = Real(0);
      return;
    }
    Real ce[nv][nm];
    load_modes<P>(c, num_elements, e, ce);
    double modes[nm];
    for (int m = 0; m < nm; ++m) modes[m] = 0;
    for (int q = 0; q < nq; ++q) {
      Real u[nv];
      point_state<P>(ce, t.volume_basis + q * nm, u);
      const double p = double(euler::pressure(u, gamma));
      const double value = bounded && of_pressure_at_bounds ? p : double(u[euler::density]) * p;
      for (int m = 0; m < nm; ++m) modes[m] += double(t.volume_weight[q]) * double(t.volume_basis[q * nm + m]) * value;
    }
    double below = 0, last = 0, top = 0;  // degree < P - 1, degree P - 1, degree P
    for (int m = 0; m < nm; ++m) {
      const double e2 = modes[m] * modes[m];
      if (m >= basis::num_modes(P - 1)) top += e2;
      else if (P >= 2 && m >= basis::num_modes(P - 2)) last += e2;
      else below += e2;
    }
    const double all = below + last + top;
    double energy = all > 0 ? top / all : 0;
    if (P >= 2 && below + last > 0) energy = energy > last / (below + last) ? energy : last / (below + last);
    const double threshold = blending_threshold(P);
    double alpha = 1 / (1 + std::exp(-blending_sharpness / threshold * (energy - threshold)));
    if (alpha < double(alpha_min)) alpha = 0;
    if (alpha > double(alpha_max)) alpha = double(alpha_max);
    share[e] = Real(alpha);
  }
};

/// beta[e] = 1 - max(alpha[e], alpha of a face neighbour / 2): the DG share after Hennemann et al.'s smoothing,
/// which keeps the finite volumes on beside a shock that is about to enter an element (across a split edge,
/// both halves' neighbours).
template <class Real>
struct SmoothShares {
  const index_t* neighbors;       ///< [elements][3]
  const index_t* half_neighbors;  ///< [elements][3] the second half's neighbour across a split edge, or null
  const Real* alpha;              ///< [elements]
  Real* beta;                     ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    Real a = alpha[e];
    for (int k = 0; k < 3; ++k) {
      const index_t n = neighbors[3 * e + k];
      if (n != no_element && alpha[n] / Real(2) > a) a = alpha[n] / Real(2);
      const index_t h = half_neighbors == nullptr ? no_element : half_neighbors[3 * e + k];
      if (h != no_element && alpha[h] / Real(2) > a) a = alpha[h] / Real(2);
    }
    beta[e] = Real(1) - a;
  }
};

/// touching[e] = 1 where a face of element e is a hanging face (either side of it), else 0: the CPU's lanes of
/// the bounded blend leave such elements to the one-element path (SubcellBoundedBlend::lanes_of).
template <class Real>
struct TouchesHangingFace {
  const index_t* element_faces;  ///< [elements][3]
  Faces<Real> fc;                ///< with left_half and right_half
  std::uint8_t* touching;        ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    std::uint8_t any = 0;
    for (int k = 0; k < 3; ++k) {
      const index_t f = element_faces[3 * e + k];
      if (is_hanging(fc, f)) any = 1;
    }
    touching[e] = any;
  }
};

/// The DG share of face f: the smaller of its elements' (its left element's on the boundary).
template <class Real>
KEMPE_HD Real face_share(const Faces<Real>& fc, const Real* beta, index_t f) {
  const Real bl = beta[fc.left[f]];
  if (fc.right[f] == no_element) return bl;
  const Real br = beta[fc.right[f]];
  return br < bl ? br : bl;
}

/// Whether face f needs SubcellFaceFluxes' fluxes: its share is below 1, or an element beside it is bounded
/// (bounded: [elements] or null).
template <class Real>
KEMPE_HD bool face_blends(const Faces<Real>& fc, const Real* beta, const std::uint8_t* bounded, index_t f) {
  const index_t l = fc.left[f], r = fc.right[f];
  if (bounded != nullptr && (bounded[l] != 0 || (r != no_element && bounded[r] != 0))) return true;
  return face_share(fc, beta, f) < Real(1);
}

/// Whether SubcellBlend changes element e's rate: e is not bounded (SubcellBoundedBlend does those), and its
/// share or that of one of its faces (both halves of a split edge: element_half_faces, or null) is below 1.
template <class Real>
KEMPE_HD bool element_blends(const Faces<Real>& fc, const index_t* element_faces, const index_t* element_half_faces, const Real* beta,
                             const std::uint8_t* bounded, index_t e) {
  if (bounded != nullptr && bounded[e] != 0) return false;
  bool any = beta[e] < Real(1);
  for (int k = 0; k < 3; ++k) {
    any = any || face_share(fc, beta, element_faces[3 * e + k]) < Real(1);
    const index_t h = element_half_faces == nullptr ? no_element : element_half_faces[3 * e + k];
    any = any || (h != no_element && face_share(fc, beta, h) < Real(1));
  }
  return any;
}

/// The work lists' predicates (select_if, kernels/algorithms.hpp): the faces and elements that the blend's
/// passes change, formed once per step where the shares are, so that each pass runs over its items alone. On
/// the GPU a pass over all elements would run each warp with one blending element in it at that element's
/// cost: the blend acts in a narrow band along shocks, which crosses many warps.
template <class Real>
struct FaceBlends {
  Faces<Real> fc;
  const Real* beta;
  const std::uint8_t* bounded;
  KEMPE_HD bool operator()(index_t f) const { return face_blends(fc, beta, bounded, f); }
};
template <class Real>
struct ElementBlends {
  Faces<Real> fc;
  const index_t* element_faces;
  const index_t* element_half_faces;  ///< or null
  const Real* beta;
  const std::uint8_t* bounded;
  KEMPE_HD bool operator()(index_t e) const { return element_blends(fc, element_faces, element_half_faces, beta, bounded, e); }
};
struct ElementBounded {
  const std::uint8_t* bounded;
  KEMPE_HD bool operator()(index_t e) const { return bounded[e] != 0; }
};

/// The low-order flux of the subcell finite volumes under bounds on the subcell averages (SubcellBoundedBlend),
/// whatever the DG flux: Rusanov's. With it a cell's forward-Euler update is a convex combination of its mean and
/// the faces' bar states (u_a + u_b) / 2 - (F(u_b) - F(u_a)) . n / (2 lambda), and its largest wave speed lambda
/// keeps those closest to the two means (Guermond & Popov, "Invariant domains and first-order continuous finite
/// element approximation for hyperbolic systems", SIAM J. Numer. Anal. 2016). With HLL's sharper fluxes the
/// low-order update itself left the neighbourhood's range by up to 4 % of density per stage next to strong shocks,
/// and the bounds then kept what it left: 5-11 % overshoots of the subcell averages on Toro's tests 3 and 4 at
/// p = 3, against 0.3-0.4 % with Rusanov's (docs/theory.md).
inline constexpr euler::Flux bounded_low_flux = euler::Flux::rusanov;

/// For each face it is given (those face_blends keeps: share below 1 or a bounded side), at each face point q:
/// high = the DG flux F*(u_l, u_r) . n of the traces (FaceIntegrals::point_flux, the same value the surface term
/// takes), stored [vars][face points][faces]; and at each edge piece (for_each_edge_piece: the face points'
/// pieces, on a hanging face the finer ones) low = the same numerical flux of the two subcell averages whose
/// cells own that piece (bounded_low_flux's where bounds are on), stored [vars][subcell_face_slots][faces]. Both
/// per unit length, the normal pointing from left to right.
template <int P, class Real, euler::Flux F, class Boundary>
struct SubcellFaceFluxes {
  FaceIntegrals<P, Real, F, Boundary> integrals;
  SubcellTables<Real> s;
  const Real* beta;  ///< [elements]
  index_t num_faces;
  Real *high, *low;
  /// With bounds (SubcellBoundedBlend), else null: [elements] the bounded elements (BoundedElements), whose faces
  /// all need both fluxes, and [2 sides][subcell_face_slots][faces] the density of the two cells' means at each
  /// piece.
  const std::uint8_t* bounded = nullptr;
  Real* side = nullptr;

  static constexpr int nm = basis::num_modes(P), nq = face_points(P), ns = subcell_face_slots(P), nv = euler::num_vars;

  /// The traces ul, ur at face point q (the face's own order) and the means al, ar of the cells cell_l, cell_r
  /// (left and right element's; basis_l, basis_r: side_basis of each side).
  KEMPE_HD void states(index_t f, int q, const Real* basis_l, const Real* basis_r, int cell_l, int cell_r, Real (&ul)[nv], Real (&ur)[nv],
                       Real (&al)[nv], Real (&ar)[nv]) const {
    const Faces<Real>& fc = integrals.fc;
    const index_t l = fc.left[f], r = fc.right[f];
    const index_t k = integrals.num_elements;
    const index_t r_read = r == no_element ? l : r;
    const Real* average_l = s.average + cell_l * nm;
    const Real* average_r = s.average + cell_r * nm;
    for (int v = 0; v < nv; ++v) {
      Real tl = Real(0), tr = Real(0), ml = Real(0), mr = Real(0);
      for (int m = 0; m < nm; ++m) {
        const Real xl = integrals.c[(v * nm + m) * k + l], xr = integrals.c[(v * nm + m) * k + r_read];
        tl += xl * basis_l[q * nm + m];
        tr += xr * basis_r[(nq - 1 - q) * nm + m];
        ml += xl * average_l[m];
        mr += xr * average_r[m];
      }
      ul[v] = tl, ur[v] = tr, al[v] = ml, ar[v] = mr;
    }
  }

  /// fl = the finite volumes' flux between the means al and ar at face point q (traces ul, ur).
  KEMPE_HD void low_flux(index_t f, int q, Real (&ul)[nv], Real (&ur)[nv], Real (&al)[nv], Real (&ar)[nv], Real (&fl)[nv]) const {
    const Faces<Real>& fc = integrals.fc;
    const index_t r = fc.right[f];
    if (bounded != nullptr) {  // bounds (first-order subcells): bounded_low_flux, the ghost state at the boundary
      if (r == no_element) integrals.ghost_state(f, q, al, ar);
      euler::numerical_flux(bounded_low_flux, al, ar, fc.normal_x[f], fc.normal_y[f], integrals.gamma, fl);
    } else if (r == no_element) {  // first order at the boundary: no mean beyond it
      integrals.point_flux(f, q, al, ar, fl);
    } else {
      Real sl[nv], sr[nv];
      subcell_state(s.order, al, ar, ul, integrals.gamma, sl);
      subcell_state(s.order, ar, al, ur, integrals.gamma, sr);
      integrals.point_flux(f, q, sl, sr, fl);
    }
  }

  KEMPE_HD void store_low(index_t f, int slot, const Real (&fl)[nv], Real rho_l, Real rho_r) const {
    for (int v = 0; v < nv; ++v) low[(v * ns + slot) * num_faces + f] = fl[v];
    if (side != nullptr) {
      side[(0 * ns + slot) * num_faces + f] = rho_l;
      side[(1 * ns + slot) * num_faces + f] = rho_r;
    }
  }

  /// On a hanging face (an interior face) both sides' traces are evaluated at the fine side's points (the coarse
  /// side's from its basis on the half of its edge), and the finite volumes' flux at each piece
  /// (for_each_edge_piece's order) is that of the two cells that own it, the traces those of the face point it
  /// lies in. One loop for both kinds of face, each flux formed at one place in the code: written twice, the
  /// numerical fluxes' code doubled and with it the compile time.
  KEMPE_HD void operator()(index_t f) const {
    const Faces<Real>& fc = integrals.fc;
    const index_t r = fc.right[f];
    const bool hanging = is_hanging(fc, f);
    const int kl = fc.left_local[f], kr = r == no_element ? kl : fc.right_local[f];
    const Real* basis_l = side_basis<P>(integrals.t.face_basis, integrals.t.face_half_basis, kl, fc.half(f, 0));
    const Real* basis_r = side_basis<P>(integrals.t.face_basis, integrals.t.face_half_basis, kr, r == no_element ? whole_edge : fc.half(f, 1));
    const bool coarse_left = hanging && fc.left_half[f] != whole_edge;
    const int half = hanging ? (coarse_left ? fc.left_half[f] : fc.right_half[f]) - first_half : 0;
    const int count = hanging ? s.hanging_count[half] : nq;
    for (int j = 0; j < ns; ++j) {
      if (j >= nq && j >= count) break;
      Real ul[nv], ur[nv], al[nv], ar[nv];
      if (j < nq) {  // the DG flux at face point j (and on a conforming face its piece's means)
        Real fh[nv];
        states(f, j, basis_l, basis_r, s.face_point_cell[kl * nq + j], s.face_point_cell[kr * nq + (nq - 1 - j)], ul, ur, al, ar);
        integrals.point_flux(f, j, ul, ur, fh);
        for (int v = 0; v < nv; ++v) high[(v * nq + j) * num_faces + f] = fh[v];
      }
      if (j >= count) continue;
      int q = j;  // the face point of piece j
      if (hanging) {  // each side's cell of the piece
        const HangingPiece on_left = hanging_piece<P>(s, half, j, kl, coarse_left, coarse_left);
        q = on_left.point;
        states(f, q, basis_l, basis_r, on_left.cell, hanging_piece<P>(s, half, j, kr, !coarse_left, coarse_left).cell, ul, ur, al, ar);
      }
      Real fl[nv];
      low_flux(f, q, ul, ur, al, ar, fl);
      store_low(f, j, fl, al[euler::density], ar[euler::density]);
    }
  }
};

/// The subcell averages of element e's state (the coefficients ce) and of its right-hand side rhs
/// ([vars][modes][elements], n elements): mean and rate, [vars][cells].
template <int P, class Real>
KEMPE_HD void subcell_averages(const SubcellTables<Real>& s, const Real (&ce)[euler::num_vars][basis::num_modes(P)], const Real* rhs,
                               index_t n, index_t e, Real (&mean)[euler::num_vars][basis::num_modes(P)],
                               Real (&rate)[euler::num_vars][basis::num_modes(P)]) {
  constexpr int nm = basis::num_modes(P);
  for (int v = 0; v < euler::num_vars; ++v)
    for (int cell = 0; cell < nm; ++cell) {
      Real a = Real(0), b = Real(0);
      for (int m = 0; m < nm; ++m) {
        a += s.average[cell * nm + m] * ce[v][m];
        b += s.average[cell * nm + m] * rhs[(v * nm + m) * n + e];
      }
      mean[v][cell] = a;
      rate[v][cell] = b;
    }
}

/// (nx, ny) = the physical normal of dual face d times its length, in an element of Jacobian determinant jac and
/// inverse Jacobian (rx, ry; sx, sy): |J| J^-T times the reference one; returns the length.
template <class Real>
KEMPE_HD Real subcell_dual_normal(const SubcellTables<Real>& s, int d, Real jac, Real rx, Real ry, Real sx, Real sy, Real& nx,
                                  Real& ny) {
  const Real nr = s.dual_face_normal[2 * d], ns = s.dual_face_normal[2 * d + 1];
  nx = jac * (nr * rx + ns * sx), ny = jac * (nr * ry + ns * sy);
  return std::sqrt(nx * nx + ny * ny);
}

/// The finite-volume flux through dual face d of element e, per unit length along the physical normal from its
/// cell `from` to its cell `to` (the means `mean`, at second order the DG polynomial `ce` at the face:
/// subcell_state); returns the face's physical length.
template <int P, class Real, euler::Flux F>
KEMPE_HD Real subcell_dual_flux(const SubcellTables<Real>& s, int d, const Real (&ce)[euler::num_vars][basis::num_modes(P)],
                                const Real (&mean)[euler::num_vars][basis::num_modes(P)], const Geometry<Real>& g, index_t e,
                                Real gamma, Real* flux) {
  constexpr int nv = euler::num_vars;
  const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
  Real nx, ny;
  const Real length = subcell_dual_normal(s, d, g.jacobian[e], g.dr_dx[e], g.dr_dy[e], g.ds_dx[e], g.ds_dy[e], nx, ny);
  Real ma[nv], mb[nv], ua[nv], ub[nv];
  for (int v = 0; v < nv; ++v) ma[v] = mean[v][a], mb[v] = mean[v][b];
  if (s.order >= 2) {
    Real w[nv];
    point_state<P>(ce, s.dual_face_basis + d * basis::num_modes(P), w);
    subcell_state(s.order, ma, mb, w, gamma, ua);
    subcell_state(s.order, mb, ma, w, gamma, ub);
  } else {
    for (int v = 0; v < nv; ++v) ua[v] = ma[v], ub[v] = mb[v];
  }
  euler::numerical_flux(F, ua, ub, nx / length, ny / length, gamma, flux);
  return length;
}

/// rhs of element e (the DG right-hand side on entry, [vars][modes][elements]) becomes the blend of the header
/// comment; it is given the elements element_blends keeps (e or one of its faces has a DG share below 1, e not
/// bounded).
template <int P, class Real, euler::Flux F>
struct SubcellBlend {
  index_t num_elements, num_faces;
  Real gamma;
  const Real* c;
  Real* rhs;
  Tables<Real> t;
  SubcellTables<Real> s;
  Geometry<Real> g;
  Faces<Real> fc;
  const index_t* element_faces;  ///< [elements][3]
  const Real* beta;              ///< [elements]
  const Real *high, *low;        ///< SubcellFaceFluxes'
  const std::uint8_t* bounded = nullptr;  ///< [elements] or null: those SubcellBoundedBlend does, left alone here
  const index_t* element_half_faces = nullptr;  ///< [elements][3] or null (for_each_edge_piece)

  static constexpr int nm = basis::num_modes(P), nq = face_points(P), ns = subcell_face_slots(P), nv = euler::num_vars;
  static constexpr int num_dual_faces = 3 * P * (P + 1) / 2;

  KEMPE_HD void operator()(index_t e) const {
    const Real beta_e = beta[e];
    const index_t n = num_elements;
    Real mean[nv][nm], rate[nv][nm];  // subcell averages of the state and of the DG rate, then the blended rate
    Real ce[nv][nm];
    load_modes<P>(c, n, e, ce);
    subcell_averages<P>(s, ce, rhs, n, e, mean, rate);
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) rate[v][cell] = beta_e * rate[v][cell];
    // outflow[v][cell]: (1 - beta_e) times the finite-volume outflow plus the face corrections, per cell.
    Real outflow[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) outflow[v][cell] = Real(0);
    const Real jac = g.jacobian[e];
    const Real fv_share = Real(1) - beta_e;
    if (fv_share > Real(0)) {
      for (int d = 0; d < num_dual_faces; ++d) {
        const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
        Real flux[nv];
        const Real length = subcell_dual_flux<P, Real, F>(s, d, ce, mean, g, e, gamma, flux);
        for (int v = 0; v < nv; ++v) {
          outflow[v][a] += fv_share * length * flux[v];
          outflow[v][b] -= fv_share * length * flux[v];
        }
      }
    }
    for_each_edge_piece<P>(fc, s, t.face_weight, element_faces, element_half_faces, e, [&](const EdgePiece& b, Real piece) {
      const Real beta_f = face_share(fc, beta, b.face);
      if (!(beta_f < Real(1))) return;  // a face at full DG share next to a pure DG element: nothing to add
      const Real sign = b.left ? Real(1) : Real(-1);
      for (int v = 0; v < nv; ++v) {
        const Real hi = high[(v * nq + b.point) * num_faces + b.face], lo = low[(v * ns + b.slot) * num_faces + b.face];
        outflow[v][b.cell] += sign * piece * (fv_share * lo + (beta_f - beta_e) * (hi - lo));
      }
    });
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) rate[v][cell] -= outflow[v][cell] / (s.cell_area[cell] * jac);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        Real sum = Real(0);
        for (int cell = 0; cell < nm; ++cell) sum += s.modes_from_averages[m * nm + cell] * rate[v][cell];
        rhs[(v * nm + m) * n + e] = sum;
      }
  }
};

/// bounded[e] = 1 where the bounded blend (SubcellBoundedBlend) does element e: the troubled elements (all
/// where troubled is null) and those that blend or touch one that does (beta < 1; across a split edge, both
/// halves' neighbours).
template <class Real>
struct BoundedElements {
  const index_t* neighbors;       ///< [elements][3]
  const index_t* half_neighbors;  ///< [elements][3] the second half's neighbour across a split edge, or null
  const std::uint8_t* troubled;   ///< [elements] or null
  const Real* beta;               ///< [elements]
  std::uint8_t* bounded;          ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    bool b = troubled == nullptr || troubled[e] != 0 || beta[e] < Real(1);
    for (int k = 0; k < 3; ++k) {
      const index_t n = neighbors[3 * e + k];
      if (n != no_element && beta[n] < Real(1)) b = true;
      const index_t h = half_neighbors == nullptr ? no_element : half_neighbors[3 * e + k];
      if (h != no_element && beta[h] < Real(1)) b = true;
    }
    bounded[e] = b ? 1 : 0;
  }
};

/// The share of a cell's upper density bound by which its stage update may exceed it before SubcellBoundedBlend
/// repairs it: rounding, not physics (the repair moves what lies beyond the bound itself).
inline constexpr double repair_slack = 1e-12;

/// The fraction of its low-order update's pressure that a subcell average's pressure keeps under the bounds: a
/// positivity bound, not a local one, as Rueda-Ramirez, Pazner & Gassner (Comput. Fluids 2022) bound pressure. A
/// bound by the neighbourhood's least pressure cut the DG share at contacts, where pressure is uniform and the
/// polynomial dips below it: 7-36 % larger L1 density errors on Sod on a 96-column strip
/// (bench/results/2026-11-27-subcell-bounds/strip96.txt), and no smaller pressure overshoots anywhere.
inline constexpr double bounded_pressure_floor = 0.1;

/// A bounded element that does not blend and whose subcell averages' velocities range (x range plus y range)
/// over more than this share of their largest sound speed lies in a shear layer, such as the double Mach
/// reflection's slip line: there its dual faces are not prelimited (SubcellBoundedBlend). Prelimited, the
/// subcells held the slip line in steps one element row high at p = 3; contacts that move across themselves, as
/// in Toro's tests 3-5, keep a nearly uniform velocity and their prelimiting, without which their L1 density
/// errors on 96 x 2 squares grow by 12-28 % at p = 2 (bench/results/2026-11-28-dual-prelimiting).
inline constexpr double shear_velocity_range = 0.3;

/// Whether subcell averages `mean` ([vars][cells], N cells, conserved variables) lie in a shear layer: their
/// velocities range (x range plus y range) over more than shear_velocity_range times their largest sound speed.
template <int N, class Real>
KEMPE_HD bool in_shear_layer(const Real (&mean)[euler::num_vars][N], Real gamma) {
  // The largest squared sound speed, one square root after: the square root is monotone and correctly rounded,
  // so this is euler::sound_speed's largest value to the bit.
  Real u_lo = Real(0), u_hi = Real(0), v_lo = Real(0), v_hi = Real(0), c2_hi = Real(0);
  for (int cell = 0; cell < N; ++cell) {
    const Real rho = mean[euler::density][cell], mx = mean[euler::momentum_x][cell], my = mean[euler::momentum_y][cell];
    const Real vx = mx / rho, vy = my / rho;
    const Real c2 = gamma * euler::pressure(rho, mx, my, mean[euler::energy][cell], gamma) / rho;
    u_lo = cell == 0 || vx < u_lo ? vx : u_lo, u_hi = cell == 0 || vx > u_hi ? vx : u_hi;
    v_lo = cell == 0 || vy < v_lo ? vy : v_lo, v_hi = cell == 0 || vy > v_hi ? vy : v_hi;
    c2_hi = c2 > c2_hi ? c2 : c2_hi;
  }
  return (u_hi - u_lo) + (v_hi - v_lo) > Real(shear_velocity_range) * std::sqrt(c2_hi);
}

/// The largest t in [0, 1] for which x + t y keeps its density above bounded_pressure_floor times x's and its
/// pressure above bounded_pressure_floor times x's (0 where x is not admissible). Pressure is concave in the
/// conserved variables where density is positive, so p(x + s y) >= (1 - s / t) p(x) + (s / t) p(x + t y) for s in
/// [0, t] and one secant step gives a t that holds (Kuzmin, "Monolithic convex limiting for continuous finite
/// element discretizations of hyperbolic conservation laws", Comput. Methods Appl. Mech. Engrg. 2020). Every
/// smaller t holds too, so each face may take the smaller of its two cells' shares.
template <class Real>
KEMPE_HD Real admissible_share(const Real* x, const Real* y, Real gamma) {
  // Selects rather than branches, so that the CPU's lanes of elements (SubcellBoundedBlend::lanes_of) vectorize
  // it; where x is not admissible the values formed on the way are not used.
  constexpr int nv = euler::num_vars;
  const Real rho = x[euler::density], dr = y[euler::density], floor = Real(bounded_pressure_floor);
  const Real px = euler::pressure(x, gamma);
  const Real t_density = (Real(1) - floor) * rho / -dr;
  Real t = rho + dr < floor * rho ? t_density : Real(1);
  Real z[nv];
  for (int v = 0; v < nv; ++v) z[v] = x[v] + t * y[v];
  const Real pz = euler::pressure(z, gamma), target = floor * px;
  const Real t_pressure = t * ((px - target) / (px - pz));
  t = pz >= target ? t : t_pressure;
  return rho > Real(0) && px > Real(0) && t > Real(0) ? t : Real(0);
}

/// Whether, in a step (dt > 0), a cell's updated density rho leaves its upper bound hi beyond rounding
/// (repair_slack): the stage's update where SubcellBoundedBlend's repair acts, the low-order update where
/// repair_edges keeps an element's edges low order.
template <class Real>
KEMPE_HD bool low_update_overshoots(Real dt, Real rho, Real hi) {
  return (dt > Real(0)) & (rho > hi * (Real(1) + Real(repair_slack)));
}

/// Zalesak's prelimiting test (SubcellBoundedBlend): whether, in a step (dt > 0), a correction whose density
/// outflow from a cell of density rho_from to its neighbour of density rho_to is outflow_rho runs from the denser
/// to the lighter. Without branches (both sides are plain comparisons), for the CPU's lanes of elements.
template <class Real>
KEMPE_HD bool runs_downhill(Real dt, Real rho_from, Real rho_to, Real outflow_rho) {
  return (dt > Real(0)) & (outflow_rho * (rho_from - rho_to) > Real(0));
}

/// Zalesak's shares of a cell: of the candidate corrections that raise its density (their sum gain >= 0) and of
/// those that lower it (loss <= 0), what the room between its low-order density rho and its bounds [lo, hi]
/// allows (1 where there is room for all).
template <class Real>
KEMPE_HD void zalesak_shares(Real rho, Real lo, Real hi, Real gain, Real loss, Real& up, Real& down) {
  const Real room_up = hi > rho ? hi - rho : Real(0), room_down = lo < rho ? lo - rho : Real(0);
  up = gain > room_up ? room_up / gain : Real(1);
  down = loss < room_down ? room_down / loss : Real(1);
}

/// The share a cell allows one face's correction `anti` ([vars], antidiffusive outflow times length) whose
/// starting share is `start`: density's (start times Zalesak's share up or down, by the sign of its density
/// outflow) and pressure's (admissible_share of the cell's low-order update x ([vars]) and the correction times
/// `scale`, minus the cell's number of faces times dt over its area: each of its N faces' corrections, taken N
/// times, keeps pressure above the floor, and so does their mean, the cell's update), the smaller.
template <class Real>
KEMPE_HD Real bounded_cell_share(const Real* x, Real scale, Real start, Real up, Real down, const Real* anti, Real gamma) {
  constexpr int nv = euler::num_vars;
  Real y[nv];
  for (int v = 0; v < nv; ++v) y[v] = scale * anti[v];
  const Real rho_out = anti[euler::density];
  const Real density = start * (rho_out < Real(0) ? up : rho_out > Real(0) ? down : Real(1));
  const Real pressure = admissible_share(x, y, gamma);
  return density < pressure ? density : pressure;
}

/// The blend of SubcellBlend with bounds on the subcell averages, given the bounded elements (BoundedElements),
/// after the invariant-domain preserving subcell limiting of Rueda-Ramirez, Pazner & Gassner ("Subcell limiting
/// strategies for discontinuous Galerkin spectral element methods", Comput. Fluids 2022). Every subcell face
/// carries one flux, low + a (high - low): low the first-order finite volumes' with bounded_low_flux
/// (subcell_dual_flux on the dual faces, SubcellFaceFluxes' on the element's edge pieces), high the DG scheme's.
/// On an edge piece the DG flux is the surface term's; inside, the DG rate in flux form: the finite volumes'
/// fluxes plus the dual-face fluxes of least norm whose net outflow from each cell makes up the difference
/// between the two schemes' subcell rates (SubcellOperators::dual_flux_from_outflow), so that the antidiffusive
/// fluxes high - low are the smallest that turn the finite volumes into the DG scheme.
/// Each share a starts at the blend's (beta of the element inside, of the face on its edges: where no bound is
/// reached this is the blend with those low-order fluxes, SubcellBlend's rate where the DG flux is Rusanov's
/// too), and is cut so that after a forward-Euler step of the stage's dt from the low-order update, each cell's
/// average keeps its density within the range of its own and its neighbouring cells' means (across the
/// element's edges too), by Zalesak's limiter over all of the cell's faces, and its pressure above
/// bounded_pressure_floor times the low-order update's: each of a cell's N faces' corrections, taken N times, must
/// keep pressure there (admissible_share), so that their mean, the cell's update, does. An SSP Runge-Kutta stage
/// is a convex combination of such steps and keeps the bounds too. A piece whose other element is not bounded
/// keeps the blend's flux, so both elements see one flux. Two passes: the first writes each edge piece's shares
/// on both sides to `factor`, and the net outflows of each cell's dual faces, whose shares depend on the element
/// alone, to the element's own rows of `rhs` (as many as its cells); the second adds the edge pieces' fluxes at
/// the smaller of their two sides' shares and forms the rates, without forming the bounds again. It reads the DG
/// fluxes SubcellFaceFluxes stored and forms its own with bounded_low_flux, so it does not depend on the DG flux:
/// one type per order and precision serves all four (a quarter of the instantiations to compile).
template <int P, class Real>
struct SubcellBoundedBlend {
  index_t num_elements, num_faces;
  Real gamma;
  const Real* c;
  Real* rhs;  ///< [vars][modes][elements] the DG right-hand side on entry; [vars][cells][elements] the dual faces'
              ///< net outflows after the first pass; the bounded blend's right-hand side after the second
  const index_t* element_faces;   ///< [elements][3]
  const Real* beta;               ///< [elements]
  const std::uint8_t* bounded;    ///< [elements]
  Tables<Real> t;
  SubcellTables<Real> s;
  Geometry<Real> g;
  Faces<Real> fc;
  const Real *high, *low, *side;  ///< SubcellFaceFluxes'
  Real* factor;                   ///< [2 sides][subcell_face_slots][faces] each edge piece's share on each side
  const Real* step;               ///< the stage's forward-Euler step dt (the clock's)
  bool rates;                     ///< false: the first pass, true: the second
  const index_t* element_half_faces = nullptr;  ///< [elements][3] or null (for_each_edge_piece)
  const std::uint8_t* touching = nullptr;       ///< [elements] TouchesHangingFace's flags, or null (lanes_of)
  RepairReach repair_reach = RepairReach::element;  ///< repair: where an excess may go
  /// The first pass: an element whose stage low-order update leaves a cell's upper density bound takes the
  /// low-order flux on all its edge pieces in that stage (solver.subcell_repair_edges, docs/theory.md).
  bool repair_edges = false;

  static constexpr int nm = basis::num_modes(P), nq = face_points(P), ns = subcell_face_slots(P), nv = euler::num_vars;
  static constexpr int num_dual_faces = 3 * P * (P + 1) / 2;

  /// Whether the other side of face f (seen from e) is bounded too, so that the piece's share is shared.
  KEMPE_HD bool shared_piece(index_t f, bool left) const {
    const index_t other = left ? fc.right[f] : fc.left[f];
    return other == no_element || bounded[other] != 0;
  }
  /// visit(f, left, cell, slot, qf, piece) for each edge piece of element e (for_each_edge_piece): its face,
  /// whether e is the face's left element, the cell that owns the piece, its slot in the face arrays `low`,
  /// `side` and `factor`, the face point of its DG flux (`high`) and its length.
  template <class Visit>
  KEMPE_HD void for_each_piece(index_t e, Visit&& visit) const {
    for_each_edge_piece<P>(fc, s, t.face_weight, element_faces, element_half_faces, e,
                           [&](const EdgePiece& b, Real piece) { visit(b.face, b.left, b.cell, b.slot, b.point, piece); });
  }

  KEMPE_HD void operator()(index_t e) const {
    if (rates) {
      form_rates(e);
      return;
    }
    const index_t n = num_elements;
    const Real dt = *step, jac = g.jacobian[e], beta_e = beta[e];
    Real ce[nv][nm], mean[nv][nm], outflow[nv][nm];
    load_modes<P>(c, n, e, ce);
    // outflow: the DG scheme's net outflow through each cell's dual faces, then less the finite volumes'.
    subcell_averages<P>(s, ce, rhs, n, e, mean, outflow);
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) outflow[v][cell] = -s.cell_area[cell] * jac * outflow[v][cell];
    Real rho_lo[nm], rho_hi[nm];
    int faces_of[nm];  // the faces whose share the bounds cut: dual faces and shared edge pieces
    for (int cell = 0; cell < nm; ++cell) {
      rho_lo[cell] = rho_hi[cell] = mean[euler::density][cell];
      faces_of[cell] = 0;
    }
    auto widen = [&](int cell, Real rho) {
      rho_lo[cell] = rho < rho_lo[cell] ? rho : rho_lo[cell];
      rho_hi[cell] = rho > rho_hi[cell] ? rho : rho_hi[cell];
    };
    // The edge pieces: their DG flux leaves the dual faces' share of the outflow; the other side's cell widens
    // the bounds.
    for_each_piece(e, [&](index_t f, bool left, int cell, int slot, int qf, Real piece) {
      const Real sign = left ? Real(1) : Real(-1);
      for (int v = 0; v < nv; ++v) outflow[v][cell] -= sign * piece * high[(v * nq + qf) * num_faces + f];
      if (fc.right[f] != no_element) {
        const int other = left ? 1 : 0;
        widen(cell, side[(other * ns + slot) * num_faces + f]);
      }
      if (shared_piece(f, left)) ++faces_of[cell];
    });
    // The finite volumes' dual-face fluxes times the face's length; `outflow` becomes the difference of the two
    // schemes' net outflows. The DG fluxes meet the cells' net outflows only up to a circulation; taken as the
    // finite volumes' plus the least-norm fluxes of that difference (the second pass), they equal the finite
    // volumes' wherever the two agree, e.g. in a uniform flow (a DG flux of least norm itself would differ there
    // by a circulation, which shares cut face by face turn into spurious sources).
    Real low_d[nv][num_dual_faces > 0 ? num_dual_faces : 1];
    for (int d = 0; d < num_dual_faces; ++d) {
      Real flux[nv];
      const Real length = subcell_dual_flux<P, Real, bounded_low_flux>(s, d, ce, mean, g, e, gamma, flux);
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      for (int v = 0; v < nv; ++v) {
        low_d[v][d] = length * flux[v];
        outflow[v][a] -= low_d[v][d], outflow[v][b] += low_d[v][d];
      }
      widen(a, mean[euler::density][b]);
      widen(b, mean[euler::density][a]);
      ++faces_of[a], ++faces_of[b];
    }
    // The low-order update of each cell: every shared face at its low flux, the others at the blend's.
    Real low_update[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) low_update[v][cell] = Real(0);  // net outflow first
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      for (int v = 0; v < nv; ++v) low_update[v][a] += low_d[v][d], low_update[v][b] -= low_d[v][d];
    }
    for_each_piece(e, [&](index_t f, bool left, int cell, int slot, int qf, Real piece) {
      const bool shared = shared_piece(f, left);
      const Real sign = left ? Real(1) : Real(-1), beta_f = face_share(fc, beta, f);
      for (int v = 0; v < nv; ++v) {
        const Real hi = high[(v * nq + qf) * num_faces + f], lo = low[(v * ns + slot) * num_faces + f];
        low_update[v][cell] += sign * piece * (shared ? lo : beta_f < Real(1) ? lo + beta_f * (hi - lo) : hi);
      }
    });
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) low_update[v][cell] = mean[v][cell] - dt * low_update[v][cell] / (s.cell_area[cell] * jac);
    // The antidiffusive outflows (times length) of the dual faces from cell a: the DG flux less the finite
    // volumes', the least-norm one of `outflow`.
    Real anti_d[nv][num_dual_faces > 0 ? num_dual_faces : 1];
    for (int d = 0; d < num_dual_faces; ++d)
      for (int v = 0; v < nv; ++v) {
        Real sum = Real(0);
        for (int cell = 0; cell < nm; ++cell) sum += s.dual_flux_from_outflow[d * nm + cell] * outflow[v][cell];
        anti_d[v][d] = sum;
      }
    // Density, after Zalesak ("Fully multidimensional flux-corrected transport algorithms for fluids", J. Comput.
    // Phys. 1979): the sums of the increases and of the decreases that each cell's candidate fluxes (the starting
    // shares' antidiffusive fluxes) would bring, and the shares of them that the cell's room above and below its
    // low-order update allows. Fluxes into and out of a cell offset each other, as at a contact that moves
    // through it; a share per face alone (each face's correction taken as many times as the cell has faces) is
    // stricter: 2-6 % larger L1 density errors on the shock tubes (docs/theory.md).
    Real gain[nm], loss[nm];
    for (int cell = 0; cell < nm; ++cell) gain[cell] = loss[cell] = Real(0);
    auto add = [&](int cell, Real change) {
      if (change > Real(0)) gain[cell] += change;
      else loss[cell] += change;
    };
    auto per_area = [&](int cell) { return dt / (s.cell_area[cell] * jac); };
    // Zalesak's prelimiting (his eq. 14; Kuzmin & Moeller, "Algebraic flux correction I", 2005): a correction
    // whose density runs from the denser cell to the lighter one flattens the profile, as the low-order fluxes
    // do already, and is dropped. Kept, such corrections used the room that the steepening ones need, and the
    // cut shares left terraces in contacts: on 96 x 2 squares the L1 density errors of Toro's tests 3-5 at
    // p = 2 are about 10 % lower without them (docs/theory.md). Outside a step (dt = 0: no update to bound, as for
    // EulerDG::rhs) nothing is limited.
    auto downhill = [&](Real rho_from, Real rho_to, Real outflow_rho) { return runs_downhill(dt, rho_from, rho_to, outflow_rho); };
    // The dual faces are prelimited except in a shear layer (shear_velocity_range) of an element that does not
    // blend.
    const bool prelimit_dual = beta_e < Real(1) || !in_shear_layer(mean, gamma);
    auto other_mean = [&](index_t f, bool left, int cell, int slot) {  // the density beyond an edge piece
      return fc.right[f] != no_element ? side[((left ? 1 : 0) * ns + slot) * num_faces + f] : mean[euler::density][cell];
    };
    for_each_piece(e, [&](index_t f, bool left, int cell, int slot, int qf, Real piece) {
      if (!shared_piece(f, left)) return;
      const Real sign = left ? Real(1) : Real(-1), hi = high[(euler::density * nq + qf) * num_faces + f],
                 lo = low[(euler::density * ns + slot) * num_faces + f];
      if (downhill(mean[euler::density][cell], other_mean(f, left, cell, slot), sign * (hi - lo))) return;
      add(cell, -per_area(cell) * face_share(fc, beta, f) * sign * piece * (hi - lo));
    });
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      if (prelimit_dual && downhill(mean[euler::density][a], mean[euler::density][b], anti_d[euler::density][d])) continue;
      add(a, -per_area(a) * beta_e * anti_d[euler::density][d]);
      add(b, per_area(b) * beta_e * anti_d[euler::density][d]);
    }
    Real share_up[nm], share_down[nm];  // of the candidate fluxes that raise / lower the cell's density
    for (int cell = 0; cell < nm; ++cell)
      zalesak_shares(low_update[euler::density][cell], rho_lo[cell], rho_hi[cell], gain[cell], loss[cell], share_up[cell], share_down[cell]);
    // The share cell `cell` allows a face whose starting share is `start` and whose antidiffusive outflow (times
    // length) is `anti` (bounded_cell_share).
    auto cell_share = [&](int cell, Real start, const Real* anti) {
      Real x[nv];
      for (int v = 0; v < nv; ++v) x[v] = low_update[v][cell];
      return bounded_cell_share(x, -Real(faces_of[cell]) * per_area(cell), start, share_up[cell], share_down[cell], anti, gamma);
    };
    // repair_edges: where the low-order update leaves a cell's upper bound, the element's edges stay low order.
    bool edges_low = false;
    for (int cell = 0; cell < nm; ++cell)
      edges_low = edges_low || (repair_edges && low_update_overshoots(dt, low_update[euler::density][cell], rho_hi[cell]));
    for_each_piece(e, [&](index_t f, bool left, int cell, int slot, int qf, Real piece) {
      if (!shared_piece(f, left)) return;
      const Real sign = left ? Real(1) : Real(-1);
      Real anti[nv];
      for (int v = 0; v < nv; ++v)
        anti[v] = sign * piece * (high[(v * nq + qf) * num_faces + f] - low[(v * ns + slot) * num_faces + f]);
      factor[((left ? 0 : 1) * ns + slot) * num_faces + f] =
          edges_low || downhill(mean[euler::density][cell], other_mean(f, left, cell, slot), anti[euler::density])
              ? Real(0)
              : cell_share(cell, face_share(fc, beta, f), anti);
    });
    Real dual_outflow[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) dual_outflow[v][cell] = Real(0);
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      Real anti_a[nv], anti_b[nv];
      for (int v = 0; v < nv; ++v) anti_a[v] = anti_d[v][d], anti_b[v] = -anti_d[v][d];
      Real share = beta_e;
      const Real sa = cell_share(a, beta_e, anti_a), sb = cell_share(b, beta_e, anti_b);
      share = sa < share ? sa : share;
      share = sb < share ? sb : share;
      if (prelimit_dual && downhill(mean[euler::density][a], mean[euler::density][b], anti_a[euler::density])) share = Real(0);
      for (int v = 0; v < nv; ++v) {
        const Real flux = low_d[v][d] + share * anti_a[v];
        dual_outflow[v][a] += flux, dual_outflow[v][b] -= flux;
      }
    }
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) rhs[(v * nm + cell) * n + e] = dual_outflow[v][cell];
  }

  /// The CPU runs the listed elements in lanes of eight (OverList, CpuListLanes): the first pass with a loop over
  /// the eight elements innermost, which GCC vectorizes with the loops around it rolled, the same operations in
  /// the same order as operator()'s one element at a time (a skipped correction adds a zero, which is exact, and
  /// a cut share is selected rather than branched to); the second pass one element at a time. A block with fewer
  /// elements repeats its last one, whose values it writes once.
  static constexpr int cpu_list_lanes = 8, np = 3 * nq;

  /// The edge pieces j = k nq + q (for_each_piece's order) of the elements e[l] of the CPU's lanes: each one's
  /// face, the face's own point number, whether e is the face's left element, whether the piece is shared and
  /// whether an element lies beyond it (1 or 0 as Real, for the vector loops), its DG and low-order fluxes, its
  /// length, sign and the face's share.
  struct LanePieces {
    static constexpr int W = cpu_list_lanes;
    index_t face[np][W];
    int point[np][W];
    bool left[np][W];
    alignas(64) Real shared[np][W], beyond[np][W], hi[nv][np][W], lo[nv][np][W], piece[np][W], sign[np][W], beta_f[np][W];

    void gather(const SubcellBoundedBlend& b, const index_t (&e)[W]) {
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < W; ++l) {
          const index_t f = b.element_faces[3 * e[l] + k];
          const bool is_left = b.fc.left[f] == e[l];
          const Real share = face_share(b.fc, b.beta, f);
          for (int q = 0; q < nq; ++q) {
            const int j = k * nq + q, qf = is_left ? q : nq - 1 - q;
            face[j][l] = f, point[j][l] = qf, left[j][l] = is_left;
            shared[j][l] = b.shared_piece(f, is_left) ? Real(1) : Real(0);
            beyond[j][l] = b.fc.right[f] != no_element ? Real(1) : Real(0);
            piece[j][l] = b.fc.length[f] * b.t.face_weight[qf] / Real(2), sign[j][l] = is_left ? Real(1) : Real(-1);
            beta_f[j][l] = share;
            for (int v = 0; v < nv; ++v)
              hi[v][j][l] = b.high[(v * nq + qf) * b.num_faces + f], lo[v][j][l] = b.low[(v * ns + qf) * b.num_faces + f];
          }
        }
    }
  };

  void lanes_of(const index_t* items, int count) const {
    constexpr int W = cpu_list_lanes, nd = num_dual_faces > 0 ? num_dual_faces : 1;
    // The lanes hold the face points' pieces of conforming faces: a block with an element beside a hanging face
    // goes one element at a time (the same operations, so the same values).
    if (touching != nullptr) {
      bool any = false;
      for (int l = 0; l < count; ++l) any = any || touching[items[l]] != 0;
      if (any) {
        for (int l = 0; l < count; ++l) (*this)(items[l]);
        return;
      }
    }
    index_t e[W];
    for (int l = 0; l < W; ++l) e[l] = items[l < count ? l : count - 1];
    if (rates) {
      form_rates_lanes(e, count);
      return;
    }
    const index_t n = num_elements;
    const Real dt = *step;
    alignas(64) Real jac[W], beta_e[W], rx[W], ry[W], sx[W], sy[W];
    for (int l = 0; l < W; ++l) {
      jac[l] = g.jacobian[e[l]], beta_e[l] = beta[e[l]];
      rx[l] = g.dr_dx[e[l]], ry[l] = g.dr_dy[e[l]], sx[l] = g.ds_dx[e[l]], sy[l] = g.ds_dy[e[l]];
    }
    auto per_area = [&](int cell, int l) { return dt / (s.cell_area[cell] * jac[l]); };
    // The subcell averages of the state and, as outflows, of the DG rate (operator()'s subcell_averages).
    alignas(64) Real ce[nv][nm][W], mean[nv][nm][W], outflow[nv][nm][W];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m)
        for (int l = 0; l < W; ++l) ce[v][m][l] = c[(v * nm + m) * n + e[l]];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) {
        alignas(64) Real a[W], b[W];
        for (int l = 0; l < W; ++l) a[l] = b[l] = Real(0);
        for (int m = 0; m < nm; ++m) {
          const Real w = s.average[cell * nm + m];
          KEMPE_OMP_SIMD
          for (int l = 0; l < W; ++l) {
            a[l] += w * ce[v][m][l];
            b[l] += w * rhs[(v * nm + m) * n + e[l]];
          }
        }
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) mean[v][cell][l] = a[l], outflow[v][cell][l] = -s.cell_area[cell] * jac[l] * b[l];
      }
    alignas(64) Real rho_lo[nm][W], rho_hi[nm][W], faces_of[nm][W];
    for (int cell = 0; cell < nm; ++cell)
      for (int l = 0; l < W; ++l) rho_lo[cell][l] = rho_hi[cell][l] = mean[euler::density][cell][l], faces_of[cell][l] = Real(0);
    auto widen = [&](int cell, int l, Real rho) {
      rho_lo[cell][l] = rho < rho_lo[cell][l] ? rho : rho_lo[cell][l];
      rho_hi[cell][l] = rho > rho_hi[cell][l] ? rho : rho_hi[cell][l];
    };
    LanePieces p;
    p.gather(*this, e);
    // the density beyond each piece (other_mean)
    alignas(64) Real beyond[np][W];
    for (int j = 0; j < np; ++j)
      for (int l = 0; l < W; ++l)
        beyond[j][l] = p.beyond[j][l] != Real(0) ? side[((p.left[j][l] ? 1 : 0) * ns + p.point[j][l]) * num_faces + p.face[j][l]]
                                                  : mean[euler::density][s.face_point_cell[j]][l];
    for (int j = 0; j < np; ++j) {
      const int cell = s.face_point_cell[j];
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) outflow[v][cell][l] -= p.sign[j][l] * p.piece[j][l] * p.hi[v][j][l];
      }
      for (int l = 0; l < W; ++l) {
        if (p.beyond[j][l] != Real(0)) widen(cell, l, beyond[j][l]);
        faces_of[cell][l] += p.shared[j][l];
      }
    }
    alignas(64) Real low_d[nv][nd][W];
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      KEMPE_NO_UNROLL
      for (int l = 0; l < W; ++l) {
        Real nx, ny, ma[nv], mb[nv], flux[nv];
        const Real length = subcell_dual_normal(s, d, jac[l], rx[l], ry[l], sx[l], sy[l], nx, ny);
        for (int v = 0; v < nv; ++v) ma[v] = mean[v][a][l], mb[v] = mean[v][b][l];
        euler::numerical_flux(bounded_low_flux, ma, mb, nx / length, ny / length, gamma, flux);
        for (int v = 0; v < nv; ++v) low_d[v][d][l] = length * flux[v];
      }
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) outflow[v][a][l] -= low_d[v][d][l], outflow[v][b][l] += low_d[v][d][l];
      }
      for (int l = 0; l < W; ++l) {
        widen(a, l, mean[euler::density][b][l]);
        widen(b, l, mean[euler::density][a][l]);
        faces_of[a][l] += Real(1), faces_of[b][l] += Real(1);
      }
    }
    alignas(64) Real low_update[nv][nm][W];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell)
        for (int l = 0; l < W; ++l) low_update[v][cell][l] = Real(0);
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) low_update[v][a][l] += low_d[v][d][l], low_update[v][b][l] -= low_d[v][d][l];
      }
    }
    for (int j = 0; j < np; ++j) {
      const int cell = s.face_point_cell[j];
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) {
          const Real h = p.hi[v][j][l], o = p.lo[v][j][l], bf = p.beta_f[j][l];
          low_update[v][cell][l] += p.sign[j][l] * p.piece[j][l] * (p.shared[j][l] != Real(0) ? o : bf < Real(1) ? o + bf * (h - o) : h);
        }
      }
    }
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l)
          low_update[v][cell][l] = mean[v][cell][l] - dt * low_update[v][cell][l] / (s.cell_area[cell] * jac[l]);
      }
    alignas(64) Real anti_d[nv][nd][W];
    for (int d = 0; d < num_dual_faces; ++d)
      for (int v = 0; v < nv; ++v) {
        alignas(64) Real sum[W];
        for (int l = 0; l < W; ++l) sum[l] = Real(0);
        for (int cell = 0; cell < nm; ++cell) {
          const Real w = s.dual_flux_from_outflow[d * nm + cell];
          KEMPE_OMP_SIMD
          for (int l = 0; l < W; ++l) sum[l] += w * outflow[v][cell][l];
        }
        for (int l = 0; l < W; ++l) anti_d[v][d][l] = sum[l];
      }
    alignas(64) Real gain[nm][W], loss[nm][W];
    for (int cell = 0; cell < nm; ++cell)
      for (int l = 0; l < W; ++l) gain[cell][l] = loss[cell][l] = Real(0);
    auto add = [&](int cell, int l, Real change) {
      gain[cell][l] += change > Real(0) ? change : Real(0);
      loss[cell][l] += change > Real(0) ? Real(0) : change;
    };
    auto downhill = [&](Real rho_from, Real rho_to, Real outflow_rho) { return runs_downhill(dt, rho_from, rho_to, outflow_rho); };
    alignas(64) Real prelimit_dual[W];  // 1 or 0
    KEMPE_NO_UNROLL
    for (int l = 0; l < W; ++l) {
      Real m[nv][nm];
      for (int v = 0; v < nv; ++v)
        for (int cell = 0; cell < nm; ++cell) m[v][cell] = mean[v][cell][l];
      prelimit_dual[l] = beta_e[l] < Real(1) || !in_shear_layer(m, gamma) ? Real(1) : Real(0);
    }
    constexpr int rho = euler::density;
    for (int j = 0; j < np; ++j) {
      const int cell = s.face_point_cell[j];
      KEMPE_OMP_SIMD
      for (int l = 0; l < W; ++l) {
        const Real anti = p.hi[rho][j][l] - p.lo[rho][j][l];
        const bool skip = (p.shared[j][l] == Real(0)) | downhill(mean[rho][cell][l], beyond[j][l], p.sign[j][l] * anti);
        const Real change = -per_area(cell, l) * p.beta_f[j][l] * p.sign[j][l] * p.piece[j][l] * anti;
        add(cell, l, skip ? Real(0) : change);
      }
    }
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      KEMPE_OMP_SIMD
      for (int l = 0; l < W; ++l) {
        const Real anti = anti_d[rho][d][l];
        const bool skip = (prelimit_dual[l] != Real(0)) & downhill(mean[rho][a][l], mean[rho][b][l], anti);
        const Real change_a = -per_area(a, l) * beta_e[l] * anti, change_b = per_area(b, l) * beta_e[l] * anti;
        add(a, l, skip ? Real(0) : change_a);
        add(b, l, skip ? Real(0) : change_b);
      }
    }
    alignas(64) Real share_up[nm][W], share_down[nm][W];
    for (int cell = 0; cell < nm; ++cell) {
      KEMPE_OMP_SIMD
      for (int l = 0; l < W; ++l)
        zalesak_shares(low_update[rho][cell][l], rho_lo[cell][l], rho_hi[cell][l], gain[cell][l], loss[cell][l], share_up[cell][l],
                       share_down[cell][l]);
    }
    // operator()'s cell_share, in lane l.
    auto cell_share = [&](int cell, int l, Real start, const Real* anti) {
      Real x[nv];
      for (int v = 0; v < nv; ++v) x[v] = low_update[v][cell][l];
      return bounded_cell_share(x, -faces_of[cell][l] * per_area(cell, l), start, share_up[cell][l], share_down[cell][l], anti, gamma);
    };
    alignas(64) Real edges_low[W];  // operator()'s edges_low, in lane l
    for (int l = 0; l < W; ++l) {
      bool any = false;
      for (int cell = 0; cell < nm; ++cell) any = any || (repair_edges && low_update_overshoots(dt, low_update[rho][cell][l], rho_hi[cell][l]));
      edges_low[l] = any ? Real(1) : Real(0);
    }
    for (int j = 0; j < np; ++j) {
      const int cell = s.face_point_cell[j];
      alignas(64) Real value[W];
      KEMPE_NO_UNROLL
      for (int l = 0; l < W; ++l) {
        Real anti[nv];
        for (int v = 0; v < nv; ++v) anti[v] = p.sign[j][l] * p.piece[j][l] * (p.hi[v][j][l] - p.lo[v][j][l]);
        const Real share = cell_share(cell, l, p.beta_f[j][l], anti);
        value[l] = (edges_low[l] != Real(0)) | downhill(mean[rho][cell][l], beyond[j][l], anti[rho]) ? Real(0) : share;
      }
      for (int l = 0; l < count; ++l)
        if (p.shared[j][l] != Real(0))
          factor[((p.left[j][l] ? 0 : 1) * ns + p.point[j][l]) * num_faces + p.face[j][l]] = value[l];
    }
    alignas(64) Real dual_outflow[nv][nm][W];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell)
        for (int l = 0; l < W; ++l) dual_outflow[v][cell][l] = Real(0);
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      alignas(64) Real share[W];
      KEMPE_NO_UNROLL
      for (int l = 0; l < W; ++l) {
        Real anti_a[nv], anti_b[nv];
        for (int v = 0; v < nv; ++v) anti_a[v] = anti_d[v][d][l], anti_b[v] = -anti_d[v][d][l];
        Real sh = beta_e[l];
        const Real sa = cell_share(a, l, beta_e[l], anti_a), sb = cell_share(b, l, beta_e[l], anti_b);
        sh = sa < sh ? sa : sh;
        sh = sb < sh ? sb : sh;
        share[l] = (prelimit_dual[l] != Real(0)) & downhill(mean[rho][a][l], mean[rho][b][l], anti_a[rho]) ? Real(0) : sh;
      }
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) {
          const Real flux = low_d[v][d][l] + share[l] * anti_d[v][d][l];
          dual_outflow[v][a][l] += flux, dual_outflow[v][b][l] -= flux;
        }
      }
    }
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell)
        for (int l = 0; l < count; ++l) rhs[(v * nm + cell) * n + e[l]] = dual_outflow[v][cell][l];
  }

  /// form_rates of the elements e[l] of the CPU's lanes (lanes_of), the first count of them distinct.
  void form_rates_lanes(const index_t (&e)[cpu_list_lanes], int count) const {
    constexpr int W = cpu_list_lanes;
    const index_t n = num_elements;
    LanePieces p;
    p.gather(*this, e);
    alignas(64) Real jac[W], outflow[nv][nm][W], share[np][W];
    for (int l = 0; l < W; ++l) jac[l] = g.jacobian[e[l]];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell)
        for (int l = 0; l < W; ++l) outflow[v][cell][l] = rhs[(v * nm + cell) * n + e[l]];
    for (int j = 0; j < np; ++j)
      for (int l = 0; l < W; ++l) {
        Real a = p.beta_f[j][l];
        if (p.shared[j][l] != Real(0)) {
          const index_t f = p.face[j][l];
          const Real mine = factor[((p.left[j][l] ? 0 : 1) * ns + p.point[j][l]) * num_faces + f];
          a = mine < a ? mine : a;
          if (p.beyond[j][l] != Real(0)) {
            const Real theirs = factor[((p.left[j][l] ? 1 : 0) * ns + p.point[j][l]) * num_faces + f];
            a = theirs < a ? theirs : a;
          }
        }
        share[j][l] = a;
      }
    for (int j = 0; j < np; ++j) {
      const int cell = s.face_point_cell[j];
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < W; ++l) {
          const Real h = p.hi[v][j][l], o = p.lo[v][j][l];
          const bool blended = (p.shared[j][l] != Real(0)) | (p.beta_f[j][l] < Real(1));
          outflow[v][cell][l] += p.sign[j][l] * p.piece[j][l] * (blended ? o + share[j][l] * (h - o) : h);
        }
      }
    }
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        alignas(64) Real sum[W];
        for (int l = 0; l < W; ++l) sum[l] = Real(0);
        for (int cell = 0; cell < nm; ++cell) {
          const Real w = s.modes_from_averages[m * nm + cell], area = s.cell_area[cell];
          KEMPE_OMP_SIMD
          for (int l = 0; l < W; ++l) sum[l] -= w * outflow[v][cell][l] / (area * jac[l]);
        }
        for (int l = 0; l < count; ++l) rhs[(v * nm + m) * n + e[l]] = sum[l];
      }
  }

  /// The second pass: the first's dual-face outflows plus the edge pieces' fluxes, each piece at the smaller of
  /// its two sides' shares (a piece beside an element that is not bounded at the blend's), as rates of the modes.
  KEMPE_HD void form_rates(index_t e) const {
    const index_t n = num_elements;
    const Real jac = g.jacobian[e];
    Real outflow[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) outflow[v][cell] = rhs[(v * nm + cell) * n + e];
    for_each_piece(e, [&](index_t f, bool left, int cell, int slot, int qf, Real piece) {
      const bool shared = shared_piece(f, left);
      const Real sign = left ? Real(1) : Real(-1), beta_f = face_share(fc, beta, f);
      Real a = beta_f;
      if (shared) {
        const Real mine = factor[((left ? 0 : 1) * ns + slot) * num_faces + f];
        a = mine < a ? mine : a;
        if (fc.right[f] != no_element) {
          const Real theirs = factor[((left ? 1 : 0) * ns + slot) * num_faces + f];
          a = theirs < a ? theirs : a;
        }
      }
      for (int v = 0; v < nv; ++v) {
        const Real hi = high[(v * nq + qf) * num_faces + f], lo = low[(v * ns + slot) * num_faces + f];
        outflow[v][cell] += sign * piece * (shared || beta_f < Real(1) ? lo + a * (hi - lo) : hi);
      }
    });
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        Real sum = Real(0);
        for (int cell = 0; cell < nm; ++cell) sum -= s.modes_from_averages[m * nm + cell] * outflow[v][cell] / (s.cell_area[cell] * jac);
        rhs[(v * nm + m) * n + e] = sum;
      }
  }

  /// The third pass, where the case asks for it (SubcellRepair): element e's rates, the second pass's, repaired.
  KEMPE_HD void repair_rates(index_t e) const {
    const index_t n = num_elements;
    Real rate[nv][nm], repaired[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) {
        Real sum = Real(0);
        for (int m = 0; m < nm; ++m) sum += s.average[cell * nm + m] * rhs[(v * nm + m) * n + e];
        rate[v][cell] = sum;
      }
    if (repair(e, rate, repaired)) write_rates(e, repaired);
  }

  /// rhs of element e = the modes of the subcell rates `rate`.
  KEMPE_HD void write_rates(index_t e, const Real (&rate)[nv][nm]) const {
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        Real sum = Real(0);
        for (int cell = 0; cell < nm; ++cell) sum += s.modes_from_averages[m * nm + cell] * rate[v][cell];
        rhs[(v * nm + m) * num_elements + e] = sum;
      }
  }

  /// The repair of a stage's forward-Euler update whose subcell densities exceed their upper bounds (the largest
  /// of the cell's and its neighbouring cells' means) although every correction was limited: where the low-order
  /// update itself exceeds them. Rusanov's bar state (u_a + u_b) / 2 - (F(u_b) - F(u_a)) . n / (2 lambda) lies
  /// between the two densities only where lambda >= |(m_b - m_a) . n| / |rho_b - rho_a|, which the steep
  /// profiles the corrections leave behind a strong shock break, so the limiter keeps what the low-order update
  /// left (Toro's test 5: up to 4 % of the jump above the exact state). Within the element, the excess moves to
  /// the cells below their upper bounds (repair_reach: any of them, or only the exceeding cell's dual-face
  /// neighbours), in proportion to their room and no more than it allows: a chunk of each exceeding cell's state
  /// (its velocity and specific energy) is taken, and shared (element: the pooled chunks).
  /// The element's totals stay as they are (conservative), the giving cells keep their velocity and specific
  /// energy, and the taking ones add an admissible state to theirs, whose pressure (concave and of degree one)
  /// does not fall. Only overshoots are repaired: a low-order update below the neighbourhood's least density is
  /// an expansion (Toro's test 2), which the bounds of the neighbours' means do not describe. Returns whether
  /// anything moved; then `repaired` holds the subcell rates of the repaired update. `rate`: the subcell rates
  /// ([vars][cells]) the two passes formed.
  KEMPE_HD bool repair(index_t e, const Real (&rate)[nv][nm], Real (&repaired)[nv][nm]) const {
    const Real dt = *step;
    if (!(dt > Real(0))) return false;  // outside a step: no update to repair
    const index_t n = num_elements;
    Real mean[nv][nm], u[nv][nm], hi[nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) {
        Real a = Real(0);
        for (int m = 0; m < nm; ++m) a += s.average[cell * nm + m] * c[(v * nm + m) * n + e];
        mean[v][cell] = a;
      }
    // the upper bounds of the first pass: the cell's mean, its dual-face neighbours' and those beyond its pieces
    for (int cell = 0; cell < nm; ++cell) hi[cell] = mean[euler::density][cell];
    for (int d = 0; d < num_dual_faces; ++d) {
      const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
      hi[a] = mean[euler::density][b] > hi[a] ? mean[euler::density][b] : hi[a];
      hi[b] = mean[euler::density][a] > hi[b] ? mean[euler::density][a] : hi[b];
    }
    for_each_piece(e, [&](index_t f, bool left, int cell, int slot, int, Real) {
      if (fc.right[f] == no_element) return;
      const Real rho = side[((left ? 1 : 0) * ns + slot) * num_faces + f];
      hi[cell] = rho > hi[cell] ? rho : hi[cell];
    });
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) u[v][cell] = mean[v][cell] + dt * rate[v][cell];
    // mass (per unit of the element's Jacobian) above the upper bounds, and room below them
    Real excess[nm], room[nm], total_excess = Real(0), total_room = Real(0);
    for (int cell = 0; cell < nm; ++cell) {
      const Real rho = u[euler::density][cell], area = s.cell_area[cell];
      excess[cell] = low_update_overshoots(dt, rho, hi[cell]) ? (rho - hi[cell]) * area : Real(0);
      room[cell] = rho < hi[cell] ? (hi[cell] - rho) * area : Real(0);
      total_excess += excess[cell], total_room += room[cell];
    }
    if (!(total_excess > Real(0)) || !(total_room > Real(0))) return false;
    if (repair_reach == RepairReach::neighbours) {
      // Each exceeding cell in turn gives a chunk of its state to its dual-face neighbours below their bounds, in
      // proportion to their room and no more than it (a neighbour's room shrinks by what it took).
      bool moved = false;
      for (int giver = 0; giver < nm; ++giver) {
        if (!(excess[giver] > Real(0))) continue;
        Real near_room = Real(0), room_now[nm];
        for (int cell = 0; cell < nm; ++cell) room_now[cell] = Real(0);
        for (int d = 0; d < num_dual_faces; ++d) {
          const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
          const int taker = a == giver ? b : b == giver ? a : -1;
          if (taker >= 0) room_now[taker] = room[taker];
        }
        for (int cell = 0; cell < nm; ++cell) near_room += room_now[cell];
        if (!(near_room > Real(0))) continue;
        const Real mass = excess[giver] < near_room ? excess[giver] : near_room;
        const Real taken = mass / (s.cell_area[giver] * u[euler::density][giver]);
        for (int v = 0; v < nv; ++v) {
          const Real chunk = taken * s.cell_area[giver] * u[v][giver];
          u[v][giver] -= taken * u[v][giver];
          for (int cell = 0; cell < nm; ++cell)
            if (room_now[cell] > Real(0)) u[v][cell] += room_now[cell] / near_room * chunk / s.cell_area[cell];
        }
        for (int cell = 0; cell < nm; ++cell) room[cell] -= room_now[cell] / near_room * mass;
        moved = true;
      }
      if (!moved) return false;
      for (int v = 0; v < nv; ++v)
        for (int cell = 0; cell < nm; ++cell) repaired[v][cell] = (u[v][cell] - mean[v][cell]) / dt;
      return true;
    }
    const Real amount = total_excess < total_room ? total_excess : total_room;
    Real pool[nv];
    for (int v = 0; v < nv; ++v) pool[v] = Real(0);
    for (int cell = 0; cell < nm; ++cell) {
      if (!(excess[cell] > Real(0))) continue;
      const Real taken = excess[cell] * (amount / total_excess) / (s.cell_area[cell] * u[euler::density][cell]);
      for (int v = 0; v < nv; ++v) {
        pool[v] += taken * s.cell_area[cell] * u[v][cell];
        u[v][cell] -= taken * u[v][cell];
      }
    }
    for (int cell = 0; cell < nm; ++cell) {
      if (!(room[cell] > Real(0))) continue;
      const Real part = room[cell] / total_room / s.cell_area[cell];
      for (int v = 0; v < nv; ++v) u[v][cell] += part * pool[v];
    }
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) repaired[v][cell] = (u[v][cell] - mean[v][cell]) / dt;
    return true;
  }
};

/// The repair of the bounded blend's overshoots (SubcellBoundedBlend::repair_rates), a pass of its own over the
/// bounded elements after the blend's two, launched only where the case asks for it (solver.subcell_repair), so
/// that the blend's passes stay as they are without it.
template <int P, class Real>
struct SubcellRepair {
  SubcellBoundedBlend<P, Real> blend;
  KEMPE_HD void operator()(index_t e) const { blend.repair_rates(e); }
};

}  // namespace kempe::dg
