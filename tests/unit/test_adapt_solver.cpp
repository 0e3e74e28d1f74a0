// Adaptive runs of the DG solver on the CPU backend (adapt/indicators_K.hpp, EulerDG::flag_adaptation and remesh):
// each indicator gives the value it documents, the flags follow the thresholds and the buffer rings, and the
// periodic isentropic vortex, adapted every 5 steps as it crosses the square, conserves mass, momentum and energy
// to round-off over 200 steps with every race strategy, colored bitwise the same on 1 and 2 threads; and the vortex
// converges at order p + 1 on randomly refined 1-irregular meshes, p = 1..4; and the entropy filter and the subcell
// blend (with and without bounds) capture Sod's shocks on an adapting mesh, conservatively, blending beside
// hanging faces too, with no cell-average density below the data's least (to the density bound's tolerance) or
// more than 2 % above its largest.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "adapt/forest.hpp"
#include "adapt/indicators_K.hpp"
#include "adapt_fixtures.hpp"
#include "adapt_vortex.hpp"
#include "dg_cases.hpp"

namespace kempe {
namespace {

using test::adapt_start;
using test::totals;
using test::FixedState;
using test::gamma_air;
using test::Vortex;

constexpr int nv = euler::num_vars;
constexpr double rho_left = 1.0, rho_right = 0.125;

/// Sod's states split at x = 0.5: density 1 and pressure 1 on the left, 0.125 and 0.1 on the right, at rest.
void sod(double x, double, double* u) {
  euler::conserved(x < 0.5 ? rho_left : rho_right, 0.0, 0.0, x < 0.5 ? 1.0 : 0.1, gamma_air, u);
}

FixedState ghost() {
  FixedState g{};
  sod(0, 0, g.u);
  return g;
}

/// The leaves that share a face lying on the line x = 0.5 (where Sod's states meet).
std::set<index_t> leaves_at_the_jump(const adapt::LeafMesh& m) {
  std::set<index_t> at;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    const index_t a = m.face_vertices[2 * f], b = m.face_vertices[2 * f + 1];
    if (m.face_right[f] != no_element && std::abs(m.x[a] - 0.5) < 1e-12 && std::abs(m.x[b] - 0.5) < 1e-12) at.insert(m.face_left[f]), at.insert(m.face_right[f]);
  }
  return at;
}

TEST(AdaptIndicators, EachIndicatorGivesTheValueItDocuments) {
  // A 6 x 6 grid of [0, 1]^2: x = 0.5 is a grid line, so Sod's jump lies on faces.
  const Mesh start = adapt_start(grid_mesh(6, 1.0, 0.0, 1));
  adapt::TriangleForest forest(start, Backend::cpu, 2);
  forest.flag_random(0.3, 0.0, 3, 0);
  ASSERT_TRUE(forest.adapt().valid());  // hanging faces too, some on the jump
  dg::EulerDG<2, double, euler::Flux::hllc, FixedState> solver(forest, gamma_air, ghost(), dg::Strategy::colored);
  solver.project(sod);
  const adapt::LeafMesh leaves = forest.to_host();
  const std::set<index_t> jump = leaves_at_the_jump(leaves);
  ASSERT_FALSE(jump.empty());
  const index_t k = solver.num_elements();

  // density_jump: |a - b| / (|a| + |b|) of the cell averages, where a neighbour lies across the jump.
  adapt::AdaptCriteria criteria;
  criteria.indicator = adapt::Indicator::density_jump;
  solver.flag_adaptation(criteria, forest);
  std::vector<double> value = solver.indicator_values();
  ASSERT_EQ(value.size(), std::size_t(k));
  const double expected = (rho_left - rho_right) / (rho_left + rho_right);
  for (index_t e = 0; e < k; ++e)
    EXPECT_NEAR(value[e], jump.count(e) ? expected : 0.0, 1e-13) << "element " << e;
  // The same on pressure (1 against 0.1), projected at the volume points.
  criteria.variable = adapt::IndicatorVariable::pressure;
  solver.flag_adaptation(criteria, forest);
  value = solver.indicator_values();
  for (index_t e = 0; e < k; ++e) EXPECT_NEAR(value[e], jump.count(e) ? 0.9 / 1.1 : 0.0, 1e-13) << "element " << e;

  // modal_decay: -30 (the floor) for a constant; for a linear density the share of the degree-2 modes is 0; for
  // a quadratic one it is what the coefficients say.
  criteria.indicator = adapt::Indicator::modal_decay;
  criteria.variable = adapt::IndicatorVariable::density;
  solver.flag_adaptation(criteria, forest);
  value = solver.indicator_values();
  for (index_t e = 0; e < k; ++e) EXPECT_EQ(value[e], -30.0) << "a constant on element " << e;
  solver.project([](double x, double y, double* u) { euler::conserved(1 + 0.3 * x * x + 0.1 * y, 0.0, 0.0, 1.0, gamma_air, u); });
  solver.flag_adaptation(criteria, forest);
  value = solver.indicator_values();
  const std::vector<double>& c = solver.solution();
  constexpr int nm = basis::num_modes(2);
  for (index_t e = 0; e < k; ++e) {
    double top = 0, all = 0;
    for (int m = 0; m < nm; ++m) {
      const double cm = c[std::size_t(m) * k + e];
      all += cm * cm;
      if (m >= basis::num_modes(1)) top += cm * cm;
    }
    EXPECT_NEAR(value[e], std::log10(top / all), 1e-12) << "element " << e;
    EXPECT_LT(value[e], -2) << "a smooth quadratic is well resolved";
  }

  // kxrcf: the ratio of the troubled-cell detector, above 1 exactly where it flags (it reads inflow faces: the
  // states move to the right).
  solver.project([](double x, double, double* u) {
    euler::conserved(x < 0.5 ? rho_left : rho_right, 0.5, 0.0, x < 0.5 ? 1.0 : 0.1, gamma_air, u);
  });
  criteria.indicator = adapt::Indicator::kxrcf;
  solver.flag_adaptation(criteria, forest);
  value = solver.indicator_values();
  solver.set_limiter(dg::Limiter::moment, 2, true);
  solver.limit(solver.solution_buffer().data());  // the KXRCF flags of the same state
  const std::vector<std::uint8_t> flagged = solver.limited_cells();
  int above = 0;
  for (index_t e = 0; e < k; ++e) {
    EXPECT_EQ(value[e] > 1, flagged[e] != 0) << "element " << e << ", ratio " << value[e];
    EXPECT_GE(value[e], 0);
    above += value[e] > 1;
  }
  EXPECT_GT(above, 0);

  // box: 1 where the centroid lies in a box.
  criteria.indicator = adapt::Indicator::box;
  criteria.boxes = {{0.0, 0.0, 0.3, 0.3}, {0.7, 0.6, 1.0, 0.9}};
  solver.flag_adaptation(criteria, forest);
  value = solver.indicator_values();
  for (index_t e = 0; e < k; ++e) {
    const double x = leaves.centroid_x[e], y = leaves.centroid_y[e];
    const bool in = (x <= 0.3 && y <= 0.3) || (x >= 0.7 && y >= 0.6 && y <= 0.9);
    EXPECT_EQ(value[e], in ? 1.0 : 0.0) << "element " << e;
  }
}

/// The leaves that share a face with any of `set`.
std::set<index_t> with_neighbours(const adapt::LeafMesh& m, const std::set<index_t>& set) {
  std::set<index_t> out = set;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    const index_t l = m.face_left[f], r = m.face_right[f];
    if (r == no_element) continue;
    if (set.count(l)) out.insert(r);
    if (set.count(r)) out.insert(l);
  }
  return out;
}

TEST(AdaptIndicators, FlagsFollowTheThresholdsAndTheBufferRings) {
  const Mesh start = adapt_start(grid_mesh(8, 1.0, 0.2, 4));
  adapt::TriangleForest forest(start, Backend::cpu, 3);
  forest.flag_random(0.3, 0.0, 5, 0);
  ASSERT_TRUE(forest.adapt().valid());
  dg::EulerDG<1, double, euler::Flux::hllc, FixedState> solver(forest, gamma_air, ghost(), dg::Strategy::colored);
  solver.project(sod);
  const adapt::LeafMesh leaves = forest.to_host();
  const index_t k = leaves.num_elements();
  adapt::AdaptCriteria criteria;
  criteria.indicator = adapt::Indicator::box;
  criteria.boxes = {{0.3, 0.3, 0.6, 0.5}};
  std::set<index_t> inside;
  for (index_t e = 0; e < k; ++e)
    if (leaves.centroid_x[e] >= 0.3 && leaves.centroid_x[e] <= 0.6 && leaves.centroid_y[e] >= 0.3 && leaves.centroid_y[e] <= 0.5)
      inside.insert(e);
  ASSERT_FALSE(inside.empty());
  for (int rings = 0; rings <= 2; ++rings) {
    SCOPED_TRACE("buffer " + std::to_string(rings));
    criteria.buffer = rings;
    solver.flag_adaptation(criteria, forest);
    std::set<index_t> expected = inside;
    for (int r = 0; r < rings; ++r) expected = with_neighbours(leaves, expected);
    for (index_t e = 0; e < k; ++e) {
      EXPECT_EQ(forest.refine_flags()[e] != 0, expected.count(e) != 0) << "element " << e;
      // Outside the zone the box indicator is 0, below coarsen_below: those coarsen.
      EXPECT_EQ(forest.coarsen_flags()[e] != 0, expected.count(e) == 0) << "element " << e;
    }
  }
  // The adaptation refines the zone (below the maximum level) and coarsens only whole groups outside it.
  criteria.buffer = 1;
  solver.flag_adaptation(criteria, forest);
  const adapt::AdaptReport report = forest.adapt();
  ASSERT_TRUE(report.valid());
  EXPECT_GT(report.refined, 0);
  solver.remesh(forest);
  const adapt::LeafMesh after = forest.to_host();
  for (index_t e = 0; e < after.num_elements(); ++e) {
    const double x = after.centroid_x[e], y = after.centroid_y[e];
    if (x >= 0.35 && x <= 0.55 && y >= 0.35 && y <= 0.45) {
      EXPECT_GE(after.level[e], 1) << "element " << e;
    }
  }
}

struct VortexRun {
  std::vector<double> solution;
  index_t least = 0, most = 0;
  long refined = 0, coarsened = 0;
};

/// The vortex on the periodic square [0, 10]^2 (10 x 10 start mesh), p = 2, adapted by density_jump every 5 of
/// 200 SSP-RK3 steps at CFL 0.5 (levels up to 2), the totals compared at the end with those after the initial
/// adaptations.
VortexRun adaptive_vortex(dg::Strategy strategy) {
  const Mesh start = adapt_start(periodic_grid_mesh(10, 10.0, 0.2));
  adapt::TriangleForest forest(start, Backend::cpu, 2);
  dg::EulerDG<2, double, euler::Flux::hllc, FixedState> solver(forest, gamma_air, FixedState{}, strategy);
  auto vortex = [](double x, double y, double* u) { Vortex::state(x, y, 0, u); };
  adapt::AdaptCriteria criteria;
  criteria.indicator = adapt::Indicator::density_jump;
  criteria.refine_above = 0.01, criteria.coarsen_below = 0.004;
  solver.project(vortex);
  for (int level = 0; level < 2; ++level) {  // the initial state on the adapted mesh (adapt.initial_levels)
    solver.flag_adaptation(criteria, forest);
    EXPECT_TRUE(forest.adapt(adapt::Check::colors).valid());
    solver.remesh(forest);
    solver.project(vortex);
  }
  VortexRun run;
  run.least = run.most = solver.num_elements();
  const std::array<double, nv> before = totals(solver);
  for (int step = 1; step <= 200; ++step) {
    solver.step(dg::Integrator::ssprk3, solver.stable_dt(0.5));
    if (step % 5 != 0) continue;
    solver.flag_adaptation(criteria, forest);
    const adapt::AdaptReport report = forest.adapt(adapt::Check::colors);
    EXPECT_TRUE(report.valid());
    run.refined += report.refined, run.coarsened += report.coarsened;
    solver.remesh(forest);
    run.least = std::min(run.least, solver.num_elements()), run.most = std::max(run.most, solver.num_elements());
  }
  const std::array<double, nv> after = totals(solver);
  for (int v = 0; v < nv; ++v)
    EXPECT_NEAR(after[v], before[v], 1e-13 * std::max(std::abs(before[v]), std::abs(before[euler::density])))
        << "variable " << v;
  run.solution = solver.solution();
  return run;
}

TEST(AdaptiveRun, TheVortexConservesOver200StepsAdaptingEvery5WithEveryStrategy) {
  for (const auto& named : dg::strategies) {
    SCOPED_TRACE(std::string(named.name));
    const VortexRun run = adaptive_vortex(named.value);
    std::printf("%s: %ld leaves refined, %ld groups coarsened, %d to %d elements\n", std::string(named.name).c_str(),
                run.refined, run.coarsened, int(run.least), int(run.most));
    // The mesh followed the vortex: leaves refined and coarsened as it moved.
    EXPECT_GT(run.refined, 5);
    EXPECT_GT(run.coarsened, 5);
    EXPECT_LT(run.least, run.most);
    if (named.value != dg::Strategy::colored) continue;
#ifdef _OPENMP
    // Colored is deterministic: bitwise the same on one thread as on two, flags and meshes included.
    const int threads = omp_get_max_threads();
    omp_set_num_threads(threads == 1 ? 2 : 1);
    const VortexRun other = adaptive_vortex(named.value);
    omp_set_num_threads(threads);
    ASSERT_EQ(other.solution.size(), run.solution.size());
    EXPECT_TRUE(std::equal(run.solution.begin(), run.solution.end(), other.solution.begin()));
#endif
  }
}

/// Prints the study's table and asks the finest pair of meshes for a rate of at least `least`.
template <int P>
void check_adapted_convergence(int n, int levels, double least) {
  constexpr double end = 1.0;
  const std::vector<test::AdaptedVortexError> rows = test::adapted_vortex_errors(P, n, levels, end);
  test::print_adapted_table(P, n, end, rows);
  for (const auto& row : rows) EXPECT_GT(row.hanging_faces, 0);
  EXPECT_GE(test::adapted_rate(rows, rows.size() - 1), least) << "p = " << P;
}

TEST(AdaptiveRun, TheVortexConvergesAtOrderPPlusOneOnRandom1IrregularMeshes) {
  // Hanging faces must not cost accuracy: rates of p + 1 under uniform refinement of a randomly refined mesh.
  // At these sizes (about 25 s on 2 threads) p = 1 and 2 reach p + 0.8 (1.99 and 2.93); p = 3 and 4 are still
  // below their asymptotic rate (3.68 and 4.47) as on conforming grids of the same size, and reach p + 0.8 a mesh
  // further (3.99 from 8 x 8, 4.81 from 4 x 4): bench/vortex_convergence.sh adapted, docs/theory.md.
  check_adapted_convergence<1>(8, 3, 1.8);
  check_adapted_convergence<2>(8, 2, 2.8);
  check_adapted_convergence<3>(4, 3, 3.45);
  check_adapted_convergence<4>(8, 2, 4.45);
}

/// Sod's states on the periodic unit square (two Riemann problems, at x = 0.5 and where the ends meet), p = 2,
/// refined two levels where the density jumps and adapted every 5 steps to t = 0.1, with the shock capturing that
/// `configure(solver)` sets. After each step, `count(solver, leaves)` counts what the test looks for on the
/// present leaves. Checks that the run conserves to round-off and that hanging faces appear; returns the steps and
/// the least and largest cell-average density at the end.
struct AdaptiveSod {
  int steps = 0;
  double lowest = 1e300, highest = -1e300;
};
template <class Configure, class Count>
AdaptiveSod run_adaptive_sod(Configure&& configure, Count&& count) {
  const Mesh start = adapt_start(periodic_grid_mesh(16, 1.0, 0.0));
  adapt::TriangleForest forest(start, Backend::cpu, 2);
  dg::EulerDG<2, double, euler::Flux::hll, FixedState> solver(forest, gamma_air, ghost(), dg::Strategy::colored);
  configure(solver);
  solver.set_positivity_limiter(1e-12);
  adapt::AdaptCriteria criteria;
  criteria.indicator = adapt::Indicator::density_jump;
  criteria.refine_above = 0.05, criteria.coarsen_below = 0.02, criteria.buffer = 1;
  solver.project(sod);
  AdaptiveSod run;
  for (int level = 0; level < 2; ++level) {
    solver.flag_adaptation(criteria, forest);
    EXPECT_TRUE(forest.adapt(adapt::Check::colors).valid());
    solver.remesh(forest);
    solver.project(sod);
  }
  const std::array<double, nv> before = totals(solver);
  index_t hanging = 0;
  adapt::LeafMesh leaves = forest.to_host();
  while (solver.time() < 0.1 - 1e-12) {
    solver.step(dg::Integrator::ssprk3, std::min(solver.stable_dt(0.5), 0.1 - solver.time()));
    count(solver, leaves);
    if (++run.steps % 5 != 0) continue;
    solver.flag_adaptation(criteria, forest);
    const adapt::AdaptReport report = forest.adapt(adapt::Check::colors);
    EXPECT_TRUE(report.valid());
    hanging = std::max(hanging, report.hanging_faces);
    solver.remesh(forest);
    leaves = forest.to_host();
  }
  EXPECT_GT(hanging, 0);
  const std::array<double, nv> after = totals(solver);
  for (int v = 0; v < nv; ++v)
    EXPECT_NEAR(after[v], before[v], 1e-13 * std::max(std::abs(before[v]), std::abs(before[euler::density]))) << "variable " << v;
  const std::vector<double>& c = solver.solution();
  for (index_t e = 0; e < solver.num_elements(); ++e)
    run.lowest = std::min(run.lowest, c[e] * dg::mode0_value), run.highest = std::max(run.highest, c[e] * dg::mode0_value);
  return run;
}

/// Whether face f of the leaves is a hanging face.
bool is_hanging(const adapt::LeafMesh& leaves, index_t f) {
  return leaves.face_left_half[f] != whole_edge || leaves.face_right_half[f] != whole_edge;
}

TEST(AdaptiveRun, TheEntropyFilterCapturesSodOnAnAdaptingMesh) {
  // run_adaptive_sod with the entropy filter. The filter reads both halves of each split edge for its bounds and
  // the new leaves start unfiltered: the run conserves to round-off, the filter acts on leaves next to hanging
  // faces, and no cell average leaves the initial density range by more than the density bound's tolerance below
  // or 2 % above.
  long filtered_at_hanging = 0;
  const AdaptiveSod run = run_adaptive_sod([](auto& solver) { solver.set_limiter(dg::Limiter::entropy_filter); },
                                           [&](const auto& solver, const adapt::LeafMesh& leaves) {
                                             // Elements the filter damped this step that touch a hanging face.
                                             const std::vector<std::uint8_t> limited = solver.limited_cells();
                                             for (index_t f = 0; f < leaves.num_faces(); ++f)
                                               if (is_hanging(leaves, f) && (limited[leaves.face_left[f]] || limited[leaves.face_right[f]]))
                                                 ++filtered_at_hanging;
                                           });
  EXPECT_GT(filtered_at_hanging, 0);
  std::printf("Sod, p = 2, entropy filter, adapting every 5 steps: %d steps, cell-average density %.5f to %.5f, "
              "%ld filtered elements beside hanging faces over the run\n", run.steps, run.lowest, run.highest, filtered_at_hanging);
  EXPECT_GE(run.lowest, rho_right * (1 - 1e-3));
  EXPECT_LE(run.highest, rho_left * 1.02);
}

/// run_adaptive_sod with subcell blending (no slope limiter), with or without bounds on the subcell averages:
/// conservative to round-off on the adapting mesh, and the blend acts, across hanging faces too (their pieces:
/// for_each_edge_piece). The KXRCF flags that gate the shares, which the surface term's face sums give (both
/// halves of a split edge), are TroubledCells' own on the adapted mesh too. Returns the run.
AdaptiveSod check_adaptive_sod_blend(bool bounds) {
  long blended = 0, blended_at_hanging = 0, bounded_at_hanging = 0, flagged_at_hanging = 0, flags_differing = 0;
  const AdaptiveSod run = run_adaptive_sod(
      [&](auto& solver) {
        solver.set_subcell_blending(dg::default_blending_max(2));
        solver.set_subcell_bounds(bounds);
      },
      [&](auto& solver, const adapt::LeafMesh& leaves) {
        const std::vector<double> beta = solver.blending_shares();  // the last stage's
        const std::vector<std::uint8_t> bounded = solver.subcell_bounded();
        for (const double b : beta) blended += b < 1;
        for (index_t f = 0; f < leaves.num_faces(); ++f) {
          if (!is_hanging(leaves, f)) continue;
          const index_t l = leaves.face_left[f], r = leaves.face_right[f];
          blended_at_hanging += beta[l] < 1 || beta[r] < 1;
          if (bounds) bounded_at_hanging += bounded[l] != 0 || bounded[r] != 0;
        }
        const std::vector<double> c = solver.solution();
        std::vector<double> out(c.size(), 0.0);
        solver.rhs(c, solver.time(), out);
        const std::vector<std::uint8_t> from_sums = solver.last_troubled_cells();
        const std::vector<std::uint8_t> own = solver.troubled_cells(c);
        for (std::size_t e = 0; e < own.size(); ++e) flags_differing += from_sums[e] != own[e];
        for (index_t f = 0; f < leaves.num_faces(); ++f)
          if (is_hanging(leaves, f) && (own[leaves.face_left[f]] || own[leaves.face_right[f]])) ++flagged_at_hanging;
      });
  EXPECT_GT(blended, 0);
  EXPECT_GT(blended_at_hanging, 0) << "no blend beside a hanging face: the pieces across them were not tested";
  if (bounds) {
    EXPECT_GT(bounded_at_hanging, 0);
  }
  EXPECT_EQ(flags_differing, 0);
  EXPECT_GT(flagged_at_hanging, 0) << "no flag beside a hanging face: the split edges' sums were not tested";
  std::printf("Sod, p = 2, subcell blending%s, adapting every 5 steps: %d steps, cell-average density %.5f to %.5f, "
              "%ld element-steps blended, %ld face-steps blending beside hanging faces\n",
              bounds ? " with bounds" : "", run.steps, run.lowest, run.highest, blended, blended_at_hanging);
  return run;
}

TEST(AdaptiveRun, SubcellBlendingCapturesSodOnAnAdaptingMesh) {
  const AdaptiveSod run = check_adaptive_sod_blend(false);
  EXPECT_GE(run.lowest, rho_right * 0.98);
  EXPECT_LE(run.highest, rho_left * 1.02);
}

TEST(AdaptiveRun, BoundedSubcellBlendingCapturesSodOnAnAdaptingMesh) {
  // Under bounds the cell averages stay within the data's range (their subcells' too, which the bounds watch).
  const AdaptiveSod run = check_adaptive_sod_blend(true);
  EXPECT_GE(run.lowest, rho_right * (1 - 1e-3));
  EXPECT_LE(run.highest, rho_left * (1 + 1e-3));
}

}  // namespace
}  // namespace kempe
