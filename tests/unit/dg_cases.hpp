// Cases shared by the DG tests and the convergence benchmark: triangle grids (distorted, bent or periodic),
// colored and renumbered as the solver runs them, and the isentropic vortex.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "kernels/boundary_K.hpp"
#include "kernels/euler.hpp"
#include "mesh/periodic.hpp"
#include "mesh/generators.hpp"
#include "solver/numerics/euler_dg.hpp"
#include "solver/numerics/simulation.hpp"

namespace kempe::test {

inline constexpr double gamma_air = 1.4;
/// pi (the GPU tests include this header, and nvcc compiles C++17: no std::numbers).
inline constexpr double pi = 3.141592653589793;

/// Colored with kempe and renumbered with color_renumber, as the solver runs it.
inline Mesh prepared(Mesh mesh) {
  FaceColoring coloring = color_faces(mesh, {"kempe", 1});
  apply_ordering(mesh, coloring, find_ordering("color_renumber").compute(mesh, coloring));
  return mesh;
}

inline Mesh solver_mesh(int n, double size, double distortion, std::uint64_t seed = 5) {
  return prepared(grid_mesh(n, size, distortion, seed));
}

/// periodic_grid_mesh, colored and renumbered.
inline Mesh periodic_mesh(int n, double size, double distortion) { return prepared(periodic_grid_mesh(n, size, distortion)); }

/// The boundary table of double_mach_mesh: the moving shock's states, a slip wall, outflow.
struct DoubleMachBoundary {
  bc::Kind kind[3] = {bc::Kind::function, bc::Kind::wall, bc::Kind::outflow};
  bc::StateFunction function[3] = {bc::StateFunction::double_mach, bc::StateFunction::double_mach, bc::StateFunction::double_mach};
  std::vector<double> unused = std::vector<double>(3 * euler::num_vars, 0.0);
  template <class Real>
  bc::GroupBoundary<Real> table(const std::vector<Real>& states) const {
    return {kind, states.data(), Real(gamma_air), function};
  }
};

/// Ghost state: one fixed state on every boundary face.
struct FixedState {
  double u[euler::num_vars];
  template <class Real>
  KEMPE_HD void operator()(std::int32_t, const Real*, Real, Real, Real, Real, Real, Real* out) const {
    for (int v = 0; v < euler::num_vars; ++v) out[v] = Real(u[v]);
  }
};

/// Shu's isentropic vortex (../shared/reference/cases.md): centre (5, 5) at t = 0, carried by the mean flow
/// (1, 1); its exact state is also the boundary state.
struct Vortex {
  static KEMPE_HD void state(double x, double y, double t, double* u) {
    constexpr double eps = 5;
    const double xc = x - 5 - t, yc = y - 5 - t, r2 = xc * xc + yc * yc;
    const double bump = std::exp((1 - r2) / 2);
    const double vx = 1 - yc * eps / (2 * pi) * bump, vy = 1 + xc * eps / (2 * pi) * bump;
    const double temperature = 1 - (gamma_air - 1) * eps * eps / (8 * gamma_air * pi * pi) * std::exp(1 - r2);
    const double rho = std::pow(temperature, 1 / (gamma_air - 1));
    euler::conserved(rho, vx, vy, rho * temperature, gamma_air, u);
  }
  template <class Real>
  KEMPE_HD void operator()(std::int32_t, const Real*, Real, Real, Real x, Real y, Real t, Real* out) const {
    double u[euler::num_vars];
    state(x, y, t, u);
    for (int v = 0; v < euler::num_vars; ++v) out[v] = Real(u[v]);
  }
};

/// The isentropic vortex's exact state (the named boundary function) on every boundary group of `mesh`.
inline sim::BoundaryGroups vortex_boundaries(const Mesh& mesh) {
  const std::size_t groups = mesh.boundary_names.size();
  return {std::vector<bc::Kind>(groups, bc::Kind::function), std::vector<double>(groups * euler::num_vars, 0.0),
          std::vector<bc::StateFunction>(groups, bc::StateFunction::isentropic_vortex)};
}

/// Advances `run` to `end` in equal steps of at most its stable step at CFL 0.5 (SSP-RK3), landing on `end`:
/// the step the convergence studies take.
inline void advance_in_equal_steps(sim::Simulation& run, double end) {
  const int steps = static_cast<int>(std::ceil(end / run.stable_dt(0.5)));
  run.advance(end, dg::Integrator::ssprk3, 0.5, end / steps, steps);
}

/// L2 density errors at t = 1 on bent n x n meshes of [0, 10]^2 for order `order` (HLLC, exact boundary states),
/// with the given slope limiter after every stage and, where blending_max > 0, subcell shock capturing at that
/// largest share (with bounds on the subcell averages where subcell_bounds). Runs kempe_simulation's solvers,
/// those `kempe run` runs.
inline std::vector<double> vortex_errors(int order, const std::vector<int>& sizes, dg::Limiter limiter = dg::Limiter::none,
                                         double blending_max = 0, bool subcell_bounds = false) {
  sim::SolverOptions options;
  options.order = order;
  options.flux = euler::Flux::hllc;
  options.gamma = gamma_air;
  options.limiter = limiter;
  options.shock_capturing = blending_max > 0 ? dg::ShockCapturing::subcell : dg::ShockCapturing::none;
  options.blending_max = blending_max;
  options.subcell_bounds = subcell_bounds;
  options.positivity = 0;  // a smooth flow: no positivity limiter
  std::vector<double> errors;
  for (const int n : sizes) {
    const Mesh mesh = solver_mesh(n, 10.0, -0.5);
    const std::unique_ptr<sim::Simulation> run = sim::make_simulation(mesh, options, vortex_boundaries(mesh));
    run->project([](double x, double y, double* out) { Vortex::state(x, y, 0, out); });
    const double end = 1.0;
    advance_in_equal_steps(*run, end);
    errors.push_back(run->l2_error(euler::density, [&](double x, double y, double* out) { Vortex::state(x, y, end, out); }));
  }
  return errors;
}

/// Prints the convergence table of vortex_errors (deal.II step-67 style).
inline void print_convergence_table(int p, const std::vector<int>& sizes, const std::vector<double>& errors) {
  std::printf("isentropic vortex, p = %d, HLLC, SSP-RK3, t = 1\n   cells   L2 error (density)   rate\n", p);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i == 0)
      std::printf("  %3dx%-3d  %.4e\n", sizes[i], sizes[i], errors[i]);
    else
      std::printf("  %3dx%-3d  %.4e           %.2f\n", sizes[i], sizes[i], errors[i],
                  std::log(errors[i - 1] / errors[i]) / std::log(double(sizes[i]) / sizes[i - 1]));
  }
}


/// What limiting `start` with solver's slope `limiter` on the troubled elements only gives against limiting every
/// element: `differ` counts the values that are not the whole limiter's on a troubled element or not start's
/// elsewhere (0 when the limiter of the troubled elements reads what it must), `flagged` the troubled elements,
/// `changed` whether the whole limiter changed anything.
struct TroubledOnlyAgainstWhole {
  int differ = 0;
  index_t flagged = 0;
  bool changed = false;
};
template <class Solver>
TroubledOnlyAgainstWhole troubled_only_against_whole(Solver& solver, dg::Limiter limiter, const std::vector<double>& start) {
  TroubledOnlyAgainstWhole out;
  solver.set_limiter(limiter, 2, true);
  std::vector<double> troubled_only = start;
  solver.limit_slopes(troubled_only);
  const std::vector<std::uint8_t> troubled = solver.troubled_cells(start);
  out.flagged = index_t(std::count(troubled.begin(), troubled.end(), std::uint8_t(1)));
  solver.set_limiter(limiter, 2, false);
  std::vector<double> every = start;
  solver.limit_slopes(every);
  const std::size_t k = troubled.size();
  for (std::size_t i = 0; i < start.size(); ++i) out.differ += troubled_only[i] != (troubled[i % k] ? every[i] : start[i]);
  out.changed = every != start;
  return out;
}

}  // namespace kempe::test
