// The backend layer on the CPU: Buffer (the solver's arrays on either backend), RawArray's host memory (huge-page
// blocks kept for reuse, kernels/host_memory.cpp), the errors of a build or
// translation unit without CUDA, the solver's memory report by use and its fixed-work stepping. The GPU side
// of the same classes is tested in tests/gpu/test_solver.cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithm_totals.hpp"
#include "dg_cases.hpp"
#include "kernels/buffer.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/triangle.hpp"
#include "random_elements.hpp"
#include "solver/numerics/time_integrators.hpp"

namespace kempe {
namespace {

using test::gamma_air;

TEST(Buffer, HoldsHostDataOnTheCpuBackend) {
  Buffer<double> b(Backend::cpu, std::vector<double>{1, 2, 3}, "test values");
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.bytes(), 3 * sizeof(double));
  EXPECT_EQ(b.data(), b.host().data());
  EXPECT_EQ(b.to_host(), (std::vector<double>{1, 2, 3}));
  b.upload({4, 5, 6});
  EXPECT_EQ(b.host(), (std::vector<double>{4, 5, 6}));
  Buffer<double> copy(Backend::cpu, 3, "a copy");
  EXPECT_EQ(copy.host(), (std::vector<double>{0, 0, 0}));  // zeroed on the CPU
  copy.copy_from(b);
  EXPECT_EQ(copy.host(), b.host());
  Buffer<double> moved = std::move(copy);
  EXPECT_EQ(moved.host(), (std::vector<double>{4, 5, 6}));
}

TEST(Buffer, AWrongSizeNamesTheBuffer) {
  Buffer<float> b(Backend::cpu, 4, "the solution");
  try {
    b.upload(std::vector<float>(5, 1.0f));
    FAIL() << "no error for 5 values into 4";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "the solution: 5 values for a buffer of 4");
  }
}

TEST(RawArray, LargeHostArraysAreHugePageAlignedAndReused) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool mapped = false;  // under AddressSanitizer every array comes from operator new, which it guards
#else
  constexpr bool mapped = true;
#endif
  constexpr std::size_t huge_page = std::size_t(2) << 20, count = (std::size_t(64) << 20) / sizeof(double);
  const double* first = nullptr;
  {
    RawArray<double> a(Backend::cpu, count, "a large array");
    ASSERT_NE(a.data(), nullptr);
    const std::size_t alignment = mapped ? huge_page : 64;  // mapped blocks can be 2 MiB pages
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % alignment, 0u);
    a.data()[0] = 1.0, a.data()[count - 1] = 2.0;  // the whole block is writable
    EXPECT_EQ(a.to_host(count)[count - 1], 2.0);
    first = a.data();
  }
  // A released block serves the next request it fits (no fresh pages), a smaller array of another type too.
  RawArray<std::int32_t> b(Backend::cpu, (std::size_t(40) << 20) / sizeof(std::int32_t), "a reused array");
  if (mapped) {
    EXPECT_EQ(static_cast<const void*>(b.data()), static_cast<const void*>(first));
  }
  b.data()[b.size() - 1] = 7;
  EXPECT_EQ(b.to_host(b.size())[b.size() - 1], 7);
  // Small arrays come from the heap, aligned for vector loads.
  RawArray<std::uint8_t> small(Backend::cpu, 100, "a small array");
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % 64, 0u);
  RawArray<std::uint8_t> none(Backend::cpu, 0, "an empty array");
  EXPECT_EQ(none.data(), nullptr);
}

TEST(Buffer, TheCudaBackendNeedsACudaDevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "this machine has a GPU: tests/gpu covers the device side";
  // No device (or no CUDA build): allocating device memory is a clear error, never a crash.
  EXPECT_THROW(Buffer<double>(Backend::cuda, 10, "device values"), std::runtime_error);
}

TEST(Backend, CudaFromAHostOnlyTranslationUnitIsAProgrammingError) {
  // This file is compiled by g++: forall cannot reach the GPU from here, and says so instead of running on the CPU.
  EXPECT_THROW(forall(Backend::cuda, 4, [](index_t) {}), std::logic_error);
  EXPECT_THROW(reduce_min(Backend::cuda, 4, [](index_t) { return 1.0; }), std::logic_error);
}

struct PlainFunctor {
  void operator()(index_t) const {}
};
struct ShapedFunctor {
  static constexpr int block_size = 64;
  static constexpr int min_blocks_per_sm = 5;
  void operator()(index_t) const {}
};

struct PartWarpFunctor {
  static constexpr int block_size = 100;
};
struct TooLargeFunctor {
  static constexpr int block_size = 2048;
};

// The totals the adaptation's passes leave in the backend's memory (kernels/algorithms.hpp) equal the
// standard library's and the returned ones, and a selection (select_if) keeps the items in order, for an empty
// range, one value, and ranges long enough for the threads to split a scan.
TEST(Algorithms, TotalsLeftInTheBackendsMemory) {
  std::mt19937 random(7);
  for (const index_t n : {0, 1, 1000, 1 << 17}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<index_t> values(n);
    for (index_t& v : values) v = static_cast<index_t>(random() % 5);
    const test::AlgorithmTotals t = test::algorithm_totals(Backend::cpu, values);
    std::vector<index_t> expected(n);
    std::exclusive_scan(values.begin(), values.end(), expected.begin(), index_t(0));
    const std::int64_t total = std::accumulate(values.begin(), values.end(), std::int64_t(0));
    const std::int64_t most = n == 0 ? -7 : *std::max_element(values.begin(), values.end());
    EXPECT_EQ(t.scanned, expected);
    EXPECT_EQ(t.scanned_in_place, expected);
    EXPECT_EQ(t.slots, (std::vector<std::int64_t>{total, total, total, total, most, total}));
    std::vector<index_t> kept;
    for (index_t i = 0; i < n; ++i)
      if (values[std::size_t(i)] >= 3) kept.push_back(i);
    EXPECT_EQ(t.selected, kept);
  }
}

/// Counts the visits of each item, through blocks of 8 where forall_cpu takes them (CpuBlock) and singly else.
struct CountVisits {
  static constexpr int cpu_block = 8;
  int* visits;
  int* by_block;
  void operator()(index_t i) const { ++visits[i]; }
  void block(index_t first) const {
    for (int l = 0; l < cpu_block; ++l) ++visits[first + l], ++by_block[first + l];
  }
};

// forall_cpu runs every item once: whole blocks through block(), the last n mod 8 items singly.
TEST(Forall, BlocksAndTheRestVisitEveryItemOnce) {
  for (const index_t n : {0, 5, 8, 1003}) {
    std::vector<int> visits(n), by_block(n);
    forall(Backend::cpu, n, CountVisits{visits.data(), by_block.data()});
    for (index_t i = 0; i < n; ++i) {
      EXPECT_EQ(visits[i], 1) << "item " << i << " of " << n;
      EXPECT_EQ(by_block[i], i < n / 8 * 8 ? 1 : 0) << "item " << i << " of " << n;
    }
  }
}

/// Counts the visits of each item through lanes of 8 (CpuLanes): every item, the last block short.
struct CountLaneVisits {
  static constexpr int cpu_lanes = 8;
  int* visits;
  int* counts;
  void operator()(index_t i) const { ++visits[i]; }
  void lanes(index_t first, int count) const {
    for (int l = 0; l < count; ++l) ++visits[first + l], counts[first + l] = count;
  }
};

// forall_cpu runs every item of a CpuLanes functor once through lanes(), none through operator().
TEST(Forall, LanesVisitEveryItemOnce) {
  for (const index_t n : {0, 5, 8, 1003}) {
    std::vector<int> visits(n), counts(n);
    forall(Backend::cpu, n, CountLaneVisits{visits.data(), counts.data()});
    for (index_t i = 0; i < n; ++i) {
      EXPECT_EQ(visits[i], 1) << "item " << i << " of " << n;
      EXPECT_EQ(counts[i], i < n / 8 * 8 ? 8 : n % 8) << "item " << i << " of " << n;
    }
  }
}

/// A state on every boundary face point that depends on the point and the inside state.
struct PointGhost {
  void operator()(std::int32_t group, const double* inside, double nx, double ny, double x, double y, double t,
                  double* out) const {
    euler::conserved(1.0 + 0.1 * x + 0.01 * group, 0.3 + 0.1 * nx, -0.2 + 0.1 * y + 0.1 * ny, 1.0 + t, 1.4, out);
    out[0] += 0.01 * inside[0];
  }
};

/// The surface term through forall (faces in SIMD lanes, FaceIntegrals::lanes) against EvalSurface::operator()
/// one face at a time, on made-up faces: boundary faces, hanging faces (halves of the coarse side's edge), every
/// local edge, and a count that leaves a short last block. `colored`: the faces share no element (a color's), else
/// elements repeat (the atomic strategy's). Equal to round-off: the lanes may contract their multiply-adds apart.
template <int P, bool Atomic>
void expect_surface_term_as_single_faces() {
  constexpr int nv = euler::num_vars;
  const index_t n = 2011, nf = Atomic ? 2013 : 1003;
  std::mt19937 rng(10 + P);
  std::uniform_real_distribution<double> unit(-1, 1), positive(0.5, 1.5);
  const test::RandomElements r = test::random_elements<P>(n, rng);
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<index_t> left(nf), right(nf);
  std::vector<std::int8_t> left_local(nf), right_local(nf), left_half(nf, whole_edge), right_half(nf, whole_edge);
  std::vector<std::int32_t> boundary(nf, no_boundary);
  std::vector<double> nx(nf), ny(nf), length(nf), x0(nf), y0(nf), x1(nf), y1(nf);
  for (index_t f = 0; f < nf; ++f) {
    // A color's faces share no element; the atomic strategy's repeat them.
    left[f] = Atomic ? order[f % n] : std::min(order[2 * f], order[2 * f + 1]);
    right[f] = Atomic ? order[(7 * f + 3) % n] : std::max(order[2 * f], order[2 * f + 1]);
    if (rng() % 5 == 0) right[f] = no_element, boundary[f] = std::int32_t(rng() % 3);
    left_local[f] = static_cast<std::int8_t>(rng() % 3);
    right_local[f] = static_cast<std::int8_t>(rng() % 3);
    if (right[f] != no_element && rng() % 4 == 0) (rng() % 2 ? left_half : right_half)[f] = std::int8_t(1 + rng() % 2);
    const double angle = 3.2 * unit(rng);
    nx[f] = std::cos(angle), ny[f] = std::sin(angle), length[f] = positive(rng);
    x0[f] = unit(rng), y0[f] = unit(rng), x1[f] = unit(rng), y1[f] = unit(rng);
  }
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const dg::Tables<double> t{op.volume_weight.data(), op.volume_basis.data(), op.volume_grad_r.data(), op.volume_grad_s.data(),
                             op.face_weight.data(),   op.face_abscissa.data(), op.face_basis.data(),
                             op.face_half_basis.data()};
  const dg::Geometry<double> g{r.jacobian.data(), r.dr_dx.data(), r.dr_dy.data(), r.ds_dx.data(), r.ds_dy.data()};
  dg::Faces<double> fc{left.data(), right.data(), left_local.data(), right_local.data(), nx.data(), ny.data(),
                       length.data(), x0.data(), y0.data(), x1.data(), y1.data(), boundary.data()};
  fc.left_half = left_half.data(), fc.right_half = right_half.data();
  const std::vector<double> clock{0.25, 0.1, 0.0, 0.0};
  using Integrals = dg::FaceIntegrals<P, double, euler::Flux::hllc, PointGhost>;
  const Integrals integrals{n, 1.4, clock.data(), 0.5, r.c.data(), t, g, fc, PointGhost{}};
  using Surface = dg::EvalSurface<P, double, euler::Flux::hllc, Atomic, PointGhost>;
  static_assert(CpuLanes<Surface>::value == 8);
  std::vector<double> lanes(r.c.size(), 0.5), singly(r.c.size(), 0.5);
  forall(Backend::cpu, nf, Surface{0, nf, lanes.data(), integrals});
  const Surface one{0, nf, singly.data(), integrals};
  for (index_t f = 0; f < nf; ++f) one(f);
  double largest = 0;
  for (const double x : singly) largest = std::max(largest, std::abs(x - 0.5));
  ASSERT_GT(largest, 0.1);
  for (std::size_t i = 0; i < r.c.size(); ++i)
    ASSERT_NEAR(lanes[i], singly[i], 1e-14 * largest) << "p = " << P << ", value " << i << " of " << nv << " variables";
}

TEST(Forall, TheSurfaceTermInLanesIsTheSingleFacesToRoundOff) {
  expect_surface_term_as_single_faces<1, false>();
  expect_surface_term_as_single_faces<2, false>();
  expect_surface_term_as_single_faces<3, false>();
  expect_surface_term_as_single_faces<4, false>();
  expect_surface_term_as_single_faces<5, false>();
  expect_surface_term_as_single_faces<3, true>();
  expect_surface_term_as_single_faces<4, true>();
  expect_surface_term_as_single_faces<5, true>();
}

/// The volume term through forall (SIMD lanes up to p = 2, blocks of elements from p = 3) against
/// EvalVolume::operator() called for one element at a time: bit for bit.
template <int P>
void expect_volume_term_as_single_elements() {
  const index_t n = 1003;  // not a multiple of the block: the last elements go singly
  std::mt19937 rng(P);
  const test::RandomElements r = test::random_elements<P>(n, rng);
  const std::vector<double>& c = r.c;
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const dg::Tables<double> t{op.volume_weight.data(), op.volume_basis.data(), op.volume_grad_r.data(), op.volume_grad_s.data(),
                             op.face_weight.data(),   op.face_abscissa.data(), op.face_basis.data(),
                             op.face_half_basis.data()};
  const dg::Geometry<double> g{r.jacobian.data(), r.dr_dx.data(), r.dr_dy.data(), r.ds_dx.data(), r.ds_dy.data()};
  std::vector<double> through_forall(c.size()), singly(c.size());
  forall(Backend::cpu, n, dg::EvalVolume<P, double>{n, 1.4, c.data(), through_forall.data(), t, g});
  const dg::EvalVolume<P, double> one{n, 1.4, c.data(), singly.data(), t, g};
  for (index_t e = 0; e < n; ++e) one(e);
  for (std::size_t i = 0; i < c.size(); ++i) ASSERT_EQ(through_forall[i], singly[i]) << "p = " << P << ", value " << i;
}

TEST(Forall, TheVolumeTermInLanesIsTheSingleElementsBitForBit) {
  expect_volume_term_as_single_elements<1>();
  expect_volume_term_as_single_elements<2>();
  expect_volume_term_as_single_elements<3>();
  expect_volume_term_as_single_elements<4>();
  expect_volume_term_as_single_elements<5>();
}

// Marks on the CPU's work give one time per interval, none negative.
TEST(Algorithms, WorkMarksTimeEachInterval) {
  WorkMarks marks(Backend::cpu);
  for (int k = 0; k < 3; ++k) marks.mark();
  const std::vector<double> s = marks.seconds();
  ASSERT_EQ(s.size(), 2u);
  for (const double x : s) EXPECT_GE(x, 0.0);
}

TEST(LaunchShape, DefaultsDeclaredValuesAndOverrides) {
  static_assert(BlockSizeOf<PlainFunctor>::value == forall_block_size && MinBlocksPerSm<PlainFunctor>::value == 1);
  static_assert(BlockSizeOf<ShapedFunctor>::value == 64 && MinBlocksPerSm<ShapedFunctor>::value == 5);
  using Overridden = WithLaunchShape<ShapedFunctor, 256, 2>;
  static_assert(BlockSizeOf<Overridden>::value == 256 && MinBlocksPerSm<Overridden>::value == 2);
  // StopGuard wraps every state-writing kernel of a step: it must launch with the guarded kernel's shape.
  using Guarded = dg::StopGuard<double, ShapedFunctor>;
  static_assert(BlockSizeOf<Guarded>::value == 64 && MinBlocksPerSm<Guarded>::value == 5);
  static_assert(valid_launch_shape<PlainFunctor> && valid_launch_shape<Guarded> && valid_launch_shape<Overridden>);
  static_assert(!valid_launch_shape<PartWarpFunctor> && !valid_launch_shape<TooLargeFunctor>);
  SUCCEED();
}

TEST(LaunchShape, TheElementwisePassFitsAMultiprocessor) {
  // Every shape element_pass_shape gives must be launchable: whole warps, and the blocks it asks to keep
  // resident within an SM's 2048 threads (H100); the fused stage takes its pass's shape.
  const auto check = [](dg::PassShape shape, int p, const char* precision) {
    SCOPED_TRACE(std::string(precision) + " p = " + std::to_string(p));
    EXPECT_EQ(shape.block_size % 32, 0);
    EXPECT_LE(shape.block_size, 1024);
    EXPECT_GE(shape.min_blocks_per_sm, 1);
    EXPECT_LE(shape.block_size * shape.min_blocks_per_sm, 2048);
  };
  check(dg::element_pass_shape<0, double>(), 0, "double");
  check(dg::element_pass_shape<1, double>(), 1, "double");
  check(dg::element_pass_shape<2, double>(), 2, "double");
  check(dg::element_pass_shape<3, double>(), 3, "double");
  check(dg::element_pass_shape<4, double>(), 4, "double");
  check(dg::element_pass_shape<5, double>(), 5, "double");
  check(dg::element_pass_shape<1, float>(), 1, "float");
  check(dg::element_pass_shape<2, float>(), 2, "float");
  check(dg::element_pass_shape<3, float>(), 3, "float");
  check(dg::element_pass_shape<5, float>(), 5, "float");
  // The shapes measured best on an H100 (docs/benchmarks.md, third run): p = 2 in double at three blocks of 128.
  constexpr auto p2_double = dg::element_pass_shape<2, double>();
  EXPECT_EQ(p2_double.block_size, 128);
  EXPECT_EQ(p2_double.min_blocks_per_sm, 3);
  using Stage = dg::EvalElementStage<2, double, euler::Flux::rusanov, test::FixedState>;
  static_assert(BlockSizeOf<Stage>::value == 128 && MinBlocksPerSm<Stage>::value == 3);
}

TEST(EulerDG, MemoryUseIsReportedByUse) {
  // The CPU backend counts the same arrays as the GPU one (tests/gpu checks them against cudaMemGetInfo).
  const Mesh mesh = test::periodic_mesh(8, 10.0, 0.2);
  using Solver = dg::EulerDG<2, double, euler::Flux::hll, test::Vortex>;
  const Solver colored(mesh, gamma_air, test::Vortex{}, dg::Strategy::colored);
  Solver buffered(mesh, gamma_air, test::Vortex{}, dg::Strategy::buffered);
  const std::size_t solution = std::size_t(euler::num_vars) * Solver::num_modes * mesh.num_elements() * sizeof(double);
  EXPECT_EQ(colored.memory_use().strategy, 0u);
  EXPECT_EQ(buffered.memory_use().strategy, std::size_t(2) * euler::num_vars * Solver::num_modes * mesh.num_faces() * sizeof(double));
  // The solution and the integrator's stage and right-hand side: the SSP methods read the start from the
  // solution itself; rk4 adds its start vector when it first runs.
  EXPECT_GE(colored.memory_use().solution, 3 * solution);
  EXPECT_LT(colored.memory_use().solution, 4 * solution);
  EXPECT_GT(colored.memory_use().mesh, 0u);
  EXPECT_EQ(colored.memory_use().limiter, 0u);
  buffered.project([](double x, double y, double* u) { test::Vortex::state(x, y, 0.0, u); });
  const std::size_t before_rk4 = buffered.memory_use().solution;
  buffered.step(dg::Integrator::rk4, buffered.stable_dt(0.1));
  EXPECT_EQ(buffered.memory_use().solution, before_rk4 + solution);
  buffered.set_limiter(dg::Limiter::vertex);
  EXPECT_GE(buffered.memory_use().limiter, solution);  // the Taylor coefficients, bounds and flags
  EXPECT_EQ(buffered.memory_use().total(), buffered.memory_use().mesh + buffered.memory_use().solution +
                                               buffered.memory_use().strategy + buffered.memory_use().limiter);
}

TEST(EulerDG, FixedWorkStepsAndTheSolutionRoundTrip) {
  const Mesh mesh = test::periodic_mesh(6, 10.0, 0.2);
  dg::EulerDG<1, double, euler::Flux::hll, test::Vortex> solver(mesh, gamma_air, test::Vortex{}, dg::Strategy::colored);
  EXPECT_EQ(solver.backend(), Backend::cpu);
  solver.project([](double x, double y, double* u) { test::Vortex::state(x, y, 0, u); });
  const std::vector<double> start = solver.solution();
  const double dt = solver.stable_dt(0.5);
  solver.advance_steps(3, dg::Integrator::ssprk3, 0.5);
  // The state barely moves in three steps: each step is the stable step of its own start state.
  EXPECT_NEAR(solver.time(), 3 * dt, 0.05 * dt);
  EXPECT_NE(solver.solution(), start);
  solver.set_solution(start);
  EXPECT_EQ(solver.solution(), start);
  EXPECT_THROW(solver.set_solution(std::vector<double>(start.size() + 1, 1.0)), std::logic_error);
  EXPECT_THROW(solver.step(dg::Integrator::ssprk3, 0.0), std::invalid_argument);
  // Fixed steps of changing size go through the clock: each lands where it should.
  const double t0 = solver.time();
  solver.step(dg::Integrator::ssprk3, 0.5 * dt);
  solver.step(dg::Integrator::ssprk3, 0.25 * dt);
  EXPECT_DOUBLE_EQ(solver.time(), t0 + 0.75 * dt);
}

}  // namespace
}  // namespace kempe
