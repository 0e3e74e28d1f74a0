// The exact solution of the Riemann problem of the one-dimensional Euler equations for an ideal gas (Toro,
// "Riemann Solvers and Numerical Methods for Fluid Dynamics", 3rd ed., chapter 4): the star pressure by Newton's
// method on Toro's pressure function (eq. 4.5), then the solution sampled along x / t (section 4.5). Used by
// the named Riemann-problem state functions (boundary_K.hpp), whose value at a time t is the exact solution: a
// `function` boundary then follows the waves, and a run can be compared with it point by point.
#pragma once

#include <cmath>

#include "kernels/backend.hpp"

namespace kempe::riemann {

/// Density, velocity and pressure of one side.
template <class Real>
struct Primitive {
  Real density, velocity, pressure;
};

/// The star region between the left and right waves: its pressure and velocity.
template <class Real>
struct Star {
  Real pressure, velocity;
};

/// Newton's tolerance on the relative change of the star pressure, and an iteration cap. The tolerance stays
/// above what rounding allows (f_K loses digits in pow(...) - 1: near the root the iterates wander by about
/// 5e-7 in float and 2e-15 in double), else the loop would run to the cap; Toro uses 1e-6. From the
/// two-rarefaction guess Toro's tests take at most 6 steps.
template <class Real>
KEMPE_HD constexpr Real star_tolerance() {
  return sizeof(Real) == 4 ? Real(2e-6) : Real(1e-12);
}
inline constexpr int max_newton_steps = 50;

/// Toro's f_K(p) (eq. 4.6, 4.7) with its derivative: the velocity change across the wave that takes side K
/// to pressure p (a shock when p > p_K, a rarefaction otherwise).
template <class Real>
KEMPE_HD Real wave_velocity_change(Real p, const Primitive<Real>& k, Real gamma, Real& derivative) {
  const Real c = std::sqrt(gamma * k.pressure / k.density);
  if (p > k.pressure) {
    const Real a = Real(2) / ((gamma + Real(1)) * k.density);
    const Real b = (gamma - Real(1)) / (gamma + Real(1)) * k.pressure;
    const Real q = std::sqrt(a / (p + b));
    derivative = q * (Real(1) - (p - k.pressure) / (Real(2) * (b + p)));
    return (p - k.pressure) * q;
  }
  const Real ratio = p / k.pressure;
  derivative = std::pow(ratio, -(gamma + Real(1)) / (Real(2) * gamma)) / (k.density * c);
  return Real(2) * c / (gamma - Real(1)) * (std::pow(ratio, (gamma - Real(1)) / (Real(2) * gamma)) - Real(1));
}

/// The star state (eq. 4.5 and 4.9). Starts from the two-rarefaction pressure (eq. 4.46), which is exact when
/// both waves are rarefactions and never negative. The states must not create a vacuum (Toro's condition
/// 4.40); the named problems do not.
template <class Real>
KEMPE_HD Star<Real> star_state(const Primitive<Real>& left, const Primitive<Real>& right, Real gamma) {
  const Real z = (gamma - Real(1)) / (Real(2) * gamma);
  const Real cl = std::sqrt(gamma * left.pressure / left.density);
  const Real cr = std::sqrt(gamma * right.pressure / right.density);
  const Real du = right.velocity - left.velocity;
  const Real guess = (cl + cr - Real(0.5) * (gamma - Real(1)) * du) /
                     (cl / std::pow(left.pressure, z) + cr / std::pow(right.pressure, z));
  Real p = std::pow(guess > Real(0) ? guess : star_tolerance<Real>(), Real(1) / z);
  Real fl = 0, fr = 0;
  for (int step = 0; step < max_newton_steps; ++step) {
    Real dl, dr;
    fl = wave_velocity_change(p, left, gamma, dl);
    fr = wave_velocity_change(p, right, gamma, dr);
    Real next = p - (fl + fr + du) / (dl + dr);
    if (next <= Real(0)) next = star_tolerance<Real>() * p;  // stay positive (Toro's TOLPRE)
    const Real change = std::fabs(next - p) / (Real(0.5) * (next + p));
    p = next;
    if (change < star_tolerance<Real>()) break;  // then one more step changes p by rounding only
  }
  Real unused;
  fl = wave_velocity_change(p, left, gamma, unused);
  fr = wave_velocity_change(p, right, gamma, unused);
  return {p, Real(0.5) * (left.velocity + right.velocity) + Real(0.5) * (fr - fl)};
}

/// Whether the two states create a vacuum between them (Toro's pressure positivity condition, eq. 4.40 fails):
/// then there is no star region and star_state does not apply.
template <class Real>
KEMPE_HD bool generates_vacuum(const Primitive<Real>& left, const Primitive<Real>& right, Real gamma) {
  const Real cl = std::sqrt(gamma * left.pressure / left.density);
  const Real cr = std::sqrt(gamma * right.pressure / right.density);
  return Real(2) / (gamma - Real(1)) * (cl + cr) <= right.velocity - left.velocity;
}

/// The density of the star region on side K: behind a shock (Rankine-Hugoniot, eq. 4.50) or a rarefaction
/// (isentropic, eq. 4.53).
template <class Real>
KEMPE_HD Real star_density(const Primitive<Real>& k, Real star_pressure, Real gamma) {
  const Real ratio = star_pressure / k.pressure;
  if (star_pressure > k.pressure) {
    const Real g6 = (gamma - Real(1)) / (gamma + Real(1));
    return k.density * (ratio + g6) / (g6 * ratio + Real(1));
  }
  return k.density * std::pow(ratio, Real(1) / gamma);
}

/// The solution at speed s = (x - x0) / t (Toro section 4.5, figure 4.14).
template <class Real>
KEMPE_HD Primitive<Real> sample(const Primitive<Real>& left, const Primitive<Real>& right, const Star<Real>& star,
                                Real gamma, Real s) {
  const Real g1 = (gamma - Real(1)) / (Real(2) * gamma), g2 = (gamma + Real(1)) / (Real(2) * gamma);
  const Real g6 = (gamma - Real(1)) / (gamma + Real(1)), g5 = Real(2) / (gamma + Real(1));
  // Mirroring x makes the right side a left side: one code path for both, velocities negated.
  const bool on_left = s <= star.velocity;
  const Real sign = on_left ? Real(1) : Real(-1);
  const Primitive<Real> k = on_left ? left : right;
  const Real u = sign * k.velocity, u_star = sign * star.velocity, speed = sign * s;
  const Real c = std::sqrt(gamma * k.pressure / k.density);
  const Real ratio = star.pressure / k.pressure;
  Primitive<Real> out;
  if (star.pressure > k.pressure) {  // shock
    const Real shock_speed = u - c * std::sqrt(g2 * ratio + g1);
    if (speed <= shock_speed) return k;
    out = {star_density(k, star.pressure, gamma), u_star, star.pressure};
  } else {  // rarefaction: head, tail, and the fan between
    if (speed <= u - c) return k;
    const Real c_star = c * std::pow(ratio, g1);
    if (speed > u_star - c_star) {
      out = {star_density(k, star.pressure, gamma), u_star, star.pressure};
    } else {
      const Real base = g5 + g6 / c * (u - speed);
      out = {k.density * std::pow(base, Real(2) / (gamma - Real(1))), g5 * (c + Real(0.5) * (gamma - Real(1)) * u + speed),
             k.pressure * std::pow(base, Real(2) * gamma / (gamma - Real(1)))};
    }
  }
  out.velocity *= sign;
  return out;
}

/// The exact solution at x and time t of the problem with the diaphragm at x0 (the left state where x < x0 at
/// t = 0). The star state is computed per call: the named problems are evaluated at boundary points only.
template <class Real>
KEMPE_HD Primitive<Real> solution(const Primitive<Real>& left, const Primitive<Real>& right, Real x0, Real gamma,
                                  Real x, Real t) {
  if (t <= Real(0)) return x < x0 ? left : right;
  return sample(left, right, star_state(left, right, gamma), gamma, (x - x0) / t);
}

}  // namespace kempe::riemann
