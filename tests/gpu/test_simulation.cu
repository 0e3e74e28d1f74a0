// The run-time solver choice (solver/simulation.hpp) on the GPU: for each order, precision and flux the
// kempe run path can pick, a double Mach reflection run on the GPU gives the CPU's result of the same source.
// Skips itself without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../unit/dg_cases.hpp"
#include "solver/simulation.hpp"
#include "skip.hpp"

namespace kempe {
namespace {

double normwise_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d2 = 0, r2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d2 += (a[i] - b[i]) * (a[i] - b[i]);
    r2 += b[i] * b[i];
  }
  return std::sqrt(d2 / r2);
}

std::vector<double> run(const Mesh& mesh, sim::SolverOptions options, Backend backend, double* time) {
  options.backend = backend;
  sim::BoundaryGroups groups;
  groups.kinds = {bc::Kind::function, bc::Kind::wall, bc::Kind::outflow};
  groups.states.assign(3 * euler::num_vars, 0.0);
  groups.functions.assign(3, bc::StateFunction::double_mach);
  auto simulation = sim::make_simulation(mesh, options, groups);
  simulation->project([](double x, double y, double* u) {
    bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, test::gamma_air, u);
  });
  const int steps = simulation->advance(0.002, dg::Integrator::ssprk3, 0.4, 0, 1000);
  EXPECT_GT(steps, 5);
  EXPECT_EQ(simulation->profile(2).size(), 5u);  // every pass runs on this backend
  *time = simulation->time();
  return simulation->solution();
}

TEST(GpuSimulation, EveryOrderPrecisionAndFluxMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  Mesh mesh = test::double_mach_mesh(12);
  FaceColoring coloring = color_faces(mesh, {"kempe", 1});
  apply_ordering(mesh, coloring, find_ordering("color_renumber").compute(mesh, coloring));
  for (int order = 0; order <= sim::max_order; ++order)
    for (const sim::Precision precision : {sim::Precision::float64, sim::Precision::float32})
      for (const auto& flux : euler::fluxes) {
        sim::SolverOptions options;
        options.order = order;
        options.precision = precision;
        options.flux = flux.value;
        options.limiter = dg::Limiter::vertex;
        double t_gpu = 0, t_cpu = 0;
        const std::vector<double> gpu = run(mesh, options, Backend::cuda, &t_gpu);
        const std::vector<double> cpu = run(mesh, options, Backend::cpu, &t_cpu);
        const double bound = precision == sim::Precision::float64 ? 1e-12 : 1e-5;
        EXPECT_EQ(t_gpu, t_cpu);
        EXPECT_LT(normwise_difference(gpu, cpu), bound)
            << "p = " << order << ", " << sim::precision_name(precision) << ", " << flux.name;
      }
}

}  // namespace
}  // namespace kempe
