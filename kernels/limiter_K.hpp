// Limiters applied after each Runge-Kutta stage, one work item per element (no races: each element changes
// only its own coefficients).
#pragma once

#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/euler.hpp"

namespace kempe::dg {

/// Zhang & Shu's positivity limiter (JCP 229, 2010; triangles: Zhang, Xia & Shu, J. Sci. Comput. 2012):
/// scales the non-constant modes toward the cell average so that density and then pressure are at least
/// `epsilon` at every check point (the volume and face quadrature points, where the scheme evaluates the
/// solution). The cell average is kept, so the scheme stays conservative; with a positivity-preserving flux
/// (HLL, Rusanov) and a small enough step the averages stay admissible. `basis` holds the basis at the
/// check points, [points][modes].
template <int P, class Real>
struct PositivityLimiter {
  index_t num_elements;
  int num_points;
  Real gamma, epsilon;
  const Real* basis;
  Real* c;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = num_elements;
    const Real phi0 = Real(0.70710678118654752440);  // mode 0: 1 / sqrt(2)
    Real ce[nv][nm];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) ce[v][m] = c[(v * nm + m) * k + e];
    Real mean[nv];
    for (int v = 0; v < nv; ++v) mean[v] = ce[v][0] * phi0;
    // Density: one factor for the density's non-constant modes.
    Real rho_min = mean[euler::density];
    for (int q = 0; q < num_points; ++q) {
      Real rho = Real(0);
      for (int m = 0; m < nm; ++m) rho += ce[euler::density][m] * basis[q * nm + m];
      rho_min = rho < rho_min ? rho : rho_min;
    }
    if (rho_min < epsilon) {
      const Real theta = (mean[euler::density] - epsilon) / (mean[euler::density] - rho_min);
      const Real t = theta < Real(0) ? Real(0) : theta;
      for (int m = 1; m < nm; ++m) ce[euler::density][m] *= t;
    }
    // Pressure: the largest t in [0, 1] with p(mean + t (u_q - mean)) >= epsilon at every point; p is concave
    // in the conserved variables, so bisection on each offending point finds it.
    Real theta = Real(1);
    for (int q = 0; q < num_points; ++q) {
      Real u[nv];
      for (int v = 0; v < nv; ++v) {
        Real sum = Real(0);
        for (int m = 0; m < nm; ++m) sum += ce[v][m] * basis[q * nm + m];
        u[v] = sum;
      }
      if (euler::pressure(u, gamma) >= epsilon) continue;
      Real lo = Real(0), hi = Real(1);
      for (int iteration = 0; iteration < 40; ++iteration) {
        const Real mid = Real(0.5) * (lo + hi);
        Real w[nv];
        for (int v = 0; v < nv; ++v) w[v] = mean[v] + mid * (u[v] - mean[v]);
        (euler::pressure(w, gamma) >= epsilon ? lo : hi) = mid;
      }
      theta = lo < theta ? lo : theta;
    }
    if (theta < Real(1))
      for (int v = 0; v < nv; ++v)
        for (int m = 1; m < nm; ++m) ce[v][m] *= theta;
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) c[(v * nm + m) * k + e] = ce[v][m];
  }
};

}  // namespace kempe::dg
