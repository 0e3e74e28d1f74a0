// Euler physics: the numerical fluxes (consistency, conservation, rotational invariance, what each resolves
// exactly), the flux registry, and the exact Riemann solver the shock-tube tests compare against.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "kernels/boundary_K.hpp"
#include "kernels/euler.hpp"

namespace kempe {
namespace {

using euler::Flux;
using euler::num_vars;
using ::testing::HasSubstr;
using State = std::array<double, num_vars>;

constexpr double gamma_air = 1.4;

State state(double rho, double vx, double vy, double p) {
  State u;
  euler::conserved(rho, vx, vy, p, gamma_air, u.data());
  return u;
}

State flux(Flux f, const State& ul, const State& ur, double nx, double ny) {
  State out;
  euler::numerical_flux(f, ul.data(), ur.data(), nx, ny, gamma_air, out.data());
  return out;
}

State physical_normal_flux(const State& u, double nx, double ny) {
  State fx, fy, out;
  euler::physical_flux(u.data(), gamma_air, fx.data(), fy.data());
  for (int k = 0; k < num_vars; ++k) out[k] = fx[k] * nx + fy[k] * ny;
  return out;
}

/// Random physical states: densities and pressures over three decades, speeds up to Mach ~3.
std::vector<State> random_states(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> log_scale(-1.5, 1.5), speed(-3, 3);
  std::vector<State> out;
  for (int i = 0; i < n; ++i)
    out.push_back(state(std::pow(10, log_scale(rng)), speed(rng), speed(rng), std::pow(10, log_scale(rng))));
  return out;
}

double scale(const State& a) {
  double m = 1;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

TEST(EulerFlux, EveryFluxIsConsistentConservativeAndRotationInvariant) {
  const auto states = random_states(40);
  for (const euler::FluxInfo& info : euler::fluxes) {
    for (std::size_t i = 0; i + 1 < states.size(); ++i) {
      const State& ul = states[i];
      const State& ur = states[i + 1];
      const double angle = 0.37 * static_cast<double>(i), nx = std::cos(angle), ny = std::sin(angle);
      // Consistency: F(u, u, n) = F(u) . n.
      const State same = flux(info.value, ul, ul, nx, ny), exact = physical_normal_flux(ul, nx, ny);
      for (int k = 0; k < num_vars; ++k) EXPECT_NEAR(same[k], exact[k], 1e-13 * scale(exact)) << info.name;
      // Conservation: what leaves the left element enters the right one.
      const State forward = flux(info.value, ul, ur, nx, ny), backward = flux(info.value, ur, ul, -nx, -ny);
      for (int k = 0; k < num_vars; ++k) EXPECT_NEAR(forward[k], -backward[k], 1e-12 * scale(forward)) << info.name;
      // Rotational invariance: rotate both states and the normal by 0.9 rad; the flux rotates with them.
      const double c = std::cos(0.9), s = std::sin(0.9);
      auto rotate = [&](const State& u) {
        State r = u;
        r[euler::momentum_x] = c * u[euler::momentum_x] - s * u[euler::momentum_y];
        r[euler::momentum_y] = s * u[euler::momentum_x] + c * u[euler::momentum_y];
        return r;
      };
      const State rotated = flux(info.value, rotate(ul), rotate(ur), c * nx - s * ny, s * nx + c * ny);
      const State expected = rotate(forward);
      for (int k = 0; k < num_vars; ++k) EXPECT_NEAR(rotated[k], expected[k], 1e-12 * scale(forward)) << info.name;
    }
  }
}

TEST(EulerFlux, HllcAndRoeKeepAStationaryContactExactly) {
  // Density jump at rest with equal pressures: the exact flux is pressure only, (0, p nx, p ny, 0).
  const State ul = state(1.0, 0, 0, 0.7), ur = state(0.125, 0, 0, 0.7);
  const double nx = 0.6, ny = 0.8;
  for (const Flux f : {Flux::hllc, Flux::roe}) {
    const State out = flux(f, ul, ur, nx, ny);
    EXPECT_NEAR(out[euler::density], 0, 1e-15);
    EXPECT_NEAR(out[euler::momentum_x], 0.7 * nx, 1e-15);
    EXPECT_NEAR(out[euler::momentum_y], 0.7 * ny, 1e-15);
    EXPECT_NEAR(out[euler::energy], 0, 1e-15);
  }
  // Rusanov and HLL diffuse it: a mass flux from the dense side.
  for (const Flux f : {Flux::rusanov, Flux::hll}) EXPECT_GT(flux(f, ul, ur, nx, ny)[euler::density], 0.01);
}

TEST(EulerFlux, SupersonicFlowTakesTheUpwindFlux) {
  // Both states move at Mach ~3 along n: HLL and HLLC return the left physical flux exactly, Roe to
  // round-off (all its waves run right); Rusanov still adds dissipation.
  const State ul = state(1.0, 3.5, 0.2, 1.0), ur = state(0.8, 3.2, -0.1, 0.9);
  const State upwind = physical_normal_flux(ul, 1, 0);
  for (const Flux f : {Flux::hll, Flux::hllc, Flux::roe}) {
    const State out = flux(f, ul, ur, 1, 0);
    for (int k = 0; k < num_vars; ++k) EXPECT_NEAR(out[k], upwind[k], 1e-13 * scale(upwind));
  }
  EXPECT_GT(std::abs(flux(Flux::rusanov, ul, ur, 1, 0)[euler::density] - upwind[euler::density]), 1e-3);
}

TEST(EulerFlux, SinglePrecisionMatchesDouble) {
  const auto states = random_states(10);
  for (const euler::FluxInfo& info : euler::fluxes)
    for (std::size_t i = 0; i + 1 < states.size(); ++i) {
      std::array<float, num_vars> ul, ur, out;
      for (int k = 0; k < num_vars; ++k) {
        ul[k] = static_cast<float>(states[i][k]);
        ur[k] = static_cast<float>(states[i + 1][k]);
      }
      euler::numerical_flux(info.value, ul.data(), ur.data(), 0.6f, 0.8f, 1.4f, out.data());
      const State reference = flux(info.value, states[i], states[i + 1], 0.6, 0.8);
      for (int k = 0; k < num_vars; ++k) EXPECT_NEAR(out[k], reference[k], 1e-4 * scale(reference)) << info.name;
    }
}

TEST(EulerFlux, FluxesAreChosenByNameWithSuggestions) {
  EXPECT_EQ(euler::flux_from_name("hllc"), Flux::hllc);
  EXPECT_EQ(euler::flux_from_name("rusanov"), Flux::rusanov);
  try {
    euler::flux_from_name("hlcc");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown flux 'hlcc'; did you mean 'hllc'? known: rusanov, hll, hllc, roe"));
  }
  try {
    euler::flux_from_name("godunov");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown flux 'godunov'; known: rusanov, hll, hllc, roe"));
  }
}

TEST(BoundaryConditions, AWallLetsNothingThroughWithEveryFlux) {
  for (const State& inside : random_states(20))
    for (const euler::FluxInfo& info : euler::fluxes) {
      const double nx = 0.28, ny = -0.96;
      State ghost;
      bc::ghost_state(bc::Kind::wall, inside.data(), inside.data(), nx, ny, gamma_air, ghost.data());
      const State f = flux(info.value, inside, ghost, nx, ny);
      EXPECT_NEAR(f[euler::density], 0, 1e-14 * scale(inside)) << info.name;
      EXPECT_NEAR(f[euler::energy], 0, 1e-13 * scale(inside)) << info.name;
      // The momentum flux is a pressure along the normal only: no shear on a slip wall.
      EXPECT_NEAR(f[euler::momentum_x] * ny - f[euler::momentum_y] * nx, 0, 1e-13 * scale(inside)) << info.name;
    }
}

TEST(BoundaryConditions, FarfieldIsConsistentAndUpwindWhenSupersonic) {
  const double nx = 0.6, ny = 0.8;
  for (const State& u : {state(1.0, 0.3, 0.1, 1.0), state(0.5, -0.2, 0.4, 2.0), state(1.0, 3.0, 4.0, 1.0)}) {
    State ghost;  // free stream inside and out: the ghost is the free stream
    bc::ghost_state(bc::Kind::farfield, u.data(), u.data(), nx, ny, gamma_air, ghost.data());
    for (int v = 0; v < num_vars; ++v) EXPECT_NEAR(ghost[v], u[v], 1e-13 * scale(u));
  }
  const State outside = state(1.0, -3.0, -4.0, 1.0), inside = state(0.8, -2.9, -4.1, 0.9);  // Mach ~4 inflow
  State ghost;
  bc::ghost_state(bc::Kind::farfield, outside.data(), inside.data(), nx, ny, gamma_air, ghost.data());
  EXPECT_EQ(ghost, outside);
  const State out_inside = state(0.8, 3.0, 4.1, 0.9);  // Mach ~4 outflow
  bc::ghost_state(bc::Kind::farfield, outside.data(), out_inside.data(), nx, ny, gamma_air, ghost.data());
  EXPECT_EQ(ghost, out_inside);
  bc::ghost_state(bc::Kind::outflow, outside.data(), inside.data(), nx, ny, gamma_air, ghost.data());
  EXPECT_EQ(ghost, inside);
  bc::ghost_state(bc::Kind::inflow, outside.data(), inside.data(), nx, ny, gamma_air, ghost.data());
  EXPECT_EQ(ghost, outside);
  EXPECT_EQ(bc::kind_from_name("farfield"), bc::Kind::farfield);
  try {
    bc::kind_from_name("wal");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown boundary condition 'wal'; did you mean 'wall'?"));
  }
}

TEST(BoundaryFunctions, DoubleMachStatesAreAMachTenShockThatMoves) {
  using bc::StateFunction;
  auto primitive = [](double x, double y, double t) {
    State u;
    bc::function_state(StateFunction::double_mach, x, y, t, gamma_air, u.data());
    return std::array<double, 4>{u[0], u[1] / u[0], u[2] / u[0], euler::pressure(u.data(), gamma_air)};
  };
  // cases.md: behind the shock rho 8, u 7.14471, v -4.125, p 116.5; ahead rho 1.4 at rest, p 1.
  const auto post = primitive(0.16, 0.0, 0.0), pre = primitive(0.17, 0.0, 0.0);
  EXPECT_NEAR(post[0], 8, 1e-14);
  EXPECT_NEAR(post[1], 7.14471, 5e-6);
  EXPECT_NEAR(post[2], -4.125, 1e-13);
  EXPECT_NEAR(post[3], 116.5, 1e-12);
  EXPECT_EQ(pre, (std::array<double, 4>{1.4, 0, 0, 1}));
  // The top boundary at t = 0.2: the shock crosses y = 1 at x = 1/6 + (1 + 20 t) / sqrt(3) = 3.0534.
  EXPECT_EQ(primitive(3.05, 1.0, 0.2)[0], 8);
  EXPECT_EQ(primitive(3.06, 1.0, 0.2)[0], 1.4);
  // Rankine-Hugoniot across the shock moving at 10 along its normal (cos 30, -sin 30): mass, normal momentum
  // and total enthalpy in the shock frame agree on both sides (the published numbers are exact).
  const double nx = std::sqrt(3.0) / 2, ny = -0.5, speed = 10;
  const double w_post = post[1] * nx + post[2] * ny - speed, w_pre = pre[1] * nx + pre[2] * ny - speed;
  EXPECT_NEAR(post[0] * w_post, pre[0] * w_pre, 1e-12);
  EXPECT_NEAR(post[0] * w_post * w_post + post[3], pre[0] * w_pre * w_pre + pre[3], 1e-11);
  const double k = gamma_air / (gamma_air - 1);
  EXPECT_NEAR(k * post[3] / post[0] + w_post * w_post / 2, k * pre[3] / pre[0] + w_pre * w_pre / 2, 1e-12);
  // The tangential velocity is continuous (zero ahead).
  EXPECT_NEAR(-post[1] * ny + post[2] * nx, 0, 1e-13);
}

TEST(BoundaryFunctions, TheIsentropicVortexMatchesItsPublishedCentreAndMoves) {
  State centre, moved;
  bc::function_state(bc::StateFunction::isentropic_vortex, 5.0, 5.0, 0.0, gamma_air, centre.data());
  EXPECT_NEAR(centre[euler::density], 0.493807, 5e-7);  // cases.md's check values
  EXPECT_NEAR(euler::pressure(centre.data(), gamma_air), 0.372375, 5e-7);
  bc::function_state(bc::StateFunction::isentropic_vortex, 7.5, 6.5, 2.5, gamma_air, moved.data());
  State start;
  bc::function_state(bc::StateFunction::isentropic_vortex, 5.0, 4.0, 0.0, gamma_air, start.data());
  for (int v = 0; v < num_vars; ++v) EXPECT_NEAR(moved[v], start[v], 1e-15);
  // Kind::function takes the function's state whatever the inside state, like inflow.
  State ghost;
  bc::ghost_state(bc::Kind::function, centre.data(), start.data(), 1.0, 0.0, gamma_air, ghost.data());
  EXPECT_EQ(ghost, centre);
  EXPECT_EQ(bc::state_function_from_name("double-mach"), bc::StateFunction::double_mach);
  EXPECT_EQ(bc::kind_from_name("function"), bc::Kind::function);
  try {
    bc::state_function_from_name("double_mach");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown state function 'double_mach'; did you mean 'double-mach'?"));
  }
}

TEST(ExactRiemann, ReproducesToroTable4_3) {
  // ../shared/reference/cases.md: Toro's tests 1-5, star pressure, velocity and densities.
  using P = riemann::Primitive<double>;
  struct Case {
    P left, right;
    double p, u, rho_l, rho_r;
  };
  const Case cases[] = {
      {{1, 0, 1}, {0.125, 0, 0.1}, 0.30313, 0.92745, 0.42632, 0.26557},
      {{1, -2, 0.4}, {1, 2, 0.4}, 0.00189, 0, 0.02185, 0.02185},
      {{1, 0, 1000}, {1, 0, 0.01}, 460.894, 19.5975, 0.57506, 5.99924},
      {{1, 0, 0.01}, {1, 0, 100}, 46.0950, -6.19633, 5.99242, 0.57511},
      {{5.99924, 19.5975, 460.894}, {5.99242, -6.19633, 46.0950}, 1691.64, 8.68975, 14.2823, 31.0426},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(riemann::generates_vacuum(c.left, c.right, gamma_air));
    const riemann::Star<double> star = riemann::star_state(c.left, c.right, gamma_air);
    EXPECT_NEAR(star.pressure, c.p, 5e-5 * std::max(1.0, c.p));
    EXPECT_NEAR(star.velocity, c.u, 5e-5 * std::max(1.0, std::abs(c.u)));
    EXPECT_NEAR(riemann::star_density(c.left, star.pressure, gamma_air), c.rho_l, 5e-5 * std::max(1.0, c.rho_l));
    EXPECT_NEAR(riemann::star_density(c.right, star.pressure, gamma_air), c.rho_r, 5e-5 * std::max(1.0, c.rho_r));
    // Beside the contact the sampled solution is the star state of its side.
    const double s_left = star.velocity - 1e-9, s_right = star.velocity + 1e-9;
    EXPECT_NEAR(riemann::sample(c.left, c.right, star, gamma_air, s_left).density,
                riemann::star_density(c.left, star.pressure, gamma_air), 1e-6 * c.rho_l);
    EXPECT_NEAR(riemann::sample(c.left, c.right, star, gamma_air, s_right).density,
                riemann::star_density(c.right, star.pressure, gamma_air), 1e-6 * c.rho_r);
    // In single precision too (the GPU's float runs evaluate it for `function` boundaries).
    const riemann::Primitive<float> lf{float(c.left.density), float(c.left.velocity), float(c.left.pressure)};
    const riemann::Primitive<float> rf{float(c.right.density), float(c.right.velocity), float(c.right.pressure)};
    EXPECT_NEAR(riemann::star_state(lf, rf, 1.4f).pressure, star.pressure, 1e-5 * std::max(1.0, c.p));
  }
  // Sampling: the far states and a continuous rarefaction fan (Sod's head moves at -c_L).
  const P left{1, 0, 1}, right{0.125, 0, 0.1};
  const riemann::Star<double> sod = riemann::star_state(left, right, gamma_air);
  EXPECT_DOUBLE_EQ(riemann::sample(left, right, sod, gamma_air, -5.0).density, 1.0);
  EXPECT_DOUBLE_EQ(riemann::sample(left, right, sod, gamma_air, 5.0).density, 0.125);
  EXPECT_NEAR(riemann::sample(left, right, sod, gamma_air, -std::sqrt(1.4) + 1e-9).density, 1.0, 1e-8);
  EXPECT_TRUE(riemann::generates_vacuum(P{1, -20, 0.4}, P{1, 20, 0.4}, gamma_air));
}

TEST(BoundaryFunctions, NamedRiemannProblemsAreTheExactSolutionAndConserve) {
  // Each named problem is its two states at t = 0 and the exact solution later. Check the solution as a whole:
  // while the waves stay inside [0, 1], the integral of each conserved variable changes by the fluxes of the
  // two end states only, d/dt int U = F(U_left) - F(U_right) (end times of cases.md).
  const std::pair<bc::StateFunction, double> problems[] = {{bc::StateFunction::sod, 0.25},
                                                           {bc::StateFunction::toro_2, 0.15},
                                                           {bc::StateFunction::toro_3, 0.012},
                                                           {bc::StateFunction::toro_4, 0.035},
                                                           {bc::StateFunction::toro_5, 0.035}};
  for (const auto& [f, t_end] : problems) {
    riemann::Primitive<double> left, right;
    bc::riemann_problem(f, left, right);
    const State ul = state(left.density, left.velocity, 0, left.pressure);
    const State ur = state(right.density, right.velocity, 0, right.pressure);
    State at_start{}, at_left_end{};
    bc::function_state(f, 0.4999, 0.3, 0.0, gamma_air, at_start.data());
    EXPECT_EQ(at_start, ul);
    bc::function_state(f, 0.0, 0.3, t_end, gamma_air, at_left_end.data());
    for (int v = 0; v < num_vars; ++v) EXPECT_NEAR(at_left_end[v], ul[v], 1e-12 * std::abs(ul[v]) + 1e-14);
    const int n = 400000;
    State integral{};
    for (int i = 0; i < n; ++i) {
      State u{};
      bc::function_state(f, (i + 0.5) / n, 0.0, t_end, gamma_air, u.data());
      for (int v = 0; v < num_vars; ++v) integral[v] += u[v] / n;
    }
    State fl, fr, unused;
    euler::physical_flux(ul.data(), gamma_air, fl.data(), unused.data());
    euler::physical_flux(ur.data(), gamma_air, fr.data(), unused.data());
    for (int v = 0; v < num_vars; ++v) {
      const double expected = 0.5 * (ul[v] + ur[v]) + t_end * (fl[v] - fr[v]);
      const double scale = std::max({std::abs(ul[v]), std::abs(ur[v]), std::abs(expected), 1.0});
      EXPECT_NEAR(integral[v], expected, 1e-4 * scale) << bc::state_functions[int(f)].name << " variable " << v;
    }
  }
  EXPECT_EQ(bc::state_function_from_name("toro-3"), bc::StateFunction::toro_3);
}

}  // namespace
}  // namespace kempe
