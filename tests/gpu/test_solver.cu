// The whole solver on the GPU against the CPU, from the same source: runs of each case with every
// order, race strategy and limiter give the CPU's result to 1e-12 relative in double (1e-5 in float), norm-wise
// (||gpu - cpu||_2 / ||cpu||_2); the
// colored strategy is bitwise reproducible on the GPU and the same with and without the recorded step graph;
// a non-physical state stops the GPU run naming the element; the buffered strategy's extra memory is
// measured from the allocations. Each test skips itself (and says so) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../unit/dg_cases.hpp"
#include "skip.hpp"

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
template <class Real>
Difference difference(const std::vector<Real>& gpu, const std::vector<Real>& cpu) {
  EXPECT_EQ(gpu.size(), cpu.size());
  Difference d;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const double e = double(gpu[i]) - double(cpu[i]);
    diff2 += e * e;
    ref2 += double(cpu[i]) * double(cpu[i]);
    const double r = std::abs(e) / (1 + std::abs(double(cpu[i])));
    d.largest = r != r ? 1e300 : std::max(d.largest, r);
  }
  d.normwise = diff2 == diff2 ? std::sqrt(diff2 / ref2) : 1e300;
  return d;
}

/// Runs one solver set-up on both backends to `end` (SSP-RK3, CFL 0.5) and compares: same step count, same
/// time, coefficients within `tolerance`. With `spread_seeds` > 0 the scheme's switches amplify roundings (the
/// bounds of SubcellBoundedBlend: Zalesak's shares chosen by the sign of a density flux, the prelimiting, the
/// bounded elements' flags): the CPU also runs with the start and every step's result perturbed by a few
/// roundings (seeds 1 to spread_seeds), as the GPU's own roundings differ at every step, and the GPU must lie
/// within 10 times the farthest of those runs from the CPU's unperturbed one. (Perturbing the start alone gave
/// a spread that hangs on whether a seed flips a switch: at p = 1 from 3.6e-6 to 1.7e-4 with the same seeds
/// under two compilers' roundings.)
template <int P, class Real, class Boundary, class Setup, class State>
void expect_gpu_matches_cpu(const Mesh& mesh, const Boundary& boundary, dg::Strategy strategy, Setup&& setup,
                            State&& initial, double end, double tolerance, const std::string& what, int spread_seeds = 0) {
  using Solver = dg::EulerDG<P, Real, euler::Flux::hll, Boundary>;
  Solver cpu(mesh, Real(gamma_air), boundary, strategy, Backend::cpu);
  Solver gpu(mesh, Real(gamma_air), boundary, strategy, Backend::cuda);
  setup(cpu);
  setup(gpu);
  cpu.project(initial);
  gpu.project(initial);
  EXPECT_LT(difference(gpu.solution(), cpu.solution()).normwise, tolerance) << what << ", projection";
  const int cpu_steps = cpu.advance_to(Real(end), dg::Integrator::ssprk3, 0.5);
  const int gpu_steps = gpu.advance_to(Real(end), dg::Integrator::ssprk3, 0.5);
  EXPECT_EQ(gpu_steps, cpu_steps) << what;
  // The step sizes come from the same reduction, up to the GPU's fused multiply-adds in StableStep.
  EXPECT_NEAR(double(gpu.time()), double(cpu.time()), 1e-12 * end) << what;
  Difference spread;
  for (int seed = 1; seed <= spread_seeds; ++seed) {
    Solver perturbed(mesh, Real(gamma_air), boundary, strategy, Backend::cpu);
    setup(perturbed);
    perturbed.project(initial);
    std::mt19937 rng(static_cast<unsigned>(seed));
    std::uniform_real_distribution<double> r(-4 * double(std::numeric_limits<Real>::epsilon()), 4 * double(std::numeric_limits<Real>::epsilon()));
    auto perturb = [&] {
      std::vector<Real> c = perturbed.solution();
      for (Real& value : c) value *= Real(1 + r(rng));
      perturbed.set_solution(c);
    };
    perturb();
    while (perturbed.time() < Real(end)) {
      perturbed.advance_to(Real(end), dg::Integrator::ssprk3, 0.5, Real(0), 1);
      perturb();
    }
    const Difference d = difference(perturbed.solution(), cpu.solution());
    spread.normwise = std::max(spread.normwise, d.normwise), spread.largest = std::max(spread.largest, d.largest);
  }
  const Difference d = difference(gpu.solution(), cpu.solution());
  std::printf("%-40s %3d steps, relative difference %.2e (largest of one coefficient %.2e)", what.c_str(), gpu_steps,
              d.normwise, d.largest);
  if (spread_seeds > 0) std::printf("; the CPU's spread %.2e (%.2e)", spread.normwise, spread.largest);
  std::printf("\n");
  EXPECT_LT(d.normwise, std::max(tolerance, 10 * spread.normwise)) << what;
  EXPECT_LT(d.largest, std::max(1e3 * tolerance, 10 * spread.largest)) << what;
}

void vortex_state(double x, double y, double* u) { test::Vortex::state(x, y, 0, u); }

template <int P, class Real = double>
void vortex_case(dg::Strategy strategy, double tolerance) {
  const Mesh mesh = test::periodic_mesh(12, 10.0, 0.2);
  expect_gpu_matches_cpu<P, Real>(mesh, test::Vortex{}, strategy, [](auto&) {}, vortex_state, 0.2, tolerance,
                                  "vortex p = " + std::to_string(P) + " " + std::string(dg::strategies[int(strategy)].name) +
                                      (sizeof(Real) == 4 ? " float" : " double"));
}

TEST(GpuSolver, VortexMatchesCpuAtEveryOrder) {
  SKIP_WITHOUT_GPU();
  vortex_case<0>(dg::Strategy::colored, 1e-12);
  vortex_case<1>(dg::Strategy::colored, 1e-12);
  vortex_case<2>(dg::Strategy::colored, 1e-12);
  vortex_case<3>(dg::Strategy::colored, 1e-12);
  vortex_case<4>(dg::Strategy::colored, 1e-12);
  vortex_case<5>(dg::Strategy::colored, 1e-12);
}

TEST(GpuSolver, EveryRaceStrategyMatchesCpu) {
  SKIP_WITHOUT_GPU();
  for (const auto& s : dg::strategies) vortex_case<2>(s.value, 1e-12);
}

TEST(GpuSolver, SinglePrecisionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  vortex_case<1, float>(dg::Strategy::colored, 1e-5);
  vortex_case<3, float>(dg::Strategy::atomic, 1e-5);
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
/// sod_box with its boundary conditions (walls above and below, outflow at the ends); the boundary functor points
/// into this struct, so it is built in place and not copied.
struct SodBox {
  Mesh mesh = sod_box();
  bc::Kind kinds[4] = {bc::Kind::wall, bc::Kind::wall, bc::Kind::outflow, bc::Kind::outflow};
  std::vector<double> states = std::vector<double>(4 * euler::num_vars, 1.0);
  bc::GroupBoundary<double> boundary{kinds, states.data(), gamma_air};
  SodBox() = default;
  SodBox(const SodBox&) = delete;
};
void sod_state(double x, double, double* u) { euler::conserved(x < 0.5 ? 1.0 : 0.125, 0.0, 0.0, x < 0.5 ? 1.0 : 0.1, gamma_air, u); }

TEST(GpuSolver, ShockTubesWithLimitersMatchCpu) {
  SKIP_WITHOUT_GPU();
  const SodBox box;
  const Mesh& mesh = box.mesh;
  const bc::GroupBoundary<double>& boundary = box.boundary;
  for (const dg::Limiter limiter : {dg::Limiter::vertex, dg::Limiter::moment}) {
    const std::string name(dg::limiters[int(limiter)].name);
    auto setup = [limiter](auto& solver) {
      solver.set_limiter(limiter);
      solver.set_positivity_limiter(1e-12);
    };
    expect_gpu_matches_cpu<1, double>(mesh, boundary, dg::Strategy::colored, setup, sod_state, 0.05, 1e-12, "Sod p = 1 " + name);
    expect_gpu_matches_cpu<2, double>(mesh, boundary, dg::Strategy::colored, setup, sod_state, 0.05, 1e-12, "Sod p = 2 " + name);
  }
}

TEST(GpuSolver, SubcellBlendingMatchesCpu) {
  SKIP_WITHOUT_GPU();
  // The shares come from the indicator in double on both sides; the blend runs where they are below 1, with
  // first- and second-order subcells.
  const SodBox box;
  const Mesh& mesh = box.mesh;
  const bc::GroupBoundary<double>& boundary = box.boundary;
  auto setup = [](auto& solver) {
    solver.set_subcell_blending(0.25);
    solver.set_positivity_limiter(1e-12);
  };
  auto setup_second_order = [](auto& solver) {
    solver.set_subcell_blending(0.4, 2);
    solver.set_positivity_limiter(1e-12);
  };
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    expect_gpu_matches_cpu<2, double>(mesh, boundary, strategy, setup, sod_state, 0.05, 1e-12, "Sod p = 2 subcell " + name);
    expect_gpu_matches_cpu<3, double>(mesh, boundary, strategy, setup, sod_state, 0.05, 1e-12, "Sod p = 3 subcell " + name);
    expect_gpu_matches_cpu<2, double>(mesh, boundary, strategy, setup_second_order, sod_state, 0.05, 1e-12,
                                      "Sod p = 2 second-order subcells " + name);
  }
}

TEST(GpuSolver, BoundedSubcellBlendingMatchesCpu) {
  SKIP_WITHOUT_GPU();
  // Bounds on the subcell averages (SubcellBoundedBlend): its two passes, Zalesak's limiter and the indicator on
  // density times pressure (p = 1) or pressure alone (p >= 2), on both sides in double. Its switches take a few
  // roundings to differences of 2e-5 to 3e-4 in 47-112 steps (the CPU against itself with every step perturbed),
  // so the GPU is held to the CPU's own spread over four perturbed runs.
  const SodBox box;
  const Mesh& mesh = box.mesh;
  const bc::GroupBoundary<double>& boundary = box.boundary;
  auto setup = [](auto& solver) {
    solver.set_subcell_blending(0.1);
    solver.set_subcell_bounds(true);
    solver.set_positivity_limiter(1e-12);
  };
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    expect_gpu_matches_cpu<1, double>(mesh, boundary, strategy, setup, sod_state, 0.05, 1e-12, "Sod p = 1 bounded subcells " + name, 4);
    expect_gpu_matches_cpu<2, double>(mesh, boundary, strategy, setup, sod_state, 0.05, 1e-12, "Sod p = 2 bounded subcells " + name, 4);
    expect_gpu_matches_cpu<3, double>(mesh, boundary, strategy, setup, sod_state, 0.05, 1e-12, "Sod p = 3 bounded subcells " + name, 4);
  }
  // With the repair of the stages' overshoots (SubcellRepair, a pass of its own after the blend's two).
  auto setup_repair = [&setup](auto& solver) {
    setup(solver);
    solver.set_subcell_repair(true);
  };
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    expect_gpu_matches_cpu<2, double>(mesh, boundary, strategy, setup_repair, sod_state, 0.05, 1e-12,
                                      "Sod p = 2 bounded subcells with the repair " + name, 4);
    expect_gpu_matches_cpu<3, double>(mesh, boundary, strategy, setup_repair, sod_state, 0.05, 1e-12,
                                      "Sod p = 3 bounded subcells with the repair " + name, 4);
  }
  // And with low-order edges where a stage's low-order update overshoots (SubcellBoundedBlend::repair_edges, in the
  // blend's first pass).
  auto setup_edges = [&setup](auto& solver) {
    setup(solver);
    solver.set_subcell_repair(true, dg::RepairReach::element, true);
  };
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {
    const std::string name(dg::strategies[int(strategy)].name);
    expect_gpu_matches_cpu<2, double>(mesh, boundary, strategy, setup_edges, sod_state, 0.05, 1e-12,
                                      "Sod p = 2 bounded subcells with the repair and low-order edges " + name, 4);
  }
}

TEST(GpuSolver, DoubleMachReflectionMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = test::prepared(double_mach_mesh(12));
  const test::DoubleMachBoundary groups;
  auto setup = [](auto& solver) {
    solver.set_limiter(dg::Limiter::vertex);
    solver.set_positivity_limiter(1e-10);
  };
  auto initial = [](double x, double y, double* u) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, gamma_air, u); };
  expect_gpu_matches_cpu<1, double>(mesh, groups.table(groups.unused), dg::Strategy::colored, setup, initial, 0.02, 1e-12,
                                    "double Mach p = 1 vertex");
}

TEST(GpuSolver, ColoredIsBitwiseReproducibleWithAndWithoutTheGraph) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = test::prepared(double_mach_mesh(12));
  const test::DoubleMachBoundary groups;
  auto run = [&](bool graphs) {
    dg::EulerDG<2, double, euler::Flux::hllc, bc::GroupBoundary<double>> solver(mesh, gamma_air, groups.table(groups.unused),
                                                                               dg::Strategy::colored, Backend::cuda);
    solver.set_graphs(graphs);
    solver.set_limiter(dg::Limiter::moment);
    solver.set_positivity_limiter(1e-10);
    solver.project([](double x, double y, double* u) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, gamma_air, u); });
    solver.advance_to(0.01, dg::Integrator::ssprk3, 0.5);
    return solver.solution();
  };
  const std::vector<double> first = run(true), second = run(true), launched = run(false);
  EXPECT_TRUE(first == second) << "two colored GPU runs differ";
  EXPECT_TRUE(first == launched) << "the recorded graph and plain launches differ";
}

TEST(GpuSolver, NonPhysicalStateStopsTheRunNamingTheElement) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = test::periodic_mesh(8, 10.0, 0.2);
  dg::EulerDG<1, double, euler::Flux::hll, test::Vortex> solver(mesh, gamma_air, test::Vortex{}, dg::Strategy::colored, Backend::cuda);
  solver.project(vortex_state);
  std::vector<double> c = solver.solution();
  const index_t k = solver.num_elements(), bad = 17;
  c[std::size_t(euler::energy) * solver.num_modes * k + bad] *= -1;  // negative pressure
  solver.set_solution(c);
  try {
    solver.advance_to(0.1, dg::Integrator::ssprk3, 0.5);
    FAIL() << "no error for a negative pressure";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("element " + std::to_string(mesh.element_tag[bad])), std::string::npos) << message;
    EXPECT_NE(message.find("non-positive density or pressure"), std::string::npos) << message;
  }
  EXPECT_EQ(solver.solution(), c) << "the stopped step changed the state";
}

TEST(GpuSolver, BufferedStrategyMemoryIsMeasured) {
  SKIP_WITHOUT_GPU();
  // Large enough that the driver's 2 MiB granularity is a few per cent of the solver's memory.
  const Mesh mesh = test::periodic_mesh(128, 10.0, 0.2);
  using Solver = dg::EulerDG<3, double, euler::Flux::hll, test::Vortex>;
  auto measured = [&](dg::Strategy strategy) {
    const std::size_t before = device_memory().free_bytes;
    Solver solver(mesh, gamma_air, test::Vortex{}, strategy, Backend::cuda);
    const std::size_t after = device_memory().free_bytes;
    return std::pair<std::size_t, typename Solver::MemoryUse>(before - after, solver.memory_use());
  };
  const auto [colored_free, colored] = measured(dg::Strategy::colored);
  const auto [buffered_free, buffered] = measured(dg::Strategy::buffered);
  EXPECT_EQ(colored.strategy, 0u);
  EXPECT_EQ(buffered.strategy, std::size_t(2) * euler::num_vars * Solver::num_modes * mesh.num_faces() * sizeof(double));
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
