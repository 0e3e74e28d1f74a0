// The entropy filter of Dzanic & Witherden ("Positivity-preserving entropy-based adaptive filtering for
// discontinuous spectral element methods", J. Comput. Phys., 2022), on the modal triangle basis: after each
// Runge-Kutta stage, each element damps its modes of degree d by f^(d^2) (f = exp(-zeta), the exponential
// filter of order 2) with the largest f in [0, 1] that keeps, at every check point, density and pressure above
// their floors and the specific entropy s = p / rho^gamma above the least value of the element and its face
// neighbours at the previous stage (a discrete minimum entropy principle: the exact solution's least entropy
// never falls). One bound is ours: the density, too, stays above its neighbourhood's least. At a contact the
// pressure is continuous, so a density undershoot raises the entropy and escapes the entropy bound; in Toro's
// stationary-contact problem (his test 5: test 3's states, both moving at u = -19.59745) such undershoots grew
// until a cell average lost its pressure, at p = 1, 2 and 3.
// Smooth elements meet the bounds (relaxed by a relative tolerance larger than the discretization error) and
// are left alone, so smooth flows keep their order; at a shock the filter removes just enough of the high
// modes, element by element, with no wider stencil than the face neighbours and no extra global sweep.
// One work item per element, writing only its own coefficients and its own entries of the bound table (the
// neighbours' entries are read in a pass of their own, EntropyBound), so no pass races.
#pragma once

#include <cmath>

#include "base/types.hpp"
#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"

namespace kempe::dg {

/// The logarithm of the specific entropy, log(p / rho^gamma) = log p - gamma log rho (two logarithms are cheaper
/// than a power, and the order is the same), of a state with positive density and pressure; +huge otherwise (a
/// state that is not admissible bounds nothing).
template <class Real>
KEMPE_HD Real log_entropy(Real rho, Real p, Real gamma) {
  constexpr Real huge = sizeof(Real) == sizeof(float) ? Real(1e30) : Real(1e300);
  return rho > Real(0) && p > Real(0) ? std::log(p) - gamma * std::log(rho) : huge;
}

/// log_entropy near a reference state (an element's mean): where density and pressure lie within 1/64 of the
/// reference's, log(1 + t) by its series to t^7 (error below 5e-16: the logarithm's own rounding) spares
/// the two logarithms that dominate the filter's cost in smooth regions; elsewhere log_entropy itself.
template <class Real>
struct EntropyReference {
  Real s = Real(0), inv_rho = Real(0), inv_p = Real(0);  // inv_* = 0: no reference (every point exact)
  KEMPE_HD EntropyReference(Real rho, Real p, Real gamma) {
    if (rho > Real(0) && p > Real(0)) s = log_entropy(rho, p, gamma), inv_rho = Real(1) / rho, inv_p = Real(1) / p;
  }
  static KEMPE_HD Real log1p_near(Real t) {
    return t * (Real(1) + t * (Real(-0.5) + t * (Real(1) / Real(3) + t * (Real(-0.25) + t * (Real(0.2) + t * (Real(-1) / Real(6) + t * (Real(1) / Real(7))))))));
  }
  KEMPE_HD Real operator()(Real rho, Real p, Real gamma) const {
    constexpr Real near = Real(1) / Real(64);
    const Real a = p * inv_p - Real(1), b = rho * inv_rho - Real(1);
    if (a < near && a > -near && b < near && b > -near) return s + log1p_near(a) - gamma * log1p_near(b);
    return log_entropy(rho, p, gamma);
  }
};

/// The state of mode 0 alone (the element's mean) of coefficients ce [vars][modes].
template <int P, class Real>
KEMPE_HD EntropyReference<Real> mean_reference(const Real (&ce)[euler::num_vars][basis::num_modes(P)], Real gamma) {
  Real u[euler::num_vars];
  for (int v = 0; v < euler::num_vars; ++v) u[v] = ce[v][0] * Real(dg::mode0_value);
  return EntropyReference<Real>(u[euler::density], euler::pressure(u, gamma), gamma);
}

/// What bounds an element's neighbours at the next stage, in `values` [2][elements]: its least log_entropy and
/// its least density over its check points (volume and face quadrature points, where the scheme evaluates the
/// solution). `basis` [points][modes]; c [vars][modes][elements].
template <int P, class Real>
struct EntropyMinimum {
  index_t num_elements;
  int num_points;
  Real gamma;
  const Real* basis;
  const Real* c;
  Real* values;
  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = num_elements;
    Real ce[nv][nm];
    load_modes<P>(c, k, e, ce);
    const EntropyReference<Real> reference = mean_reference<P>(ce, gamma);
    Real least = Real(0), rho_lo = Real(0);
    for (int q = 0; q < num_points; ++q) {
      Real u[nv];
      point_state<P>(ce, basis + q * nm, u);
      const Real s = reference(u[euler::density], euler::pressure(u, gamma), gamma);
      least = q == 0 || s < least ? s : least;
      rho_lo = q == 0 || u[0] < rho_lo ? u[0] : rho_lo;
    }
    values[e] = least, values[k + e] = rho_lo;
  }
};

/// Per element: the least entropy and the least density of the element and of its face neighbours (both
/// halves of a split edge). neighbors and half_neighbors [elements][3], no_element where there is none (half_neighbors may
/// be null on a conforming mesh).
template <class Real>
struct EntropyBound {
  index_t num_elements;
  const index_t* neighbors;
  const index_t* half_neighbors;
  const Real* values;  ///< [2][elements] EntropyMinimum's
  Real* bound;         ///< [2][elements] the least entropy and the least density around
  KEMPE_HD void take(index_t n, Real& s, Real& lo) const {
    s = values[n] < s ? values[n] : s;
    lo = values[num_elements + n] < lo ? values[num_elements + n] : lo;
  }
  KEMPE_HD void operator()(index_t e) const {
    const index_t k = num_elements;
    Real s = values[e], lo = values[k + e];
    for (int j = 0; j < 3; ++j) {
      const index_t n = neighbors[3 * e + j];
      if (n != no_element) take(n, s, lo);
      if (half_neighbors == nullptr) continue;
      const index_t h = half_neighbors[3 * e + j];
      if (h != no_element) take(h, s, lo);
    }
    bound[e] = s, bound[k + e] = lo;
  }
};

/// Per element: the filter (see the top of this file). The tolerances relax the bounds relatively
/// (s >= (1 - entropy_tolerance) s_least, rho >= (1 - density_tolerance) rho_least): rounding and a smooth flow's
/// discretization error must not switch it on. Density and pressure keep at least `floor`. The cell average (mode 0) is never changed, so the filter is
/// conservative. Writes the least entropy and density of the filtered element for the next stage's bounds, and
/// the filter factor f into `strength` (1: untouched) when that is not null.
template <int P, class Real>
struct EntropyFilter {
  index_t num_elements;
  int num_points;
  Real gamma, floor, entropy_tolerance, density_tolerance;
  const Real* basis;  ///< [points][modes]
  const Real* bound;  ///< [2][elements] EntropyBound's
  Real* c;            ///< [vars][modes][elements]
  Real* entropy;      ///< [2][elements] out: EntropyMinimum of the filtered element
  Real* strength;     ///< [elements] out, or null

  static constexpr int bisections = 24;  // f to 6e-8: below what changes the error norms
  static constexpr int max_passes = 4;

  /// g[d] = f^(d^2), the factor of the degree-d modes, by f^(d^2) = f^((d-1)^2) f^(2d-1).
  static KEMPE_HD void damping(Real f, Real (&g)[P + 1]) {
    g[0] = Real(1);
    Real step = Real(1);
    for (int d = 1; d <= P; ++d) {
      g[d] = g[d - 1] * step * f;
      step *= f * f;
    }
  }

  /// Whether the state sum_d f^(d^2) parts[d] keeps the floors and the bounds; its density and log_entropy
  /// into rho and s.
  KEMPE_HD bool admissible(const Real (&parts)[P + 1][euler::num_vars], Real f, Real least, Real rho_least,
                           const EntropyReference<Real>& reference, Real& rho, Real& s) const {
    Real g[P + 1];
    damping(f, g);
    Real u[euler::num_vars];
    for (int v = 0; v < euler::num_vars; ++v) u[v] = parts[0][v];
    for (int d = 1; d <= P; ++d)
      for (int v = 0; v < euler::num_vars; ++v) u[v] += g[d] * parts[d][v];
    rho = u[euler::density];
    const Real p = euler::pressure(u, gamma);
    s = reference(rho, p, gamma);
    return rho >= floor && rho >= rho_least && p >= floor && s >= least;
  }

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = num_elements;
    Real ce[nv][nm];
    load_modes<P>(c, k, e, ce);
    // s >= (1 - tolerance) s_least in logarithms; the bound is +huge where the neighbourhood bounds nothing.
    const Real least = bound[e] + std::log(Real(1) - entropy_tolerance);
    const Real rho_least = bound[k + e] * (Real(1) - density_tolerance);
    const EntropyReference<Real> reference = mean_reference<P>(ce, gamma);
    // Most elements meet every bound unfiltered: one pass at f = 1, on the whole point values (no split by
    // degree), settles them.
    {
      Real s_min = Real(0), rho_min = Real(0);
      bool meets = true;
      for (int q = 0; q < num_points && meets; ++q) {
        Real u[nv];
        point_state<P>(ce, basis + q * nm, u);
        const Real rho = u[euler::density], p = euler::pressure(u, gamma), s = reference(rho, p, gamma);
        meets = rho >= floor && rho >= rho_least && p >= floor && s >= least;
        s_min = q == 0 || s < s_min ? s : s_min;
        rho_min = q == 0 || rho < rho_min ? rho : rho_min;
      }
      if (meets) {
        if (strength != nullptr) strength[e] = Real(1);
        entropy[e] = s_min, entropy[k + e] = rho_min;
        return;
      }
    }
    // A point may meet the bounds at one f and not at a smaller one (the degrees shrink at different rates), so
    // the points are passed again until a whole pass keeps f; each pass can only lower it. The pass that keeps
    // f has seen every point at that f: its least density and entropy are the filtered element's.
    Real f = Real(1), s_min = Real(0), rho_min = Real(0);
    bool settled = false;
    for (int pass = 0; pass < max_passes && !settled; ++pass) {
      const Real f_before = f;
      for (int q = 0; q < num_points; ++q) {
        // The point value split by degree: parts[d] = sum of the degree-d modes there.
        Real parts[P + 1][nv];
        for (int d = 0; d <= P; ++d)
          for (int v = 0; v < nv; ++v) {
            Real sum = Real(0);
            for (int m = basis::num_modes(d - 1); m < basis::num_modes(d); ++m) sum += ce[v][m] * basis[q * nm + m];
            parts[d][v] = sum;
          }
        Real rho, s;
        if (!admissible(parts, f, least, rho_least, reference, rho, s)) {
          // Bisection between f = 0 (the cell average) and the present f, which this point rejects.
          Real lo = Real(0), hi = f;
          for (int i = 0; i < bisections; ++i) {
            const Real mid = Real(0.5) * (lo + hi);
            (admissible(parts, mid, least, rho_least, reference, rho, s) ? lo : hi) = mid;
          }
          f = lo;
          admissible(parts, f, least, rho_least, reference, rho, s);  // the values at the new f (a pass that keeps it sees them again)
        }
        s_min = q == 0 || s < s_min ? s : s_min;
        rho_min = q == 0 || rho < rho_min ? rho : rho_min;
      }
      settled = f == f_before;
    }
    if (!settled) f = Real(0);  // no f settled: the cell average, which keeps every bound it can
    if (f < Real(1)) {
      Real g[P + 1];
      damping(f, g);
      for (int d = 1; d <= P; ++d)
        for (int v = 0; v < nv; ++v)
          for (int m = basis::num_modes(d - 1); m < basis::num_modes(d); ++m) c[(v * nm + m) * k + e] = ce[v][m] * g[d];
    }
    if (strength != nullptr) strength[e] = f;
    if (settled) {
      entropy[e] = s_min, entropy[k + e] = rho_min;
    } else {
      EntropyMinimum<P, Real>{num_elements, num_points, gamma, basis, c, entropy}(e);
    }
  }
};

}  // namespace kempe::dg
