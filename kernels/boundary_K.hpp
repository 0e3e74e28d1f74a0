// Boundary conditions as ghost states: the state on the far side of a boundary face, from which the numerical
// flux is computed like at any interior face (weak imposition). Chosen by name per boundary group.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "kernels/backend.hpp"
#include "kernels/euler.hpp"
#include "kernels/registry.hpp"

namespace kempe::bc {

enum class Kind : std::int8_t {
  wall,      ///< slip (reflecting) wall: the normal velocity mirrored, so the mass flux through it is zero
  inflow,    ///< the given state
  outflow,   ///< the inside state (extrapolation): for supersonic outflow
  farfield,  ///< characteristic: Riemann invariants decide what comes from outside and what from inside
};

inline constexpr Named<Kind> kinds[] = {
    {Kind::wall, "wall", "slip wall: normal velocity reflected"},
    {Kind::inflow, "inflow", "the given state (density, velocity, pressure)"},
    {Kind::outflow, "outflow", "extrapolation of the inside state (supersonic outflow)"},
    {Kind::farfield, "farfield", "characteristic far field around the given free-stream state"},
};
/// The kind of the given name; std::invalid_argument with the closest known name otherwise.
inline Kind kind_from_name(std::string_view name) { return find_by_name("boundary condition", name, kinds); }

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

/// The ghost-state functor of the DG kernels for a table of boundary groups: kind[group] and
/// state[group][num_vars] (conserved), device pointers.
template <class Real>
struct GroupBoundary {
  const Kind* kind;
  const Real* state;
  Real gamma;
  KEMPE_HD void operator()(std::int32_t group, const Real* inside, Real nx, Real ny, Real, Real, Real, Real* ghost) const {
    ghost_state(kind[group], state + euler::num_vars * group, inside, nx, ny, gamma, ghost);
  }
};

}  // namespace kempe::bc
