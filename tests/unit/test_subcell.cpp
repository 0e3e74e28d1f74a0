// Subcell shock capturing (kernels/subcell.hpp, kernels/subcell_K.hpp): the subcells against their defining
// properties, the blend's uniform flow and conservation for any shares, the shock tubes at p = 1..4 beside the
// vertex limiter at p = 1 (the table of docs/theory.md), and the isentropic vortex's rates with the blend on.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "dg_cases.hpp"
#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/subcell.hpp"
#include "kernels/subcell_K.hpp"
#include "mesh/generators.hpp"
#include "shock_tubes.hpp"
#include "solver/numerics/euler_dg.hpp"
#include "subcell_lanes.hpp"

namespace kempe {
namespace {

using test::gamma_air;

TEST(SubcellOperators, CellsTileTheTriangleCloseOnTheirFacePiecesAndDetermineTheModes) {
  for (int p = 0; p <= basis::max_order; ++p) {
    const dg::SubcellOperators ops = dg::subcell_operators(p);
    const int n = ops.num_cells, nq = p + 1;
    ASSERT_EQ(n, basis::num_modes(p));
    double area = 0;
    for (const double a : ops.cell_area) {
      EXPECT_GT(a, 0) << "p = " << p;
      area += a;
    }
    EXPECT_NEAR(area, 2.0, 1e-14) << "p = " << p;
    // Each cell is closed: its dual faces' normals and its pieces of the element's edges (face point weights
    // times the edge's outward normal) sum to zero, which is what keeps a uniform flow uniform.
    std::vector<double> closure(2 * n, 0.0);
    for (int d = 0; d < ops.num_dual_faces; ++d)
      for (int i = 0; i < 2; ++i) {
        closure[2 * ops.dual_face_cells[2 * d] + i] += ops.dual_face_normal[2 * d + i];
        closure[2 * ops.dual_face_cells[2 * d + 1] + i] -= ops.dual_face_normal[2 * d + i];
      }
    const quad::Rule gauss = quad::gauss_legendre(nq);
    const double outward[3][2] = {{0, -2}, {2, 2}, {-2, 0}};  // edge normals times edge lengths over 2 (edge 1: 2 sqrt 2)
    for (int k = 0; k < 3; ++k)
      for (int q = 0; q < nq; ++q) {
        const int cell = ops.face_point_cell[k * nq + q];
        for (int i = 0; i < 2; ++i) closure[2 * cell + i] += outward[k][i] * gauss.w[q] / 2;
      }
    for (const double c : closure) EXPECT_NEAR(c, 0.0, 1e-14) << "p = " << p;
    // The face points of an edge belong to distinct cells, and the cell of an edge's last point (along the edge,
    // from vertex k to k + 1) is that of the next edge's first: the vertex cell.
    std::vector<int> along(nq);  // face points in the order of their abscissae
    for (int q = 0; q < nq; ++q) along[q] = q;
    std::sort(along.begin(), along.end(), [&](int a, int b) { return gauss.r[a] < gauss.r[b]; });
    for (int k = 0; k < 3; ++k) {
      for (int q = 1; q < nq; ++q) EXPECT_NE(ops.face_point_cell[k * nq + along[q]], ops.face_point_cell[k * nq + along[q - 1]]);
      if (p > 0) {
        EXPECT_EQ(ops.face_point_cell[k * nq + along[nq - 1]], ops.face_point_cell[((k + 1) % 3) * nq + along[0]]) << "p = " << p;
      }
    }
    // average * modes_from_averages = I, and the subcell averages weighted by area integrate every mode.
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int s = 0; s < n; ++s) sum += ops.modes_from_averages[i * n + s] * ops.average[s * n + j];
        EXPECT_NEAR(sum, i == j ? 1.0 : 0.0, 1e-12) << "p = " << p;
      }
    for (int m = 0; m < n; ++m) {
      double integral = 0;
      for (int s = 0; s < n; ++s) integral += ops.cell_area[s] * ops.average[s * n + m];
      EXPECT_NEAR(integral, m == 0 ? 2 * dg::mode0_value : 0.0, 1e-14) << "p = " << p << ", mode " << m;
    }
  }
}

TEST(SubcellOperators, HangingFacePiecesTileBothSidesPieces) {
  // On each half of a coarse edge the pieces lie in order, tile the fine face, and each lies in the pieces of the
  // face points they name: their lengths add up to each fine point's weight and, over both halves, to each coarse
  // point's, so that each cell's pieces cover its part of the edge (a uniform flow stays uniform).
  for (int p = 0; p <= basis::max_order; ++p) {
    const dg::SubcellOperators ops = dg::subcell_operators(p);
    const int nq = p + 1, ns = dg::subcell_face_slots(p);
    const quad::Rule gauss = quad::gauss_legendre(nq);
    std::vector<double> coarse(nq, 0.0);
    for (int half = 0; half < 2; ++half) {
      const int count = ops.hanging_count[half];
      EXPECT_GE(count, nq) << "p = " << p;
      EXPECT_LE(count, ns) << "p = " << p;
      std::vector<double> fine(nq, 0.0);
      double total = 0, position = half / 2.0;  // along the coarse edge
      for (int j = 0; j < count; ++j) {
        const int q = ops.hanging_point[half * ns + j], i = ops.hanging_coarse[half * ns + j];
        const double length = ops.hanging_length[half * ns + j];
        EXPECT_GT(length, 1e-9) << "p = " << p;
        // Its middle lies in the fine point's piece and in the coarse point's.
        const double middle = position + length / 4;
        EXPECT_LE(std::abs(middle - (half + (1 + gauss.r[q]) / 2) / 2), gauss.w[q] / 8 + 1e-14) << "p = " << p;
        EXPECT_LE(std::abs(middle - (1 + gauss.r[i]) / 2), gauss.w[i] / 4 + 1e-14) << "p = " << p;
        if (j > 0) {  // in order along the edge (the rule need not list its points so)
          EXPECT_GE(gauss.r[q], gauss.r[ops.hanging_point[half * ns + j - 1]]);
          EXPECT_GE(gauss.r[i], gauss.r[ops.hanging_coarse[half * ns + j - 1]]);
        }
        fine[q] += length, coarse[i] += length / 2, total += length, position += length / 2;
      }
      EXPECT_NEAR(total, 1.0, 1e-14) << "p = " << p;
      for (int q = 0; q < nq; ++q) EXPECT_NEAR(fine[q], gauss.w[q] / 2, 1e-14) << "p = " << p << ", fine point " << q;
    }
    for (int i = 0; i < nq; ++i) EXPECT_NEAR(coarse[i], gauss.w[i] / 2, 1e-14) << "p = " << p << ", coarse point " << i;
  }
}

/// The unit square in 6 x 6 squares of two triangles, inner vertices moved at random by up to a fifth of a
/// square, one boundary group.
Mesh jittered_square() {
  RawMesh raw = rectangle_grid(6, 6, true);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> shift(-0.2, 0.2);
  for (std::size_t i = 0; i < raw.x.size(); ++i) {
    const bool inner = raw.x[i] > 1e-9 && raw.x[i] < 6 - 1e-9 && raw.y[i] > 1e-9 && raw.y[i] < 6 - 1e-9;
    const double dx = shift(rng), dy = shift(rng);
    if (inner) raw.x[i] += dx, raw.y[i] += dy;
  }
  for (double& x : raw.x) x /= 6;
  for (double& y : raw.y) y /= 6;
  Mesh mesh = build_mesh(raw);
  mesh.boundary_names = {"around"};
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element) mesh.face_boundary[f] = 0;
  return test::prepared(std::move(mesh));
}

std::vector<double> random_shares(index_t k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> share(0, 1);
  std::vector<double> alpha(k);
  for (double& a : alpha) a = share(rng);
  return alpha;
}

template <int P>
void check_uniform_flow(const Mesh& mesh, dg::Strategy strategy, int subcell_order, bool bounds = false) {
  const double rho = 1.3, u = 0.7, v = -0.4, p = 2.1;
  std::vector<double> state(euler::num_vars);
  euler::conserved(rho, u, v, p, gamma_air, state.data());
  const bc::Kind kinds[] = {bc::Kind::inflow};
  dg::EulerDG<P, double, euler::Flux::hllc, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, state.data(), gamma_air}, strategy);
  solver.project([&](double, double, double* out) {
    for (int i = 0; i < euler::num_vars; ++i) out[i] = state[i];
  });
  solver.set_subcell_bounds(bounds);
  const std::vector<double> start = solver.solution();
  for (const unsigned seed : {1u, 2u}) {
    solver.set_blending_shares(random_shares(mesh.num_elements(), seed), subcell_order);
    for (int s = 0; s < 3; ++s) solver.step(dg::Integrator::ssprk3, 1e-3);
  }
  solver.set_blending_shares(std::vector<double>(mesh.num_elements(), 1.0), subcell_order);  // finite volumes everywhere
  for (int s = 0; s < 3; ++s) solver.step(dg::Integrator::ssprk3, 1e-3);
  const std::vector<double>& c = solver.solution();
  double worst = 0;
  for (std::size_t i = 0; i < c.size(); ++i) worst = std::max(worst, std::abs(c[i] - start[i]));
  EXPECT_LT(worst, 1e-13) << "p = " << P << ", " << dg::strategies[int(strategy)].name << ", subcell order " << subcell_order;
}

TEST(SubcellBlend, KeepsAUniformFlowForAnySharesAndEveryStrategy) {
  const Mesh mesh = jittered_square();
  for (const int order : {1, 2}) {
    for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::atomic, dg::Strategy::buffered, dg::Strategy::elementwise}) {
      check_uniform_flow<1>(mesh, strategy, order);
      check_uniform_flow<2>(mesh, strategy, order);
      check_uniform_flow<3>(mesh, strategy, order);
    }
    check_uniform_flow<5>(mesh, dg::Strategy::colored, order);
  }
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::elementwise}) {  // bounds: first order only
    check_uniform_flow<1>(mesh, strategy, 1, true);
    check_uniform_flow<2>(mesh, strategy, 1, true);
    check_uniform_flow<3>(mesh, strategy, 1, true);
  }
}

TEST(SubcellBlend, SecondOrderStatesMoveAtMostHalfWayAndKeepPositivity) {
  // Conserved states (density, momentum x, y, energy) of a cell `a`, its neighbour `b` and the DG value `w`.
  const double a[4] = {1.0, 0.5, 0.0, 2.5}, b[4] = {2.0, 0.5, 0.2, 3.5};
  double out[4];
  // First order: the mean, whatever the DG value.
  const double w_far[4] = {5.0, 0.1, 0.4, 9.0};
  dg::subcell_state(1, a, b, w_far, gamma_air, out);
  EXPECT_EQ(std::vector<double>(out, out + 4), std::vector<double>(a, a + 4));
  // Second order: the DG value where it lies within half the way to b; else the half-way point; nothing where it
  // moves against b (momentum x: b equals a, so no room either way; momentum y: w opposes b).
  const double w[4] = {1.3, 0.9, -0.1, 3.4};
  dg::subcell_state(2, a, b, w, gamma_air, out);
  EXPECT_DOUBLE_EQ(out[0], 1.3);
  EXPECT_DOUBLE_EQ(out[1], 0.5);
  EXPECT_DOUBLE_EQ(out[2], 0.0);
  EXPECT_DOUBLE_EQ(out[3], 3.0);
  // A limited state of negative pressure (energy far below the kinetic part) falls back to the mean.
  const double fast_a[4] = {1.0, 3.0, 0.0, 5.0}, fast_b[4] = {1.0, 3.0, 0.0, 3.0}, w_low[4] = {1.0, 3.0, 0.0, 4.0};
  dg::subcell_state(2, fast_a, fast_b, w_low, gamma_air, out);  // energy 4 < kinetic 4.5: not admissible
  EXPECT_EQ(std::vector<double>(out, out + 4), std::vector<double>(fast_a, fast_a + 4));
  EXPECT_EQ(dg::minmod(-1.0, -3.0), -1.0);
  EXPECT_EQ(dg::minmod(2.0, 1.0), 1.0);
  EXPECT_EQ(dg::minmod(2.0, -1.0), 0.0);
  EXPECT_EQ(dg::minmod(0.0, 1.0), 0.0);
}

/// How blast_drift runs beyond its shares: under bounds, their repair (and where it may move an excess), the
/// race strategy, where to leave the solution at the end (null: nowhere), how many steps, and whether elements
/// whose low-order update overshoots keep low-order edges (set_subcell_repair's `edges`).
struct BlastRun {
  bool repair = false;
  dg::RepairReach reach = dg::RepairReach::by_order;
  dg::Strategy strategy = dg::Strategy::colored;
  std::vector<double>* solution = nullptr;
  int steps = 20;
  bool edges = false;
};

/// Mass and energy of a blast in a box of walls (whose fluxes carry neither) over run.steps steps, with the shares
/// of the indicator (`shares` empty) or the given ones, and subcell finite volumes of the given order: relative
/// change.
template <int P>
std::array<double, 2> blast_drift(const Mesh& mesh, const std::vector<double>& shares, int subcell_order = 1, bool bounds = false,
                                  const BlastRun& run = {}) {
  const bc::Kind kinds[] = {bc::Kind::wall};
  dg::EulerDG<P, double, euler::Flux::hll, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, nullptr, gamma_air}, run.strategy);
  solver.set_positivity_limiter(1e-12);
  solver.set_subcell_repair(run.repair, run.reach, run.edges);
  if (shares.empty()) {
    solver.set_subcell_blending(dg::default_blending_max(P, subcell_order), subcell_order);
    // The blend's face fluxes (high and low, [vars][face points][faces]) count in the memory report.
    EXPECT_GE(solver.memory_use().limiter, 2 * std::size_t(euler::num_vars) * dg::face_points(P) * mesh.num_faces() * sizeof(double));
  } else
    solver.set_blending_shares(shares, subcell_order);
  solver.set_subcell_bounds(bounds);
  solver.project([](double x, double y, double* out) {
    const bool inside = (x - 0.4) * (x - 0.4) + (y - 0.55) * (y - 0.55) < 0.06;
    euler::conserved(inside ? 4.0 : 1.0, 0.0, 0.0, inside ? 40.0 : 1.0, gamma_air, out);
  });
  auto totals = [&] {
    const std::vector<double>& c = solver.solution();
    const index_t k = mesh.num_elements();
    std::array<double, 2> sum{0, 0};
    for (index_t e = 0; e < k; ++e) {
      sum[0] += c[std::size_t(euler::density) * basis::num_modes(P) * k + e] * dg::mode0_value * mesh.volume[e];
      sum[1] += c[std::size_t(euler::energy) * basis::num_modes(P) * k + e] * dg::mode0_value * mesh.volume[e];
    }
    return sum;
  };
  const std::array<double, 2> before = totals();
  const double dt = solver.stable_dt(0.4);
  for (int s = 0; s < run.steps; ++s) solver.step(dg::Integrator::ssprk3, dt);
  const std::array<double, 2> after = totals();
  if (run.solution != nullptr) *run.solution = solver.solution();
  const std::vector<double> beta = solver.blending_shares();
  if (shares.empty()) {
    EXPECT_LT(*std::min_element(beta.begin(), beta.end()), 1.0) << "the indicator blends somewhere";
  }
  return {std::abs(after[0] - before[0]) / before[0], std::abs(after[1] - before[1]) / before[1]};
}

/// The largest difference between two vectors over the largest value of the first.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, size = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i])), size = std::max(size, std::abs(a[i]));
  return diff / size;
}

/// The largest difference between the blend's right-hand side and the bounded blend's outside a step (no
/// forward-Euler step to bound: every share the blend's), over the largest value, for a blast on `mesh` with
/// random shares. The DG flux is Rusanov's, the bounded blend's low-order flux (bounded_low_flux), so that both
/// blends have the same finite volumes.
template <int P>
double bounded_against_plain(const Mesh& mesh) {
  const bc::Kind kinds[] = {bc::Kind::wall};
  dg::EulerDG<P, double, dg::bounded_low_flux, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, nullptr, gamma_air}, dg::Strategy::colored);
  solver.project([](double x, double y, double* out) {
    const double r2 = (x - 0.4) * (x - 0.4) + (y - 0.55) * (y - 0.55);
    euler::conserved(1 + 3 * std::exp(-20 * r2), 0.3 * y, -0.2 * x, 1 + 10 * std::exp(-30 * r2), gamma_air, out);
  });
  solver.set_blending_shares(random_shares(mesh.num_elements(), 7));
  const std::vector<double> c = solver.solution();
  std::vector<double> plain(c.size()), bounded(c.size());
  solver.rhs(c, 0.0, plain);
  solver.set_subcell_bounds(true);
  solver.rhs(c, 0.0, bounded);
  return relative_difference(plain, bounded);
}

TEST(SubcellBoundedBlend, IsTheBlendWhereNoBoundIsReached) {
  // Outside a step the forward-Euler step is 0 and no share is cut (nor prelimited): the dual-face fluxes of least
  // norm give back the DG rate's subcell averages exactly, so the bounded blend's rate is the blend's to rounding.
  const Mesh mesh = jittered_square();
  EXPECT_LT(bounded_against_plain<1>(mesh), 1e-12) << "p = 1";
  EXPECT_LT(bounded_against_plain<2>(mesh), 1e-12) << "p = 2";
  EXPECT_LT(bounded_against_plain<3>(mesh), 1e-12) << "p = 3";
  EXPECT_LT(bounded_against_plain<4>(mesh), 1e-12) << "p = 4";
}

// N subcell averages (6 at p = 2, 10 at p = 3) of ideal air at unit pressure, density 1.4 (sound speed 1) and
// velocity (0.25, -0.5) except where a state is given: (cell, density, x velocity, y velocity).
struct CellState {
  int cell;
  double rho, vx, vy;
};
template <int N>
bool shear_layer(std::initializer_list<CellState> states) {
  double mean[euler::num_vars][N], u[euler::num_vars];
  for (int cell = 0; cell < N; ++cell) {
    CellState state{cell, 1.4, 0.25, -0.5};
    for (const CellState& given : states)
      if (given.cell == cell) state = given;
    euler::conserved(state.rho, state.vx, state.vy, 1.0, gamma_air, u);
    for (int v = 0; v < euler::num_vars; ++v) mean[v][cell] = u[v];
  }
  return dg::in_shear_layer(mean, gamma_air);
}

TEST(SubcellBoundedBlend, ShearLayersAreVelocityRangesBeyondAShareOfTheSoundSpeed) {
  // The dual faces of a bounded element that does not blend are left unprelimited in shear layers only
  // (dg::shear_velocity_range): the sum of the x and y ranges of the cells' velocities against 0.3 times their
  // largest sound speed, whatever the flow's own speed or the density's jump.
  ASSERT_EQ(dg::shear_velocity_range, 0.3);
  EXPECT_FALSE(shear_layer<6>({})) << "uniform flow";
  EXPECT_FALSE(shear_layer<6>({{0, 0.14, 0.25, -0.5}, {3, 0.14, 0.25, -0.5}})) << "a contact carried along";
  EXPECT_TRUE(shear_layer<6>({{1, 1.4, 0.75, -0.5}})) << "a slip line across x velocities 0.25..0.75";
  EXPECT_FALSE(shear_layer<6>({{1, 1.4, 0.54, -0.5}})) << "x range 0.29 c";
  EXPECT_TRUE(shear_layer<6>({{1, 1.4, 0.56, -0.5}})) << "x range 0.31 c";
  EXPECT_TRUE(shear_layer<6>({{2, 1.4, 0.45, -0.3}})) << "x range 0.2 c plus y range 0.2 c";
  EXPECT_FALSE(shear_layer<6>({{2, 1.4, 0.35, -0.4}})) << "x range 0.1 c plus y range 0.1 c";
  // The largest sound speed sets the scale: a light cell at the same pressure (sound speed sqrt(10)) lifts it.
  EXPECT_FALSE(shear_layer<6>({{1, 1.4, 0.75, -0.5}, {4, 0.14, 0.25, -0.5}})) << "0.5 against 0.3 sqrt(10)";
  EXPECT_TRUE(shear_layer<10>({{9, 1.4, -0.25, -0.5}})) << "p = 3's ten cells, reversed flow";
}

TEST(SubcellBoundedBlend, ThePositivityLimiterKeepsTheSubcellAveragesAdmissible) {
  // Under bounds the positivity limiter checks the subcell averages too (EulerDG::positivity_points): Rusanov's
  // flux between subcells (bounded_low_flux) takes a NaN sound speed from a negative pressure, as the double Mach
  // reflection at p = 3 on the case's Gmsh mesh (cases/double_mach.yaml, mesh.size 0.04) did in its first steps.
  // Checked here on the structured mesh, where the averages happen to stay admissible without the check too:
  // after every step of the double Mach reflection at p = 3 every subcell average has positive density and
  // pressure.
  const Mesh mesh = test::prepared(double_mach_mesh(12));
  const test::DoubleMachBoundary groups;
  dg::EulerDG<3, double, euler::Flux::hll, bc::GroupBoundary<double>> solver(mesh, gamma_air, groups.table(groups.unused),
                                                                             dg::Strategy::colored);
  solver.set_positivity_limiter(1e-12);
  solver.set_subcell_blending(dg::default_blending_max(3));
  solver.set_subcell_bounds(true);
  solver.project([](double x, double y, double* out) { bc::function_state(bc::StateFunction::double_mach, x, y, 0.0, gamma_air, out); });
  const std::vector<double> average = dg::subcell_operators(3).average;
  constexpr int nm = basis::num_modes(3);
  const index_t k = mesh.num_elements();
  const double dt = solver.stable_dt(0.4);
  double lowest_density = 1e300, lowest_pressure = 1e300;
  for (int step = 0; step < 20; ++step) {
    ASSERT_NO_THROW(solver.step(dg::Integrator::ssprk3, dt)) << "step " << step;
    const std::vector<double>& c = solver.solution();
    for (index_t e = 0; e < k; ++e)
      for (int cell = 0; cell < nm; ++cell) {
        double u[euler::num_vars] = {};
        for (int v = 0; v < euler::num_vars; ++v)
          for (int m = 0; m < nm; ++m) u[v] += c[(std::size_t(v) * nm + m) * k + e] * average[cell * nm + m];
        lowest_density = std::min(lowest_density, u[euler::density]);
        lowest_pressure = std::min(lowest_pressure, euler::pressure(u, gamma_air));
      }
  }
  EXPECT_GT(lowest_density, 0.0);
  EXPECT_GT(lowest_pressure, 0.0);
}

/// The kernels' views of the subcell operators (first-order finite volumes) and of the reference element's tables.
dg::SubcellTables<double> first_order_tables(const dg::SubcellOperators& ops) {
  return {ops.average.data(),          ops.modes_from_averages.data(), ops.cell_area.data(),
          ops.dual_face_normal.data(), ops.dual_face_cells.data(),     ops.face_point_cell.data(),
          ops.dual_face_basis.data(),  ops.dual_flux_from_outflow.data(), 1};
}
dg::Tables<double> reference_tables(const dg::TriangleOperators& op) {
  return {op.volume_weight.data(), op.volume_basis.data(), op.volume_grad_r.data(), op.volume_grad_s.data(),
          op.face_weight.data(),   op.face_abscissa.data(), op.face_basis.data(),    op.face_half_basis.data()};
}

/// The jittered square with its DG tables on the CPU, for the tests that call the bounded blend's passes directly.
struct JitteredSquareTables {
  Mesh mesh = jittered_square();
  dg::DGMesh<double> tables{Backend::cpu};
  JitteredSquareTables() { tables.rebuild(mesh); }
};

/// Coefficients [vars][modes][elements] of a state that jumps from element to element: per element a random mean
/// (density 1 to 5, velocities within 1, pressure 1 to 9) and higher modes of up to `spread` times each mean.
template <int P>
std::vector<double> jumping_state(index_t k, std::mt19937& rng, double spread) {
  constexpr int nm = basis::num_modes(P), nv = euler::num_vars;
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<double> c(std::size_t(nv) * nm * k);
  for (index_t e = 0; e < k; ++e) {
    double mean[nv];
    euler::conserved(3 + 2 * unit(rng), unit(rng), unit(rng), 5 + 4 * unit(rng), gamma_air, mean);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nm; ++m)
        c[std::size_t(v * nm + m) * k + e] = m == 0 ? mean[v] / dg::mode0_value : spread * std::abs(mean[v]) * unit(rng);
  }
  return c;
}

/// SubcellBoundedBlend's two passes through forall over a work list (on the CPU in lanes of elements,
/// SubcellBoundedBlend::lanes_of) against operator() one element at a time: bit for bit, on the jittered
/// square's elements with a state that jumps from element to element, random shares (some 1), a random subset
/// bounded (a count that leaves a short last block), random face fluxes and a step that cuts shares.
template <int P>
void expect_bounded_blend_lanes_as_single_elements() {
  constexpr int nq = P + 1, nv = euler::num_vars;
  const JitteredSquareTables square;
  const auto& view = square.tables.view();
  const index_t k = square.mesh.num_elements(), nf = square.mesh.num_faces();
  std::mt19937 rng(40 + P);
  std::uniform_real_distribution<double> unit(-1, 1), share(0.5, 1);
  const std::vector<double> c = jumping_state<P>(k, rng, 0.1);
  std::vector<double> rate(c.size());
  for (double& r : rate) r = 20 * unit(rng);
  std::vector<double> beta(k);
  std::vector<std::uint8_t> bounded(k);
  std::vector<index_t> list;
  for (index_t e = 0; e < k; ++e) {
    beta[e] = rng() % 3 == 0 ? 1.0 : share(rng);
    bounded[e] = rng() % 4 != 0 ? 1 : 0;
    if (bounded[e] != 0) list.push_back(e);
  }
  using Blend = dg::SubcellBoundedBlend<P, double>;
  ASSERT_NE(list.size() % Blend::cpu_list_lanes, 0U) << "a short last block";
  constexpr int ns = dg::subcell_face_slots(P);
  std::vector<double> high(std::size_t(nv) * nq * nf), low(std::size_t(nv) * ns * nf), side(2 * std::size_t(ns) * nf);
  for (double& h : high) h = 10 * unit(rng);
  for (double& l : low) l = 10 * unit(rng);
  for (double& s : side) s = 3 + 2 * unit(rng);
  const dg::SubcellOperators ops = dg::subcell_operators(P);
  const dg::SubcellTables<double> s = first_order_tables(ops);
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const dg::Tables<double> t = reference_tables(op);
  const double step = 2e-3;
  std::vector<double> factor(2 * std::size_t(ns) * nf, -1.0);
  auto blend = [&](std::vector<double>& rhs, std::vector<double>& shares, bool rates) {
    return Blend{k, nf, gamma_air, c.data(), rhs.data(), view.element_faces, beta.data(), bounded.data(), t, s,
                 view.geometry, view.faces, high.data(), low.data(), side.data(), shares.data(), &step, rates};
  };
  ASSERT_NO_FATAL_FAILURE(test::expect_lanes_as_single_elements<Blend>(list, rate, factor, blend, P));
  // The bounds acted: some pieces' shares are cut below their face's, some kept.
  int cut = 0, kept = 0;
  for (index_t f = 0; f < nf; ++f)
    for (int i = 0; i < 2 * ns; ++i) {
      const double a = factor[std::size_t(i) * nf + f];
      if (a < 0) continue;  // not written: no bounded element on that side
      (a < dg::face_share(view.faces, beta.data(), f) ? cut : kept) += 1;
    }
  EXPECT_GT(cut, 0) << "p = " << P;
  EXPECT_GT(kept, 0) << "p = " << P;
}

TEST(SubcellBoundedBlend, LanesOfElementsAreTheSingleElementsBitForBit) {
  expect_bounded_blend_lanes_as_single_elements<1>();
  expect_bounded_blend_lanes_as_single_elements<2>();
  expect_bounded_blend_lanes_as_single_elements<3>();
  expect_bounded_blend_lanes_as_single_elements<4>();
}

/// SubcellBoundedBlend::repair on the jittered square's elements with states that jump from element to element:
/// for outflows that push one cell's density above its upper bound (the largest of its own, its dual-face
/// neighbours' and the densities beyond its edge pieces), the repaired update keeps every subcell density at or
/// below its bound, keeps the element's totals of every conserved variable, lets no cell's density fall below
/// its bound where it gives and none rise above it where it takes, and leaves the giving cell's velocity; an
/// update within the bounds is not repaired. With the reach `neighbours` only the giving cell's dual-face
/// neighbours take.
template <int P>
void expect_repair_within_bounds(dg::RepairReach reach) {
  constexpr int nm = basis::num_modes(P), nq = P + 1, nv = euler::num_vars;
  const JitteredSquareTables square;
  const auto& view = square.tables.view();
  const index_t k = square.mesh.num_elements(), nf = square.mesh.num_faces();
  std::mt19937 rng(70 + P);
  std::uniform_real_distribution<double> unit(-1, 1);
  const std::vector<double> c = jumping_state<P>(k, rng, 0.05);
  std::vector<double> rhs(c.size());
  constexpr int ns = dg::subcell_face_slots(P);
  std::vector<double> beta(k, 0.5), high(std::size_t(nv) * nq * nf), low(std::size_t(nv) * ns * nf), side(2 * std::size_t(ns) * nf),
      factor(side.size());
  std::vector<std::uint8_t> bounded(k, 1);
  for (double& x : side) x = 3 + 2 * unit(rng);
  const dg::SubcellOperators ops = dg::subcell_operators(P);
  const dg::SubcellTables<double> s = first_order_tables(ops);
  const dg::TriangleOperators op = dg::triangle_operators(P);
  const dg::Tables<double> t = reference_tables(op);
  const double dt = 1e-3;
  dg::SubcellBoundedBlend<P, double> blend{k, nf, gamma_air, c.data(), rhs.data(), view.element_faces, beta.data(),
                                           bounded.data(), t, s, view.geometry, view.faces, high.data(), low.data(),
                                           side.data(), factor.data(), &dt, true};
  blend.repair_reach = reach;
  const char* reach_name = reach == dg::RepairReach::neighbours ? "neighbours" : "element";
  int repaired = 0;
  for (index_t e = 0; e < k; ++e) {
    double mean[nv][nm], hi[nm];
    for (int v = 0; v < nv; ++v)
      for (int cell = 0; cell < nm; ++cell) {
        mean[v][cell] = 0;
        for (int m = 0; m < nm; ++m) mean[v][cell] += ops.average[cell * nm + m] * c[std::size_t(v * nm + m) * k + e];
      }
    for (int cell = 0; cell < nm; ++cell) hi[cell] = mean[euler::density][cell];
    for (int d = 0; d < 3 * P * (P + 1) / 2; ++d) {
      const int a = ops.dual_face_cells[2 * d], b = ops.dual_face_cells[2 * d + 1];
      hi[a] = std::max(hi[a], mean[euler::density][b]);
      hi[b] = std::max(hi[b], mean[euler::density][a]);
    }
    for (int j = 0; j < 3; ++j) {
      const index_t f = view.element_faces[3 * e + j];
      if (view.faces.right[f] == no_element) continue;
      const bool left = view.faces.left[f] == e;
      for (int q = 0; q < nq; ++q) {
        const int qf = left ? q : nq - 1 - q;
        const int cell = ops.face_point_cell[j * nq + q];
        hi[cell] = std::max(hi[cell], side[std::size_t((left ? 1 : 0) * ns + qf) * nf + f]);
      }
    }
    // Within the bounds (no change): nothing to repair.
    double given[nv][nm] = {}, rate[nv][nm];
    EXPECT_FALSE(blend.repair(e, given, rate)) << "p = " << P << ", element " << e;
    // One cell grows by 30 %, the others keep their states: above its bound wherever the others have room for
    // the excess.
    const int full = int(rng() % nm);
    for (int v = 0; v < nv; ++v) given[v][full] = 0.3 * mean[v][full] / dt;
    bool beside_full[nm] = {};
    for (int d = 0; d < 3 * P * (P + 1) / 2; ++d) {
      const int a = ops.dual_face_cells[2 * d], b = ops.dual_face_cells[2 * d + 1];
      if (a == full) beside_full[b] = true;
      if (b == full) beside_full[a] = true;
    }
    if (!blend.repair(e, given, rate)) continue;
    ++repaired;
    double before[nv] = {}, after[nv] = {};
    for (int cell = 0; cell < nm; ++cell) {
      const double area = ops.cell_area[cell];
      double u[nv], w[nv];
      for (int v = 0; v < nv; ++v) {
        u[v] = mean[v][cell] + dt * given[v][cell];  // the update before the repair
        w[v] = mean[v][cell] + dt * rate[v][cell];                    // and after it
        before[v] += area * u[v], after[v] += area * w[v];
      }
      const double tolerance = 1e-12 * hi[cell];
      if (u[euler::density] > hi[cell]) {
        EXPECT_GE(w[euler::density], hi[cell] - tolerance) << "p = " << P << ": a giving cell keeps its bound";
        EXPECT_LE(w[euler::density], u[euler::density] + tolerance);
        EXPECT_NEAR(w[euler::momentum_x] / w[euler::density], u[euler::momentum_x] / u[euler::density], 1e-12) << "velocity kept";
      } else {
        EXPECT_LE(w[euler::density], hi[cell] + tolerance) << "p = " << P << ": a taking cell stays under its bound";
        EXPECT_GE(w[euler::density], u[euler::density] - tolerance);
        if (reach == dg::RepairReach::neighbours && !beside_full[cell]) {
          EXPECT_NEAR(w[euler::density], u[euler::density], tolerance) << "p = " << P << ": only the giver's neighbours take";
        }
      }
      EXPECT_GT(euler::pressure(w, gamma_air), 0.0);
    }
    for (int v = 0; v < nv; ++v)
      EXPECT_NEAR(after[v], before[v], 1e-12 * (1 + std::abs(before[v]))) << "p = " << P << ", " << reach_name << ", variable " << v;
  }
  EXPECT_GT(repaired, k / 2) << "p = " << P << ", " << reach_name << ": most elements have room for the excess";
}

TEST(SubcellBoundedBlend, TheRepairMovesTheExcessOverTheBoundsWithinTheElement) {
  for (const dg::RepairReach reach : {dg::RepairReach::element, dg::RepairReach::neighbours}) {
    expect_repair_within_bounds<1>(reach);
    expect_repair_within_bounds<2>(reach);
    expect_repair_within_bounds<3>(reach);
    expect_repair_within_bounds<4>(reach);
  }
}

// `subcell_repair_reach: auto` is the neighbours at p <= 2 and the element from p = 3, in the solver as in the
// rule; the other reaches pass through at every order.
TEST(SubcellBoundedBlend, TheAutoReachIsTheNeighboursUpToOrderTwoAndTheElementFromThree) {
  for (int p = 0; p <= 5; ++p) {
    EXPECT_EQ(dg::resolved_repair_reach(dg::RepairReach::by_order, p), p <= 2 ? dg::RepairReach::neighbours : dg::RepairReach::element) << p;
    EXPECT_EQ(dg::resolved_repair_reach(dg::RepairReach::element, p), dg::RepairReach::element) << p;
    EXPECT_EQ(dg::resolved_repair_reach(dg::RepairReach::neighbours, p), dg::RepairReach::neighbours) << p;
  }
  EXPECT_EQ(dg::repair_reach_from_name("auto"), dg::RepairReach::by_order);
  const Mesh mesh = test::strip(4);
  const bc::Kind kinds[] = {bc::Kind::wall, bc::Kind::wall, bc::Kind::wall, bc::Kind::wall};
  const std::vector<double> states(4 * euler::num_vars, 0.0);
  const bc::GroupBoundary<double> walls{kinds, states.data(), gamma_air};
  dg::EulerDG<2, double, euler::Flux::hll, bc::GroupBoundary<double>> p2(mesh, gamma_air, walls, dg::Strategy::colored);
  dg::EulerDG<3, double, euler::Flux::hll, bc::GroupBoundary<double>> p3(mesh, gamma_air, walls, dg::Strategy::colored);
  p2.set_subcell_repair(true, dg::RepairReach::by_order);
  p3.set_subcell_repair(true, dg::RepairReach::by_order);
  EXPECT_EQ(p2.subcell_repair_reach(), dg::RepairReach::neighbours);
  EXPECT_EQ(p3.subcell_repair_reach(), dg::RepairReach::element);
}

TEST(ShockTube, SubcellRepairKeepsTestFiveInRange) {
  // Toro's test 5 on the strip of SubcellBoundsKeepTheSubcellAveragesInRange, with bounds at p = 2 and 3, without
  // and with the repair of the overshoots that the stages' low-order updates leave (solver.subcell_repair).
  // Checked: with it the subcell averages' density and the output's stay within 1.5 % of the exact range
  // (without: 2.9 % at p = 2, 1.7 % at p = 3), below what they reach without it; on this coarse strip the L1
  // error grows by 7 % at p = 2 and 16 % at p = 3, at most 20 % is checked, and it stays at most 0.8 times the
  // vertex limiter's p = 1, with p = 3 below p = 2. With low-order edges too, where a stage's low-order update
  // overshoots (solver.subcell_repair_edges): 0.96 and 0.45 %, for 5 and 4 % more L1 than the repair alone on this
  // strip; checked within 1.5 %, at most 0.8 times the vertex limiter's, p = 3 below p = 2.
  const Mesh mesh = test::strip(32);
  const test::Tube& t = test::riemann_tubes[4];
  const double vertex1 = test::run_tube(1, mesh, 32, t, dg::Limiter::vertex).l1;
  const test::TubeResult r2 = test::run_tube(2, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(2), 1, true),
                         r3 = test::run_tube(3, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(3), 1, true),
                         s2 = test::run_tube(2, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(2), 1, true, true),
                         s3 = test::run_tube(3, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(3), 1, true, true),
                         e2 = test::run_tube(2, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(2), 1, true, true, true),
                         e3 = test::run_tube(3, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(3), 1, true, true, true);
  std::printf("Toro's test 5 on 32 x 2 squares, bounds without / with the repair / with it and low-order edges: L1 density\n"
              "error; the subcell averages' and the output's density beyond the exact range, %% (vertex p = 1: L1 %.3e)\n", vertex1);
  for (const auto& [p, without, with, edges] : {std::tuple{2, &r2, &s2, &e2}, std::tuple{3, &r3, &s3, &e3}}) {
    std::printf("p = %d: %.3e [%.2f] {%.2f} / %.3e [%.2f] {%.2f} / %.3e [%.2f] {%.2f}\n", p, without->l1,
                100 * without->beyond_subcell[0], 100 * without->beyond_shown[0], with->l1, 100 * with->beyond_subcell[0],
                100 * with->beyond_shown[0], edges->l1, 100 * edges->beyond_subcell[0], 100 * edges->beyond_shown[0]);
    EXPECT_LT(with->beyond_subcell[0], 0.015) << "p = " << p;
    EXPECT_LT(with->beyond_shown[0], 0.015) << "p = " << p;
    EXPECT_LE(with->beyond_subcell[0], without->beyond_subcell[0]) << "p = " << p;
    EXPECT_LE(with->l1, 1.2 * without->l1) << "p = " << p;
    EXPECT_LE(with->l1, 0.8 * vertex1) << "p = " << p;
    EXPECT_LT(edges->beyond_subcell[0], 0.015) << "p = " << p;
    EXPECT_LT(edges->beyond_shown[0], 0.015) << "p = " << p;
    EXPECT_LE(edges->l1, 0.8 * vertex1) << "p = " << p;
  }
  EXPECT_LT(s3.l1, s2.l1) << "p = 3 against p = 2, with the repair";
  EXPECT_LT(e3.l1, e2.l1) << "p = 3 against p = 2, with the repair and low-order edges";
}

TEST(SubcellBoundedBlend, RefusesSecondOrderSubcells) {
  // Second-order subcell states leave the bounds (docs/theory.md): the solver refuses the pair in either order.
  const Mesh mesh = jittered_square();
  const bc::Kind kinds[] = {bc::Kind::wall};
  dg::EulerDG<2, double, euler::Flux::hll, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, nullptr, gamma_air}, dg::Strategy::colored);
  solver.set_subcell_blending(0.4, 2);
  EXPECT_THROW(solver.set_subcell_bounds(true), std::invalid_argument);
  EXPECT_FALSE(solver.subcell_bounds());
  solver.set_subcell_blending(0.1, 1);
  solver.set_subcell_bounds(true);
  EXPECT_THROW(solver.set_subcell_blending(0.4, 2), std::invalid_argument);
  EXPECT_THROW(solver.set_blending_shares(std::vector<double>(mesh.num_elements(), 0.5), 2), std::invalid_argument);
  EXPECT_NO_THROW(solver.set_subcell_bounds(false));
  EXPECT_NO_THROW(solver.set_subcell_blending(0.4, 2));
}

TEST(SubcellBlend, ConservesMassAndEnergy) {
  const Mesh mesh = jittered_square();
  const std::vector<double> shares = random_shares(mesh.num_elements(), 5);
  // The indicator's shares with first- and second-order subcells, fixed shares with both, and either with bounds.
  for (const auto& drift : {blast_drift<1>(mesh, {}), blast_drift<2>(mesh, {}), blast_drift<3>(mesh, {}), blast_drift<2>(mesh, {}, 2),
                            blast_drift<2>(mesh, shares, 1), blast_drift<2>(mesh, shares, 2), blast_drift<4>(mesh, shares, 1),
                            blast_drift<4>(mesh, shares, 2), blast_drift<2>(mesh, {}, 1, true), blast_drift<3>(mesh, shares, 1, true)}) {
    EXPECT_LT(drift[0], 1e-13) << "mass";
    EXPECT_LT(drift[1], 1e-13) << "energy";
  }
}

// The repair of the bounds' overshoots, within the element and within the dual-face neighbours, moves mass,
// momentum and energy between subcells of one element only: the totals stay, at every order it serves.
TEST(SubcellBoundedBlend, TheRepairConservesMassAndEnergy) {
  const Mesh mesh = jittered_square();
  for (const dg::RepairReach reach : {dg::RepairReach::element, dg::RepairReach::neighbours}) {
    std::vector<double> plain, repaired;
    blast_drift<2>(mesh, {}, 1, true, {false, reach, dg::Strategy::colored, &plain});
    for (const auto& drift : {blast_drift<1>(mesh, {}, 1, true, {true, reach}),
                              blast_drift<2>(mesh, {}, 1, true, {true, reach, dg::Strategy::colored, &repaired}),
                              blast_drift<3>(mesh, {}, 1, true, {true, reach})}) {
      EXPECT_LT(drift[0], 1e-13) << "mass, " << dg::repair_reaches[int(reach)].name;
      EXPECT_LT(drift[1], 1e-13) << "energy, " << dg::repair_reaches[int(reach)].name;
    }
    // The blast's stages do overshoot, so the repair has acted (seen at p = 2): else the totals would test nothing.
    EXPECT_GT(relative_difference(plain, repaired), 1e-6) << dg::repair_reaches[int(reach)].name;
  }
}

// Low-order edges where a stage's low-order update overshoots (set_subcell_repair's `edges`) change which flux an
// edge carries, not that both of its elements see one: the totals stay, with the repair and without it.
TEST(SubcellBoundedBlend, LowOrderEdgesConserveMassAndEnergy) {
  const Mesh mesh = jittered_square();
  std::vector<double> repaired, with_edges;
  blast_drift<2>(mesh, {}, 1, true, {true, dg::RepairReach::element, dg::Strategy::colored, &repaired});
  for (const auto& drift : {blast_drift<1>(mesh, {}, 1, true, {true, dg::RepairReach::element, dg::Strategy::colored, nullptr, 20, true}),
                            blast_drift<2>(mesh, {}, 1, true, {true, dg::RepairReach::element, dg::Strategy::colored, &with_edges, 20, true}),
                            blast_drift<3>(mesh, {}, 1, true, {true, dg::RepairReach::element, dg::Strategy::colored, nullptr, 20, true}),
                            blast_drift<2>(mesh, {}, 1, true, {false, dg::RepairReach::element, dg::Strategy::colored, nullptr, 20, true})}) {
    EXPECT_LT(drift[0], 1e-13) << "mass";
    EXPECT_LT(drift[1], 1e-13) << "energy";
  }
  EXPECT_GT(relative_difference(repaired, with_edges), 1e-6) << "the low-order edges acted";
}

// The bounded blend and its repair give one result under every race strategy: the colored surface launches,
// atomics, the buffered sums and the elementwise gather differ only in the order of the surface term's sums. Over
// the first steps, that is: the bounds decide by comparisons (Zalesak's prelimiting by the sign of a density
// difference times a density outflow, the shear-layer test, which elements are troubled and bounded), and where
// one lies within rounding of its switch the strategies' last bits take the solutions apart by the correction it
// switches (in this blast at p = 2 by 6e-5 of the largest value at the third step, 1e-3 by the tenth).
TEST(SubcellBoundedBlend, EveryStrategyGivesTheSameBlastWithTheRepair) {
  const Mesh mesh = jittered_square();
  constexpr int steps = 2;
  auto compare = [&](auto order) {
    constexpr int P = decltype(order)::value;
    std::vector<double> plain, reference, other;
    blast_drift<P>(mesh, {}, 1, true, {false, dg::RepairReach::by_order, dg::Strategy::colored, &plain, steps});
    for (const bool edges : {false, true}) {  // and with low-order edges where a low-order update overshoots
      blast_drift<P>(mesh, {}, 1, true, {true, dg::RepairReach::by_order, dg::Strategy::colored, &reference, steps, edges});
      EXPECT_GT(relative_difference(plain, reference), 1e-9) << "p = " << P << ": the repair acts within the steps compared";
      for (const dg::Strategy strategy : {dg::Strategy::atomic, dg::Strategy::buffered, dg::Strategy::elementwise}) {
        blast_drift<P>(mesh, {}, 1, true, {true, dg::RepairReach::by_order, strategy, &other, steps, edges});
        EXPECT_LT(relative_difference(reference, other), 1e-13)
            << "p = " << P << ", " << dg::strategies[int(strategy)].name << (edges ? ", low-order edges" : "");
      }
    }
  };
  compare(std::integral_constant<int, 2>{});  // at p = 1 the blast's first steps leave nothing to repair
  compare(std::integral_constant<int, 3>{});
}

TEST(SubcellBlend, FormsItsSharesOncePerStepFromTheStateItStartsFrom) {
  // The shares of a step are those of its first stage's state (the KXRCF gate is not paid at every stage):
  // the same as a right-hand side of that state alone forms, and new ones at the next step.
  const Mesh mesh = jittered_square();
  const bc::Kind kinds[] = {bc::Kind::wall};
  dg::EulerDG<2, double, euler::Flux::hll, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, nullptr, gamma_air}, dg::Strategy::colored);
  solver.set_positivity_limiter(1e-12);
  solver.set_subcell_blending(dg::default_blending_max(2));
  EXPECT_EQ(solver.blending_shares(), std::vector<double>(mesh.num_elements(), 1.0)) << "pure DG before any step";
  solver.project([](double x, double y, double* out) {
    const bool inside = (x - 0.4) * (x - 0.4) + (y - 0.55) * (y - 0.55) < 0.06;
    euler::conserved(inside ? 4.0 : 1.0, 0.0, 0.0, inside ? 40.0 : 1.0, gamma_air, out);
  });
  const double dt = solver.stable_dt(0.4);
  for (int s = 0; s < 5; ++s) solver.step(dg::Integrator::ssprk3, dt);
  std::vector<double> out;
  auto shares_of_rhs = [&] {
    const std::vector<double> c = solver.solution();
    out.assign(c.size(), 0.0);
    solver.rhs(c, solver.time(), out);
    return solver.blending_shares();
  };
  const std::vector<double> at_start = shares_of_rhs();
  EXPECT_LT(*std::min_element(at_start.begin(), at_start.end()), 1.0) << "the blast blends somewhere";
  solver.step(dg::Integrator::ssprk3, dt);
  EXPECT_EQ(solver.blending_shares(), at_start) << "a step's shares are its first stage's";
  for (int s = 0; s < 20; ++s) solver.step(dg::Integrator::ssprk3, dt);  // the blast moves on
  const std::vector<double> later = shares_of_rhs();
  EXPECT_NE(later, at_start) << "the shares follow the blast";
  solver.step(dg::Integrator::ssprk3, dt);
  EXPECT_EQ(solver.blending_shares(), later) << "each step forms its own";
}

template <int P>
void expect_surface_sums_flag_as_troubled_cells(dg::Strategy strategy, bool bounds) {
  const Mesh mesh = jittered_square();
  const bc::Kind kinds[] = {bc::Kind::wall};
  dg::EulerDG<P, double, euler::Flux::hll, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, nullptr, gamma_air}, strategy);
  solver.set_positivity_limiter(1e-12);
  solver.set_subcell_blending(dg::default_blending_max(P));
  solver.set_subcell_bounds(bounds);
  solver.project([](double x, double y, double* out) {
    const bool inside = (x - 0.4) * (x - 0.4) + (y - 0.55) * (y - 0.55) < 0.06;
    euler::conserved(inside ? 4.0 : 1.0, 0.3, -0.2, inside ? 40.0 : 1.0, gamma_air, out);
  });
  const double dt = solver.stable_dt(0.4);
  const std::string_view name = dg::strategies[int(strategy)].name;
  int flagged = 0;
  for (int s = 0; s < 4; ++s) {
    // Within a step (its first stage) and outside one (a right-hand side alone), against TroubledCells' own pass.
    const std::vector<double> start = solver.solution();
    solver.step(dg::Integrator::ssprk3, dt);
    const std::vector<std::uint8_t> in_step = solver.last_troubled_cells();
    const std::vector<std::uint8_t> own_start = solver.troubled_cells(start);
    const std::vector<double> c = solver.solution();
    std::vector<double> out(c.size(), 0.0);
    solver.rhs(c, solver.time(), out);
    const std::vector<std::uint8_t> in_rhs = solver.last_troubled_cells();
    const std::vector<std::uint8_t> own = solver.troubled_cells(c);
    ASSERT_EQ(in_step.size(), own_start.size());
    ASSERT_EQ(in_rhs.size(), own.size());
    for (index_t e = 0; e < mesh.num_elements(); ++e) {
      EXPECT_EQ(in_step[e], own_start[e]) << "p = " << P << ", " << name << ", step " << s << ", element " << e;
      EXPECT_EQ(in_rhs[e], own[e]) << "p = " << P << ", " << name << ", after step " << s << ", element " << e;
      flagged += own[e];
    }
  }
  EXPECT_GT(flagged, 0) << "p = " << P << ", " << name << ": the blast is flagged somewhere";
}

TEST(SubcellBlend, TheSurfaceTermsKxrcfSumsFlagAsTroubledCellsDoes) {
  // Where the blend forms its shares, the surface term stores each face's KXRCF sums from the traces it
  // evaluates (FaceIntegrals::kxrcf) and a light pass flags the elements (TroubledFromFaces): the same flags as
  // TroubledCells' own pass over every element's faces, with every race strategy.
  for (const dg::Strategy strategy : {dg::Strategy::colored, dg::Strategy::atomic, dg::Strategy::buffered, dg::Strategy::elementwise}) {
    expect_surface_sums_flag_as_troubled_cells<1>(strategy, false);
    expect_surface_sums_flag_as_troubled_cells<2>(strategy, true);
    expect_surface_sums_flag_as_troubled_cells<3>(strategy, strategy == dg::Strategy::colored);
  }
}

TEST(SubcellBlend, RefusesSharesOutsideTheUnitInterval) {
  const Mesh mesh = jittered_square();
  const bc::Kind kinds[] = {bc::Kind::wall};
  dg::EulerDG<2, double, euler::Flux::hll, bc::GroupBoundary<double>> solver(
      mesh, gamma_air, bc::GroupBoundary<double>{kinds, nullptr, gamma_air}, dg::Strategy::colored);
  EXPECT_THROW(solver.set_subcell_blending(1.5), std::invalid_argument);
  EXPECT_THROW(solver.set_subcell_blending(-0.1), std::invalid_argument);
  EXPECT_THROW(solver.set_subcell_blending(0.2, 3), std::invalid_argument);
  EXPECT_THROW(solver.set_subcell_blending(0.2, 0), std::invalid_argument);
  EXPECT_THROW(solver.set_blending_shares(std::vector<double>(mesh.num_elements(), 0.5), 3), std::invalid_argument);
  EXPECT_THROW(solver.set_blending_shares({0.5}), std::invalid_argument);
  EXPECT_THROW(solver.set_blending_shares(std::vector<double>(mesh.num_elements(), 2.0)), std::invalid_argument);
}

TEST(ShockTube, SubcellBlendingMakesHighOrderPay) {
  // The five Riemann problems on the strip of 32 x 2 squares, as TheEntropyFilterMakesHighOrderPay runs them,
  // with subcell blending at the orders' default largest shares (no slope limiter; the positivity limiter on),
  // first-order subcells, and at p = 2 second-order subcells too. The table it prints is in docs/theory.md.
  // Checked: p = 1 beats the vertex limiter's p = 1, p = 2 is at most 0.8 times it with either subcell order,
  // and p = 3 at most p = 2 with first-order subcells, on every test. Not yet: p = 2 at equal degrees of freedom
  // (16 x 2) against p = 1, and test 5's overshoots (5-12 %; the vertex limiter's 16 %). A second table gives the
  // point values at the output nodes beyond the exact solution's range, and those of the subcell averages in
  // brackets, which the blend does not bound.
  const Mesh mesh = test::strip(32), half = test::strip(16);
  std::string beyond_rows;
  auto beyond = [](const test::TubeResult& r) {
    char cell[96];
    std::snprintf(cell, sizeof cell, " %.1f / %.1f / %.1f [%.1f / %.1f / %.1f] |", 100 * r.beyond[0], 100 * r.beyond[1], 100 * r.beyond[2],
                  100 * r.beyond_subcell[0], 100 * r.beyond_subcell[1], 100 * r.beyond_subcell[2]);
    return std::string(cell);
  };
  std::printf("L1 density error per unit area, 32 x 2 squares (p = 2 at equal DOF: 16 x 2); in brackets the\n"
              "largest over- or undershoot of a cell average, in %% of the density's range\n"
              "| test | vertex p = 1 | subcell p = 1 | subcell p = 2 | subcell p = 3 | subcell p = 4 | subcell p = 2, 16 x 2 | "
              "subcell p = 2, second-order subcells |\n"
              "|---|---|---|---|---|---|---|---|\n");
  for (const test::Tube& t : test::riemann_tubes) {
    const test::TubeResult v1 = test::run_tube(1, mesh, 32, t, dg::Limiter::vertex),
                           s1 = test::run_tube(1, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(1)),
                           s2 = test::run_tube(2, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(2)),
                           s3 = test::run_tube(3, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(3)),
                           s4 = test::run_tube(4, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(4)),
                           s2_half = test::run_tube(2, half, 16, t, dg::Limiter::none, dg::default_blending_max(2)),
                           s2_second = test::run_tube(2, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(2, 2), 2);
    std::printf("| %s | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) |\n", t.name,
                v1.l1, 100 * v1.spill, s1.l1, 100 * s1.spill, s2.l1, 100 * s2.spill, s3.l1, 100 * s3.spill, s4.l1, 100 * s4.spill,
                s2_half.l1, 100 * s2_half.spill, s2_second.l1, 100 * s2_second.spill);
    std::fflush(stdout);
    EXPECT_LT(s1.l1, v1.l1) << t.name << ": p = 1 against the vertex limiter's";
    EXPECT_LE(s2.l1, 0.8 * v1.l1) << t.name << ": p = 2 against the vertex limiter's p = 1";
    EXPECT_LE(s2_second.l1, 0.8 * v1.l1) << t.name << ": p = 2 (second-order subcells) against the vertex limiter's p = 1";
    EXPECT_LE(s3.l1, s2.l1) << t.name << ": p = 3 against p = 2";
    beyond_rows += std::string("| ") + t.name + " |" + beyond(v1) + beyond(s1) + beyond(s2) + beyond(s3) + beyond(s4) + beyond(s2_second) + "\n";
  }
  std::printf("\nPoint values at the output nodes beyond the exact solution's range, in %% of it: density / velocity / pressure\n"
              "(in brackets: the subcell averages)\n"
              "| test | vertex p = 1 | subcell p = 1 | subcell p = 2 | subcell p = 3 | subcell p = 4 | subcell p = 2, second-order subcells |\n"
              "|---|---|---|---|---|---|---|\n%s",
              beyond_rows.c_str());
}

TEST(ShockTube, SubcellBlendingHoldsToroStationaryContact) {
  // Toro (2009), section 4.3.3, test 5: test 3's states, both moving at u = -19.59745, so that the contact stays
  // at rest (see TheEntropyFilterHoldsToroStationaryContact).
  const test::Tube tube{"Toro 5 (book)", {1, -19.59745, 1000}, {1, -19.59745, 0.01}, 0.012};
  const Mesh mesh = test::strip(32);
  const double vertex1 = test::run_tube(1, mesh, 32, tube, dg::Limiter::vertex).l1;
  double errors[3] = {};
  EXPECT_NO_THROW(errors[0] = test::run_tube(1, mesh, 32, tube, dg::Limiter::none, dg::default_blending_max(1)).l1);
  EXPECT_NO_THROW(errors[1] = test::run_tube(2, mesh, 32, tube, dg::Limiter::none, dg::default_blending_max(2)).l1);
  EXPECT_NO_THROW(errors[2] = test::run_tube(3, mesh, 32, tube, dg::Limiter::none, dg::default_blending_max(3)).l1);
  std::printf("Toro's stationary contact, L1 density error per unit area: vertex p = 1 %.4e; subcell p = 1, 2, 3: %.4e %.4e %.4e\n",
              vertex1, errors[0], errors[1], errors[2]);
  for (const double e : errors) EXPECT_LT(e, 1.25 * vertex1);
}

TEST(EulerDG, IsentropicVortexKeepsItsOrderUnderSubcellBlending) {
  // The KXRCF flags gate the blend: the errors are the unblended scheme's (1.98, 2.99, 3.83, 4.53 at the finest).
  test::expect_vortex_rate(1, {8, 16, 32}, dg::Limiter::none, dg::default_blending_max(1));
  test::expect_vortex_rate(2, {8, 16, 32}, dg::Limiter::none, dg::default_blending_max(2));
  test::expect_vortex_rate(3, {8, 12, 16}, dg::Limiter::none, dg::default_blending_max(3));
  test::expect_vortex_rate(4, {8, 12, 16}, dg::Limiter::none, dg::default_blending_max(4));
}

TEST(EulerDG, IsentropicVortexKeepsItsOrderUnderBoundedSubcellBlending) {
  // With bounds on the subcell averages: they act only where the KXRCF flags an element or the blend acts, and
  // there they would clip the vortex's smooth density minimum to its neighbours' range.
  test::expect_vortex_rate(1, {8, 16, 32}, dg::Limiter::none, dg::default_blending_max(1), true);
  test::expect_vortex_rate(2, {8, 16, 32}, dg::Limiter::none, dg::default_blending_max(2), true);
  test::expect_vortex_rate(3, {8, 12, 16}, dg::Limiter::none, dg::default_blending_max(3), true);
  test::expect_vortex_rate(4, {8, 12, 16}, dg::Limiter::none, dg::default_blending_max(4), true);
}

TEST(ShockTube, SubcellBoundsKeepTheSubcellAveragesInRange) {
  // The five Riemann problems of SubcellBlendingMakesHighOrderPay with bounds on the subcell averages
  // (SubcellBoundedBlend) at the orders' default largest shares. The table it prints is in docs/theory.md.
  // Checked: the subcell averages' density stays within 1 % of the exact range on Sod and Toro's tests 2-4 at
  // p = 1..3, and so does the density the output shows at p = 2 and 3; p = 2 beats p = 1 and p = 3 beats p = 2
  // on every test, and p = 2's error is at most 0.8 times the vertex limiter's at p = 1. Test 5 (1.7-4.1 %) is
  // left out of the range check: there even the low-order update of a stage leaves the range of the cells' means
  // by 5-7 % of density, which the bounds keep and the repair of SubcellRepairKeepsTestFiveInRange removes.
  const Mesh mesh = test::strip(32);
  auto cell = [](const test::TubeResult& r) {
    char c[200];
    std::snprintf(c, sizeof c, " %.3e (%.1f) | %.1f / %.1f / %.1f [%.1f / %.1f / %.1f] {%.1f / %.1f / %.1f} |", r.l1, 100 * r.spill,
                  100 * r.beyond[0], 100 * r.beyond[1], 100 * r.beyond[2], 100 * r.beyond_subcell[0], 100 * r.beyond_subcell[1],
                  100 * r.beyond_subcell[2], 100 * r.beyond_shown[0], 100 * r.beyond_shown[1], 100 * r.beyond_shown[2]);
    return std::string(c);
  };
  std::printf("Bounded subcell blend on 32 x 2 squares: L1 density error per unit area (the largest cell-average over- or\n"
              "undershoot, %% of the density's range) | point values at the output nodes beyond the exact range, %%:\n"
              "density / velocity / pressure [the subcell averages'] {what the output shows: in the elements the bounds\n"
              "watch, the polynomial pulled into the range of the neighbourhood's subcell averages}\n"
              "| test | vertex p = 1 | p = 1 | | p = 2 | | p = 3 | |\n|---|---|---|---|---|---|---|---|\n");
  for (const test::Tube& t : test::riemann_tubes) {
    const double vertex1 = test::run_tube(1, mesh, 32, t, dg::Limiter::vertex).l1;
    const test::TubeResult r1 = test::run_tube(1, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(1), 1, true),
                           r2 = test::run_tube(2, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(2), 1, true),
                           r3 = test::run_tube(3, mesh, 32, t, dg::Limiter::none, dg::default_blending_max(3), 1, true);
    std::printf("| %s | %.3e |%s%s%s\n", t.name, vertex1, cell(r1).c_str(), cell(r2).c_str(), cell(r3).c_str());
    std::fflush(stdout);
    EXPECT_LE(r2.l1, 0.8 * vertex1) << t.name << ": p = 2 against the vertex limiter's p = 1";
    EXPECT_LT(r2.l1, r1.l1) << t.name << ": p = 2 against p = 1";
    EXPECT_LT(r3.l1, r2.l1) << t.name << ": p = 3 against p = 2";
    if (t.name[0] != '5') {
      for (const test::TubeResult* r : {&r1, &r2, &r3}) EXPECT_LT(r->beyond_subcell[0], 0.01) << t.name << ": subcell densities in range";
      for (const test::TubeResult* r : {&r2, &r3}) EXPECT_LT(r->beyond_shown[0], 0.01) << t.name << ": the output's densities in range";
    }
  }
}

}  // namespace
}  // namespace kempe
