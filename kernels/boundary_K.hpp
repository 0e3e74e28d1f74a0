// Boundary conditions as ghost states: the state on the far side of a boundary face, from which the numerical
// flux is computed like at any interior face (weak imposition). Chosen by name per boundary group.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "base/registry.hpp"
#include "kernels/backend.hpp"
#include "kernels/euler.hpp"
#include "kernels/riemann_K.hpp"

namespace kempe::bc {

enum class Kind : std::int8_t {
  wall,      ///< slip (reflecting) wall: the normal velocity mirrored, so the mass flux through it is zero
  inflow,    ///< the given state
  outflow,   ///< the inside state (extrapolation): for supersonic outflow
  farfield,  ///< characteristic: Riemann invariants decide what comes from outside and what from inside
  function,  ///< the state of a named function of (x, y, t) (StateFunction), imposed like inflow
};

inline constexpr Named<Kind> kinds[] = {
    {Kind::wall, "wall", "slip wall: normal velocity reflected"},
    {Kind::inflow, "inflow", "the given state (density, velocity, pressure)"},
    {Kind::outflow, "outflow", "extrapolation of the inside state (supersonic outflow)"},
    {Kind::farfield, "farfield", "characteristic far field around the given free-stream state"},
    {Kind::function, "function", "the state of a named function of (x, y, t), e.g. double-mach for its top boundary"},
};
/// The kind of the given name; std::invalid_argument with the closest known name otherwise.
inline Kind kind_from_name(std::string_view name) { return find_by_name("boundary condition", name, kinds).value; }

/// States given as functions of position and time, for boundaries that move with the flow (the ghost state of
/// Kind::function) and for initial states. Defined for gamma = 1.4, like the published cases.
enum class StateFunction : std::int8_t {
  double_mach,        ///< Woodward & Colella's Mach 10 shock at 60 degrees, foot at x = 1/6 at t = 0
  isentropic_vortex,  ///< Shu's vortex, centre (5, 5) at t = 0, carried by the mean flow (1, 1)
  // Toro's Riemann problems (tests 1-5 of section 4.3.3, ../shared/reference/cases.md), diaphragm at x = 0.5:
  // the exact solution (riemann_K.hpp) at every t.
  sod,
  toro_2,
  toro_3,
  toro_4,
  toro_5,
};

/// The two states of a named Riemann problem (density, velocity, pressure), and its diaphragm position.
inline constexpr double riemann_diaphragm = 0.5;
template <class Real>
KEMPE_HD void riemann_problem(StateFunction f, riemann::Primitive<Real>& left, riemann::Primitive<Real>& right) {
  switch (f) {
    case StateFunction::toro_2: left = {Real(1), Real(-2), Real(0.4)}, right = {Real(1), Real(2), Real(0.4)}; return;
    case StateFunction::toro_3: left = {Real(1), Real(0), Real(1000)}, right = {Real(1), Real(0), Real(0.01)}; return;
    case StateFunction::toro_4: left = {Real(1), Real(0), Real(0.01)}, right = {Real(1), Real(0), Real(100)}; return;
    case StateFunction::toro_5:
      left = {Real(5.99924), Real(19.5975), Real(460.894)}, right = {Real(5.99242), Real(-6.19633), Real(46.0950)};
      return;
    default: left = {Real(1), Real(0), Real(1)}, right = {Real(0.125), Real(0), Real(0.1)}; return;  // sod
  }
}

inline constexpr Named<StateFunction> state_functions[] = {
    {StateFunction::double_mach, "double-mach",
     "post-shock state (rho 8, p 116.5, speed 8.25 at -30 degrees) behind x = 1/6 + (y + 20 t) / sqrt(3), "
     "pre-shock (rho 1.4, p 1, at rest) ahead of it"},
    {StateFunction::isentropic_vortex, "isentropic-vortex",
     "the exact isentropic vortex (epsilon 5) centred at (5 + t, 5 + t) in the mean flow rho = u = v = p = 1"},
    {StateFunction::sod, "sod",
     "Sod's shock tube (Toro's test 1), (rho, u, p) = (1, 0, 1) for x < 0.5, (0.125, 0, 0.1) beyond; exact at t"},
    {StateFunction::toro_2, "toro-2",
     "Toro's test 2 (123 problem: two rarefactions), (1, -2, 0.4) against (1, 2, 0.4) at x = 0.5; exact at t"},
    {StateFunction::toro_3, "toro-3",
     "Toro's test 3 (left half of the blast wave), (1, 0, 1000) against (1, 0, 0.01) at x = 0.5; exact at t"},
    {StateFunction::toro_4, "toro-4",
     "Toro's test 4 (right half of the blast wave), (1, 0, 0.01) against (1, 0, 100) at x = 0.5; exact at t"},
    {StateFunction::toro_5, "toro-5",
     "Toro's test 5 (colliding shocks), (5.99924, 19.5975, 460.894) against (5.99242, -6.19633, 46.095) at "
     "x = 0.5; exact at t"},
};
/// The state function of the given name; std::invalid_argument with the closest known name otherwise.
inline StateFunction state_function_from_name(std::string_view name) {
  return find_by_name("state function", name, state_functions).value;
}

/// The conserved state of function f at (x, y) and time t.
template <class Real>
KEMPE_HD void function_state(StateFunction f, Real x, Real y, Real t, Real gamma, Real* out) {
  switch (f) {
    case StateFunction::double_mach: {
      // The shock runs at Mach 10 into gas at rest with sound speed 1, along its normal (cos 30, -sin 30), so
      // its trace on any horizontal line runs at 10 / cos 30 = 20 / sqrt(3) (cases.md).
      const Real inv_sqrt3 = Real(0.57735026918962576451);
      const Real shock_x = Real(1) / Real(6) + (y + Real(20) * t) * inv_sqrt3;
      if (x < shock_x)
        euler::conserved(Real(8), Real(8.25) * Real(0.86602540378443864676), Real(-8.25) * Real(0.5), Real(116.5), gamma, out);
      else
        euler::conserved(Real(1.4), Real(0), Real(0), Real(1), gamma, out);
      return;
    }
    case StateFunction::isentropic_vortex: {
      // Shu (ICASE report 2001-11), cases.md: velocity perturbation and temperature drop about the moving centre.
      const Real eps = Real(5), pi = Real(3.14159265358979323846);
      const Real xc = x - Real(5) - t, yc = y - Real(5) - t, r2 = xc * xc + yc * yc;
      const Real bump = std::exp((Real(1) - r2) / Real(2));
      const Real vx = Real(1) - yc * eps / (Real(2) * pi) * bump, vy = Real(1) + xc * eps / (Real(2) * pi) * bump;
      const Real temperature =
          Real(1) - (gamma - Real(1)) * eps * eps / (Real(8) * gamma * pi * pi) * std::exp(Real(1) - r2);
      const Real rho = std::pow(temperature, Real(1) / (gamma - Real(1)));
      euler::conserved(rho, vx, vy, rho * temperature, gamma, out);
      return;
    }
    case StateFunction::sod:
    case StateFunction::toro_2:
    case StateFunction::toro_3:
    case StateFunction::toro_4:
    case StateFunction::toro_5: {
      riemann::Primitive<Real> left, right;
      riemann_problem(f, left, right);
      const riemann::Primitive<Real> q = riemann::solution(left, right, Real(riemann_diaphragm), gamma, x, t);
      euler::conserved(q.density, q.velocity, Real(0), q.pressure, gamma, out);
      return;
    }
  }
}

/// The ghost state of one boundary face point. `outside` is the group's given state (conserved variables;
/// ignored by wall and outflow).
template <class Real>
KEMPE_HD void ghost_state(Kind kind, const Real* outside, const Real* inside, Real nx, Real ny, Real gamma, Real* ghost) {
  using namespace euler;
  switch (kind) {
    case Kind::wall: {
      const Real mn = inside[momentum_x] * nx + inside[momentum_y] * ny;
      ghost[density] = inside[density];
      ghost[momentum_x] = inside[momentum_x] - Real(2) * mn * nx;
      ghost[momentum_y] = inside[momentum_y] - Real(2) * mn * ny;
      ghost[energy] = inside[energy];
      return;
    }
    case Kind::inflow:
    case Kind::function:  // `outside` is the function's state at the point (GroupBoundary)
      for (int v = 0; v < num_vars; ++v) ghost[v] = outside[v];
      return;
    case Kind::outflow:
      for (int v = 0; v < num_vars; ++v) ghost[v] = inside[v];
      return;
    case Kind::farfield: {
      // Riemann invariants along n: R+ = vn + 2c/(gamma - 1) leaves the domain, R- = vn - 2c/(gamma - 1)
      // enters it (subsonic); supersonic faces take everything from upwind. Entropy and tangential velocity
      // come from the upwind side (Blazek, "Computational Fluid Dynamics", section 8.5).
      const Real pi = pressure(inside, gamma), po = pressure(outside, gamma);
      const Real ci = sound_speed(inside[density], pi, gamma), co = sound_speed(outside[density], po, gamma);
      const Real vni = (inside[momentum_x] * nx + inside[momentum_y] * ny) / inside[density];
      const Real vno = (outside[momentum_x] * nx + outside[momentum_y] * ny) / outside[density];
      if (vni <= -ci) {  // supersonic inflow
        for (int v = 0; v < num_vars; ++v) ghost[v] = outside[v];
        return;
      }
      if (vni >= ci) {  // supersonic outflow
        for (int v = 0; v < num_vars; ++v) ghost[v] = inside[v];
        return;
      }
      const Real r_plus = vni + Real(2) * ci / (gamma - Real(1));
      const Real r_minus = vno - Real(2) * co / (gamma - Real(1));
      const Real vn = Real(0.5) * (r_plus + r_minus);
      const Real c = Real(0.25) * (gamma - Real(1)) * (r_plus - r_minus);
      const Real* upwind = vn > Real(0) ? inside : outside;
      const Real p_up = vn > Real(0) ? pi : po;
      const Real entropy = p_up / std::pow(upwind[density], gamma);
      const Real rho = std::pow(c * c / (gamma * entropy), Real(1) / (gamma - Real(1)));
      const Real vx_up = upwind[momentum_x] / upwind[density], vy_up = upwind[momentum_y] / upwind[density];
      const Real vn_up = vx_up * nx + vy_up * ny;
      conserved(rho, vx_up + (vn - vn_up) * nx, vy_up + (vn - vn_up) * ny, rho * c * c / gamma, gamma, ghost);
      return;
    }
  }
}

/// The ghost-state functor of the DG kernels for a table of boundary groups: kind[group],
/// state[group][num_vars] (conserved) and, for Kind::function, function[group]; device pointers. `function`
/// may be null when no group has Kind::function.
template <class Real>
struct GroupBoundary {
  const Kind* kind;
  const Real* state;
  Real gamma;
  const StateFunction* function = nullptr;
  KEMPE_HD void operator()(std::int32_t group, const Real* inside, Real nx, Real ny, Real x, Real y, Real t,
                           Real* ghost) const {
    if (kind[group] == Kind::function) {
      Real outside[euler::num_vars] = {};
      function_state(function[group], x, y, t, gamma, outside);
      ghost_state(Kind::function, outside, inside, nx, ny, gamma, ghost);
      return;
    }
    ghost_state(kind[group], state + euler::num_vars * group, inside, nx, ny, gamma, ghost);
  }
};

}  // namespace kempe::bc
