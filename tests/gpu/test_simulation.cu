// The run-time solver choice (solver/numerics/simulation.hpp) on the GPU: for each order, precision and flux the
// kempe run path can pick, the GPU gives the CPU's result of the same source. Skips itself without a GPU.
//
// Two flows per choice. Shu's vortex (smooth, no slope limiter: every pass runs, no decision depends on
// rounding) must agree to rounding. Double Mach reflection with the vertex and positivity limiters makes
// discrete decisions (troubled-cell flags, clipping, bisection) that a difference of one rounding can flip;
// from p = 4 on such flips grow to 1e-8 relative in double within a few dozen steps on the CPU alone. So its
// bound is the CPU's own spread: the same run with its start perturbed by a few roundings, and the GPU may
// differ from the CPU by no more than 10 times that (or the rounding bound, when larger). In float a flip can
// come from the GPU's roundings where none of the perturbed starts shows one; it is then held to float's own
// error, the CPU's float run against its double run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../unit/dg_cases.hpp"
#include "skip.hpp"
#include "solver/numerics/simulation.hpp"

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

struct Flow {
  const Mesh* mesh;
  sim::BoundaryGroups groups;
  bc::StateFunction state;
  double end;  ///< a few CFL steps at p = 0, a few dozen at p = 5
};

/// SSP-RK3 steps of the flow from its projected start to flow.end; with perturb_seed != 0 every coefficient of
/// the start is first multiplied by 1 + r with |r| at most 4 roundings of the solver's precision.
std::vector<double> run(const Flow& flow, sim::SolverOptions options, Backend backend, unsigned perturb_seed,
                        double* time) {
  options.backend = backend;
  auto simulation = sim::make_simulation(*flow.mesh, options, flow.groups);
  const bc::StateFunction state = flow.state;
  simulation->project([state](double x, double y, double* u) { bc::function_state(state, x, y, 0.0, test::gamma_air, u); });
  if (perturb_seed != 0) {
    std::vector<double> c = simulation->solution();
    const double ulp = options.precision == sim::Precision::float64 ? 0x1p-52 : 0x1p-23;
    std::mt19937 rng(perturb_seed);
    std::uniform_real_distribution<double> r(-4 * ulp, 4 * ulp);
    for (double& value : c) value *= 1 + r(rng);
    simulation->restore(c, 0.0);
  }
  EXPECT_GT(simulation->advance(flow.end, dg::Integrator::ssprk3, 0.4, 0, 1000), 2);
  EXPECT_EQ(simulation->profile(2).size(), 5u);  // every pass runs on this backend
  *time = simulation->time();
  return simulation->solution();
}

TEST(GpuSimulation, EveryOrderPrecisionAndFluxMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  Mesh far = grid_mesh(8, 10.0, -0.5, 5);
  far.boundary_names = {"far"};
  for (index_t f = 0; f < far.num_faces(); ++f)
    if (far.face_right[f] == no_element) far.face_boundary[f] = 0;
  far = test::prepared(std::move(far));
  const Flow vortex{&far, {{bc::Kind::function}, std::vector<double>(euler::num_vars, 0.0), {bc::StateFunction::isentropic_vortex}},
                    bc::StateFunction::isentropic_vortex, 0.5};
  const Mesh channel = test::prepared(double_mach_mesh(12));
  const Flow double_mach{&channel,
                         {{bc::Kind::function, bc::Kind::wall, bc::Kind::outflow},
                          std::vector<double>(3 * euler::num_vars, 0.0),
                          std::vector<bc::StateFunction>(3, bc::StateFunction::double_mach)},
                         bc::StateFunction::double_mach, 0.002};
  std::printf("%-2s %-6s %-7s | %-11s | %-11s %-11s %-11s\n", "p", "real", "flux", "vortex", "double Mach", "CPU spread",
              "float error");
  for (int order = 0; order <= sim::max_order; ++order)
    for (const sim::Precision precision : {sim::Precision::float64, sim::Precision::float32})
      for (const auto& flux : euler::fluxes) {
        sim::SolverOptions options;
        options.order = order;
        options.precision = precision;
        options.flux = flux.value;
        const std::string name = "p = " + std::to_string(order) + ", " + sim::precision_name(precision) + ", " +
                                 std::string(flux.name);
        const double rounding_bound = precision == sim::Precision::float64 ? 1e-12 : 1e-5;
        double t_gpu = 0, t_cpu = 0, t_spread = 0;
        options.limiter = dg::Limiter::none;
        const double smooth = normwise_difference(run(vortex, options, Backend::cuda, 0, &t_gpu),
                                                  run(vortex, options, Backend::cpu, 0, &t_cpu));
        EXPECT_EQ(t_gpu, t_cpu) << name;
        EXPECT_LT(smooth, rounding_bound) << "vortex, " << name;

        options.limiter = dg::Limiter::vertex;
        const std::vector<double> cpu = run(double_mach, options, Backend::cpu, 0, &t_cpu);
        const std::vector<double> gpu = run(double_mach, options, Backend::cuda, 0, &t_gpu);
        double spread = 0;
        for (const unsigned seed : {1u, 2u})
          spread = std::max(spread, normwise_difference(run(double_mach, options, Backend::cpu, seed, &t_spread), cpu));
        // In float the limiter's switches flip under the GPU's roundings more often than two perturbed starts
        // show (one run in eight or fewer on some orders and fluxes), and such a flip moves the solution by as
        // much as float's own error: the CPU's float run against its double run bounds the difference too.
        double precision_error = 0;
        if (precision == sim::Precision::float32) {
          sim::SolverOptions in_double = options;
          in_double.precision = sim::Precision::float64;
          precision_error = normwise_difference(cpu, run(double_mach, in_double, Backend::cpu, 0, &t_spread));
        }
        const double limited = normwise_difference(gpu, cpu);
        std::printf("%-2d %-6s %-7s | %.3e   | %.3e   %.3e   %.3e\n", order, sim::precision_name(precision),
                    std::string(flux.name).c_str(), smooth, limited, spread, precision_error);
        EXPECT_EQ(t_gpu, t_cpu) << name;
        EXPECT_LT(limited, std::max({rounding_bound, 10 * spread, precision_error})) << "double Mach, " << name;
      }
}

}  // namespace
}  // namespace kempe
