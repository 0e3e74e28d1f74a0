// Limiters applied after each Runge-Kutta stage, one work item per element (no races: each element changes
// only its own coefficients).
#pragma once

#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/euler.hpp"

namespace kempe::dg {

/// The constant mode's value, 1 / sqrt(2) (orthonormal on the reference triangle of area 2): the cell average
/// of a variable is its mode-0 coefficient times this.
inline constexpr double mode0_value = 0.70710678118654752440;

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
    const Real phi0 = Real(mode0_value);
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

namespace kempe::dg {

/// The vertex bounds of the vertex-based limiter: for each mesh vertex, the smallest and largest cell average
/// of every variable over the elements around it, [2][vars][vertices]. The vertex min/max is a race-prone
/// scatter when elements write to their vertices (paper 001's "local maximum" loop); here each vertex
/// gathers from its own elements (vertex_elements, a CSR list built once), so there is no race and no atomic.
template <int P, class Real>
struct VertexBounds {
  index_t num_elements, num_vertices;
  const index_t* vertex_element_begin;  ///< [vertices + 1]
  const index_t* vertex_elements;
  const Real* c;
  Real* bounds;

  KEMPE_HD void operator()(index_t i) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    for (int v = 0; v < nv; ++v) {
      Real lo = Real(1e300), hi = Real(-1e300);
      for (index_t k = vertex_element_begin[i]; k < vertex_element_begin[i + 1]; ++k) {
        const Real mean = c[(v * nm) * num_elements + vertex_elements[k]];
        lo = mean < lo ? mean : lo;
        hi = mean > hi ? mean : hi;
      }
      bounds[std::size_t(v) * num_vertices + i] = lo;
      bounds[std::size_t(nv + v) * num_vertices + i] = hi;
    }
  }
};

/// Kuzmin's vertex-based limiter (J. Comput. Appl. Math. 233, 2010), variable by variable in the conserved
/// variables: the largest alpha in [0, 1] for which the solution at each vertex of the element, mean +
/// alpha (u(x_i) - mean), stays within the vertex bounds; the non-constant modes are scaled by alpha. At order
/// p > 1 the same factor is applied to all non-constant modes (the simple form; Kuzmin's hierarchical version
/// limits the higher derivatives first). Cell averages are never changed. `vertex_basis` is the basis at the
/// reference vertices, [3][modes]; `element_vertices` [elements][3] in the element's order.
template <int P, class Real>
struct VertexLimiter {
  index_t num_elements, num_vertices;
  const index_t* element_vertices;
  const Real* vertex_basis;
  const Real* bounds;
  Real* c;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const Real phi0 = Real(mode0_value);
    for (int v = 0; v < nv; ++v) {
      Real ce[nm];
      for (int m = 0; m < nm; ++m) ce[m] = c[(v * nm + m) * num_elements + e];
      const Real mean = ce[0] * phi0;
      Real alpha = Real(1);
      for (int j = 0; j < 3; ++j) {
        Real value = Real(0);
        for (int m = 0; m < nm; ++m) value += ce[m] * vertex_basis[j * nm + m];
        const Real jump = value - mean;
        const index_t i = element_vertices[3 * e + j];
        const Real lo = bounds[std::size_t(v) * num_vertices + i], hi = bounds[std::size_t(nv + v) * num_vertices + i];
        // A relative threshold keeps round-off in smooth regions from limiting.
        const Real scale = Real(1e-12) * (mean < Real(0) ? -mean : mean) + Real(1e-300);
        Real a = Real(1);
        if (jump > scale) a = (hi - mean) / jump;
        if (jump < -scale) a = (lo - mean) / jump;
        a = a < Real(0) ? Real(0) : a;
        alpha = a < alpha ? a : alpha;
      }
      if (alpha < Real(1))
        for (int m = 1; m < nm; ++m) c[(v * nm + m) * num_elements + e] = alpha * ce[m];
    }
  }
};

}  // namespace kempe::dg
