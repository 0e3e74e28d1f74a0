// The isentropic vortex on 1-irregular meshes: the convergence study shared by the test suite
// (test_adapt_solver.cpp, CI sizes) and the benchmark (bench/vortex_convergence.cpp, finer meshes).
#pragma once

#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "dg_cases.hpp"

namespace kempe::test {

/// One mesh of the study: its leaves, hanging faces, and the L2 density error at the end time.
struct AdaptedVortexError {
  index_t elements = 0;
  index_t hanging_faces = 0;
  double error = 0;
};

/// L2 density errors of the vortex at time `end` (HLLC, SSP-RK3, CFL 0.5, exact boundary states) on a bent
/// n x n grid of [0, 10]^2 refined at random to a 1-irregular mesh (two cycles, about a third of the leaves
/// each), then uniformly `levels` - 1 times: each mesh halves the last one's element sizes and keeps its hanging
/// faces, so the observed rate is the order of the scheme on nonconforming meshes. Colored strategy; runs
/// kempe_simulation's solvers, those `kempe run` runs.
inline std::vector<AdaptedVortexError> adapted_vortex_errors(int order, int n, int levels, double end) {
  const Mesh start = solver_mesh(n, 10.0, -0.5);
  adapt::TriangleForest forest(start, Backend::cpu, 2 + levels);
  for (int cycle = 0; cycle < 2; ++cycle) {
    forest.flag_random(0.35, 0.0, 17, cycle);
    if (!forest.adapt().valid()) throw std::logic_error("adapted_vortex_errors: an invalid random adaptation");
  }
  sim::SolverOptions options;
  options.order = order;
  options.flux = euler::Flux::hllc;
  options.gamma = gamma_air;
  options.positivity = 0;  // a smooth flow: no positivity limiter
  std::vector<AdaptedVortexError> rows;
  for (int level = 0; level < levels; ++level) {
    if (level > 0) {
      forest.flag_all(true, false);
      if (!forest.adapt(adapt::Check::colors).valid()) throw std::logic_error("adapted_vortex_errors: an invalid uniform refinement");
    }
    const std::unique_ptr<sim::Simulation> run = sim::make_simulation(forest, options, vortex_boundaries(start));
    run->project([](double x, double y, double* out) { Vortex::state(x, y, 0, out); });
    advance_in_equal_steps(*run, end);
    rows.push_back({run->num_elements(), forest.check().hanging_faces,
                    run->l2_error(euler::density, [&](double x, double y, double* out) { Vortex::state(x, y, end, out); })});
  }
  return rows;
}

/// The observed rate between rows i - 1 and i (each halves the element sizes).
inline double adapted_rate(const std::vector<AdaptedVortexError>& rows, std::size_t i) {
  return std::log2(rows[i - 1].error / rows[i].error);
}

/// Prints the study's table (deal.II step-67 style).
inline void print_adapted_table(int p, int n, double end, const std::vector<AdaptedVortexError>& rows) {
  std::printf("isentropic vortex on 1-irregular meshes (from %d x %d), p = %d, HLLC, SSP-RK3, t = %g\n"
              "  elements  hanging faces   L2 error (density)   rate\n",
              n, n, p, end);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::printf("  %8d  %13d   %.4e", int(rows[i].elements), int(rows[i].hanging_faces), rows[i].error);
    if (i > 0) std::printf("           %.2f", adapted_rate(rows, i));
    std::printf("\n");
  }
}

}  // namespace kempe::test
