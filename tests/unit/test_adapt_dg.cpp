// The DG solver on adapted meshes with hanging faces (kernels/dg_K.hpp, kernels/limiter_K.hpp on the tables of
// adapt/dg_tables.hpp), on the CPU backend: a free stream stays free on random 1-irregular meshes at every
// order with every race strategy; the strategies agree and conserve to round-off (the coarse side of a hanging
// face receives exactly the flux the fine side gives); a continuous state has one trace on both sides of every
// face, halves included, so every consistent flux gives the same right-hand side, the troubled-cell indicator
// sees no jump and the moment limiter leaves a linear state alone. The solution follows an adaptation: the
// child matrices are exact and conservative, a linear state carries over exactly, mass is conserved, and
// refining everything and coarsening it back returns the coefficients. The subcell blend, bounded or not, keeps a
// free stream and conserves across hanging faces, and the bounded blend's CPU lanes give its one-element values
// beside them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "adapt_fixtures.hpp"
#include "dg_cases.hpp"
#include "kernels/child_transfer.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/triangle.hpp"
#include "subcell_lanes.hpp"

namespace kempe {
namespace {

using test::adapt_start;
using test::totals;
using test::FixedState;
using test::gamma_air;

constexpr int nv = euler::num_vars;

/// A forest of `mesh` after random cycles that leave hanging faces (at most level 3).
adapt::TriangleForest hanging_forest(const Mesh& mesh, std::uint64_t seed) {
  adapt::TriangleForest forest(mesh, Backend::cpu, 3);
  index_t hanging = 0;
  for (int cycle = 0; cycle < 4 || hanging == 0; ++cycle) {
    forest.flag_random(0.3, 0.15, seed, cycle);
    const adapt::AdaptReport report = forest.adapt();
    EXPECT_TRUE(report.valid());
    hanging = report.hanging_faces;
    if (cycle > 20) break;
  }
  EXPECT_GT(hanging, 0) << mesh.source;
  return forest;
}

/// The L2 projection of state(x, y, out) on the forest's leaves at order P, c[var][mode][element], with the
/// solver's own volume rule (what EulerDG::project computes on a Mesh).
template <int P, class State>
std::vector<double> project(const adapt::TriangleForest& forest, State&& state) {
  const adapt::LeafMesh leaves = forest.to_host();
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const index_t k = leaves.num_elements();
  const int nm = op.num_modes;
  std::vector<double> c(std::size_t(nv) * nm * k, 0.0);
  for (index_t e = 0; e < k; ++e) {
    std::array<double, 3> x, y;
    for (int j = 0; j < 3; ++j) x[j] = leaves.x[leaves.element_vertices[3 * e + j]], y[j] = leaves.y[leaves.element_vertices[3 * e + j]];
    for (int q = 0; q < op.num_volume_points; ++q) {
      const auto [px, py] = dg::triangle_point(x, y, op.volume_r[q], op.volume_s[q]);
      double u[nv];
      state(px, py, u);
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nm; ++m)
          c[(std::size_t(v) * nm + m) * k + e] += op.volume_weight[q] * op.volume_basis[std::size_t(q) * nm + m] * u[v];
    }
  }
  return c;
}

/// The free stream's state, also the ghost state on every boundary face.
struct Stream {
  double u[nv];
  Stream() { euler::conserved(1.2, 0.3, -0.2, 0.9, gamma_air, u); }
  FixedState ghost() const { return {{u[0], u[1], u[2], u[3]}}; }
  void operator()(double, double, double* out) const { std::copy(u, u + nv, out); }
};

template <int P>
void check_free_stream(const adapt::TriangleForest& forest) {
  const Stream stream;
  const std::vector<double> c = project<P>(forest, stream);
  for (const auto& named : dg::strategies) {
    dg::EulerDG<P, double, euler::Flux::hllc, FixedState> solver(forest, gamma_air, stream.ghost(), named.value);
    std::vector<double> rhs(c.size());
    solver.rhs(c, 0, rhs);
    double largest = 0;
    for (double r : rhs) largest = std::max(largest, std::abs(r));
    // As on conforming meshes (test_dg.cpp): relative to the terms that cancel, which grow like (P + 1)^2.
    EXPECT_LT(largest, 1e-12 * (P + 1) * (P + 1)) << "p = " << P << ", " << named.name;
  }
}

template <int... P>
void check_free_stream_orders(const adapt::TriangleForest& forest, std::integer_sequence<int, P...>) {
  (check_free_stream<P>(forest), ...);
}

TEST(AdaptedDG, FreeStreamIsPreservedOnHangingFacesAtEveryOrderByEveryStrategy) {
  const Mesh meshes[] = {adapt_start(grid_mesh(6, 1.0, 0.25, 3)), adapt_start(periodic_grid_mesh(6, 1.0, 0.2))};
  for (const Mesh& mesh : meshes) {
    SCOPED_TRACE(mesh.source);
    const adapt::TriangleForest forest = hanging_forest(mesh, 11);
    check_free_stream_orders(forest, std::make_integer_sequence<int, basis::max_order + 1>{});
  }
}

/// Random coefficients about a positive state: a discontinuous solution, with jumps across every face.
template <int P>
std::vector<double> rough_state(index_t k, std::uint64_t seed) {
  constexpr int nm = basis::num_modes(P);
  const Stream stream;
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> wobble(-0.02, 0.02);
  std::vector<double> c(std::size_t(nv) * nm * k);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nm; ++m)
      for (index_t e = 0; e < k; ++e)
        c[(std::size_t(v) * nm + m) * k + e] = (m == 0 ? stream.u[v] / dg::mode0_value : 0.0) + wobble(random) * std::abs(stream.u[v]);
  return c;
}

/// On a periodic mesh nothing leaves: the mesh integral of every variable's time derivative,
/// sum over elements of |J| dc_0/dt, vanishes to round-off, by every strategy; and the strategies agree.
template <int P>
void check_conservation(const adapt::TriangleForest& forest) {
  constexpr int nm = basis::num_modes(P);
  const index_t k = forest.num_elements();
  const std::vector<double> c = rough_state<P>(k, 5);
  const Stream stream;
  std::vector<double> reference;
  for (const auto& named : dg::strategies) {
    dg::EulerDG<P, double, euler::Flux::roe, FixedState> solver(forest, gamma_air, stream.ghost(), named.value);
    std::vector<double> rhs(c.size());
    solver.rhs(c, 0, rhs);
    if (named.value == dg::Strategy::colored) {
      // From p = 3 the CPU takes each element's volume term with its lowest-colored face (EvalSurface's
      // WithVolume), which on these meshes of 2K colors is not the first color for every element: the bits of
      // the volume pass and the surface term apart.
      std::vector<double> apart(c.size());
      solver.eval_volume(c, apart);
      solver.eval_surface(c, 0, apart);
      EXPECT_EQ(apart, rhs) << "p = " << P;
    }
    const std::vector<double>& jacobian = solver.mesh().jacobian();
    for (int v = 0; v < nv; ++v) {
      double total = 0, size = 0;
      for (index_t e = 0; e < k; ++e) {
        const double term = jacobian[e] * rhs[std::size_t(v) * nm * k + e];
        total += term, size += std::abs(term);
      }
      EXPECT_LT(std::abs(total), 1e-14 * size) << "p = " << P << ", " << named.name << ", variable " << v;
    }
    if (reference.empty()) {
      reference = rhs;
      continue;
    }
    double largest = 0, difference = 0;
    for (std::size_t i = 0; i < rhs.size(); ++i)
      largest = std::max(largest, std::abs(reference[i])), difference = std::max(difference, std::abs(rhs[i] - reference[i]));
    EXPECT_LT(difference, 1e-13 * largest) << "p = " << P << ", " << named.name << " against " << dg::strategies[0].name;
  }
}

TEST(AdaptedDG, HangingFacesConserveAndEveryStrategyAgrees) {
  const adapt::TriangleForest forest = hanging_forest(adapt_start(periodic_grid_mesh(6, 1.0, 0.2)), 23);
  check_conservation<1>(forest);
  check_conservation<2>(forest);
  check_conservation<4>(forest);
}

/// The subcell blend across hanging faces (kernels/subcell_K.hpp: the pieces of for_each_edge_piece), with random
/// shares, first- and second-order subcells and under bounds on the subcell averages, by every strategy: three
/// steps of a free stream leave it as it is (walled mesh, the stream beyond the walls), and three steps of a
/// rough state on the periodic mesh conserve every variable to round-off, the strategies agreeing without bounds.
/// (Under bounds they need not: Zalesak's prelimiting drops a correction whose density runs downhill, all of its
/// variables, so a correction whose density nearly vanishes is kept or dropped by rounding; perturbing this
/// rough state by 1e-14 changes some elements by 1e-4, on conforming faces as on hanging ones.)
template <int P>
void check_blend_across_hanging_faces(const adapt::TriangleForest& walled, const adapt::TriangleForest& periodic) {
  const Stream stream;
  auto random_shares = [](index_t k, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> share(0, 1);
    std::vector<double> alpha(k);
    for (double& a : alpha) a = share(rng);
    return alpha;
  };
  struct Setting {
    int subcell_order;
    bool bounds;
  };
  for (const Setting setting : {Setting{1, false}, Setting{2, false}, Setting{1, true}}) {
    std::vector<double> reference;
    for (const auto& named : dg::strategies) {
      SCOPED_TRACE("p = " + std::to_string(P) + ", " + std::string(named.name) + ", subcell order " +
                   std::to_string(setting.subcell_order) + (setting.bounds ? ", bounds" : ""));
      {
        dg::EulerDG<P, double, euler::Flux::hllc, FixedState> solver(walled, gamma_air, stream.ghost(), named.value);
        solver.project(stream);
        solver.set_subcell_bounds(setting.bounds);
        solver.set_blending_shares(random_shares(walled.num_elements(), 7), setting.subcell_order);
        const std::vector<double> start = solver.solution();
        for (int s = 0; s < 3; ++s) solver.step(dg::Integrator::ssprk3, 1e-3);
        double worst = 0;
        for (std::size_t i = 0; i < start.size(); ++i) worst = std::max(worst, std::abs(solver.solution()[i] - start[i]));
        EXPECT_LT(worst, 1e-13);
      }
      dg::EulerDG<P, double, euler::Flux::hllc, FixedState> solver(periodic, gamma_air, stream.ghost(), named.value);
      solver.set_solution(rough_state<P>(periodic.num_elements(), 5));
      solver.set_subcell_bounds(setting.bounds);
      solver.set_blending_shares(random_shares(periodic.num_elements(), 8), setting.subcell_order);
      const std::array<double, nv> before = totals(solver);
      for (int s = 0; s < 3; ++s) solver.step(dg::Integrator::ssprk3, solver.stable_dt(0.5));
      const std::array<double, nv> after = totals(solver);
      for (int v = 0; v < nv; ++v)
        EXPECT_NEAR(after[v], before[v], 1e-14 * std::max(std::abs(before[v]), std::abs(before[euler::density]))) << "variable " << v;
      if (setting.bounds) continue;
      if (reference.empty()) {
        reference = solver.solution();
        continue;
      }
      double difference = 0;
      for (std::size_t i = 0; i < reference.size(); ++i) difference = std::max(difference, std::abs(solver.solution()[i] - reference[i]));
      EXPECT_LT(difference, 1e-13);
    }
  }
}

TEST(AdaptedDG, TheSubcellBlendKeepsAFreeStreamAndConservesAcrossHangingFaces) {
  const adapt::TriangleForest walled = hanging_forest(adapt_start(grid_mesh(6, 1.0, 0.25, 3)), 11);
  const adapt::TriangleForest periodic = hanging_forest(adapt_start(periodic_grid_mesh(6, 1.0, 0.2)), 23);
  check_blend_across_hanging_faces<1>(walled, periodic);
  check_blend_across_hanging_faces<2>(walled, periodic);
  check_blend_across_hanging_faces<3>(walled, periodic);
  check_blend_across_hanging_faces<5>(walled, periodic);
}

/// The CPU's lanes of the bounded blend (SubcellBoundedBlend::lanes_of: eight listed elements at once, on the face
/// points' pieces of conforming faces) on a mesh with hanging faces: a block that holds an element beside a
/// hanging face runs one element at a time, the others in lanes, and either way the pieces' shares and the rates
/// are the one-element path's bit for bit. Random fluxes and neighbour densities at every piece (all
/// subcell_face_slots of a face), so that the bounds cut some shares; the list puts the elements away from
/// hanging faces first, so that whole blocks of them run in lanes, then a mixed block, then blocks beside them.
template <int P>
void expect_bounded_lanes_on_hanging_faces(const adapt::TriangleForest& forest) {
  constexpr int nq = P + 1, ns = dg::subcell_face_slots(P);
  using Blend = dg::SubcellBoundedBlend<P, double>;
  constexpr int W = Blend::cpu_list_lanes;
  dg::DGMesh<double> tables{Backend::cpu};
  tables.rebuild(forest);
  const auto& view = tables.view();
  const index_t k = tables.num_elements(), nf = tables.num_faces();
  std::vector<std::uint8_t> touching(k);
  forall(Backend::cpu, k, dg::TouchesHangingFace<double>{view.element_faces, view.faces, touching.data()});
  std::mt19937 rng(90 + P);
  std::uniform_real_distribution<double> unit(-1, 1), share(0.5, 1);
  const std::vector<double> c = rough_state<P>(k, 13 + P);
  std::vector<double> rate(c.size()), beta(k);
  for (double& r : rate) r = 20 * unit(rng);
  std::vector<std::uint8_t> bounded(k);
  std::vector<index_t> away, beside;
  for (index_t e = 0; e < k; ++e) {
    beta[e] = rng() % 3 == 0 ? 1.0 : share(rng);
    bounded[e] = rng() % 4 != 0 ? 1 : 0;
    if (bounded[e] != 0) (touching[e] != 0 ? beside : away).push_back(e);
  }
  ASSERT_GE(away.size(), std::size_t(2 * W)) << "p = " << P << ": whole blocks of elements away from hanging faces";
  ASSERT_GE(beside.size(), std::size_t(2 * W)) << "p = " << P << ": blocks of elements beside them";
  if (away.size() % W == 0) away.pop_back();  // so that one block holds both kinds
  std::vector<index_t> list = away;
  list.insert(list.end(), beside.begin(), beside.end());
  std::vector<double> high(std::size_t(nv) * nq * nf), low(std::size_t(nv) * ns * nf), side(2 * std::size_t(ns) * nf);
  for (double& h : high) h = 10 * unit(rng);
  for (double& l : low) l = 10 * unit(rng);
  for (double& x : side) x = 1 + 0.5 * unit(rng);  // about the state's density (1)
  const dg::SubcellOperators ops = dg::subcell_operators(P);
  dg::SubcellTables<double> s{ops.average.data(),          ops.modes_from_averages.data(), ops.cell_area.data(),
                              ops.dual_face_normal.data(), ops.dual_face_cells.data(),     ops.face_point_cell.data(),
                              ops.dual_face_basis.data(),  ops.dual_flux_from_outflow.data(), 1};
  s.hanging_count = ops.hanging_count.data(), s.hanging_point = ops.hanging_point.data();
  s.hanging_coarse = ops.hanging_coarse.data(), s.hanging_length = ops.hanging_length.data();
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const dg::Tables<double> t{op.volume_weight.data(), op.volume_basis.data(), op.volume_grad_r.data(), op.volume_grad_s.data(),
                             op.face_weight.data(),   op.face_abscissa.data(), op.face_basis.data(),    op.face_half_basis.data()};
  const double step = 2e-3;
  std::vector<double> factor(2 * std::size_t(ns) * nf, -1.0);
  auto blend = [&](std::vector<double>& rhs, std::vector<double>& shares, bool rates) {
    return Blend{k,           nf,          gamma_air,     c.data(),   rhs.data(),    view.element_faces, beta.data(),
                 bounded.data(), t,         s,             view.geometry, view.faces, high.data(),        low.data(),
                 side.data(), shares.data(), &step,        rates,      view.element_half_faces, touching.data()};
  };
  ASSERT_NO_FATAL_FAILURE(test::expect_lanes_as_single_elements<Blend>(list, rate, factor, blend, P));
  // The bounds acted on both kinds of face: some pieces' shares are cut below their face's, on hanging faces too.
  int cut = 0, cut_hanging = 0;
  for (index_t f = 0; f < nf; ++f)
    for (int i = 0; i < 2 * ns; ++i) {
      const double a = factor[std::size_t(i) * nf + f];
      if (a < 0 || !(a < dg::face_share(view.faces, beta.data(), f))) continue;  // not written, or not cut
      ++cut;
      if (dg::is_hanging(view.faces, f)) ++cut_hanging;
    }
  EXPECT_GT(cut, cut_hanging) << "p = " << P;
  EXPECT_GT(cut_hanging, 0) << "p = " << P;
}

TEST(AdaptedDG, TheBoundedBlendsLanesAreItsSingleElementsBesideHangingFaces) {
  const adapt::TriangleForest forest = hanging_forest(adapt_start(grid_mesh(8, 1.0, 0.25, 3)), 17);
  expect_bounded_lanes_on_hanging_faces<1>(forest);
  expect_bounded_lanes_on_hanging_faces<2>(forest);
  expect_bounded_lanes_on_hanging_faces<3>(forest);
  expect_bounded_lanes_on_hanging_faces<5>(forest);
}

/// A linear state: continuous, so both sides of every face, halves included, have the same trace.
struct Linear {
  void operator()(double x, double y, double* out) const {
    const double rho = 1.0 + 0.3 * x - 0.2 * y, vx = 0.4, vy = -0.1, p = 1.0 + 0.1 * x + 0.25 * y;
    euler::conserved(rho, vx, vy, p, gamma_air, out);
    // Momentum and energy as linear fields too (a linear density times a constant velocity is linear).
    out[euler::energy] = 2.5 + 0.5 * x + 0.3 * y;
  }
};

/// Elements with no boundary face (their right-hand side sees interior traces only).
template <class Solver>
std::vector<index_t> interior_elements(const Solver& solver) {
  const auto& t = solver.mesh().view();
  std::vector<index_t> inside;
  for (index_t e = 0; e < solver.num_elements(); ++e) {
    bool boundary = false;
    for (int j = 0; j < 3; ++j) boundary = boundary || t.element_neighbors[3 * e + j] == no_element;
    if (!boundary) inside.push_back(e);
  }
  return inside;
}

template <int P>
void check_one_trace(const adapt::TriangleForest& forest) {
  constexpr int nm = basis::num_modes(P);
  const std::vector<double> c = project<P>(forest, Linear{});
  const Stream stream;
  dg::EulerDG<P, double, euler::Flux::rusanov, FixedState> rusanov(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  dg::EulerDG<P, double, euler::Flux::hllc, FixedState> hllc(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  const index_t k = forest.num_elements();
  const std::vector<index_t> inside = interior_elements(rusanov);
  ASSERT_FALSE(inside.empty());
  // The largest difference between the two fluxes' right-hand sides on the interior elements.
  auto flux_difference = [&](const std::vector<double>& state) {
    std::vector<double> a(state.size()), b(state.size());
    rusanov.rhs(state, 0, a);
    hllc.rhs(state, 0, b);
    double difference = 0;
    for (int vm = 0; vm < nv * nm; ++vm)
      for (index_t e : inside) difference = std::max(difference, std::abs(a[std::size_t(vm) * k + e] - b[std::size_t(vm) * k + e]));
    return difference;
  };
  // Against a state with jumps (where the fluxes differ by their dissipation): rounding only.
  const double continuous = flux_difference(c), rough = flux_difference(rough_state<P>(k, 3));
  EXPECT_LT(continuous, 1e-9 * rough) << "p = " << P << ": Rusanov and HLLC differ, so some face sees two traces";

  // No jump, so no troubled cell; and a linear state's slopes match its neighbours' differences exactly, so
  // the moment limiter, applied everywhere, changes nothing.
  hllc.set_limiter(dg::Limiter::moment, 2.0, false);
  const std::vector<std::uint8_t>& troubled = hllc.troubled_cells(c);
  EXPECT_EQ(std::count(troubled.begin(), troubled.end(), std::uint8_t(1)), 0) << "p = " << P;
  std::vector<double> limited = c;
  hllc.limit_slopes(limited);
  double change = 0, size = 0;
  for (std::size_t i = 0; i < c.size(); ++i) change = std::max(change, std::abs(limited[i] - c[i])), size = std::max(size, std::abs(c[i]));
  EXPECT_LT(change, 1e-12 * size) << "p = " << P << ": the moment limiter changed a linear state";
}

TEST(AdaptedDG, AContinuousStateHasOneTraceOnBothSidesOfHangingFaces) {
  const adapt::TriangleForest forest = hanging_forest(adapt_start(grid_mesh(6, 1.0, 0.25, 3)), 31);
  check_one_trace<1>(forest);
  check_one_trace<2>(forest);
  check_one_trace<3>(forest);
}

/// Coefficients [vars][modes][elements] of P-th order states: each element's mean state from
/// state(e, unit, mean) (unit: a draw in [-1, 1]), which returns the size, relative to |mean|, of its higher
/// modes, drawn at random.
template <class State>
std::vector<double> random_modes(index_t k, int nm, std::uint64_t seed, State&& state) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  auto unit = [&] { return draw(rng); };
  std::vector<double> c(std::size_t(nv) * nm * k);
  for (index_t e = 0; e < k; ++e) {
    double mean[nv];
    const double spread = state(e, unit, mean);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m)
        c[std::size_t(v * nm + m) * k + e] = m == 0 ? mean[v] / dg::mode0_value : spread * std::abs(mean[v]) * unit();
  }
  return c;
}

/// The troubled-cell pass on `tables` with op's face tables, flagging into `out`.
template <int P>
dg::TroubledCells<P, double> troubled_cells(const dg::DGMesh<double>& tables, const dg::TriangleOperators& op, const double* c,
                                            std::uint8_t* out) {
  const auto& t = tables.view();
  return dg::TroubledCells<P, double>{tables.num_elements(), t.element_faces, t.faces.left, t.faces.right, t.faces.left_local,
                                      t.faces.right_local, t.faces.normal_x, t.faces.normal_y, t.faces.length,
                                      op.face_weight.data(), op.face_basis.data(), t.circumradius, c, out,
                                      op.face_half_basis.data(), t.faces.left_half, t.faces.right_half, t.element_half_faces};
}

/// The flags of `flags` through the CPU's paths, each against `expected`: block() over every whole block (the
/// CPU's path up to p = 2; from p = 3 it is not used, and checked all the same) with operator() for the rest,
/// forall_cpu as the solver runs it, and operator() one element at a time.
template <int P>
void expect_every_path_flags(dg::TroubledCells<P, double> flags, index_t k, const std::vector<std::uint8_t>& expected) {
  std::vector<std::uint8_t> blocks(k, 2), solver_path(k, 2), single(k, 2);
  flags.troubled = blocks.data();
  constexpr index_t width = dg::TroubledCells<P, double>::block_width;
  for (index_t first = 0; first + width <= k; first += width) flags.block(first);
  for (index_t e = k / width * width; e < k; ++e) flags(e);
  flags.troubled = solver_path.data();
  forall_cpu(k, flags);
  flags.troubled = single.data();
  for (index_t e = 0; e < k; ++e) flags(e);
  EXPECT_EQ(blocks, expected);
  EXPECT_EQ(solver_path, expected);
  EXPECT_EQ(single, expected);
}

/// The CPU flags troubled cells eight elements at a time (TroubledCells::block), the inflow test selected rather
/// than branched on: the flags are operator()'s one element at a time, bit for bit, on `tables` with states that
/// jump from element to element (so that the inflow points and the flags change from lane to lane). Returns the
/// number of elements flagged.
template <int P>
index_t expect_troubled_blocks_as_single_elements(const dg::DGMesh<double>& tables, std::uint64_t seed) {
  SCOPED_TRACE("p = " + std::to_string(P));
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const index_t k = tables.num_elements();
  const std::vector<double> c = random_modes(k, op.num_modes, seed, [](index_t e, auto& unit, double* mean) {
    euler::conserved(3 + 2 * unit(), 2 * unit(), 2 * unit(), 5 + 4 * unit(), gamma_air, mean);
    return e % 3 == 0 ? 0.0 : e % 3 == 1 ? 1e-4 : 0.2;
  });
  std::vector<std::uint8_t> single(k, 2);
  const dg::TroubledCells<P, double> flags = troubled_cells<P>(tables, op, c.data(), single.data());
  for (index_t e = 0; e < k; ++e) flags(e);
  expect_every_path_flags(flags, k, single);
  return index_t(std::count(single.begin(), single.end(), std::uint8_t(1)));
}

/// TroubledCells with its mode bounds (the solver's pass) skips the elements whose means and deviation bounds
/// show that they cannot be troubled: the flags must be those of the whole pass bit for bit, through block(),
/// forall_cpu and operator(), and every element it skips must have a KXRCF ratio of at most 1 (the ratio path
/// evaluates every element). The density: uniform up to x = 0.35, then a smooth wave with a jump across x = 0.65,
/// its higher modes of four sizes (0 to 0.03 of the mean), so that ratios fall on both sides of 1 and close to
/// it. In the uniform part the bounds decide what the higher modes allow. Returns how many elements they decided.
template <int P>
index_t expect_bounded_flags_as_whole_pass(const dg::DGMesh<double>& tables, std::uint64_t seed) {
  SCOPED_TRACE("p = " + std::to_string(P));
  const auto& t = tables.view();
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const int nm = op.num_modes;
  const index_t k = tables.num_elements();
  const std::vector<double> c = random_modes(k, nm, seed, [&t](index_t e, auto&, double* mean) {
    const index_t f0 = t.element_faces[3 * e];  // a point of the element: its first face's middle
    const double x = 0.5 * (t.faces.x0[f0] + t.faces.x1[f0]), y = 0.5 * (t.faces.y0[f0] + t.faces.y1[f0]);
    const double wave = x < 0.35 ? 0.0 : 1.0;  // a uniform state, then a smooth wave
    const double rho = 1.0 + wave * 0.2 * std::sin(3 * x + 2 * y) + (x > 0.65 ? 1.5 : 0.0);
    euler::conserved(rho, 1.0 + wave * 0.3 * std::cos(2 * y), wave * 0.4 * std::sin(4 * x), 2.0, gamma_air, mean);
    // In the uniform part the size follows y (so that neighbours share it), elsewhere it changes every few elements.
    const double sizes[] = {0.0, 1e-7, 1e-3, 3e-2};
    return sizes[x < 0.35 ? std::min(3, int(4 * y)) : (e / 5) % 4];
  });
  const std::vector<double> bound = dg::kxrcf_mode_bounds(op.face_basis, op.face_half_basis, nm);
  std::vector<std::uint8_t> whole(k, 2);
  std::vector<double> ratio(k, -1.0);
  dg::TroubledCells<P, double> flags = troubled_cells<P>(tables, op, c.data(), whole.data());
  for (index_t e = 0; e < k; ++e) flags(e);
  flags.ratio = ratio.data();
  for (index_t e = 0; e < k; ++e) flags(e);
  flags.ratio = nullptr;
  flags.mode_bound = bound.data();
  flags.element_neighbors = t.element_neighbors, flags.element_half_neighbors = t.element_half_neighbors;
  expect_every_path_flags(flags, k, whole);
  index_t decided = 0, flagged = 0, near = 0;
  for (index_t e = 0; e < k; ++e) {
    flagged += whole[e];
    near += ratio[e] > 0.5 && ratio[e] < 2.0;
    if (!flags.cannot_be_troubled(e)) continue;
    ++decided;
    EXPECT_LE(ratio[e], 1.0) << "element " << e;
  }
  EXPECT_GT(flagged, 0);
  EXPECT_LT(flagged, k);
  if (P == 1) {
    EXPECT_GT(near, 0) << "ratios close to the threshold";
  }
  std::printf("p = %d, %d elements: %d flagged, %d decided by the bounds\n", P, int(k), int(flagged), int(decided));
  return decided;
}

/// visit(tables, hanging) on the DG tables of an 8 x 8 grid refined at random (hanging_forest, `seed`; hanging
/// true) and of the grid itself.
template <class Visit>
void on_hanging_mesh_and_its_start(std::uint64_t seed, Visit&& visit) {
  const Mesh mesh = adapt_start(grid_mesh(8, 1.0, 0.2, 3));
  const adapt::TriangleForest forest = hanging_forest(mesh, seed);
  dg::DGMesh<double> adapted(Backend::cpu), start(Backend::cpu);
  adapted.rebuild(forest);
  start.rebuild(mesh);
  ASSERT_NE(adapted.view().element_half_faces, nullptr);
  visit(adapted, true);
  visit(start, false);
}

TEST(TroubledCells, TheModeBoundsSkipOnlyElementsThatCannotBeTroubled) {
  on_hanging_mesh_and_its_start(23, [](const dg::DGMesh<double>& tables, bool) {
    const index_t k = tables.num_elements();
    for (const index_t decided : {expect_bounded_flags_as_whole_pass<1>(tables, 5), expect_bounded_flags_as_whole_pass<2>(tables, 6),
                                  expect_bounded_flags_as_whole_pass<3>(tables, 7), expect_bounded_flags_as_whole_pass<5>(tables, 8)}) {
      EXPECT_GT(decided, k / 20) << "the bounds decide a share of the elements";
      EXPECT_LT(decided, k);
    }
  });
}

TEST(TroubledCells, BlocksOfElementsFlagAsSingleElementsOnHangingFaces) {
  on_hanging_mesh_and_its_start(23, [](const dg::DGMesh<double>& tables, bool hanging) {
    const index_t k = tables.num_elements();
    if (hanging) {
      ASSERT_NE(k % 8, 0) << "a last block shorter than eight, through operator()";
    }
    for (const index_t flagged : {expect_troubled_blocks_as_single_elements<1>(tables, 1),
                                  expect_troubled_blocks_as_single_elements<2>(tables, 2),
                                  expect_troubled_blocks_as_single_elements<3>(tables, 3)}) {
      EXPECT_GT(flagged, 0);
      EXPECT_LT(flagged, k);
    }
  });
}

/// The parent's polynomial at point (r, s) of child c's reference triangle, and child c's (coefficients
/// prolongation[c] a) at the same point, agree; restriction after prolongation is the identity; the restricted
/// cell average is the children's mean.
TEST(ChildTransfer, ProlongationIsExactAndRestrictionUndoesIt) {
  for (int p = 0; p <= basis::max_order; ++p) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const dg::ChildTransfer t = dg::child_transfer(p);
    const int nm = t.num_modes;
    std::mt19937_64 random(p);
    std::uniform_real_distribution<double> coefficient(-1, 1);
    std::vector<double> a(nm);
    for (double& x : a) x = coefficient(random);
    const quad::Rule rule = quad::triangle_rule(quad::max_triangle_degree);
    std::vector<double> identity(std::size_t(nm) * nm, 0.0);
    double mean = 0;
    for (int c = 0; c < 4; ++c) {
      const double* prolong = t.prolongation.data() + std::size_t(c) * nm * nm;
      const double* restrict_c = t.restriction.data() + std::size_t(c) * nm * nm;
      std::vector<double> child(nm, 0.0);
      for (int i = 0; i < nm; ++i)
        for (int j = 0; j < nm; ++j) child[i] += prolong[i * nm + j] * a[j];
      mean += child[0] / 4;
      const auto v = dg::child_vertices(c);
      for (int q = 0; q < rule.size(); ++q) {
        const double wa = -(rule.r[q] + rule.s[q]) / 2, wb = (1 + rule.r[q]) / 2, wc = (1 + rule.s[q]) / 2;
        const double r = wa * v[0][0] + wb * v[1][0] + wc * v[2][0], s = wa * v[0][1] + wb * v[1][1] + wc * v[2][1];
        double parent_value = 0, child_value = 0;
        for (int m = 0; m < nm; ++m) parent_value += a[m] * basis::mode(m, r, s), child_value += child[m] * basis::mode(m, rule.r[q], rule.s[q]);
        ASSERT_NEAR(child_value, parent_value, 1e-13) << "child " << c << ", point " << q;
      }
      for (int i = 0; i < nm; ++i)
        for (int j = 0; j < nm; ++j)
          for (int k = 0; k < nm; ++k) identity[std::size_t(i) * nm + j] += restrict_c[i * nm + k] * prolong[k * nm + j];
    }
    for (int i = 0; i < nm; ++i)
      for (int j = 0; j < nm; ++j) EXPECT_NEAR(identity[std::size_t(i) * nm + j], i == j ? 1.0 : 0.0, 1e-14) << i << ", " << j;
    EXPECT_NEAR(mean, a[0], 1e-15);
  }
  EXPECT_THROW(dg::child_transfer(basis::max_order + 1), std::invalid_argument);
}

template <int P>
void check_remesh(const Mesh& start) {
  SCOPED_TRACE("p = " + std::to_string(P));
  adapt::TriangleForest forest(start, Backend::cpu, 3);
  const Stream stream;
  dg::EulerDG<P, double, euler::Flux::roe, FixedState> solver(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  // Everything refined, then coarsened back: the same leaves and the same coefficients.
  solver.set_solution(rough_state<P>(solver.num_elements(), 7));
  const std::vector<double> start_state = solver.solution();
  const index_t start_elements = solver.num_elements();
  forest.flag_all(true, false);
  ASSERT_TRUE(forest.adapt().valid());
  solver.remesh(forest);
  ASSERT_GT(solver.num_elements(), start_elements);
  forest.flag_all(false, true);
  ASSERT_TRUE(forest.adapt().valid());
  solver.remesh(forest);
  ASSERT_EQ(solver.num_elements(), start_elements);
  const std::vector<double>& back = solver.solution();
  double difference = 0, size = 0;
  for (std::size_t i = 0; i < back.size(); ++i)
    difference = std::max(difference, std::abs(back[i] - start_state[i])), size = std::max(size, std::abs(start_state[i]));
  EXPECT_LT(difference, 1e-14 * size);
  // A linear state is a polynomial on every leaf before and after (from p = 1): the transfer carries it exactly.
  solver.set_solution(project<P>(forest, Linear{}));
  for (int cycle = 0; cycle < 4; ++cycle) {
    forest.flag_random(0.3, 0.3, 41, cycle);
    ASSERT_TRUE(forest.adapt().valid());
    solver.remesh(forest);
    ASSERT_EQ(solver.num_elements(), forest.num_elements());
    if constexpr (P == 0) continue;
    const std::vector<double> expected = project<P>(forest, Linear{});
    const std::vector<double>& c = solver.solution();
    ASSERT_EQ(c.size(), expected.size());
    double error = 0;
    for (std::size_t i = 0; i < c.size(); ++i) error = std::max(error, std::abs(c[i] - expected[i]));
    EXPECT_LT(error, 1e-13) << "cycle " << cycle;
  }
  // A rough state keeps its mesh integrals through random adaptations, to round-off.
  solver.set_solution(rough_state<P>(solver.num_elements(), 9));
  const std::array<double, nv> before = totals(solver);
  for (int cycle = 4; cycle < 8; ++cycle) {
    forest.flag_random(0.3, 0.3, 41, cycle);
    ASSERT_TRUE(forest.adapt().valid());
    solver.remesh(forest);
    const std::array<double, nv> after = totals(solver);
    for (int v = 0; v < nv; ++v) EXPECT_NEAR(after[v], before[v], 1e-14 * std::abs(before[v])) << "cycle " << cycle << ", variable " << v;
  }
  // A step on the adapted mesh goes, and a solver that did not follow an adaptation is refused.
  solver.step(dg::Integrator::ssprk3, 1e-4);
  forest.flag_random(0.2, 0.0, 43, 99);
  forest.adapt();
  forest.flag_random(0.2, 0.0, 43, 100);
  forest.adapt();
  EXPECT_THROW(solver.remesh(forest), std::logic_error);
}

/// On a mesh with hanging faces, the slope limiters of the troubled elements only (their Taylor coefficients and
/// vertex bounds computed only where those elements read them: around their vertices, or at them and their face
/// neighbours, the second neighbour across a split edge included) give each troubled element what the limiter of
/// every element gives it, bit for bit, and leave the others alone.
template <int P>
void expect_troubled_limited_as_by_the_whole_limiter(const adapt::TriangleForest& forest, dg::Limiter limiter) {
  SCOPED_TRACE("p = " + std::to_string(P) + (limiter == dg::Limiter::vertex ? ", vertex" : ", moment"));
  const Stream stream;
  const std::vector<double> start = project<P>(forest, [](double x, double y, double* u) {
    const bool left = x - 0.2 * y < 0.45;  // a step across the elements, hanging faces on both sides of it
    euler::conserved(left ? 1.0 : 0.2, 0.3, -0.1, left ? 1.0 : 0.15, gamma_air, u);
  });
  dg::EulerDG<P, double, euler::Flux::hll, FixedState> solver(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  const test::TroubledOnlyAgainstWhole result = test::troubled_only_against_whole(solver, limiter, start);
  EXPECT_GT(result.flagged, 0);
  EXPECT_LT(result.flagged, forest.num_elements() / 3);
  EXPECT_EQ(result.differ, 0);
  EXPECT_TRUE(result.changed);
}

TEST(AdaptedDG, TheSlopeLimitersOfTheTroubledElementsGiveThemWhatTheWholeLimitersGive) {
  const adapt::TriangleForest forest = hanging_forest(adapt_start(grid_mesh(10, 1.0, 0.25, 3)), 41);
  for (const dg::Limiter limiter : {dg::Limiter::vertex, dg::Limiter::moment}) {
    expect_troubled_limited_as_by_the_whole_limiter<1>(forest, limiter);
    expect_troubled_limited_as_by_the_whole_limiter<2>(forest, limiter);
  }
}

TEST(AdaptedDG, ThePositivityLimiterPassesOverTheLeavesATransferMade) {
  // Near vacuum, siblings far apart: restriction and prolongation keep the averages, not the point values. Two
  // solvers follow the same adaptations, one with the positivity limiter: kept leaves are bitwise as they were,
  // made leaves (children, coarsened parents) are bitwise the unlimited transfer limited, and some needed it.
  constexpr int P = 2, nm = basis::num_modes(P);
  const Mesh start = adapt_start(periodic_grid_mesh(5, 1.0, 0.2));
  adapt::TriangleForest forest(start, Backend::cpu, 3);
  forest.flag_all(true, false);
  ASSERT_TRUE(forest.adapt().valid());
  const Stream stream;
  using Solver = dg::EulerDG<P, double, euler::Flux::roe, FixedState>;
  Solver limited(forest, gamma_air, stream.ghost(), dg::Strategy::colored), plain(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  constexpr double epsilon = 1e-10;
  limited.set_positivity_limiter(epsilon);
  const index_t k0 = forest.num_elements();
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> exponent(-7, 0), wobble(-1, 1);
  std::vector<double> c(std::size_t(nv) * nm * k0);
  for (index_t e = 0; e < k0; ++e) {
    const double rho = std::exp(exponent(random)), p = std::exp(exponent(random)), u = wobble(random), v = wobble(random);
    const double mean[nv] = {rho, rho * u, rho * v, p / (gamma_air - 1) + rho * (u * u + v * v) / 2};
    for (int q = 0; q < nv; ++q)
      for (int m = 0; m < nm; ++m)
        c[(std::size_t(q) * nm + m) * k0 + e] = m == 0 ? mean[q] / dg::mode0_value : 0.6 * wobble(random) * std::abs(mean[q]);
  }
  limited.limit_positivity(c);  // every leaf admissible to start with
  limited.set_solution(c), plain.set_solution(c);
  bool limiter_acted = false;
  for (int cycle = 0; cycle < 3; ++cycle) {
    const std::vector<double> before = limited.solution();
    forest.flag_random(0.3, 0.6, 11, cycle);
    ASSERT_TRUE(forest.adapt().valid());
    limited.remesh(forest), plain.remesh(forest);
    const adapt::AdaptMap& map = forest.last_adaptation();
    const index_t kn = map.new_elements;
    std::vector<double> expected = plain.solution();
    limited.limit_positivity(expected);
    const std::vector<double>& got = limited.solution();
    std::vector<bool> kept(std::size_t(kn), false);
    for (index_t e = 0; e < map.old_elements; ++e) {
      if (map.delta[e] != 0) continue;
      kept[std::size_t(map.offset[e])] = true;
      for (int vm = 0; vm < nv * nm; ++vm)
        ASSERT_EQ(got[std::size_t(vm) * kn + map.offset[e]], before[std::size_t(vm) * map.old_elements + e]) << "kept leaf " << e;
    }
    for (index_t e = 0; e < kn; ++e)
      for (int vm = 0; vm < nv * nm && !kept[std::size_t(e)]; ++vm)
        ASSERT_EQ(got[std::size_t(vm) * kn + e], expected[std::size_t(vm) * kn + e]) << "cycle " << cycle << ", made leaf " << e;
    for (std::size_t i = 0; i < got.size(); ++i) limiter_acted = limiter_acted || got[i] != plain.solution()[i];
    plain.set_solution(got);
  }
  EXPECT_TRUE(limiter_acted);
}

TEST(AdaptedDG, ARemeshThatFailsAfterTheTransferLeavesTheSolverRefusingToStep) {
  // The forest has moved on when remesh runs; if the table rebuild fails after the solution moved (here a leaf
  // made degenerate by hand between the adaptation and the remesh), the solver keeps no solution on the wrong
  // leaves: the failure names the mesh, and every later step or remesh is refused with a message of its own.
  const Mesh start = adapt_start(grid_mesh(4, 1.0, 0.2, 3));
  adapt::TriangleForest forest(start, Backend::cpu, 2);
  const Stream stream;
  dg::EulerDG<1, double, euler::Flux::hllc, FixedState> solver(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  solver.set_solution(project<1>(forest, stream));
  const double dt = solver.stable_dt(0.5);
  solver.step(dg::Integrator::ssprk3, dt);
  forest.flag_all(true, false);
  ASSERT_TRUE(forest.adapt().valid());
  const adapt::ForestPtrs& f = forest.arrays();
  const index_t a = f.elem_vertices[0], c = f.elem_vertices[2];
  f.x[c] = f.x[a], f.y[c] = f.y[a];  // leaf 0 collapses onto its first vertex
  try {
    solver.remesh(forest);
    FAIL() << "a degenerate leaf was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(start.source), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("degenerate or clockwise"), std::string::npos) << e.what();
  }
  try {
    solver.step(dg::Integrator::ssprk3, dt);
    FAIL() << "a solver whose remesh failed took a step";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("no mesh since an adaptation failed"), std::string::npos) << e.what();
  }
  forest.flag_all(false, true);
  ASSERT_TRUE(forest.adapt().valid());
  EXPECT_THROW(solver.remesh(forest), std::logic_error);
}

TEST(AdaptedDG, ARemeshBuildsTheTablesItsLimiterReadsAndALimiterNeedingOthersIsRefusedThen) {
  // Built on a forest the solver has every table; after a remesh only its limiter's own ones (the vertex
  // limiter's vertex lists, not the moment limiter's neighbour offsets). Switching to a limiter whose tables the
  // last remesh left out is refused by name; one whose tables are there is taken.
  const Mesh start = adapt_start(grid_mesh(4, 1.0, 0.2, 3));
  adapt::TriangleForest forest(start, Backend::cpu, 2);
  const Stream stream;
  dg::EulerDG<1, double, euler::Flux::hllc, FixedState> solver(forest, gamma_air, stream.ghost(), dg::Strategy::colored);
  EXPECT_TRUE(solver.mesh().limiter_tables().neighbor_offsets && solver.mesh().limiter_tables().vertex_elements);
  solver.set_limiter(dg::Limiter::vertex);
  solver.set_solution(project<1>(forest, stream));
  forest.flag_random(0.3, 0.0, 5, 0);
  ASSERT_TRUE(forest.adapt().valid());
  solver.remesh(forest);
  EXPECT_FALSE(solver.mesh().limiter_tables().neighbor_offsets);
  EXPECT_TRUE(solver.mesh().limiter_tables().vertex_elements);
  EXPECT_EQ(solver.mesh().view().neighbor_dx, nullptr);
  solver.step(dg::Integrator::ssprk3, solver.stable_dt(0.5));
  EXPECT_THAT([&] { solver.set_limiter(dg::Limiter::moment); },
              ::testing::ThrowsMessage<std::logic_error>(::testing::AllOf(::testing::HasSubstr(start.source),
                                                                          ::testing::HasSubstr("moment limiter needs mesh tables"))));
  solver.set_limiter(dg::Limiter::none);
  solver.set_limiter(dg::Limiter::vertex);
  // With no limiter the next remesh builds neither, and the vertex limiter is refused after it.
  solver.set_limiter(dg::Limiter::none);
  forest.flag_random(0.2, 0.2, 5, 1);
  ASSERT_TRUE(forest.adapt().valid());
  solver.remesh(forest);
  EXPECT_FALSE(solver.mesh().limiter_tables().neighbor_offsets || solver.mesh().limiter_tables().vertex_elements);
  EXPECT_THROW(solver.set_limiter(dg::Limiter::vertex), std::logic_error);
}

TEST(AdaptedDG, TheSolutionFollowsAdaptationsExactlyAndConservatively) {
  const Mesh start = adapt_start(periodic_grid_mesh(5, 1.0, 0.2));
  check_remesh<0>(start);
  check_remesh<1>(start);
  check_remesh<2>(start);
  check_remesh<3>(start);
}

}  // namespace
}  // namespace kempe
