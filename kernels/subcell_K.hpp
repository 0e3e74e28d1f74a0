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
// and SubcellBlend (per element, the formula above). Elements beside a hanging face of an adapted mesh keep
// beta = 1 (their edge pieces do not match across the face); the positivity limiter still watches them.
#pragma once

#include <cmath>
#include <cstdint>

#include <string_view>

#include "base/registry.hpp"
#include "kernels/basis.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"

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
  int order;                            ///< of the finite volumes: 1 or 2 (subcell_state)
};

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

/// share[e] = the finite-volume share alpha of element e (0: pure DG): the energy E of density times pressure in
/// the highest modes, the larger of (degree P) / (all) and (degree P - 1) / (degree below P) of the squared
/// orthonormal coefficients, mapped by alpha = 1 / (1 + exp(-s / T (E - T))); below alpha_min it is 0, above
/// alpha_max it is alpha_max. Elements beside a hanging face (touching[e] != 0) get 0.
template <int P, class Real>
struct BlendingShares {
  index_t num_elements;
  Real gamma, alpha_min, alpha_max;
  const Real* c;
  Tables<Real> t;
  const std::uint8_t* touching_hanging;  ///< [elements] or null
  const std::uint8_t* troubled;          ///< [elements] KXRCF flags (TroubledCells), or null: only these blend
  Real* share;                           ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars, nq = volume_points(P);
    if ((troubled != nullptr && troubled[e] == 0) || (touching_hanging != nullptr && touching_hanging[e] != 0)) {
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
      const double value = double(u[euler::density]) * double(euler::pressure(u, gamma));
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
/// which keeps the finite volumes on beside a shock that is about to enter an element. Elements beside a hanging
/// face keep 1.
template <class Real>
struct SmoothShares {
  const index_t* neighbors;              ///< [elements][3]
  const std::uint8_t* touching_hanging;  ///< [elements] or null
  const Real* alpha;                     ///< [elements]
  Real* beta;                            ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    Real a = alpha[e];
    for (int k = 0; k < 3; ++k) {
      const index_t n = neighbors[3 * e + k];
      if (n != no_element && alpha[n] / Real(2) > a) a = alpha[n] / Real(2);
    }
    if (touching_hanging != nullptr && touching_hanging[e] != 0) a = Real(0);
    beta[e] = Real(1) - a;
  }
};

/// touching[e] = 1 where a face of element e is a hanging face (either side of it), else 0.
template <class Real>
struct TouchesHangingFace {
  const index_t* element_faces;  ///< [elements][3]
  Faces<Real> fc;                ///< with left_half and right_half
  std::uint8_t* touching;        ///< [elements]

  KEMPE_HD void operator()(index_t e) const {
    std::uint8_t any = 0;
    for (int k = 0; k < 3; ++k) {
      const index_t f = element_faces[3 * e + k];
      if (fc.left_half[f] != whole_edge || fc.right_half[f] != whole_edge) any = 1;
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

/// For each face of share below 1, at each face point q: high = the DG flux F*(u_l, u_r) . n of the traces
/// (FaceIntegrals::point_flux, the same value the surface term takes), low = the same numerical flux of the two
/// subcell averages whose cells own that piece of the edge; both per unit length, the normal pointing from left
/// to right, stored [vars][face points][faces].
template <int P, class Real, euler::Flux F, class Boundary>
struct SubcellFaceFluxes {
  FaceIntegrals<P, Real, F, Boundary> integrals;
  SubcellTables<Real> s;
  const Real* beta;  ///< [elements]
  index_t num_faces;
  Real *high, *low;

  static constexpr int nm = basis::num_modes(P), nq = face_points(P), nv = euler::num_vars;

  KEMPE_HD void operator()(index_t f) const {
    const Faces<Real>& fc = integrals.fc;
    if (!(face_share(fc, beta, f) < Real(1))) return;
    const index_t k = integrals.num_elements;
    const index_t l = fc.left[f], r = fc.right[f];
    const index_t r_read = r == no_element ? l : r;
    const int kl = fc.left_local[f], kr = r == no_element ? kl : fc.right_local[f];
    const Real* basis_l = integrals.t.face_basis + kl * nq * nm;
    const Real* basis_r = integrals.t.face_basis + kr * nq * nm;
    for (int q = 0; q < nq; ++q) {
      const Real* cell_l = s.average + s.face_point_cell[kl * nq + q] * nm;
      const Real* cell_r = s.average + s.face_point_cell[kr * nq + (nq - 1 - q)] * nm;
      Real ul[nv], ur[nv], al[nv], ar[nv];
      for (int v = 0; v < nv; ++v) {
        Real tl = Real(0), tr = Real(0), ml = Real(0), mr = Real(0);
        for (int m = 0; m < nm; ++m) {
          const Real xl = integrals.c[(v * nm + m) * k + l], xr = integrals.c[(v * nm + m) * k + r_read];
          tl += xl * basis_l[q * nm + m];
          tr += xr * basis_r[(nq - 1 - q) * nm + m];
          ml += xl * cell_l[m];
          mr += xr * cell_r[m];
        }
        ul[v] = tl, ur[v] = tr, al[v] = ml, ar[v] = mr;
      }
      Real fh[nv], fl[nv], sl[nv], sr[nv];
      integrals.point_flux(f, q, ul, ur, fh);
      if (r == no_element) {  // first order at the boundary: no mean beyond it
        integrals.point_flux(f, q, al, ar, fl);
      } else {
        subcell_state(s.order, al, ar, ul, integrals.gamma, sl);
        subcell_state(s.order, ar, al, ur, integrals.gamma, sr);
        integrals.point_flux(f, q, sl, sr, fl);
      }
      for (int v = 0; v < nv; ++v) {
        high[(v * nq + q) * num_faces + f] = fh[v];
        low[(v * nq + q) * num_faces + f] = fl[v];
      }
    }
  }
};

/// rhs of element e (the DG right-hand side on entry, [vars][modes][elements]) becomes the blend of the header
/// comment, where e or one of its faces has a DG share below 1.
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

  static constexpr int nm = basis::num_modes(P), nq = face_points(P), nv = euler::num_vars;
  static constexpr int num_dual_faces = 3 * P * (P + 1) / 2;

  KEMPE_HD void operator()(index_t e) const {
    const Real beta_e = beta[e];
    Real face_beta[3];
    bool any = beta_e < Real(1);
    for (int k = 0; k < 3; ++k) {
      face_beta[k] = face_share(fc, beta, element_faces[3 * e + k]);
      any = any || face_beta[k] < Real(1);
    }
    if (!any) return;
    const index_t n = num_elements;
    Real mean[nv][nm], rate[nv][nm];  // subcell averages of the state and of the DG rate, then the blended rate
    Real ce[nv][nm];
    load_modes<P>(c, n, e, ce);
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) {
        Real a = Real(0), b = Real(0);
        for (int m = 0; m < nm; ++m) {
          a += s.average[cell * nm + m] * ce[v][m];
          b += s.average[cell * nm + m] * rhs[(v * nm + m) * n + e];
        }
        mean[v][cell] = a;
        rate[v][cell] = beta_e * b;
      }
    // outflow[v][cell]: (1 - beta_e) times the finite-volume outflow plus the face corrections, per cell.
    Real outflow[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) outflow[v][cell] = Real(0);
    const Real jac = g.jacobian[e], rx = g.dr_dx[e], ry = g.dr_dy[e], sx = g.ds_dx[e], sy = g.ds_dy[e];
    const Real fv_share = Real(1) - beta_e;
    if (fv_share > Real(0)) {
      for (int d = 0; d < num_dual_faces; ++d) {
        const int a = s.dual_face_cells[2 * d], b = s.dual_face_cells[2 * d + 1];
        // Physical normal times length: |J| J^-T times the reference one.
        const Real nr = s.dual_face_normal[2 * d], ns = s.dual_face_normal[2 * d + 1];
        const Real nx = jac * (nr * rx + ns * sx), ny = jac * (nr * ry + ns * sy);
        const Real length = std::sqrt(nx * nx + ny * ny);
        Real ma[nv], mb[nv], ua[nv], ub[nv], flux[nv];
        for (int v = 0; v < nv; ++v) ma[v] = mean[v][a], mb[v] = mean[v][b];
        if (s.order >= 2) {
          Real w[nv];
          point_state<P>(ce, s.dual_face_basis + d * nm, w);
          subcell_state(s.order, ma, mb, w, gamma, ua);
          subcell_state(s.order, mb, ma, w, gamma, ub);
        } else {
          for (int v = 0; v < nv; ++v) ua[v] = ma[v], ub[v] = mb[v];
        }
        euler::numerical_flux(F, ua, ub, nx / length, ny / length, gamma, flux);
        for (int v = 0; v < nv; ++v) {
          outflow[v][a] += fv_share * length * flux[v];
          outflow[v][b] -= fv_share * length * flux[v];
        }
      }
    }
    for (int k = 0; k < 3; ++k) {
      const index_t f = element_faces[3 * e + k];
      const Real beta_f = face_beta[k];
      if (!(beta_f < Real(1))) continue;  // a face at full DG share next to a pure DG element: nothing to add
      const bool left = fc.left[f] == e;
      const Real sign = left ? Real(1) : Real(-1);
      for (int q = 0; q < nq; ++q) {
        const int cell = s.face_point_cell[k * nq + q];
        const int qf = left ? q : nq - 1 - q;  // the face's own point order runs along its left element
        const Real piece = fc.length[f] * t.face_weight[qf] / Real(2);
        for (int v = 0; v < nv; ++v) {
          const Real hi = high[(v * nq + qf) * num_faces + f], lo = low[(v * nq + qf) * num_faces + f];
          outflow[v][cell] += sign * piece * (fv_share * lo + (beta_f - beta_e) * (hi - lo));
        }
      }
    }
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

}  // namespace kempe::dg
