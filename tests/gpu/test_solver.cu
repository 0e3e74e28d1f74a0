// The whole solver on the GPU against the CPU, from the same source: runs of each case with every
// order, race strategy and limiter give the CPU's result to 1e-12 relative in double (1e-5 in float), norm-wise
// (||gpu - cpu||_2 / ||cpu||_2); the
// colored strategy is bitwise reproducible on the GPU and the same with and without the recorded step graph;
// a non-physical state stops the GPU run naming the element; the buffered strategy's extra memory is
// measured from the allocations. Each test skips itself (and says so) without a GPU.
//
// The solvers are those `kempe run` runs (sim::make_simulation: kempe_simulation's instantiations, compiled for
// both backends), so that this file compiles no solver of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../unit/adapt_fixtures.hpp"
#include "../unit/dg_cases.hpp"
#include "skip.hpp"
#include "solver/numerics/simulation.hpp"

namespace kempe {
namespace {

using test::gamma_air;

/// How far the GPU's coefficients are from the CPU's: norm-wise, ||gpu - cpu||_2 / ||cpu||_2 (the measure the
/// tolerances apply to), and the largest |gpu - cpu| / (1 + |cpu|) of one coefficient (printed, and bounded
/// loosely: a limiter's switch can amplify the rounding differences of one element; the GPU fuses multiply-adds,
/// the CPU build does not).
struct Difference {
  double normwise = 0, largest = 0;
};
Difference difference(const std::vector<double>& gpu, const std::vector<double>& cpu) {
  EXPECT_EQ(gpu.size(), cpu.size());
  Difference d;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const double e = gpu[i] - cpu[i];
    diff2 += e * e;
    ref2 += cpu[i] * cpu[i];
    const double r = std::abs(e) / (1 + std::abs(cpu[i]));
    d.largest = r != r ? 1e300 : std::max(d.largest, r);
  }
  d.normwise = diff2 == diff2 ? std::sqrt(diff2 / ref2) : 1e300;
  return d;
}

/// The backend compared with the CPU.
constexpr Backend compared = Backend::cuda;

/// Options of a run: order P, HLL's flux, `strategy`, no limiter and no positivity limiter (the setups add them).
sim::SolverOptions options_of(int order, dg::Strategy strategy, sim::Precision precision = sim::Precision::float64) {
  sim::SolverOptions options;
  options.order = order;
  options.precision = precision;
  options.flux = euler::Flux::hll;
  options.strategy = strategy;
  options.positivity = 0;
  return options;
}

/// How far the same CPU source lands from itself under another compiler's roundings in a scheme with switches: the
/// bounded blend's Sod runs of BoundedSubcellBlendingMatchesCpu compiled for x86-64 with fused multiply-adds
/// (-march=native, AVX-512) against without (the GPU machine's build of the CPU side) differ by 6.8e-5 at p = 1
/// (largest of one coefficient 1.2e-3), where sixteen runs perturbed by 4 ulps stay within 3.6e-6 of the
/// unperturbed one, and the GPU, which fuses its multiply-adds, lands 6.8e-5 away too; on meshes of the same box
/// distorted by 0.1 and 0.2, 1.1e-5 to 3.2e-4 (largest 5.3e-3) at p = 1 to 3. The floor is 10 times the p = 1
/// figures, a few times the largest; a wrong kernel moves the solution by far more (and its totals).
constexpr Difference switch_floor{7e-4, 1.2e-2};

/// Runs one solver set-up on both backends to `end` (SSP-RK3, CFL 0.5) and compares: same step count, same
/// time, coefficients within `tolerance`. With `spread_seeds` > 0 the scheme's switches amplify roundings (the
/// bounds of SubcellBoundedBlend: Zalesak's shares chosen by the sign of a density flux, the prelimiting, the
/// bounded elements' flags): the CPU also runs with the start and every step's result perturbed by a few
/// roundings (seeds 1 to spread_seeds), as the GPU's own roundings differ at every step, and the GPU must lie
/// within 10 times the farthest of those runs from the CPU's unperturbed one, or within switch_floor, and hold
/// the CPU's total mass and energy to 1e-12 (a flipped switch moves them between elements, it cannot change
/// them). (Perturbing the start alone gave a spread that hangs on whether a seed flips a switch: at p = 1 from
/// 3.6e-6 to 1.7e-4 with the same seeds under two compilers' roundings.)
void expect_gpu_matches_cpu(const Mesh& mesh, const sim::BoundaryGroups& groups, sim::SolverOptions options,
                            const std::function<void(double, double, double*)>& initial, double end, double tolerance,
                            const std::string& what, int spread_seeds = 0) {
  auto make = [&](Backend backend) {
    options.backend = backend;
    return sim::make_simulation(mesh, options, groups);
  };
  const auto cpu = make(Backend::cpu), gpu = make(compared);
  cpu->project(initial);
  gpu->project(initial);
  EXPECT_LT(difference(gpu->solution(), cpu->solution()).normwise, tolerance) << what << ", projection";
  constexpr int unlimited = std::numeric_limits<int>::max();
  const int cpu_steps = cpu->advance(end, dg::Integrator::ssprk3, 0.5, 0, unlimited);
  const int gpu_steps = gpu->advance(end, dg::Integrator::ssprk3, 0.5, 0, unlimited);
  EXPECT_EQ(gpu_steps, cpu_steps) << what;
  // The step sizes come from the same reduction, up to the GPU's fused multiply-adds in StableStep.
  EXPECT_NEAR(gpu->time(), cpu->time(), 1e-12 * end) << what;
  const double ulp = options.precision == sim::Precision::float64 ? double(std::numeric_limits<double>::epsilon())
                                                                   : double(std::numeric_limits<float>::epsilon());
  Difference spread;
  for (int seed = 1; seed <= spread_seeds; ++seed) {
    const auto perturbed = make(Backend::cpu);
    perturbed->project(initial);
    std::mt19937 rng(static_cast<unsigned>(seed));
    std::uniform_real_distribution<double> r(-4 * ulp, 4 * ulp);
    auto perturb = [&] {
      std::vector<double> c = perturbed->solution();
      for (double& value : c) value *= 1 + r(rng);
      perturbed->restore(c, perturbed->time());
    };
    perturb();
    while (perturbed->time() < perturbed->solver_time(end)) {
      perturbed->advance(end, dg::Integrator::ssprk3, 0.5, 0, 1);
      perturb();
    }
    const Difference d = difference(perturbed->solution(), cpu->solution());
    spread.normwise = std::max(spread.normwise, d.normwise), spread.largest = std::max(spread.largest, d.largest);
  }
  const Difference d = difference(gpu->solution(), cpu->solution());
  std::printf("%-40s %3d steps, relative difference %.2e (largest of one coefficient %.2e)", what.c_str(), gpu_steps,
              d.normwise, d.largest);
  if (spread_seeds > 0) std::printf("; the CPU's spread %.2e (%.2e)", spread.normwise, spread.largest);
  std::printf("\n");
  if (spread_seeds == 0) {
    EXPECT_LT(d.normwise, tolerance) << what;
    EXPECT_LT(d.largest, 1e3 * tolerance) << what;
    return;
  }
  EXPECT_LT(d.normwise, std::max({tolerance, 10 * spread.normwise, switch_floor.normwise})) << what;
  EXPECT_LT(d.largest, std::max({1e3 * tolerance, 10 * spread.largest, switch_floor.largest})) << what;
  const auto cpu_totals = test::totals(mesh.volume, cpu->solution(), cpu->num_modes(), mesh.num_elements()),
             gpu_totals = test::totals(mesh.volume, gpu->solution(), gpu->num_modes(), mesh.num_elements());
  for (const int v : {euler::density, euler::energy})
    EXPECT_NEAR(gpu_totals[v], cpu_totals[v], 1e-12 * std::abs(cpu_totals[v])) << what << ", variable " << v;
}

void vortex_state(double x, double y, double* u) { test::Vortex::state(x, y, 0, u); }

void vortex_case(int order, dg::Strategy strategy, double tolerance, sim::Precision precision = sim::Precision::float64) {
  const Mesh mesh = test::periodic_mesh(12, 10.0, 0.2);
  expect_gpu_matches_cpu(mesh, {}, options_of(order, strategy, precision), vortex_state, 0.2, tolerance,
                         "vortex p = " + std::to_string(order) + " " + std::string(dg::strategies[int(strategy)].name) + " " +
                             sim::precision_name(precision));
}

TEST(GpuSolver, VortexMatchesCpuAtEveryOrder) {
  SKIP_WITHOUT_GPU();
  for (int order = 0; order <= sim::max_order; ++order) vortex_case(order, dg::Strategy::colored, 1e-12);
}

TEST(GpuSolver, EveryRaceStrategyMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (const auto& s : dg::strategies) vortex_case(2, s.value, 1e-12);
}

TEST(GpuSolver, SinglePrecisionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  vortex_case(1, dg::Strategy::colored, 1e-5, sim::Precision::float32);
  vortex_case(3, dg::Strategy::atomic, 1e-5, sim::Precision::float32);
}

/// The unit square in 24 x 24 squares, groups bottom, top, left, right (walls above and below, outflow at the ends
/// for Sod's problem, sod_state).
Mesh sod_box() {
  Mesh mesh = grid_mesh(24, 1.0, 0.0, 1);
  mesh.boundary_names = {"bottom", "top", "left", "right"};
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element)
      mesh.face_boundary[f] = mesh.normal_y[f] < -0.5 ? 0 : mesh.normal_y[f] > 0.5 ? 1 : mesh.normal_x[f] < 0 ? 2 : 3;
  return test::prepared(std::move(mesh));
}
/// sod_box's boundary conditions: walls above and below, outflow at the ends.
const sim::BoundaryGroups sod_walls{{bc::Kind::wall, bc::Kind::wall, bc::Kind::outflow, bc::Kind::outflow},
                                    std::vector<double>(4 * euler::num_vars, 1.0),
                                    {}};
void sod_state(double x, double, double* u) { euler::conserved(x < 0.5 ? 1.0 : 0.125, 0.0, 0.0, x < 0.5 ? 1.0 : 0.1, gamma_air, u); }

TEST(GpuSolver, ShockTubesWithLimitersMatchCpu) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = sod_box();
  for (const dg::Limiter limiter : {dg::Limiter::vertex, dg::Limiter::moment}) {
    const std::string name(dg::limiters[int(limiter)].name);
    for (const int order : {1, 2}) {
      sim::SolverOptions options = options_of(order, dg::Strategy::colored);
      options.limiter = limiter;
      options.positivity = 1e-12;
      expect_gpu_matches_cpu(mesh, sod_walls, options, sod_state, 0.05, 1e-12, "Sod p = " + std::to_string(order) + " " + name);
    }
  }
}

/// Subcell shock capturing at the largest share `blending_max` with finite volumes of `subcell_order`, and the
/// positivity limiter.
sim::SolverOptions subcell_options(int order, dg::Strategy strategy, double blending_max, int subcell_order = 1) {
  sim::SolverOptions options = options_of(order, strategy);
  options.shock_capturing = dg::ShockCapturing::subcell;
  options.blending_max = blending_max;
  options.subcell_order = subcell_order;
  options.positivity = 1e-12;
  return options;
}

TEST(GpuSolver, SubcellBlendingMatchesCpu) {
  SKIP_WITHOUT_GPU();
  // The shares come from the indicator in double on both sides; the blend runs where they are below 1, with
  // first- and second-order subcells.
  const Mesh mesh = sod_box();
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    expect_gpu_matches_cpu(mesh, sod_walls, subcell_options(2, strategy, 0.25), sod_state, 0.05, 1e-12, "Sod p = 2 subcell " + name);
    expect_gpu_matches_cpu(mesh, sod_walls, subcell_options(3, strategy, 0.25), sod_state, 0.05, 1e-12, "Sod p = 3 subcell " + name);
    expect_gpu_matches_cpu(mesh, sod_walls, subcell_options(2, strategy, 0.4, 2), sod_state, 0.05, 1e-12,
                           "Sod p = 2 second-order subcells " + name);
  }
}

TEST(GpuSolver, BoundedSubcellBlendingMatchesCpu) {
  SKIP_WITHOUT_GPU();
  // Bounds on the subcell averages (SubcellBoundedBlend): its two passes, Zalesak's limiter and the indicator on
  // density times pressure (p = 1) or pressure alone (p >= 2), on both sides in double. Its switches take a few
  // roundings to differences of 2e-5 to 3e-4 in 47-112 steps (the CPU against itself with every step perturbed),
  // so the GPU is held to the CPU's own spread over four perturbed runs, or to the spread of two compilers'
  // roundings (switch_floor), and to the CPU's totals.
  const Mesh mesh = sod_box();
  auto bounded = [](int order, dg::Strategy strategy) {
    sim::SolverOptions options = subcell_options(order, strategy, 0.1);
    options.subcell_bounds = true;
    return options;
  };
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    for (const int order : {1, 2, 3})
      expect_gpu_matches_cpu(mesh, sod_walls, bounded(order, strategy), sod_state, 0.05, 1e-12,
                             "Sod p = " + std::to_string(order) + " bounded subcells " + name, 4);
  }
  // With the repair of the stages' overshoots (SubcellRepair, a pass of its own after the blend's two).
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    for (const int order : {2, 3}) {
      sim::SolverOptions options = bounded(order, strategy);
      options.subcell_repair = true;
      expect_gpu_matches_cpu(mesh, sod_walls, options, sod_state, 0.05, 1e-12,
                             "Sod p = " + std::to_string(order) + " bounded subcells with the repair " + name, 4);
    }
  }
  // And with low-order edges where a stage's low-order update overshoots (SubcellBoundedBlend::repair_edges, in the
  // blend's first pass).
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    sim::SolverOptions options = bounded(2, strategy);
    options.subcell_repair = true;
    options.subcell_repair_edges = true;
    expect_gpu_matches_cpu(mesh, sod_walls, options, sod_state, 0.05, 1e-12,
                           "Sod p = 2 bounded subcells with the repair and low-order edges " + name, 4);
  }
}

/// double_mach_mesh's boundary groups (test::DoubleMachBoundary): the moving shock's states, a slip wall, outflow.
sim::BoundaryGroups double_mach_groups() {
  const test::DoubleMachBoundary table;
  return {{std::begin(table.kind), std::end(table.kind)}, table.unused, {std::begin(table.function), std::end(table.function)}};
}
void double_mach_state(double x, double y, double* u) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, gamma_air, u); }

TEST(GpuSolver, DoubleMachReflectionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = test::prepared(double_mach_mesh(12));
  sim::SolverOptions options = options_of(1, dg::Strategy::colored);
  options.limiter = dg::Limiter::vertex;
  options.positivity = 1e-10;
  expect_gpu_matches_cpu(mesh, double_mach_groups(), options, double_mach_state, 0.02, 1e-12, "double Mach p = 1 vertex");
}

TEST(GpuSolver, ColoredIsBitwiseReproducibleWithAndWithoutTheGraph) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = test::prepared(double_mach_mesh(12));
  auto run = [&](bool graphs) {
    sim::SolverOptions options = options_of(2, dg::Strategy::colored);
    options.flux = euler::Flux::hllc;
    options.backend = compared;
    options.limiter = dg::Limiter::moment;
    options.positivity = 1e-10;
    options.cuda_graphs = graphs;
    const auto solver = sim::make_simulation(mesh, options, double_mach_groups());
    solver->project(double_mach_state);
    solver->advance(0.01, dg::Integrator::ssprk3, 0.5, 0, std::numeric_limits<int>::max());
    return solver->solution();
  };
  const std::vector<double> first = run(true), second = run(true), launched = run(false);
  EXPECT_TRUE(first == second) << "two colored GPU runs differ";
  EXPECT_TRUE(first == launched) << "the recorded graph and plain launches differ";
}

TEST(GpuSolver, NonPhysicalStateStopsTheRunNamingTheElement) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = test::periodic_mesh(8, 10.0, 0.2);
  sim::SolverOptions options = options_of(1, dg::Strategy::colored);
  options.backend = compared;
  const auto solver = sim::make_simulation(mesh, options, {});
  solver->project(vortex_state);
  std::vector<double> c = solver->solution();
  const index_t k = solver->num_elements(), bad = 17;
  c[std::size_t(euler::energy) * solver->num_modes() * k + bad] *= -1;  // negative pressure
  solver->restore(c, 0.0);
  try {
    solver->advance(0.1, dg::Integrator::ssprk3, 0.5, 0, std::numeric_limits<int>::max());
    FAIL() << "no error for a negative pressure";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("element " + std::to_string(mesh.element_tag[bad])), std::string::npos) << message;
    EXPECT_NE(message.find("non-positive density or pressure"), std::string::npos) << message;
  }
  EXPECT_EQ(solver->solution(), c) << "the stopped step changed the state";
}

TEST(GpuSolver, BufferedStrategyMemoryIsMeasured) {
  SKIP_WITHOUT_GPU();
  // Large enough that the driver's 2 MiB granularity is a few per cent of the solver's memory.
  const Mesh mesh = test::periodic_mesh(128, 10.0, 0.2);
  auto measured = [&](dg::Strategy strategy) {
    sim::SolverOptions options = options_of(3, strategy);
    options.backend = compared;
    const std::size_t before = device_memory().free_bytes;
    const auto solver = sim::make_simulation(mesh, options, {});
    const std::size_t after = device_memory().free_bytes;
    return std::pair<std::size_t, sim::MemoryUse>(before - after, solver->memory_use());
  };
  const auto [colored_free, colored] = measured(dg::Strategy::colored);
  const auto [buffered_free, buffered] = measured(dg::Strategy::buffered);
  EXPECT_EQ(colored.strategy, 0u);
  EXPECT_EQ(buffered.strategy, std::size_t(2) * euler::num_vars * basis::num_modes(3) * mesh.num_faces() * sizeof(double));
  // cudaMalloc rounds each allocation up (2 MiB pages for large ones), so the driver's count is at least ours,
  // less one page: small allocations share pages, and earlier tests may leave part of such a page to reuse.
  constexpr std::size_t page = std::size_t(2) << 20;
  EXPECT_GE(colored_free + page, colored.total());
  EXPECT_GE(buffered_free + page, buffered.total());
  std::printf("colored %zu bytes (driver %zu), buffered %zu bytes (driver %zu)\n", colored.total(), colored_free,
              buffered.total(), buffered_free);
}

TEST(GpuSolver, BackendNames) {
  EXPECT_EQ(backend_from_name("cpu"), Backend::cpu);
  EXPECT_EQ(backend_from_name("auto"), cuda_device_count() > 0 ? Backend::cuda : Backend::cpu);
  if (cuda_device_count() == 0) {
    EXPECT_THROW(backend_from_name("cuda"), std::invalid_argument);
  } else {
    EXPECT_EQ(backend_from_name("cuda"), Backend::cuda);
  }
  EXPECT_THROW(backend_from_name("gpu"), std::invalid_argument);
}

}  // namespace
}  // namespace kempe
