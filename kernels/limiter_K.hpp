// Limiters applied after each Runge-Kutta stage, one work item per element (no races: each element changes
// only its own coefficients).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/registry.hpp"
#include "base/types.hpp"
#include "kernels/backend.hpp"
#include "kernels/basis.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"

namespace kempe::dg {

/// Zhang & Shu's positivity limiter (JCP 229, 2010; triangles: Zhang, Xia & Shu, J. Sci. Comput. 2012):
/// scales the non-constant modes toward the cell average so that density and then pressure are at least
/// `epsilon` at every check point (the volume and face quadrature points, where the scheme evaluates the
/// solution). The cell average is kept, so the scheme stays conservative; with a positivity-preserving flux
/// (HLL, Rusanov) and a small enough step the averages stay admissible. `basis` holds the basis at the
/// check points, [points][modes], and `check_reach` the per-mode bounds of its first points (positivity_reach).
/// The floors are `epsilon` or, where larger, the rounding margin of the point values: the flux kernels sum the
/// modes again in another order (on the GPU with other fused multiply-adds), so a point value they see differs
/// from the one checked here by a few roundings of its largest terms. Pressure loses most in the cancellation
/// p = (gamma - 1)(E - |m|^2 / 2 rho): in float a Mach 10 shock's E is 500 times its pressure, and a pressure
/// limited to exactly 1e-10 came back negative in the Rusanov flux's sound speed (NaN; double Mach, p = 4).
template <int P, class Real>
struct PositivityLimiter {
  index_t num_elements;
  int num_points;
  Real gamma, epsilon;
  const Real* basis;
  const Real* check_reach;  ///< [points][2][modes] positivity_reach(basis)
  Real* c;
  /// Whether operator() first tries the whole-element test (clears_as_whole) before its points; false only for
  /// the tests' reference.
  bool whole_element_test = true;

  static constexpr Real machine_epsilon = sizeof(Real) == sizeof(float) ? Real(0x1p-23) : Real(0x1p-52);  // epsilon()

  /// The floors of an element whose means are mean_rho and mean_e: epsilon or, where larger, the rounding margin
  /// of its point values. A point value is a sum of nm terms, each about the cell's scale: 8 nm roundings of that
  /// scale bound the difference between two summation orders (1e-14 relative in double, 2e-5 in float at p = 5).
  KEMPE_HD void floors(Real mean_rho, Real mean_e, Real& rho_floor, Real& p_floor) const {
    constexpr Real rounding = Real(8 * basis::num_modes(P)) * machine_epsilon;
    const Real scaled_rho = rounding * mean_rho;
    const Real scaled_p = rounding * (gamma - Real(1)) * mean_e;
    rho_floor = scaled_rho > epsilon ? scaled_rho : epsilon;
    p_floor = scaled_p > epsilon ? scaled_p : epsilon;
  }

  /// Two orders of a sum of nm terms differ by less than this times the sum of the terms' sizes.
  static constexpr Real sum_rounding = Real(4 * basis::num_modes(P)) * machine_epsilon;

  /// Per mode, the largest |phi_m| at the check points (basis_max, [modes]), and after it the most that phi_m
  /// departs there from its mean value (reach_weight: phi_0 from mode0_value, by its rounding; the others from
  /// 0): the row of positivity_reach for num_points points, read rather than formed in every element.
  KEMPE_HD const Real* basis_reach() const {
    constexpr int nm = basis::num_modes(P);
    return check_reach + std::size_t(num_points - 1) * 2 * nm;
  }

  /// The whole-element test. Every check point's value of a variable, however its sum is ordered, lies within
  /// `reach` of the element's mean: the sum over the modes of |c_m| reach_weight[m], plus `d` (twice the first-
  /// order bound of the sums' rounding, sum_m |c_m| basis_max[m] 2 sum_rounding; several times what it needs).
  /// Where the points' test passes, with its slack doubled, at every state within those ranges, it passes at
  /// each point, and operator() would leave the element as it is: a smooth element, as most are, then costs one
  /// pass over its modes instead of one per check point. Arguments per variable (density, momenta, energy):
  /// mean, d, reach; and the element's floors.
  KEMPE_HD bool clears_as_whole(Real rho, Real mx, Real my, Real energy, Real d_rho, Real d_mx, Real d_my, Real d_energy,
                                Real reach_rho, Real reach_mx, Real reach_my, Real reach_energy, Real rho_floor,
                                Real p_floor) const {
    const Real gm1 = gamma - Real(1);
    const Real rho_lo = rho - reach_rho, energy_lo = energy - reach_energy;
    const Real rho_hi = std::abs(rho) + reach_rho, energy_hi = std::abs(energy) + reach_energy;
    const Real mx_hi = std::abs(mx) + reach_mx, my_hi = std::abs(my) + reach_my;
    // The points' test at its worst over the ranges: E rho at least energy_lo rho_lo (both positive), |m|^2 / 2
    // and the floor's p_floor rho at most their bounds, the slack at most its form with every size at its bound.
    const Real kinetic_hi = Real(0.5) * (mx_hi * mx_hi + my_hi * my_hi);
    const Real lower = gm1 * (energy_lo * rho_lo - kinetic_hi) - p_floor * rho_hi;
    const Real slack_hi = Real(2) * gm1 * (energy_hi * d_rho + mx_hi * d_mx + my_hi * d_my + rho_hi * d_energy) + p_floor * d_rho +
                          Real(32) * machine_epsilon * (gm1 * (energy_hi * rho_hi + kinetic_hi) + p_floor * rho_hi);
    return (rho_lo - Real(2) * d_rho > rho_floor) & (energy_lo > Real(0)) & (lower > Real(2) * slack_hi);
  }

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    const index_t k = num_elements;
    const Real phi0 = Real(mode0_value);
    Real ce[nv][nm];
    load_modes<P>(c, k, e, ce);
    Real mean[nv];
    for (int v = 0; v < nv; ++v) mean[v] = ce[v][0] * phi0;
    Real rho_floor, p_floor;
    floors(mean[euler::density], mean[euler::energy], rho_floor, p_floor);
    if (whole_element_test) {
      const Real *basis_max = basis_reach(), *reach_weight = basis_max + nm;
      Real d[nv], reach[nv];
      for (int v = 0; v < nv; ++v) {
        d[v] = reach[v] = Real(0);
        for (int m = 0; m < nm; ++m) d[v] += std::abs(ce[v][m]) * basis_max[m];
        d[v] *= Real(2) * sum_rounding;  // 2: the bound's own rounding
        reach[v] = d[v];
        for (int m = 0; m < nm; ++m) reach[v] += std::abs(ce[v][m]) * reach_weight[m];
      }
      using namespace euler;
      if (clears_as_whole(mean[density], mean[momentum_x], mean[momentum_y], mean[energy], d[density], d[momentum_x], d[momentum_y],
                          d[energy], reach[density], reach[momentum_x], reach[momentum_y], reach[energy], rho_floor, p_floor))
        return;  // every point clears its floors
    }
    // Density: one factor for the density's non-constant modes. An average at or below the floor is left
    // constant (t = 0): the step's admissibility check then reports it.
    Real rho_min = mean[euler::density];
    for (int q = 0; q < num_points; ++q) {
      Real rho = Real(0);
      for (int m = 0; m < nm; ++m) rho += ce[euler::density][m] * basis[q * nm + m];
      rho_min = rho < rho_min ? rho : rho_min;
    }
    if (rho_min < rho_floor) {
      const Real t = mean[euler::density] > rho_floor
                         ? (mean[euler::density] - rho_floor) / (mean[euler::density] - rho_min) : Real(0);
      for (int m = 1; m < nm; ++m) ce[euler::density][m] *= t;
    }
    // Pressure: the largest t in [0, 1] with p(mean + t (u_q - mean)) >= p_floor at every point; p is concave
    // in the conserved variables, so bisection on each offending point finds it.
    Real theta = Real(1);
    for (int q = 0; q < num_points; ++q) {
      Real u[nv];
      point_state<P>(ce, basis + q * nm, u);
      if (euler::pressure(u, gamma) >= p_floor) continue;
      Real lo = Real(0), hi = Real(1);
      for (int iteration = 0; iteration < 40; ++iteration) {
        const Real mid = Real(0.5) * (lo + hi);
        Real w[nv];
        for (int v = 0; v < nv; ++v) w[v] = mean[v] + mid * (u[v] - mean[v]);
        (euler::pressure(w, gamma) >= p_floor ? lo : hi) = mid;
      }
      theta = lo < theta ? lo : theta;
    }
    if (!(rho_min < rho_floor) && !(theta < Real(1))) return;  // nothing changed: nothing to write
    if (theta < Real(1))
      for (int v = 0; v < nv; ++v)
        for (int m = 1; m < nm; ++m) ce[v][m] *= theta;
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) c[(v * nm + m) * k + e] = ce[v][m];
  }

  /// The CPU checks eight consecutive elements at once (backend.hpp, CpuBlock): their point values in SIMD lanes.
  /// An element whose density and pressure clear the floors at every check point by more than the rounding of
  /// the point values (summed here in another order than operator() sums them) and of the pressure is left as it
  /// is, which is what operator() does with it; every other element goes through operator(), which decides as
  /// ever. So the result is operator()'s bit for bit. One element at a time, the scalar point values and the
  /// division of each point's pressure took 0.3 of a step at p = 2 on one core.
  /// Returns whether the elements cleared the whole-element test (below), so that no point was checked.
  static constexpr int cpu_block = 8;
  bool block(index_t first) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars, width = cpu_block;
    const index_t k = num_elements;
    const Real gm1 = gamma - Real(1);
    alignas(64) Real ce[nv][nm][width];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m) {
        const Real* from = c + std::size_t(v * nm + m) * k + first;
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) ce[v][m][l] = from[l];
      }
    alignas(64) Real rho_floor[width], p_floor[width];
    alignas(64) Real clear[width];  // 1 or 0, in the lanes' type: the check's lanes as wide as the sums'
    KEMPE_OMP_SIMD
    for (int l = 0; l < width; ++l) {
      const Real mean_rho = ce[euler::density][0][l] * Real(mode0_value);
      floors(mean_rho, ce[euler::energy][0][l] * Real(mode0_value), rho_floor[l], p_floor[l]);
      clear[l] = mean_rho > rho_floor[l] ? Real(1) : Real(0);  // operator() starts its least density at the mean
    }
    // The rounding of a point value: two orders of its sum differ by less than sum_rounding times the sum of its
    // terms' sizes, at most sum_m |c_m| max_q |phi_m(q)|: one bound per element and variable for all points.
    // reach_weight: the most that phi_m departs from its mean value at a check point (phi_0 from mode0_value,
    // by its rounding; the others from 0), for the whole-element test below.
    const Real *basis_max = basis_reach(), *reach_weight = basis_max + nm;
    alignas(64) Real d[nv][width];
    for (int v = 0; v < nv; ++v) {
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) d[v][l] = Real(0);
      for (int m = 0; m < nm; ++m) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) d[v][l] += std::abs(ce[v][m][l]) * basis_max[m];
      }
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) d[v][l] *= Real(2) * sum_rounding;  // 2: the bound's own rounding
    }
    // Whole elements first (clears_as_whole): where all eight clear, the points' loop is skipped.
    alignas(64) Real reach[nv][width];
    for (int v = 0; v < nv; ++v) {
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) reach[v][l] = d[v][l];
      for (int m = 0; m < nm; ++m) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) reach[v][l] += std::abs(ce[v][m][l]) * reach_weight[m];
      }
    }
    alignas(64) Real whole[width];  // 1 where the element clears the test as a whole, else 0
    KEMPE_OMP_SIMD
    for (int l = 0; l < width; ++l) {
      using namespace euler;
      const bool ok = clears_as_whole(ce[density][0][l] * Real(mode0_value), ce[momentum_x][0][l] * Real(mode0_value),
                                      ce[momentum_y][0][l] * Real(mode0_value), ce[energy][0][l] * Real(mode0_value), d[density][l],
                                      d[momentum_x][l], d[momentum_y][l], d[energy][l], reach[density][l], reach[momentum_x][l],
                                      reach[momentum_y][l], reach[energy][l], rho_floor[l], p_floor[l]);
      whole[l] = ok ? Real(1) : Real(0);
    }
    bool all_whole = true;
    for (int l = 0; l < width; ++l) all_whole = all_whole && whole[l] != Real(0);
    if (all_whole) return true;  // operator() would leave each of them as it is
    for (int q = 0; q < num_points; ++q) {
      alignas(64) Real u[nv][width];
      for (int v = 0; v < nv; ++v) {
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) u[v][l] = Real(0);
        for (int m = 0; m < nm; ++m) {
          const Real b = basis[q * nm + m];
          KEMPE_OMP_SIMD
          for (int l = 0; l < width; ++l) u[v][l] += ce[v][m][l] * b;
        }
      }
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) {
        const Real rho = u[euler::density][l], mx = u[euler::momentum_x][l], my = u[euler::momentum_y][l],
                   energy = u[euler::energy][l];
        const Real d_rho = d[euler::density][l], d_mx = d[euler::momentum_x][l], d_my = d[euler::momentum_y][l],
                   d_energy = d[euler::energy][l];
        // rho p = (gamma - 1)(E rho - |m|^2 / 2) against p_floor rho: its change under the point values' rounding
        // (twice the first-order bound), and 32 roundings of its terms for both forms' own arithmetic.
        const Real kinetic = Real(0.5) * (mx * mx + my * my), internal = energy * rho, floor = p_floor[l] * rho;
        const Real slack =
            Real(2) * gm1 * (std::abs(energy) * d_rho + std::abs(mx) * d_mx + std::abs(my) * d_my + std::abs(rho) * d_energy) +
            p_floor[l] * d_rho + Real(32) * machine_epsilon * (gm1 * (std::abs(internal) + kinetic) + std::abs(floor));
        const bool ok = (rho - d_rho > rho_floor[l]) & (gm1 * (internal - kinetic) - floor > slack);
        clear[l] = ok ? clear[l] : Real(0);
      }
    }
    // The rest through operator(), past the whole-element test that the block has just taken for them.
    PositivityLimiter points_only = *this;
    points_only.whole_element_test = false;
    for (int l = 0; l < width; ++l)
      if (clear[l] == Real(0)) points_only(first + l);
    return false;
  }
};

}  // namespace kempe::dg

namespace kempe::dg {

/// The limiters, chosen by name. The two slope limiters limit hierarchically, from the highest derivatives
/// down, and never change a cell average; both run on Taylor coefficients (TaylorCoefficients below) so that
/// they compare derivatives in physical coordinates across elements of any shape. The entropy filter
/// (kernels/entropy_filter_K.hpp) damps the high modes instead, and keeps the cell average too.
enum class Limiter : std::int8_t { none, vertex, moment, entropy_filter };
inline constexpr Named<Limiter> limiters[] = {
    {Limiter::none, "none", "no slope limiter (smooth flows)"},
    {Limiter::vertex, "vertex", "Kuzmin's vertex-based hierarchical limiter: bounds from all elements at each vertex"},
    {Limiter::moment, "moment", "moment limiter: minmod of each derivative against face neighbours' differences"},
    {Limiter::entropy_filter, "entropy_filter",
     "Dzanic & Witherden's entropy filter: each element damps its high modes just enough to keep density, pressure "
     "and the least entropy of its neighbourhood (shocks at p >= 2)"},
};
/// The limiter of the given name; std::invalid_argument with the closest known name otherwise.
inline Limiter limiter_from_name(std::string_view name) { return find_by_name("limiter", name, limiters).value; }

/// Number of the Taylor coefficient D^(k - i, i) u (k - i derivatives in x, i in y), numbered by degree like
/// the modes.
KEMPE_HD constexpr int taylor_index(int k, int i) { return k * (k + 1) / 2 + i; }

/// The Taylor coefficients of each element's solution about its centroid, in physical coordinates,
/// [vars][modes][elements]: coefficient (k, i) is D^(k - i, i) u at the centroid, except (0, 0), which is the
/// cell average (Kuzmin 2010, eq. 8: the Taylor basis functions of degree >= 1 have zero mean).
/// `taylor_from_modes` [modes][modes] gives the coefficients of the reference monomials about the reference
/// centroid (TriangleOperators); the affine map turns the reference monomial (r - rc)^a (s - sc)^b into
/// (rx X + ry Y)^a (sx X + sy Y)^b with X = x - xc, Y = y - yc.
template <int P, class Real>
struct TaylorCoefficients {
  static constexpr bool cpu_spread = true;  // its work sits at the shocks (backend.hpp, CpuSpread)
  index_t num_elements;
  const Real* taylor_from_modes;
  const Real *dr_dx, *dr_dy, *ds_dx, *ds_dy;  ///< [elements]
  const Real* c;
  Real* taylor;
  /// [elements][3] and [vertices], or null (every element): where given, only the elements with a vertex that
  /// TroubledVertices marked, the ones whose coefficients the vertex limiter of the troubled elements reads.
  const index_t* element_vertices = nullptr;
  const std::uint8_t* vertex_mark = nullptr;
  /// [elements] flags with the face neighbours [elements][3] (and an adapted mesh's second neighbours across split
  /// edges, or null), or null (every element): where given, only the flagged elements and their face neighbours,
  /// the ones whose coefficients the moment limiter of the flagged elements reads (neighbours are mutual).
  const std::uint8_t* troubled = nullptr;
  const index_t *element_neighbors = nullptr, *element_half_neighbors = nullptr;

  /// Whether element e's coefficients are read (the guards above).
  KEMPE_HD bool needed(index_t e) const {
    if (vertex_mark != nullptr &&
        (vertex_mark[element_vertices[3 * e]] | vertex_mark[element_vertices[3 * e + 1]] | vertex_mark[element_vertices[3 * e + 2]]) == 0)
      return false;
    if (troubled == nullptr || troubled[e] != 0) return true;
    for (int j = 0; j < 3; ++j) {
      const index_t n = element_neighbors[3 * e + j];
      if (n != no_element && troubled[n] != 0) return true;
      const index_t h = element_half_neighbors == nullptr ? no_element : element_half_neighbors[3 * e + j];
      if (h != no_element && troubled[h] != 0) return true;
    }
    return false;
  }

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    if (!needed(e)) return;
    // expand[(k, j)][i]: the coefficient of X^(k - i) Y^i in (rx X + ry Y)^(k - j) (sx X + sy Y)^j, built
    // degree by degree from (k - 1, j) times the first factor, or (k - 1, k - 1) times the second.
    Real expand[nm][P + 1];
    expand[0][0] = Real(1);
    const Real rx = dr_dx[e], ry = dr_dy[e], sx = ds_dx[e], sy = ds_dy[e];
    for (int k = 1; k <= P; ++k)
      for (int j = 0; j <= k; ++j) {
        const bool second = j == k;
        const Real* from = expand[taylor_index(k - 1, second ? j - 1 : j)];
        const Real a = second ? sx : rx, b = second ? sy : ry;
        Real* to = expand[taylor_index(k, j)];
        for (int i = 0; i <= k; ++i) to[i] = (i < k ? a * from[i] : Real(0)) + (i > 0 ? b * from[i - 1] : Real(0));
      }
    for (int v = 0; v < nv; ++v) {
      Real ce[nm], mono[nm];
      for (int m = 0; m < nm; ++m) ce[m] = c[(v * nm + m) * num_elements + e];
      for (int n = 0; n < nm; ++n) {
        Real sum = Real(0);
        for (int m = 0; m < nm; ++m) sum += taylor_from_modes[n * nm + m] * ce[m];
        mono[n] = sum;
      }
      taylor[std::size_t(v * nm) * num_elements + e] = ce[0] * Real(mode0_value);
      for (int k = 1; k <= P; ++k)
        for (int i = 0; i <= k; ++i) {
          Real sum = Real(0);
          for (int j = 0; j <= k; ++j) sum += mono[taylor_index(k, j)] * expand[taylor_index(k, j)][i];
          // D^(k - i, i) of X^(k - i) Y^i is (k - i)! i!.
          Real factorial = Real(1);
          for (int f = 2; f <= k - i; ++f) factorial *= Real(f);
          for (int f = 2; f <= i; ++f) factorial *= Real(f);
          taylor[std::size_t(v * nm + taylor_index(k, i)) * num_elements + e] = sum * factorial;
        }
    }
  }
};

/// Scales the Taylor terms of degree k of one variable's coefficients ce [modes] by alpha[k] (k = 1..P):
/// ce -= sum over k with alpha[k] < 1 of (1 - alpha[k]) degree_part[k - 1] ce. The constant mode, the cell
/// average, is untouched (degree_part has no row for it).
template <int P, class Real>
KEMPE_HD void scale_taylor_degrees(const Real* degree_part, const Real* alpha, Real* ce) {
  constexpr int nm = basis::num_modes(P);
  Real out[nm];
  for (int n = 0; n < nm; ++n) out[n] = ce[n];
  for (int k = 1; k <= P; ++k) {
    if (!(alpha[k] < Real(1))) continue;
    const Real* block = degree_part + std::size_t(k - 1) * nm * nm;
    for (int n = 1; n < nm; ++n) {
      Real sum = Real(0);
      for (int m = 1; m < nm; ++m) sum += block[n * nm + m] * ce[m];
      out[n] -= (Real(1) - alpha[k]) * sum;
    }
  }
  for (int n = 0; n < nm; ++n) ce[n] = out[n];
}

/// The vertex bounds of the vertex-based limiter: for each mesh vertex, the smallest and largest value of
/// every Taylor coefficient of degree < P (cell averages and derivatives up to order P - 1) over the elements
/// around it, [2][vars][modes of degree P - 1][vertices]. The vertex min/max is a race-prone scatter when
/// elements write to their vertices (the "local maximum" loop of Zhang et al., "Optimizations of graph coloring
/// method for unstructured finite volume CFD on GPU"); here each vertex gathers from its own elements
/// (vertex_elements, a CSR list built once), so there is no race and no atomic.
template <int P, class Real>
struct VertexBounds {
  static constexpr bool cpu_spread = true;  // its work sits at the shocks (backend.hpp, CpuSpread)
  static constexpr int num_fields = basis::num_modes(P > 0 ? P - 1 : 0);
  index_t num_elements, num_vertices;
  const index_t* vertex_element_begin;  ///< [vertices + 1]
  const index_t* vertex_elements;
  const Real* taylor;
  Real* bounds;
  /// [vertices] or null (every vertex): where given, only the vertices TroubledVertices marked.
  const std::uint8_t* vertex_mark = nullptr;

  KEMPE_HD void operator()(index_t i) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    if (vertex_mark != nullptr && vertex_mark[i] == 0) return;
    for (int v = 0; v < nv; ++v)
      for (int d = 0; d < num_fields; ++d) {
        Real lo = Real(1e30), hi = Real(-1e30);
        for (index_t k = vertex_element_begin[i]; k < vertex_element_begin[i + 1]; ++k) {
          const Real value = taylor[std::size_t(v * nm + d) * num_elements + vertex_elements[k]];
          lo = value < lo ? value : lo;
          hi = value > hi ? value : hi;
        }
        bounds[(std::size_t(v) * num_fields + d) * num_vertices + i] = lo;
        bounds[(std::size_t(nv + v) * num_fields + d) * num_vertices + i] = hi;
      }
  }
};

/// mark[v] = 1 where an element around vertex v is troubled, else 0. Limiting only the troubled elements, the
/// vertex limiter reads the bounds at their vertices, the marked ones, and those bounds read the Taylor
/// coefficients of the elements around them, the ones with a marked vertex: TaylorCoefficients and VertexBounds
/// then skip the rest (a shock's band is a small part of the mesh), with the same values where they do not.
struct TroubledVertices {
  static constexpr bool cpu_spread = true;  // its work sits at the shocks (backend.hpp, CpuSpread)
  const index_t* vertex_element_begin;  ///< [vertices + 1]
  const index_t* vertex_elements;
  const std::uint8_t* troubled;  ///< [elements] 0 or 1
  std::uint8_t* mark;            ///< [vertices]

  KEMPE_HD void operator()(index_t v) const {
    std::uint8_t any = 0;
    for (index_t k = vertex_element_begin[v]; k < vertex_element_begin[v + 1]; ++k) any |= troubled[vertex_elements[k]];
    mark[v] = any;
  }
};

/// The KXRCF indicator's denominator h^((P + 1) / 2) |inflow| |mean rho| (TroubledCells) of an element with
/// inflow length `inflow`, density mean `mean` and circumradius h: troubled where inflow > 0 and its jump
/// integral exceeds this.
template <int P, class Real>
KEMPE_HD Real kxrcf_size(Real inflow, Real mean, Real circumradius) {
  Real scale = Real(1);
  for (int i = 0; i < P + 1; ++i) scale *= circumradius;
  return std::sqrt(scale) * inflow * (mean < Real(0) ? -mean : mean);
}

/// The KXRCF troubled-cell indicator (Krivodonova, Xin, Remacle, Chevaugeon & Flaherty, Appl. Numer. Math. 48,
/// 2004, eq. 4) on the density: I_e = (integral over the inflow part of the boundary of |rho_e - rho_neighbour|)
/// / (h_e^((P + 1) / 2) |inflow part| |mean rho_e|). Across faces the jump of a smooth solution is O(h^(P+1))
/// on the inflow side, so I_e -> 0 where the flow is smooth and grows like h^(-(P+1)/2) at a shock: troubled
/// when I_e > 1. h_e is the circumradius. A point is on the inflow part when the element's own velocity there
/// points into it. Boundary faces are not counted. troubled[e] = 0 or 1.
template <int P, class Real>
struct TroubledCells {
  index_t num_elements;
  const index_t* element_faces;  ///< [elements][3] in local order
  const index_t *face_left, *face_right;
  const std::int8_t *face_left_local, *face_right_local;
  const Real *normal_x, *normal_y, *length;  ///< [faces]; the normal points out of the left element
  const Real* face_weight;                   ///< [face points]
  const Real* face_basis;                    ///< [3][face points][modes]
  const Real* circumradius;                  ///< [elements]
  const Real* c;
  std::uint8_t* troubled;
  /// Hanging faces of an adapted mesh (all null on a conforming mesh): the half-edge basis
  /// ([3][2][face points][modes]), the part of each side's edge a face covers ([faces]) and each split edge's
  /// second half ([elements][3], no_element where the edge is whole).
  const Real* face_half_basis = nullptr;
  const std::int8_t *face_left_half = nullptr, *face_right_half = nullptr;
  const index_t* element_half_faces = nullptr;
  /// [elements] or null: where given, the ratio jump / (h^((P+1)/2) |inflow| |mean|) too (0 without inflow), which
  /// the element is flagged for exceeding (adapt/indicators_K.hpp's kxrcf indicator).
  double* ratio = nullptr;
  /// The prefilter (cannot_be_troubled), on where all three are given and no ratio is asked for: the largest
  /// |phi_m| at the face points, whole and half edges ([modes], kxrcf_mode_bounds), and the elements across
  /// each local edge and across its second half ([elements][3] each, no_element on the boundary and where the
  /// edge is whole: DGMesh's element_neighbors and element_half_neighbors; the half table may be null on a
  /// conforming mesh).
  const Real* mode_bound = nullptr;
  const index_t *element_neighbors = nullptr, *element_half_neighbors = nullptr;
  KEMPE_HD bool prefiltered() const { return mode_bound != nullptr && element_neighbors != nullptr && ratio == nullptr; }

  /// Face f as element e sees it: the element across it, the bases of e's side and of the neighbour's at the
  /// face's points (the half-edge basis on a side that covers half of its edge), e's outward normal and half the
  /// face's length (the quadrature weights' scale).
  struct Side {
    index_t neighbour;
    const Real *basis_own, *basis_neighbour;
    Real nx, ny, half;
  };
  KEMPE_HD Side side(index_t f, index_t e) const {
    const bool own_left = face_left[f] == e;
    const int jo = own_left ? face_left_local[f] : face_right_local[f];
    const int jn = own_left ? face_right_local[f] : face_left_local[f];
    const int ho = face_left_half == nullptr ? whole_edge : (own_left ? face_left_half[f] : face_right_half[f]);
    const int hn = face_left_half == nullptr ? whole_edge : (own_left ? face_right_half[f] : face_left_half[f]);
    const Real sign = own_left ? Real(1) : Real(-1);
    return Side{own_left ? face_right[f] : face_left[f], side_basis<P>(face_basis, face_half_basis, jo, ho),
                side_basis<P>(face_basis, face_half_basis, jn, hn), sign * normal_x[f], sign * normal_y[f], length[f] / Real(2)};
  }

  /// The face-point deviation bound of element n's density from its mean, sum over m >= 1 of |c_m| max |phi_m|.
  KEMPE_HD Real deviation_bound(index_t n) const {
    constexpr int nm = basis::num_modes(P);
    Real d = Real(0);
    for (int m = 1; m < nm; ++m) {
      const Real cm = c[(euler::density * nm + m) * num_elements + n];
      d = multiply_add(cm < Real(0) ? -cm : cm, mode_bound[m], d);
    }
    return d;
  }

  /// The prefilter's running figures over an element's neighbours: the largest |mean - mean_n| + D_n, the largest
  /// |mean_n| + D_n (0 without neighbours), and their sum, which only serves to carry a NaN (the maxima drop it).
  struct NeighbourBound {
    Real gap = Real(0), scale = Real(0), nan_check = Real(0);
    /// Folds in a neighbour: selects, no branches (the CPU's lanes).
    KEMPE_HD void fold(Real mean, Real mean_n, Real d) {
      const Real g = (mean > mean_n ? mean - mean_n : mean_n - mean) + d;
      const Real s = (mean_n < Real(0) ? -mean_n : mean_n) + d;
      gap = g > gap ? g : gap;
      scale = s > scale ? s : scale;
      nan_check += g + s;
    }
  };
  /// The prefilter's test, from the element's density mean, its deviation bound, its neighbours' figures and its
  /// circumradius.
  static constexpr Real prefilter_tolerance = Real(sizeof(Real) >= 8 ? 1e-10 : 1e-4);
  KEMPE_HD static bool bound_below_one(Real mean, Real own, const NeighbourBound& b, Real circumradius) {
    const Real rounding = prefilter_tolerance * ((mean < Real(0) ? -mean : mean) + own + b.scale);
    return b.nan_check == b.nan_check && (b.gap + own + rounding) * (Real(1) + prefilter_tolerance) <=
                                             kxrcf_size<P>(Real(1), mean, circumradius) * (Real(1) - prefilter_tolerance);
  }

  /// Whether the KXRCF test cannot flag element e, decided from means and deviation bounds alone. The jump
  /// integral is at most the inflow length times the largest |rho_e - rho_n| at an inflow point, so the ratio is
  /// at most max |rho_e - rho_n| / (h^((P+1)/2) |mean rho_e|) whatever the inflow part; and at any face point
  /// |rho_e - rho_n| <= |mean_e - mean_n| + D_e + D_n (D: deviation_bound). Where that bound, widened by a
  /// margin far above the rounding of both computations (1e-10 relative in double, 1e-4 in float), stays below
  /// 1, the exact pass would give 0: the flags are the same bit for bit, from one mean and one bound per
  /// neighbour instead of three traces at every face point. In a uniform region (much of a shocked flow) the
  /// bound is 0. NaN anywhere fails the test (the exact pass decides).
  KEMPE_HD bool cannot_be_troubled(index_t e) const {
    constexpr int nm = basis::num_modes(P);
    const index_t k = num_elements;
    const Real mean = c[(euler::density * nm) * k + e] * Real(mode0_value);
    NeighbourBound b;
    for (int part = 0; part < 6; ++part) {
      const index_t* across = (part & 1) == 0 ? element_neighbors : element_half_neighbors;
      const index_t n = across == nullptr ? no_element : across[3 * e + (part >> 1)];
      if (n != no_element) b.fold(mean, c[(euler::density * nm) * k + n] * Real(mode0_value), deviation_bound(n));
    }
    return bound_below_one(mean, deviation_bound(e), b, circumradius[e]);
  }

  /// cannot_be_troubled for the eight elements from `first`, each loop over the lanes (the CPU's block).
  bool block_cannot_be_troubled(index_t first) const {
    constexpr int nm = basis::num_modes(P), width = block_width;
    const index_t k = num_elements;
    const Real* rho = c + std::size_t(euler::density * nm) * k;
    alignas(64) Real mean[width], own[width], gap[width], scale[width], nan_check[width];
    KEMPE_OMP_SIMD
    for (int l = 0; l < width; ++l) {
      mean[l] = rho[first + l] * Real(mode0_value);
      Real d = Real(0);
      for (int m = 1; m < nm; ++m) {
        const Real cm = rho[std::size_t(m) * k + first + l];
        d = multiply_add(cm < Real(0) ? -cm : cm, mode_bound[m], d);
      }
      own[l] = d, gap[l] = scale[l] = nan_check[l] = Real(0);
    }
    for (int part = 0; part < 6; ++part) {
      const index_t* across = (part & 1) == 0 ? element_neighbors : element_half_neighbors;
      if (across == nullptr) continue;
      const int j = part >> 1;
      KEMPE_OMP_SIMD
      for (int l = 0; l < width; ++l) {
        const index_t n = across[3 * (first + l) + j];
        const index_t at = n == no_element ? first + l : n;  // a missing neighbour reads the element itself, unused
        Real d = Real(0);
        for (int m = 1; m < nm; ++m) {
          const Real cm = rho[std::size_t(m) * k + at];
          d = multiply_add(cm < Real(0) ? -cm : cm, mode_bound[m], d);
        }
        NeighbourBound b{gap[l], scale[l], nan_check[l]};
        b.fold(mean[l], rho[at] * Real(mode0_value), d);
        gap[l] = n == no_element ? gap[l] : b.gap;
        scale[l] = n == no_element ? scale[l] : b.scale;
        nan_check[l] = n == no_element ? nan_check[l] : b.nan_check;
      }
    }
    int below = 0;
    for (int l = 0; l < width; ++l) below += bound_below_one(mean[l], own[l], NeighbourBound{gap[l], scale[l], nan_check[l]}, circumradius[first + l]);
    return below == width;
  }

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nq = P + 1;
    const index_t k = num_elements;
    if (prefiltered() && cannot_be_troubled(e)) {
      troubled[e] = 0;
      return;
    }
    Real jump = Real(0), inflow = Real(0);
    for (int part = 0; part < 6; ++part) {
      const int j = part >> 1;
      const index_t f = (part & 1) == 0 ? element_faces[3 * e + j]
                                        : (element_half_faces == nullptr ? no_element : element_half_faces[3 * e + j]);
      if (f == no_element || face_right[f] == no_element) continue;
      const Side s = side(f, e);
      const index_t n = s.neighbour;
      for (int q = 0; q < nq; ++q) {
        const Real* bo = s.basis_own + q * nm;
        const Real* bn = s.basis_neighbour + (nq - 1 - q) * nm;  // the neighbour runs the other way
        Real rho = Real(0), mx = Real(0), my = Real(0), rho_n = Real(0);
        for (int m = 0; m < nm; ++m) {
          rho = multiply_add(c[(euler::density * nm + m) * k + e], bo[m], rho);
          mx = multiply_add(c[(euler::momentum_x * nm + m) * k + e], bo[m], mx);
          my = multiply_add(c[(euler::momentum_y * nm + m) * k + e], bo[m], my);
          rho_n = multiply_add(c[(euler::density * nm + m) * k + n], bn[m], rho_n);
        }
        if (multiply_add(mx, s.nx, my * s.ny) >= Real(0)) continue;  // outflow point
        const Real w = face_weight[q] * s.half;
        jump = multiply_add(w, rho > rho_n ? rho - rho_n : rho_n - rho, jump);
        inflow += w;
      }
    }
    const Real mean = c[(euler::density * nm) * k + e] * Real(mode0_value);
    const Real size = kxrcf_size<P>(inflow, mean, circumradius[e]);
    troubled[e] = inflow > Real(0) && jump > size ? 1 : 0;
    if (ratio != nullptr) ratio[e] = inflow > Real(0) && size > Real(0) ? double(jump) / double(size) : 0.0;
  }

  /// The CPU flags eight consecutive elements at once (backend.hpp, CpuBlock): each loop of operator() with a
  /// loop over the eight innermost, the neighbours' coefficients and each lane's basis gathered, and an outflow
  /// point or a missing face adding zeros instead of being skipped (adding a zero is exact), so that the inflow
  /// test, whose outcome changes from element to element along a shock, selects rather than branches. The same
  /// operations in the same order (the multiply-adds stated), so the flags are operator()'s bit for bit. One
  /// element at a time this pass took nearly as long as the surface term (p = 1, vertex limiter, perf). Up to
  /// p = 2: from p = 3 gathering each lane's basis at every point costs more than the branches did (the double
  /// Mach reflection's limiters 1.1-1.3 times as long), and elements go one at a time. The adaptation's
  /// indicator (ratio given) goes through operator().
  static constexpr int block_width = 8;
  static constexpr int cpu_block = P <= 2 ? block_width : 0;
  void block(index_t first) const {
    constexpr int nm = basis::num_modes(P), nq = P + 1, width = block_width;
    if (ratio != nullptr) {
      for (int l = 0; l < width; ++l) (*this)(first + l);
      return;
    }
    if (prefiltered() && block_cannot_be_troubled(first)) {
      for (int l = 0; l < width; ++l) troubled[first + l] = 0;
      return;
    }
    const index_t k = num_elements;
    alignas(64) Real own[3][nm][width];  // density and momenta
    constexpr int own_vars[3] = {euler::density, euler::momentum_x, euler::momentum_y};
    for (int v = 0; v < 3; ++v)
      for (int m = 0; m < nm; ++m) {
        const Real* from = c + std::size_t(own_vars[v] * nm + m) * k + first;
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) own[v][m][l] = from[l];
      }
    alignas(64) Real jump[width], inflow[width];
    for (int l = 0; l < width; ++l) jump[l] = inflow[l] = Real(0);
    for (int part = 0; part < 6; ++part) {
      const int j = part >> 1;
      alignas(64) Real nx[width], ny[width], half[width], counts[width];
      alignas(64) Real neighbour[nm][width];
      const Real *basis_o[width], *basis_n[width];
      bool any = false;
      for (int l = 0; l < width; ++l) {
        const index_t e = first + l;
        const index_t f = (part & 1) == 0 ? element_faces[3 * e + j]
                                          : (element_half_faces == nullptr ? no_element : element_half_faces[3 * e + j]);
        const bool counted = f != no_element && face_right[f] != no_element;
        any = any || counted;
        counts[l] = counted ? Real(1) : Real(0);
        nx[l] = ny[l] = half[l] = Real(0);
        basis_o[l] = basis_n[l] = face_basis;
        for (int m = 0; m < nm; ++m) neighbour[m][l] = Real(0);
        if (!counted) continue;
        const Side s = side(f, e);
        basis_o[l] = s.basis_own, basis_n[l] = s.basis_neighbour;
        nx[l] = s.nx, ny[l] = s.ny, half[l] = s.half;
        for (int m = 0; m < nm; ++m) neighbour[m][l] = c[std::size_t(euler::density * nm + m) * k + s.neighbour];
      }
      if (!any) continue;
      for (int q = 0; q < nq; ++q) {
        alignas(64) Real bo[nm][width], bn[nm][width];
        for (int m = 0; m < nm; ++m)
          for (int l = 0; l < width; ++l) {
            bo[m][l] = basis_o[l][q * nm + m];
            bn[m][l] = basis_n[l][(nq - 1 - q) * nm + m];  // the neighbour runs the other way
          }
        const Real weight = face_weight[q];
        KEMPE_OMP_SIMD
        for (int l = 0; l < width; ++l) {
          Real rho = Real(0), mx = Real(0), my = Real(0), rho_n = Real(0);
          for (int m = 0; m < nm; ++m) {
            rho = multiply_add(own[0][m][l], bo[m][l], rho);
            mx = multiply_add(own[1][m][l], bo[m][l], mx);
            my = multiply_add(own[2][m][l], bo[m][l], my);
            rho_n = multiply_add(neighbour[m][l], bn[m][l], rho_n);
          }
          const bool into = counts[l] != Real(0) && !(multiply_add(mx, nx[l], my * ny[l]) >= Real(0));
          const Real w = weight * half[l];
          jump[l] = into ? multiply_add(w, rho > rho_n ? rho - rho_n : rho_n - rho, jump[l]) : jump[l];
          inflow[l] = into ? inflow[l] + w : inflow[l];
        }
      }
    }
    for (int l = 0; l < width; ++l) {
      const index_t e = first + l;
      const Real mean = own[0][0][l] * Real(mode0_value);
      const Real size = kxrcf_size<P>(inflow[l], mean, circumradius[e]);
      troubled[e] = inflow[l] > Real(0) && jump[l] > size ? 1 : 0;
    }
  }
};

/// PositivityLimiter's bounds per mode for every count of check points ([points][2][modes]): row q holds the
/// largest |phi_m| over points 0 .. q, then the most that phi_m departs there from its mean value (phi_0 from
/// mode0_value, the others from 0). The limiter reads the row of its count, so the solver's check points with
/// or without the subcell averages after them share one table. `basis` [points][modes] as the limiter's.
template <class Real>
std::vector<Real> positivity_reach(const std::vector<Real>& basis, int num_modes) {
  const std::size_t nm = std::size_t(num_modes), points = basis.size() / nm;
  std::vector<Real> reach(points * 2 * nm, Real(0));
  for (std::size_t q = 0; q < points; ++q)
    for (std::size_t m = 0; m < nm; ++m) {
      const Real phi = basis[q * nm + m];
      const Real size = std::abs(phi), departs = std::abs(m == 0 ? phi - Real(mode0_value) : phi);
      const Real before_size = q == 0 ? Real(0) : reach[((q - 1) * 2) * nm + m];
      const Real before_departs = q == 0 ? Real(0) : reach[((q - 1) * 2 + 1) * nm + m];
      reach[(q * 2) * nm + m] = size > before_size ? size : before_size;
      reach[(q * 2 + 1) * nm + m] = departs > before_departs ? departs : before_departs;
    }
  return reach;
}

/// [modes] the largest |phi_m| at TroubledCells' face points (the whole local edges' and their halves'), 0 for the
/// constant mode: its mode_bound, from the tables the kernels read (`face_basis` [3][points][modes],
/// `face_half_basis` [3][2][points][modes]).
template <class Real>
std::vector<Real> kxrcf_mode_bounds(const std::vector<Real>& face_basis, const std::vector<Real>& face_half_basis, int num_modes) {
  std::vector<Real> bound(std::size_t(num_modes), Real(0));
  for (const std::vector<Real>* table : {&face_basis, &face_half_basis})
    for (std::size_t i = 0; i < table->size(); ++i) {
      const std::size_t m = i % std::size_t(num_modes);
      if (m > 0) bound[m] = std::max(bound[m], std::abs((*table)[i]));
    }
  return bound;
}

/// TroubledCells' flags from the per-face sums that the surface term stored while it evaluated the traces
/// (FaceIntegrals::kxrcf, [4][faces]: left jump, left inflow, right jump, right inflow): each element adds its
/// side's sums over its faces (both halves of a split edge). The same points, weights and test as TroubledCells;
/// the sums come in another order, so a ratio within rounding of 1 may be flagged otherwise.
template <int P, class Real>
struct TroubledFromFaces {
  index_t num_elements, num_faces;
  const index_t* element_faces;       ///< [elements][3]
  const index_t* element_half_faces;  ///< [elements][3] or null (a conforming mesh)
  const index_t *face_left, *face_right;
  const Real* sums;          ///< [4][faces]
  const Real* circumradius;  ///< [elements]
  const Real* c;
  std::uint8_t* troubled;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P);
    Real jump = Real(0), inflow = Real(0);
    auto add = [&](index_t f) {
      if (face_right[f] == no_element) return;
      const std::size_t side = face_left[f] == e ? 0 : 2;
      jump += sums[side * num_faces + f];
      inflow += sums[(side + 1) * num_faces + f];
    };
    for (int j = 0; j < 3; ++j) {
      add(element_faces[3 * e + j]);
      if (element_half_faces != nullptr && element_half_faces[3 * e + j] != no_element) add(element_half_faces[3 * e + j]);
    }
    const Real mean = c[(euler::density * nm) * num_elements + e] * Real(mode0_value);
    troubled[e] = inflow > Real(0) && jump > kxrcf_size<P>(inflow, mean, circumradius[e]) ? 1 : 0;
  }
};

/// The rounding noise of a Taylor coefficient of order `order` over a distance `length` (an element's size):
/// derivatives are differences of coefficients scaled by up to order! / length^order, so their rounding is
/// about epsilon |mean| order! / length^order, however small the derivative itself. Slopes and differences
/// that agree to this noise are treated as equal, so that rounding never switches on the next level of a
/// hierarchical limiter where the solution is a smooth polynomial.
template <class Real>
KEMPE_HD Real rounding_noise(Real mean, Real value, int order, Real length) {
  constexpr Real relative = Real(sizeof(Real) >= 8 ? 1e-11 : 1e-4);
  Real scale = mean < Real(0) ? -mean : mean;
  for (int j = 1; j <= order; ++j) scale *= Real(j) / length;
  return relative * (scale + (value < Real(0) ? -value : value)) + Real(1e-30);
}

/// The largest factor in [0, 1] by which `jump` (the change a linear reconstruction makes from `value`) can be
/// scaled so that value + factor * jump stays within [lo, hi] (Barth & Jespersen); 1 where the reconstruction
/// leaves the bounds by no more than `noise`.
template <class Real>
KEMPE_HD Real bounded_factor(Real value, Real jump, Real lo, Real hi, Real noise) {
  Real a = Real(1);
  if (jump > Real(0) && value + jump - hi > noise) a = (hi - value) / jump;
  if (jump < Real(0) && lo - value - jump > noise) a = (lo - value) / jump;
  return a < Real(0) ? Real(0) : (a > Real(1) ? Real(1) : a);
}

/// Kuzmin's vertex-based hierarchical limiter (J. Comput. Appl. Math. 233, 2010, section 4; Aizinger, Kuzmin
/// & Korous 2017 for higher orders), variable by variable in the conserved variables. For k = P down to 1,
/// each derivative of order k - 1 is reconstructed linearly from its value and gradient at the centroid, and
/// alpha_k is the largest factor keeping that reconstruction within the vertex bounds at all three vertices;
/// then alpha_k = max(alpha_k, alpha_(k+1)) (a smooth higher derivative marks a smooth extremum, not a
/// shock), and the loop stops at the first alpha_k = 1. The Taylor terms of degree k are scaled by alpha_k.
/// At P = 1 this is the classic vertex-based (Barth-Jespersen type) limiter with vertex bounds.
/// `vertex_dx`, `vertex_dy` [elements][3]: the element's vertices minus its centroid; `element_vertices`
/// [elements][3].
template <int P, class Real>
struct VertexLimiter {
  static constexpr bool cpu_spread = true;  // its work sits at the shocks (backend.hpp, CpuSpread)
  index_t num_elements, num_vertices;
  const index_t* element_vertices;
  const Real *vertex_dx, *vertex_dy;
  const Real* degree_part;  ///< [P][modes][modes] (TriangleOperators::degree_part)
  const Real* taylor;       ///< [vars][modes][elements]
  const Real* bounds;       ///< [2][vars][VertexBounds::num_fields][vertices]
  Real* c;
  const std::uint8_t* troubled = nullptr;  ///< [elements]: limit only these (TroubledCells); null: all

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars, nd = VertexBounds<P, Real>::num_fields;
    if (troubled != nullptr && !troubled[e]) return;
    for (int v = 0; v < nv; ++v) {
      Real t[nm];
      for (int m = 0; m < nm; ++m) t[m] = taylor[std::size_t(v * nm + m) * num_elements + e];
      Real alpha[P + 1];
      for (int k = 0; k <= P; ++k) alpha[k] = Real(1);
      for (int k = P; k >= 1; --k) {
        Real a = Real(1);
        for (int i = 0; i < k; ++i) {
          const int d = taylor_index(k - 1, i);
          const Real gx = t[taylor_index(k, i)], gy = t[taylor_index(k, i + 1)];
          for (int j = 0; j < 3; ++j) {
            const index_t vertex = element_vertices[3 * e + j];
            const Real lo = bounds[(std::size_t(v) * nd + d) * num_vertices + vertex];
            const Real hi = bounds[(std::size_t(nv + v) * nd + d) * num_vertices + vertex];
            const Real dx = vertex_dx[3 * e + j], dy = vertex_dy[3 * e + j];
            const Real noise = rounding_noise(t[0], t[d], k, std::sqrt(dx * dx + dy * dy));
            const Real f = bounded_factor(t[d], gx * dx + gy * dy, lo, hi, noise);
            a = f < a ? f : a;
          }
        }
        if (k < P && alpha[k + 1] > a) a = alpha[k + 1];
        alpha[k] = a;
        if (a >= Real(1)) break;
      }
      if (alpha[1] >= Real(1) && alpha[P] >= Real(1)) continue;
      Real ce[nm];
      for (int m = 0; m < nm; ++m) ce[m] = c[(v * nm + m) * num_elements + e];
      scale_taylor_degrees<P>(degree_part, alpha, ce);
      for (int m = 1; m < nm; ++m) c[(v * nm + m) * num_elements + e] = ce[m];
    }
  }
};

/// The moment limiter (Krivodonova, JCP 226, 2007) on triangles, in the Taylor form of Yang & Wang (Adv. Appl.
/// Math. Mech. 1, 2009): from the highest derivatives down, each gradient of a derivative of order k - 1 is
/// compared, along the direction to each face neighbour's centroid, with theta times the difference of that
/// derivative between the neighbour and the element (a minmod: the factor is 0 where they differ in sign,
/// theta * difference / slope where the slope is larger). alpha_k is the smallest factor; the loop stops at
/// the first level left unchanged (alpha_k = 1), as Krivodonova's does, and a level never keeps more than the
/// level below it. theta in [1, 2]: 1 is minmod, 2 the monotonized-central bound. Boundary faces give no
/// constraint. `element_neighbors` [elements][3] (no_element on the boundary), `neighbor_dx`, `neighbor_dy`
/// [elements][3]: neighbour centroid minus own centroid, measured across the shared face (so periodic
/// neighbours are seen at their translated position).
template <int P, class Real>
struct MomentLimiter {
  static constexpr bool cpu_spread = true;  // its work sits at the shocks (backend.hpp, CpuSpread)
  index_t num_elements;
  const index_t* element_neighbors;
  const Real *neighbor_dx, *neighbor_dy;
  Real theta;
  const Real* degree_part;  ///< [P][modes][modes]
  const Real* taylor;       ///< [vars][modes][elements]
  Real* c;
  const std::uint8_t* troubled = nullptr;  ///< [elements]: limit only these (TroubledCells); null: all
  /// An adapted mesh's second neighbour across each split edge and the offset to it ([elements][3],
  /// no_element where the edge is whole); null on a conforming mesh.
  const index_t* element_half_neighbors = nullptr;
  const Real *half_neighbor_dx = nullptr, *half_neighbor_dy = nullptr;

  KEMPE_HD void operator()(index_t e) const {
    constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
    if (troubled != nullptr && !troubled[e]) return;
    for (int v = 0; v < nv; ++v) {
      const Real* tv = taylor + std::size_t(v * nm) * num_elements;
      Real alpha[P + 1];
      for (int k = 0; k <= P; ++k) alpha[k] = Real(1);
      bool limited = false;
      for (int k = P; k >= 1; --k) {
        Real a = Real(1);
        for (int i = 0; i < k; ++i) {
          const int d = taylor_index(k - 1, i);
          const Real value = tv[std::size_t(d) * num_elements + e];
          const Real gx = tv[std::size_t(taylor_index(k, i)) * num_elements + e];
          const Real gy = tv[std::size_t(taylor_index(k, i + 1)) * num_elements + e];
          for (int part = 0; part < 6; ++part) {
            const int j = part >> 1;
            const bool second = (part & 1) != 0;
            if (second && element_half_neighbors == nullptr) continue;
            const index_t n = second ? element_half_neighbors[3 * e + j] : element_neighbors[3 * e + j];
            if (n == no_element) continue;
            const Real dx = second ? half_neighbor_dx[3 * e + j] : neighbor_dx[3 * e + j];
            const Real dy = second ? half_neighbor_dy[3 * e + j] : neighbor_dy[3 * e + j];
            const Real slope = gx * dx + gy * dy;
            const Real difference = tv[std::size_t(d) * num_elements + n] - value;
            const Real noise = rounding_noise(tv[e], value, k, std::sqrt(dx * dx + dy * dy));
            const Real excess = slope - difference;
            if ((excess < Real(0) ? -excess : excess) <= noise) continue;  // the same to rounding
            Real f = slope * difference > Real(0) ? theta * difference / slope : Real(0);
            f = f > Real(1) ? Real(1) : f;
            a = f < a ? f : a;
          }
        }
        alpha[k] = a;
        if (a >= Real(1)) break;
        limited = true;
      }
      if (!limited) continue;
      for (int k = 2; k <= P; ++k) alpha[k] = alpha[k] < alpha[k - 1] ? alpha[k] : alpha[k - 1];
      Real ce[nm];
      for (int m = 0; m < nm; ++m) ce[m] = c[(v * nm + m) * num_elements + e];
      scale_taylor_degrees<P>(degree_part, alpha, ce);
      for (int m = 1; m < nm; ++m) c[(v * nm + m) * num_elements + e] = ce[m];
    }
  }
};

}  // namespace kempe::dg
