// What the tests of shock capturing (the entropy filter, subcell blending) share: the shock tubes of
// ../shared/reference/cases.md on a strip of squares, run against their exact solutions, and the isentropic
// vortex's rates with the scheme on.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "dg_cases.hpp"
#include "kernels/riemann_K.hpp"
#include "mesh/generators.hpp"
#include "solver/numerics/simulation.hpp"
#include "solver/output/output.hpp"

namespace kempe::test {

/// [0, 1] x [0, 2 / n]: n x 2 squares of two triangles, walls below and above, the given states at both ends.
inline Mesh strip(int n) {
  RawMesh raw = rectangle_grid(n, 2, true);
  for (double& x : raw.x) x /= n;
  for (double& y : raw.y) y /= n;
  Mesh mesh = build_mesh(raw);
  mesh.boundary_names = {"bottom", "top", "left", "right"};
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element)
      mesh.face_boundary[f] = mesh.normal_y[f] < -0.5 ? 0 : mesh.normal_y[f] > 0.5 ? 1 : mesh.normal_x[f] < 0 ? 2 : 3;
  return test::prepared(std::move(mesh));
}

struct Tube {
  const char* name;
  riemann::Primitive<double> left, right;
  double t_end;
};

struct TubeResult {
  double l1 = 0;     ///< L1 density error per unit area
  double spill = 0;  ///< the largest cell-average density outside the exact density's range over its own and the
                     ///< adjacent columns of squares, over the density's whole range: over- and undershoots
  /// How far the point values at the output lattice's nodes (what ParaView draws) reach beyond the exact
  /// solution's whole range, over that range: density, x-velocity, pressure (scripts/riemann_overshoot.py's
  /// measure).
  double beyond[3] = {0, 0, 0};
  /// The same for the subcell averages (kernels/subcell.hpp), the states the blend's finite volumes evolve.
  double beyond_subcell[3] = {0, 0, 0};
  /// The same for what the output shows (output::sample_solution): the polynomial at the nodes, pulled into the
  /// range of the neighbourhood's subcell averages in the elements that bounds on them watch.
  double beyond_shown[3] = {0, 0, 0};
};

/// Runs `tube` to its end time (HLL, SSP-RK3, CFL 0.5, positivity limiter) at order `order` on strip(n), with the
/// given limiter and, where blending_max > 0, subcell shock capturing at that largest share with finite volumes of
/// order subcell_order, with bounds on the subcell averages where subcell_bounds, their repair where subcell_repair
/// (within the element) and low-order edges where the low-order update overshoots where repair_edges. Runs
/// kempe_simulation's solvers, those `kempe run` runs.
inline TubeResult run_tube(int order, const Mesh& mesh, int n, const Tube& tube, dg::Limiter limiter, double blending_max = 0,
                           int subcell_order = 1, bool subcell_bounds = false, bool subcell_repair = false,
                           bool repair_edges = false) {
  sim::BoundaryGroups groups;  // waves stay inside: the ends keep the initial states
  groups.kinds = {bc::Kind::wall, bc::Kind::wall, bc::Kind::inflow, bc::Kind::inflow};
  groups.states.assign(4 * euler::num_vars, 0.0);
  euler::conserved(tube.left.density, tube.left.velocity, 0.0, tube.left.pressure, gamma_air, &groups.states[2 * euler::num_vars]);
  euler::conserved(tube.right.density, tube.right.velocity, 0.0, tube.right.pressure, gamma_air, &groups.states[3 * euler::num_vars]);
  sim::SolverOptions options;
  options.order = order;
  options.flux = euler::Flux::hll;
  options.gamma = gamma_air;
  options.limiter = limiter;
  options.positivity = 1e-12;
  options.shock_capturing = blending_max > 0 ? dg::ShockCapturing::subcell : dg::ShockCapturing::none;
  options.blending_max = blending_max;
  options.subcell_order = subcell_order;
  options.subcell_bounds = subcell_bounds;
  options.subcell_repair = subcell_repair;
  options.subcell_repair_reach = dg::RepairReach::element;
  options.subcell_repair_edges = repair_edges;
  const std::unique_ptr<sim::Simulation> solver = sim::make_simulation(mesh, options, groups);
  solver->project([&](double x, double, double* out) {
    const riemann::Primitive<double>& s = x < 0.5 ? tube.left : tube.right;
    euler::conserved(s.density, s.velocity, 0.0, s.pressure, gamma_air, out);
  });
  solver->advance(tube.t_end, dg::Integrator::ssprk3, 0.5, 0, std::numeric_limits<int>::max());
  const riemann::Star<double> star = riemann::star_state(tube.left, tube.right, gamma_air);
  auto exact_density = [&](double x) { return riemann::sample(tube.left, tube.right, star, gamma_air, (x - 0.5) / tube.t_end).density; };
  TubeResult r;
  double area = 0;
  for (const double a : mesh.volume) area += a;
  r.l1 = solver->l1_error(euler::density, [&](double x, double, double* out) {
           const riemann::Primitive<double> s = riemann::sample(tube.left, tube.right, star, gamma_air, (x - 0.5) / tube.t_end);
           euler::conserved(s.density, s.velocity, 0.0, s.pressure, gamma_air, out);
         }) / area;
  const std::vector<double> c = solver->solution();
  const index_t k = mesh.num_elements();
  // The exact solution's range of density, velocity and pressure.
  double exact_lo[3] = {1e300, 1e300, 1e300}, exact_hi[3] = {-1e300, -1e300, -1e300};
  for (int i = 0; i <= 400 * n; ++i) {
    const riemann::Primitive<double> s = riemann::sample(tube.left, tube.right, star, gamma_air, (double(i) / (400 * n) - 0.5) / tube.t_end);
    const double values[3] = {s.density, s.velocity, s.pressure};
    for (int j = 0; j < 3; ++j) exact_lo[j] = std::min(exact_lo[j], values[j]), exact_hi[j] = std::max(exact_hi[j], values[j]);
  }
  const double lowest = exact_lo[0], highest = exact_hi[0];
  for (index_t e = 0; e < k; ++e) {
    const double mean = c[e] * dg::mode0_value, column = std::floor(mesh.centroid_x[e] * n);
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i <= 300; ++i) {
      const double rho = exact_density(std::clamp((column - 1 + i / 100.0) / n, 0.0, 1.0));
      lo = std::min(lo, rho), hi = std::max(hi, rho);
    }
    r.spill = std::max({r.spill, (mean - hi) / (highest - lowest), (lo - mean) / (highest - lowest)});
  }
  // How far the states that `table` ([points][modes], linear in the modes) gives in every element reach beyond
  // the exact range: the output lattice's nodes (order max(p, 1), as solver/output samples), the subcell averages.
  const int nm = solver->num_modes();
  auto reach = [&](const double (&values)[3], double* out) {
    for (int j = 0; j < 3; ++j) {
      const double range = exact_hi[j] - exact_lo[j];
      if (range > 0) out[j] = std::max({out[j], (values[j] - exact_hi[j]) / range, (exact_lo[j] - values[j]) / range});
    }
  };
  auto beyond = [&](const std::vector<double>& table, double* out) {
    const std::size_t points = table.size() / nm;
    for (index_t e = 0; e < k; ++e)
      for (std::size_t q = 0; q < points; ++q) {
        double u[euler::num_vars] = {};
        for (int v = 0; v < euler::num_vars; ++v)
          for (int m = 0; m < nm; ++m) u[v] += c[(std::size_t(v) * nm + m) * k + e] * table[q * nm + m];
        reach({u[euler::density], u[euler::momentum_x] / u[euler::density], euler::pressure(u, gamma_air)}, out);
      }
  };
  const int lattice = order < 1 ? 1 : order;
  std::vector<double> nodes;
  for (const auto& [i, j] : output::lagrange_triangle_lattice(lattice))
    for (int m = 0; m < nm; ++m) nodes.push_back(basis::mode(m, -1 + 2.0 * i / lattice, -1 + 2.0 * j / lattice));
  beyond(nodes, r.beyond);
  beyond(dg::subcell_operators(order).average, r.beyond_subcell);
  const output::SampledSolution shown = output::sample_solution(mesh, order, gamma_air, c, {}, tube.t_end, solver->subcell_cells());
  for (index_t i = 0; i < shown.num_points(); ++i) reach({shown.density[i], shown.velocity[3 * i], shown.pressure[i]}, r.beyond_shown);
  return r;
}

/// Sod, Toro's 123 problem and his tests 3-5 (../shared/reference/cases.md), the discontinuity at x = 0.5.
inline const Tube riemann_tubes[] = {{"Sod", {1, 0, 1}, {0.125, 0, 0.1}, 0.25},
                                     {"2 (123)", {1, -2, 0.4}, {1, 2, 0.4}, 0.15},
                                     {"3", {1, 0, 1000}, {1, 0, 0.01}, 0.012},
                                     {"4", {1, 0, 0.01}, {1, 0, 100}, 0.035},
                                     {"5", {5.99924, 19.5975, 460.894}, {5.99242, -6.19633, 46.0950}, 0.035}};

/// Runs vortex_errors(p, sizes, limiter, blending_max, subcell_bounds), prints the table and checks the finest
/// rate: at least p + 0.8 (p + 0.5 at p >= 4, which converges at 4.54 unlimited on the meshes of 8 x 8 to 16 x 16).
inline void expect_vortex_rate(int p, const std::vector<int>& sizes, dg::Limiter limiter, double blending_max = 0,
                               bool subcell_bounds = false) {
  const std::vector<double> errors = vortex_errors(p, sizes, limiter, blending_max, subcell_bounds);
  print_convergence_table(p, sizes, errors);
  const double rate = std::log(errors[errors.size() - 2] / errors.back()) / std::log(double(sizes.back()) / sizes[sizes.size() - 2]);
  EXPECT_GE(rate, p < 4 ? p + 0.8 : p + 0.5) << "p = " << p;
}

}  // namespace kempe::test
