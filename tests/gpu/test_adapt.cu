// Adaptive refinement on the GPU (adapt/forest.hpp): the same seeded cycles on the CPU and on the CUDA backend
// give the same meshes and colors bit for bit (nodes, elements, tree, faces), on planar, periodic and
// closed-surface meshes; the GPU round trip gives the start mesh back; the DG solver's tables of the adapted
// mesh, built by kernels on each backend, are the same bit for bit; the DG solver on such a mesh (hanging faces,
// every race strategy) steps and follows an adaptation as on the CPU, with the subcell blend across hanging faces
// too, and an adaptive run driven by an indicator flags the same elements and gives the same meshes. Skipped
// without a device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/generators.hpp"
#include "skip.hpp"
#include "tests/unit/adapt_fixtures.hpp"
#include "tests/unit/dg_cases.hpp"

namespace kempe {
namespace {

Mesh prepared(Mesh mesh) { return test::adapt_start(std::move(mesh)); }

void expect_same(const adapt::LeafMesh& cpu, const adapt::LeafMesh& gpu, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(cpu.x, gpu.x);
  EXPECT_EQ(cpu.y, gpu.y);
  EXPECT_EQ(cpu.z, gpu.z);
  EXPECT_EQ(cpu.element_vertices, gpu.element_vertices);
  EXPECT_EQ(cpu.element_edges, gpu.element_edges);
  EXPECT_EQ(cpu.element_sides, gpu.element_sides);
  EXPECT_EQ(cpu.level, gpu.level);
  EXPECT_EQ(cpu.path, gpu.path);
  EXPECT_EQ(cpu.root, gpu.root);
  EXPECT_EQ(cpu.face_left, gpu.face_left);
  EXPECT_EQ(cpu.face_right, gpu.face_right);
  EXPECT_EQ(cpu.face_left_local, gpu.face_left_local);
  EXPECT_EQ(cpu.face_right_local, gpu.face_right_local);
  EXPECT_EQ(cpu.face_left_half, gpu.face_left_half);
  EXPECT_EQ(cpu.face_right_half, gpu.face_right_half);
  EXPECT_EQ(cpu.face_color, gpu.face_color);
  EXPECT_EQ(cpu.face_boundary, gpu.face_boundary);
  EXPECT_EQ(cpu.face_vertices, gpu.face_vertices);
  EXPECT_EQ(cpu.color_begin, gpu.color_begin);
}

TEST(GpuAdapt, SameMeshesAndColorsAsTheCpu) {
  SKIP_WITHOUT_GPU();
  const Mesh meshes[] = {prepared(grid_mesh(24, 1.0, 0.2, 3)), prepared(periodic_grid_mesh(16, 1.0, 0.2)),
                         prepared(build_mesh(icosphere(3))), prepared(double_mach_mesh(24))};
  for (const Mesh& mesh : meshes) {
    adapt::TriangleForest cpu(mesh, Backend::cpu, 4), gpu(mesh, Backend::cuda, 4);
    expect_same(cpu.to_host(), gpu.to_host(), mesh.source + " start");
    for (int c = 0; c < 8; ++c) {
      cpu.flag_random(0.25, 0.2, 17, std::uint64_t(c));
      gpu.flag_random(0.25, 0.2, 17, std::uint64_t(c));
      const adapt::AdaptReport rc = cpu.adapt(), rg = gpu.adapt();
      ASSERT_TRUE(rg.valid()) << mesh.source << " cycle " << c << ": " << rg.failures << " failures";
      EXPECT_EQ(rc.elements, rg.elements);
      EXPECT_EQ(rc.hanging_faces, rg.hanging_faces);
      // The GPU runs the balance passes in pairs (one look at the device's count per pair): the CPU's count made even.
      EXPECT_EQ(rg.balance_passes, rc.balance_passes + rc.balance_passes % 2);
      expect_same(cpu.to_host(), gpu.to_host(), mesh.source + " cycle " + std::to_string(c));
    }
  }
}

/// The first n values behind a CPU table and a GPU table: equal bit for bit, or within `tolerance` for values
/// that come from the math library (atan2 of the boundary curve's angles).
template <class T>
void expect_same_table(const T* cpu, const T* gpu, std::size_t n, const char* what, double tolerance = 0) {
  ASSERT_EQ(cpu == nullptr, gpu == nullptr) << what;
  std::vector<T> g(n);
  if (n > 0) ASSERT_EQ(cudaMemcpy(g.data(), gpu, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess) << what;
  for (std::size_t i = 0; i < n; ++i)
    if (tolerance == 0 ? !(cpu[i] == g[i]) : !(std::abs(double(cpu[i]) - double(g[i])) <= tolerance)) {
      ADD_FAILURE() << what << "[" << i << "]: " << +cpu[i] << " on the CPU, " << +g[i] << " on the GPU";
      return;
    }
}

/// The tables of the CPU's and the GPU's forests, in Real, compared.
template <class Real>
void expect_same_dg_tables(const adapt::TriangleForest& cpu, const adapt::TriangleForest& gpu, dg::DGMesh<Real>& tc,
                           dg::DGMesh<Real>& tg) {
  tc.rebuild(cpu);
  tg.rebuild(gpu);
  ASSERT_EQ(tc.num_elements(), tg.num_elements());
  ASSERT_EQ(tc.num_faces(), tg.num_faces());
  ASSERT_EQ(tc.num_vertices(), tg.num_vertices());
  EXPECT_EQ(tc.boundary_groups(), tg.boundary_groups());
  test::compare_dg_tables(tc, tg, [](const auto* a, const auto* b, std::size_t n, const char* what) { expect_same_table(a, b, n, what); });
  const Real* bend = tc.view().boundary_bend;
  // atan2 of the math libraries: to rounding, not bit for bit.
  const double tolerance = sizeof(Real) == sizeof(float) ? 1e-6 : 1e-14;
  expect_same_table(bend, tg.view().boundary_bend, bend ? 3 * std::size_t(tc.num_faces()) : 0, "boundary bend", tolerance);
}

TEST(GpuAdapt, SolverTablesAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  const Mesh meshes[] = {prepared(grid_mesh(24, 1.0, 0.2, 3)), prepared(periodic_grid_mesh(16, 1.0, 0.2)),
                         prepared(double_mach_mesh(24)), test::disk_mesh()};
  for (const Mesh& mesh : meshes) {
    SCOPED_TRACE(mesh.source);
    adapt::TriangleForest cpu(mesh, Backend::cpu, 3), gpu(mesh, Backend::cuda, 3);
    dg::DGMesh<double> tc(Backend::cpu), tg(Backend::cuda);
    dg::DGMesh<float> sc(Backend::cpu), sg(Backend::cuda);
    for (int c = 0; c < 4; ++c) {
      cpu.flag_random(0.25, 0.2, 23, std::uint64_t(c));
      gpu.flag_random(0.25, 0.2, 23, std::uint64_t(c));
      ASSERT_TRUE(cpu.adapt().valid());
      ASSERT_TRUE(gpu.adapt().valid());
      // Rebuilt after every cycle, in the storage of the cycles before.
      expect_same_dg_tables(cpu, gpu, tc, tg);
    }
    expect_same_dg_tables(cpu, gpu, sc, sg);
  }
}

TEST(GpuAdapt, RoundTripGivesTheStartMesh) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = prepared(periodic_grid_mesh(16, 1.0, 0.2));
  adapt::TriangleForest gpu(mesh, Backend::cuda, 3);
  for (int l = 0; l < 3; ++l) {
    gpu.flag_all(true, false);
    ASSERT_TRUE(gpu.adapt().valid());
  }
  for (int l = 0; l < 3; ++l) {
    gpu.flag_all(false, true);
    ASSERT_TRUE(gpu.adapt().valid());
  }
  EXPECT_EQ(gpu.difference_from(mesh), "");
}

/// The largest difference of two solutions, relative to the largest value.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0, size = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference = std::max(difference, std::abs(a[i] - b[i])), size = std::max(size, std::abs(a[i]));
  return difference / size;
}

TEST(GpuAdapt, SolverStepsAndFollowsAdaptationsAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  constexpr int P = 2, nm = basis::num_modes(P), nv = euler::num_vars;
  const Mesh mesh = prepared(periodic_grid_mesh(12, 1.0, 0.2));
  adapt::TriangleForest cpu(mesh, Backend::cpu, 3), gpu(mesh, Backend::cuda, 3);
  std::uint64_t cycle = 0;
  auto adapt_both = [&] {
    cpu.flag_random(0.3, 0.2, 29, cycle);
    gpu.flag_random(0.3, 0.2, 29, cycle);
    ++cycle;
    ASSERT_TRUE(cpu.adapt().valid());
    ASSERT_TRUE(gpu.adapt().valid());
  };
  for (int c = 0; c < 3; ++c) adapt_both();
  double u[nv];
  euler::conserved(1.2, 0.3, -0.2, 0.9, test::gamma_air, u);
  const test::FixedState ghost{{u[0], u[1], u[2], u[3]}};
  for (const auto& named : dg::strategies) {
    SCOPED_TRACE(named.name);
    using Solver = dg::EulerDG<P, double, euler::Flux::hllc, test::FixedState>;  // HLLC as below: the file compiles one solver
    Solver a(cpu, test::gamma_air, ghost, named.value, Backend::cpu), b(gpu, test::gamma_air, ghost, named.value, Backend::cuda);
    // A state with jumps across every face, hanging ones included.
    const index_t k = a.num_elements();
    std::mt19937_64 random(3);
    std::uniform_real_distribution<double> wobble(-0.02, 0.02);
    std::vector<double> state(std::size_t(nv) * nm * k);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m)
        for (index_t e = 0; e < k; ++e)
          state[(std::size_t(v) * nm + m) * k + e] = (m == 0 ? u[v] / dg::mode0_value : 0.0) + wobble(random) * std::abs(u[v]);
    a.set_solution(state), b.set_solution(state);
    // Within 1e-12, not to the last bit: the buffered strategy sums an element's face terms in
    // another order on the GPU, and the GPU fuses multiply-adds (1.3e-13 seen on an H200 after two steps).
    a.step(dg::Integrator::ssprk3, 1e-3), b.step(dg::Integrator::ssprk3, 1e-3);
    EXPECT_LT(relative_difference(a.solution(), b.solution()), 1e-12) << "after a step";
    adapt_both();
    a.remesh(cpu), b.remesh(gpu);
    EXPECT_LT(relative_difference(a.solution(), b.solution()), 1e-12) << "after a transfer";
    a.step(dg::Integrator::ssprk3, 1e-3), b.step(dg::Integrator::ssprk3, 1e-3);
    EXPECT_LT(relative_difference(a.solution(), b.solution()), 1e-12) << "after a step on the new mesh";
  }
}

TEST(GpuAdapt, TheSubcellBlendAcrossHangingFacesAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  // The subcell blend with fixed random shares on a mesh with hanging faces (the pieces of for_each_edge_piece):
  // without bounds the GPU's steps are the CPU's within 1e-12, with every strategy; with bounds (whose
  // prelimiting drops a correction by the sign of its density, which rounding can flip where that density nearly
  // vanishes, tests/unit/test_adapt_dg.cpp) both backends conserve every variable to round-off.
  constexpr int P = 2, nm = basis::num_modes(P), nv = euler::num_vars;
  const Mesh mesh = prepared(periodic_grid_mesh(12, 1.0, 0.2));
  adapt::TriangleForest cpu(mesh, Backend::cpu, 3), gpu(mesh, Backend::cuda, 3);
  for (std::uint64_t cycle = 0; cycle < 3; ++cycle) {
    cpu.flag_random(0.3, 0.2, 31, cycle), gpu.flag_random(0.3, 0.2, 31, cycle);
    ASSERT_TRUE(cpu.adapt().valid());
    ASSERT_TRUE(gpu.adapt().valid());
  }
  double u[nv];
  euler::conserved(1.2, 0.3, -0.2, 0.9, test::gamma_air, u);
  const test::FixedState ghost{{u[0], u[1], u[2], u[3]}};
  const index_t k = cpu.num_elements();
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> wobble(-0.02, 0.02), share(0, 1);
  std::vector<double> state(std::size_t(nv) * nm * k), alpha(k);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nm; ++m)
      for (index_t e = 0; e < k; ++e)
        state[(std::size_t(v) * nm + m) * k + e] = (m == 0 ? u[v] / dg::mode0_value : 0.0) + wobble(random) * std::abs(u[v]);
  for (double& a : alpha) a = share(random);
  for (const bool bounds : {false, true})
    for (const auto& named : dg::strategies) {
      SCOPED_TRACE(std::string(named.name) + (bounds ? ", bounds" : ""));
      using Solver = dg::EulerDG<P, double, euler::Flux::hllc, test::FixedState>;
      Solver a(cpu, test::gamma_air, ghost, named.value, Backend::cpu), b(gpu, test::gamma_air, ghost, named.value, Backend::cuda);
      a.set_solution(state), b.set_solution(state);
      for (Solver* solver : {&a, &b}) {
        solver->set_subcell_bounds(bounds);
        solver->set_blending_shares(alpha);
      }
      const std::array<double, nv> before = test::totals(a);
      for (int s = 0; s < 3; ++s) a.step(dg::Integrator::ssprk3, 1e-3), b.step(dg::Integrator::ssprk3, 1e-3);
      if (!bounds) EXPECT_LT(relative_difference(a.solution(), b.solution()), 1e-12);
      for (const Solver* solver : {&a, &b}) {
        const std::array<double, nv> after = test::totals(*solver);
        for (int v = 0; v < nv; ++v)
          EXPECT_NEAR(after[v], before[v], 1e-13 * std::max(std::abs(before[v]), std::abs(before[euler::density]))) << "variable " << v;
      }
    }
}

/// The flags a backend's forest holds, on the host.
std::vector<std::uint8_t> flags_of(adapt::TriangleForest& forest, bool refine) {
  std::vector<std::uint8_t> flags(forest.num_elements());
  const std::uint8_t* at = refine ? forest.refine_flags() : forest.coarsen_flags();
  if (forest.backend() == Backend::cpu)
    std::copy(at, at + flags.size(), flags.begin());
  else
    copy_to_host(flags.data(), at, flags.size(), "flags");
  return flags;
}

TEST(GpuAdapt, AnAdaptiveRunFlagsAndAdaptsAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  // The periodic vortex adapted by density_jump every 5 steps, with 2 buffer rings: indicators in double on both
  // backends, so the same flags, the same meshes and the solution within 1e-12, with every strategy.
  const Mesh mesh = prepared(periodic_grid_mesh(10, 10.0, 0.2));
  auto vortex = [](double x, double y, double* u) { test::Vortex::state(x, y, 0, u); };
  adapt::AdaptCriteria criteria;
  criteria.indicator = adapt::Indicator::density_jump;
  criteria.refine_above = 0.01, criteria.coarsen_below = 0.004, criteria.buffer = 2;
  for (const auto& named : dg::strategies) {
    SCOPED_TRACE(named.name);
    using Solver = dg::EulerDG<2, double, euler::Flux::hllc, test::FixedState>;
    adapt::TriangleForest cpu(mesh, Backend::cpu, 2), gpu(mesh, Backend::cuda, 2);
    Solver a(cpu, test::gamma_air, test::FixedState{}, named.value, Backend::cpu);
    Solver b(gpu, test::gamma_air, test::FixedState{}, named.value, Backend::cuda);
    a.project(vortex), b.project(vortex);
    for (int step = 0; step <= 40; ++step) {
      if (step % 5 == 0) {
        a.flag_adaptation(criteria, cpu), b.flag_adaptation(criteria, gpu);
        ASSERT_EQ(flags_of(cpu, true), flags_of(gpu, true)) << "refine flags at step " << step;
        ASSERT_EQ(flags_of(cpu, false), flags_of(gpu, false)) << "coarsen flags at step " << step;
        ASSERT_TRUE(cpu.adapt(adapt::Check::colors).valid());
        ASSERT_TRUE(gpu.adapt(adapt::Check::colors).valid());
        a.remesh(cpu), b.remesh(gpu);
        ASSERT_EQ(a.num_elements(), b.num_elements()) << "step " << step;
      }
      const double dt = a.stable_dt(0.5);
      a.step(dg::Integrator::ssprk3, dt), b.step(dg::Integrator::ssprk3, dt);
    }
    expect_same(cpu.to_host(), gpu.to_host(), "the mesh after 40 steps");
    EXPECT_LT(relative_difference(a.solution(), b.solution()), 1e-12);
  }
}

}  // namespace
}  // namespace kempe
