// The entropy filter (kernels/entropy_filter_K.hpp): the kernel against its defining bounds on one element, the
// shock tubes of ../shared/reference/cases.md against their exact solutions at p = 1..3 beside the vertex
// limiter at p = 1, and the isentropic vortex's rates with the filter on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "dg_cases.hpp"
#include "shock_tubes.hpp"
#include "kernels/entropy_filter_K.hpp"
#include "kernels/riemann_K.hpp"
#include "kernels/triangle.hpp"
#include "mesh/generators.hpp"
#include "solver/numerics/euler_dg.hpp"

namespace kempe {
namespace {

using test::gamma_air;
using test::run_tube;
using test::strip;
using test::Tube;
using test::TubeResult;

constexpr int P2 = 2;
constexpr int nm2 = basis::num_modes(P2);

/// The solver's check points at p = 2: the volume points, then the face points ([points][modes]).
std::vector<double> check_basis() {
  const dg::TriangleOperators op = dg::triangle_operators(P2);
  std::vector<double> b = op.volume_basis;
  b.insert(b.end(), op.face_basis.begin(), op.face_basis.end());
  return b;
}

/// One element's state at check point q, from its coefficients c [vars][modes].
std::array<double, euler::num_vars> point_state(const std::vector<double>& c, const std::vector<double>& basis, int q) {
  std::array<double, euler::num_vars> u{};
  for (int v = 0; v < euler::num_vars; ++v)
    for (int m = 0; m < nm2; ++m) u[v] += c[v * nm2 + m] * basis[q * nm2 + m];
  return u;
}

/// The L2 projection on one reference element of state(r, s) (conserved variables), [vars][modes].
template <class State>
std::vector<double> project_one(State&& state) {
  const dg::TriangleOperators op = dg::triangle_operators(P2);
  std::vector<double> c(euler::num_vars * nm2, 0.0);
  for (int q = 0; q < op.num_volume_points; ++q) {
    double u[euler::num_vars];
    state(op.volume_r[q], op.volume_s[q], u);
    for (int v = 0; v < euler::num_vars; ++v)
      for (int m = 0; m < nm2; ++m) c[v * nm2 + m] += op.volume_weight[q] * u[v] * op.volume_basis[q * nm2 + m];
  }
  return c;
}

struct OneElement {
  std::vector<double> c, bound = std::vector<double>(2), values = std::vector<double>(2);
  double strength = 0;
  void filter(const std::vector<double>& basis, double tolerance) {
    const int points = static_cast<int>(basis.size() / nm2);
    dg::EntropyFilter<P2, double>{1, points, gamma_air, 1e-12, tolerance, tolerance, basis.data(), bound.data(), c.data(), values.data(),
                                  &strength}(0);
  }
};

TEST(EntropyFilter, LogEntropyAboutTheMeanIsTheLogarithmsToRounding) {
  // EntropyReference takes log(1 + t) from its series where a point lies within 1/64 of the element mean, and the
  // logarithms elsewhere: both must give log_entropy to rounding, on either side of the band.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> scale(1e-3, 1e3), offset(-0.03, 0.03);
  double worst = 0;
  int near = 0;
  for (int i = 0; i < 100000; ++i) {
    const double rho = scale(rng), p = scale(rng);
    const dg::EntropyReference<double> reference(rho, p, gamma_air);
    const double a = offset(rng), b = offset(rng), rho_q = rho * (1 + a), p_q = p * (1 + b);
    near += std::abs(a) < 1.0 / 64 && std::abs(b) < 1.0 / 64;
    const double exact = dg::log_entropy(rho_q, p_q, gamma_air);
    worst = std::max(worst, std::abs(reference(rho_q, p_q, gamma_air) - exact) / std::max(1.0, std::abs(exact)));
  }
  EXPECT_GT(near, 20000);  // both paths were taken
  EXPECT_LT(near, 40000);
  EXPECT_LT(worst, 1e-14);
  // A mean without positive density and pressure is no reference: every point takes the logarithms.
  const dg::EntropyReference<double> none(1.0, -1.0, gamma_air);
  EXPECT_EQ(none(1.0, 2.0, gamma_air), dg::log_entropy(1.0, 2.0, gamma_air));
  EXPECT_EQ(none(1.0, -2.0, gamma_air), dg::log_entropy(1.0, -2.0, gamma_air));  // not admissible: bounds nothing
}

TEST(EntropyFilter, LeavesAnElementWithinItsBoundsAlone) {
  const std::vector<double> basis = check_basis();
  OneElement one;
  one.c = project_one([](double r, double s, double* u) { euler::conserved(1.2 + 0.1 * r * s, 0.3 + 0.05 * r, -0.2, 1 + 0.2 * s, gamma_air, u); });
  const std::vector<double> before = one.c;
  const int points = static_cast<int>(basis.size() / nm2);
  dg::EntropyMinimum<P2, double>{1, points, gamma_air, basis.data(), one.c.data(), one.bound.data()}(0);
  one.filter(basis, 1e-12);  // its own least entropy and density bound it: nothing to do, bit for bit
  EXPECT_EQ(one.c, before);
  EXPECT_EQ(one.strength, 1.0);
  for (int i = 0; i < 2; ++i)  // the element's least entropy and density, for its neighbours' next bound
    EXPECT_NEAR(one.values[i], one.bound[i], 1e-14 * std::abs(one.bound[i])) << i;
}

TEST(EntropyFilter, DampsAStepJustEnoughToMeetItsBoundsAndKeepsTheAverage) {
  // A density step through the element at constant pressure and velocity: the p = 2 projection under- and
  // overshoots, and its overshoot's entropy p / rho^gamma falls below that of the denser state.
  const std::vector<double> basis = check_basis();
  const int points = static_cast<int>(basis.size() / nm2);
  OneElement one;
  one.c = project_one([](double r, double, double* u) { euler::conserved(r < -0.4 ? 1.0 : 4.0, 0.5, 0.0, 1.0, gamma_air, u); });
  const std::vector<double> before = one.c;
  const double s_dense = 1.0 / std::pow(4.0, gamma_air);
  one.bound = {std::log(s_dense), 1.0};  // the neighbourhood's least log entropy and density: the two states'
  const double tolerance = 1e-3;
  one.filter(basis, tolerance);
  ASSERT_LT(one.strength, 1.0);
  ASSERT_GT(one.strength, 0.0);
  for (int v = 0; v < euler::num_vars; ++v) EXPECT_EQ(one.c[v * nm2], before[v * nm2]) << "cell average of variable " << v;
  for (int d = 1; d <= P2; ++d)  // mode m of degree d scaled by f^(d^2)
    for (int m = basis::num_modes(d - 1); m < basis::num_modes(d); ++m)
      EXPECT_NEAR(one.c[m], before[m] * std::pow(one.strength, d * d), 1e-14) << "mode " << m;
  auto worst = [&](const std::vector<double>& c) {  // the least margin to the bounds over the check points
    double margin = 1e300;
    for (int q = 0; q < points; ++q) {
      const auto u = point_state(c, basis, q);
      const double s = euler::pressure(u.data(), gamma_air) / std::pow(u[0], gamma_air);
      margin = std::min({margin, s / ((1 - tolerance) * s_dense) - 1, u[0] / (1 - tolerance) - 1});
    }
    return margin;
  };
  EXPECT_LT(worst(before), 0) << "the projected step breaks a bound";
  EXPECT_GE(worst(one.c), -1e-12);
  // The largest such factor: a slightly weaker filter breaks a bound again.
  std::vector<double> weaker = before;
  const double f = one.strength + 1e-5;
  for (int d = 1; d <= P2; ++d)
    for (int v = 0; v < euler::num_vars; ++v)
      for (int m = basis::num_modes(d - 1); m < basis::num_modes(d); ++m) weaker[v * nm2 + m] *= std::pow(f, d * d);
  EXPECT_LT(worst(weaker), 0);
  // The values left for the neighbours are the filtered element's own.
  std::vector<double> again(2);
  dg::EntropyMinimum<P2, double>{1, points, gamma_air, basis.data(), one.c.data(), again.data()}(0);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(one.values[i], again[i], 1e-14 * std::abs(again[i])) << i;
}

TEST(ShockTube, TheEntropyFilterMakesHighOrderPay) {
  // The five Riemann problems of ../shared/reference/cases.md on a strip of 32 x 2 squares (sheared a little,
  // rectangle_grid), the ends held at the initial states. The table it prints is in docs/theory.md. What holds
  // today, and is checked: p = 2 with the filter beats the vertex limiter's p = 1 on every test, by 0.8x or
  // better on Sod and 123, and p = 3 beats p = 2 on Sod. Not yet: 0.8x on tests 3-5, p = 3 below p = 2 on every
  // test, p = 2 at equal degrees of freedom (16 x 2) below p = 1, over- and undershoots under 1 % (test 5's
  // colliding shocks overshoot by 15-34 % at every order, the vertex limiter's by 16 %).
  const auto& tubes = test::riemann_tubes;
  const Mesh mesh = strip(32), half = strip(16);
  std::printf("L1 density error per unit area, 32 x 2 squares (p = 2 at equal DOF: 16 x 2); in brackets the\n"
              "largest over- or undershoot of a cell average, in %% of the density's range\n"
              "| test | vertex p = 1 | filter p = 1 | filter p = 2 | filter p = 3 | filter p = 2, 16 x 2 |\n"
              "|---|---|---|---|---|---|\n");
  for (const Tube& t : tubes) {
    const TubeResult v1 = run_tube(1, mesh, 32, t, dg::Limiter::vertex), e1 = run_tube(1, mesh, 32, t, dg::Limiter::entropy_filter),
                     e2 = run_tube(2, mesh, 32, t, dg::Limiter::entropy_filter), e3 = run_tube(3, mesh, 32, t, dg::Limiter::entropy_filter),
                     e2_half = run_tube(2, half, 16, t, dg::Limiter::entropy_filter);
    std::printf("| %s | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) | %.3e (%.1f) |\n", t.name, v1.l1, 100 * v1.spill, e1.l1,
                100 * e1.spill, e2.l1, 100 * e2.spill, e3.l1, 100 * e3.spill, e2_half.l1, 100 * e2_half.spill);
    const double vertex1 = v1.l1, f2 = e2.l1, f3 = e3.l1;
    std::fflush(stdout);
    EXPECT_LT(f2, vertex1) << t.name << ": p = 2 against the vertex limiter's p = 1";
    if (&t - tubes < 2) {
      EXPECT_LE(f2, 0.8 * vertex1) << t.name << ": p = 2 against the vertex limiter's p = 1";
    }
    if (&t == tubes) {
      EXPECT_LT(f3, f2) << t.name << ": p = 3 against p = 2";
    }
  }
}

TEST(ShockTube, TheEntropyFilterHoldsToroStationaryContact) {
  // Toro (2009), section 4.3.3, test 5: test 3's states, both moving at u = -19.59745, so that the contact
  // stays at rest. Without the density bound (measured on a 32 x 32 square with outflow ends), density
  // undershoots at the contact, which raise the entropy at continuous pressure, grew until a cell average lost
  // its pressure at p = 1, 2 and 3. Measured 2026-11-25 on this strip: L1 errors 0.154, 0.178, 0.180 at p = 1..3,
  // against 0.154 for the vertex limiter at p = 1: the filter holds, but p >= 2 does not pay here yet.
  const Tube tube{"Toro 5 (book)", {1, -19.59745, 1000}, {1, -19.59745, 0.01}, 0.012};
  const Mesh mesh = strip(32);
  const double vertex1 = run_tube(1, mesh, 32, tube, dg::Limiter::vertex).l1;
  double errors[3] = {};
  EXPECT_NO_THROW(errors[0] = run_tube(1, mesh, 32, tube, dg::Limiter::entropy_filter).l1);
  EXPECT_NO_THROW(errors[1] = run_tube(2, mesh, 32, tube, dg::Limiter::entropy_filter).l1);
  EXPECT_NO_THROW(errors[2] = run_tube(3, mesh, 32, tube, dg::Limiter::entropy_filter).l1);
  std::printf("Toro's stationary contact, L1 density error per unit area: vertex p = 1 %.4e; filter p = 1, 2, 3: %.4e %.4e %.4e\n",
              vertex1, errors[0], errors[1], errors[2]);
  for (const double e : errors) EXPECT_LT(e, 1.25 * vertex1);
}

TEST(EulerDG, IsentropicVortexKeepsItsOrderUnderTheEntropyFilter) {
  // The filter's bounds, relaxed by the default tolerances (1e-2 on entropy, 1e-3 on density), hold on the
  // smooth vortex: the finest errors are the unlimited scheme's to 3 digits; on the coarse meshes the filter acts
  // a little (p = 2: 4 % more error at 8 x 8, 7 % at 16 x 16; p = 3, 4: 2.5 %, 3 % at 8 x 8). Measured 2026-11-25: with 1e-3 on entropy it acted on
  // every 8 x 8 and 12 x 12 mesh (p = 3 and 4 errors 10-30x larger), with 1e-4 on every mesh (p = 2 fell to
  // second order). p = 4 on these meshes converges at 4.54 with or without the filter.

  test::expect_vortex_rate(1, {8, 16, 32}, dg::Limiter::entropy_filter);  // unlimited: 1.12e-1, 3.52e-2, 8.91e-3
  test::expect_vortex_rate(2, {8, 16, 32}, dg::Limiter::entropy_filter);
  test::expect_vortex_rate(3, {8, 12, 16}, dg::Limiter::entropy_filter);
  test::expect_vortex_rate(4, {8, 12, 16}, dg::Limiter::entropy_filter);
}

}  // namespace
}  // namespace kempe
