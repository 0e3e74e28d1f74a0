// The compressible Euler equations of an ideal gas in 2D: conserved variables, pressure, the physical flux
// and the numerical fluxes (approximate Riemann solvers), as KEMPE_HD point functions written once for the
// CPU and the GPU (the physics-kernel style of MFEM's hyperbolic.hpp and AMReX's *_K.H headers).
//
// State arrays hold the conserved variables u = (rho, rho u, rho v, E) in the order of `Var`; fluxes are
// normal fluxes F(u) . n through a face with unit normal n = (nx, ny). Every numerical flux F(uL, uR, n) is
// consistent (F(u, u, n) = F(u) . n) and conservative (F(uL, uR, n) = -F(uR, uL, -n)); the tests check both.
// The functions assume physical states (positive density and pressure): the solver checks states before
// fluxes see them and stops with the element and values when one is not.
#pragma once

#include <cmath>
#include <string_view>
#include <type_traits>

#include "base/registry.hpp"
#include "kernels/backend.hpp"

namespace kempe::euler {

/// Conserved variables, in this order in every state array and in the solution's first index.
enum Var : int { density = 0, momentum_x = 1, momentum_y = 2, energy = 3 };
inline constexpr int num_vars = 4;

template <class Real>
KEMPE_HD Real pressure(Real rho, Real mx, Real my, Real e, Real gamma) {
  return (gamma - Real(1)) * (e - Real(0.5) * (mx * mx + my * my) / rho);
}
template <class Real>
KEMPE_HD Real pressure(const Real* u, Real gamma) {
  return pressure(u[density], u[momentum_x], u[momentum_y], u[energy], gamma);
}

template <class Real>
KEMPE_HD Real sound_speed(Real rho, Real p, Real gamma) {
  return std::sqrt(gamma * p / rho);
}

/// Conserved state from density, velocity and pressure.
template <class Real>
KEMPE_HD void conserved(Real rho, Real vx, Real vy, Real p, Real gamma, Real* u) {
  u[density] = rho;
  u[momentum_x] = rho * vx;
  u[momentum_y] = rho * vy;
  u[energy] = p / (gamma - Real(1)) + Real(0.5) * rho * (vx * vx + vy * vy);
}

/// The physical flux in both directions, fx = F_x(u) and fy = F_y(u) (for the volume integral). Variable v is at
/// index v * Stride of each array (Stride > 1: one lane of the CPU's blocks of elements, EvalVolume::block); it
/// reads the state into scalars first, which is what lets GCC vectorize a loop over lanes around it.
template <class Real, int Stride = 1>
KEMPE_HD void physical_flux(const Real* u, Real gamma, Real* fx, Real* fy) {
  const Real rho = u[density * Stride], mx = u[momentum_x * Stride], my = u[momentum_y * Stride], e = u[energy * Stride];
  const Real vx = mx / rho, vy = my / rho;
  const Real p = pressure(rho, mx, my, e, gamma);
  fx[density * Stride] = mx;
  fx[momentum_x * Stride] = mx * vx + p;
  fx[momentum_y * Stride] = my * vx;
  fx[energy * Stride] = (e + p) * vx;
  fy[density * Stride] = my;
  fy[momentum_x * Stride] = mx * vy;
  fy[momentum_y * Stride] = my * vy + p;
  fy[energy * Stride] = (e + p) * vy;
}

/// The physical normal flux F(u) . n, with the state's normal velocity and pressure (reused by the solvers).
template <class Real>
KEMPE_HD void normal_flux(const Real* u, Real p, Real vn, Real nx, Real ny, Real* f) {
  f[density] = u[density] * vn;
  f[momentum_x] = u[momentum_x] * vn + p * nx;
  f[momentum_y] = u[momentum_y] * vn + p * ny;
  f[energy] = (u[energy] + p) * vn;
}

/// What every numerical flux needs first: the pressures and normal velocities of both states.
template <class Real>
struct FaceStates {
  Real pl, pr, vnl, vnr;
};
template <class Real>
KEMPE_HD FaceStates<Real> face_states(const Real* ul, const Real* ur, Real nx, Real ny, Real gamma) {
  return {pressure(ul, gamma), pressure(ur, gamma), (ul[momentum_x] * nx + ul[momentum_y] * ny) / ul[density],
          (ur[momentum_x] * nx + ur[momentum_y] * ny) / ur[density]};
}

/// Rusanov (local Lax-Friedrichs), the flux of the coloring paper's solver: the average of the two physical
/// fluxes minus half the largest wave speed |vn| + c of the two sides times the jump.
template <class Real>
KEMPE_HD void rusanov(const Real* ul, const Real* ur, Real nx, Real ny, Real gamma, Real* f) {
  const auto [pl, pr, vnl, vnr] = face_states(ul, ur, nx, ny, gamma);
  const Real sl = std::abs(vnl) + sound_speed(ul[density], pl, gamma);
  const Real sr = std::abs(vnr) + sound_speed(ur[density], pr, gamma);
  const Real s = sl > sr ? sl : sr;
  Real fl[num_vars], fr[num_vars];
  normal_flux(ul, pl, vnl, nx, ny, fl);
  normal_flux(ur, pr, vnr, nx, ny, fr);
  for (int k = 0; k < num_vars; ++k) f[k] = Real(0.5) * (fl[k] + fr[k]) - Real(0.5) * s * (ur[k] - ul[k]);
}

/// Davis/Einfeldt wave-speed estimates from the Roe average: the slowest and fastest signal speeds of HLL and
/// HLLC (Toro, eq. 10.52, with Einfeldt's choice, which keeps HLL positivity preserving).
template <class Real>
struct WaveSpeeds {
  Real left, right;
};
template <class Real>
KEMPE_HD WaveSpeeds<Real> wave_speeds(const Real* ul, const Real* ur, Real pl, Real pr, Real vnl, Real vnr,
                                      Real nx, Real ny, Real gamma) {
  const Real cl = sound_speed(ul[density], pl, gamma), cr = sound_speed(ur[density], pr, gamma);
  const Real wl = std::sqrt(ul[density]), wr = std::sqrt(ur[density]);
  const Real hl = (ul[energy] + pl) / ul[density], hr = (ur[energy] + pr) / ur[density];
  const Real vx = (wl * ul[momentum_x] / ul[density] + wr * ur[momentum_x] / ur[density]) / (wl + wr);
  const Real vy = (wl * ul[momentum_y] / ul[density] + wr * ur[momentum_y] / ur[density]) / (wl + wr);
  const Real h = (wl * hl + wr * hr) / (wl + wr);
  const Real c2 = (gamma - Real(1)) * (h - Real(0.5) * (vx * vx + vy * vy));
  const Real c = std::sqrt(c2 > Real(0) ? c2 : Real(0));
  const Real vn = vx * nx + vy * ny;
  const Real a = vnl - cl, b = vn - c, d = vnr + cr, e = vn + c;
  return {a < b ? a : b, d > e ? d : e};
}

/// HLL (Harten, Lax and van Leer): one intermediate state between the two outer waves.
template <class Real>
KEMPE_HD void hll(const Real* ul, const Real* ur, Real nx, Real ny, Real gamma, Real* f) {
  const auto [pl, pr, vnl, vnr] = face_states(ul, ur, nx, ny, gamma);
  const WaveSpeeds<Real> s = wave_speeds(ul, ur, pl, pr, vnl, vnr, nx, ny, gamma);
  Real fl[num_vars], fr[num_vars];
  normal_flux(ul, pl, vnl, nx, ny, fl);
  normal_flux(ur, pr, vnr, nx, ny, fr);
  if (s.left >= Real(0)) {
    for (int k = 0; k < num_vars; ++k) f[k] = fl[k];
  } else if (s.right <= Real(0)) {
    for (int k = 0; k < num_vars; ++k) f[k] = fr[k];
  } else {
    const Real inv = Real(1) / (s.right - s.left);
    for (int k = 0; k < num_vars; ++k)
      f[k] = (s.right * fl[k] - s.left * fr[k] + s.left * s.right * (ur[k] - ul[k])) * inv;
  }
}

/// HLLC (Toro, Spruce and Speares): HLL with the contact wave restored, so a stationary contact is exact.
/// Star states from Toro, eqs. 10.37-10.39.
template <class Real>
KEMPE_HD void hllc(const Real* ul, const Real* ur, Real nx, Real ny, Real gamma, Real* f) {
  const auto [pl, pr, vnl, vnr] = face_states(ul, ur, nx, ny, gamma);
  const WaveSpeeds<Real> s = wave_speeds(ul, ur, pl, pr, vnl, vnr, nx, ny, gamma);
  const Real ml = ul[density] * (s.left - vnl), mr = ur[density] * (s.right - vnr);
  const Real s_star = (pr - pl + vnl * ml - vnr * mr) / (ml - mr);
  const bool left_side = s_star >= Real(0);
  const Real* u = left_side ? ul : ur;
  const Real p = left_side ? pl : pr, vn = left_side ? vnl : vnr, sk = left_side ? s.left : s.right;
  Real fk[num_vars];
  normal_flux(u, p, vn, nx, ny, fk);
  if ((left_side && s.left >= Real(0)) || (!left_side && s.right <= Real(0))) {
    for (int k = 0; k < num_vars; ++k) f[k] = fk[k];
    return;
  }
  // The star state on this side of the contact, and F* = F_k + S_k (U*_k - U_k).
  const Real factor = u[density] * (sk - vn) / (sk - s_star);
  const Real vx = u[momentum_x] / u[density], vy = u[momentum_y] / u[density];
  Real star[num_vars];
  star[density] = factor;
  star[momentum_x] = factor * (vx + (s_star - vn) * nx);
  star[momentum_y] = factor * (vy + (s_star - vn) * ny);
  star[energy] = factor * (u[energy] / u[density] + (s_star - vn) * (s_star + p / (u[density] * (sk - vn))));
  for (int k = 0; k < num_vars; ++k) f[k] = fk[k] + sk * (star[k] - u[k]);
}

/// Roe's linearised solver with Harten's entropy fix on the acoustic waves (|lambda| below delta = 0.1 c is
/// smoothed to (lambda^2 + delta^2) / (2 delta)), so a transonic rarefaction opens instead of an expansion shock.
template <class Real>
KEMPE_HD void roe(const Real* ul, const Real* ur, Real nx, Real ny, Real gamma, Real* f) {
  const auto [pl, pr, vnl, vnr] = face_states(ul, ur, nx, ny, gamma);
  Real fl[num_vars], fr[num_vars];
  normal_flux(ul, pl, vnl, nx, ny, fl);
  normal_flux(ur, pr, vnr, nx, ny, fr);
  const Real wl = std::sqrt(ul[density]), wr = std::sqrt(ur[density]);
  const Real rho = wl * wr;
  const Real vx = (wl * ul[momentum_x] / ul[density] + wr * ur[momentum_x] / ur[density]) / (wl + wr);
  const Real vy = (wl * ul[momentum_y] / ul[density] + wr * ur[momentum_y] / ur[density]) / (wl + wr);
  const Real h = (wl * (ul[energy] + pl) / ul[density] + wr * (ur[energy] + pr) / ur[density]) / (wl + wr);
  const Real q2 = vx * vx + vy * vy;
  const Real c2 = (gamma - Real(1)) * (h - Real(0.5) * q2);
  const Real c = std::sqrt(c2 > Real(0) ? c2 : Real(0));
  const Real vn = vx * nx + vy * ny, vt = -vx * ny + vy * nx;
  // Jumps of the primitive variables and the wave strengths (Toro, section 11.3, in normal/tangential form).
  const Real d_rho = ur[density] - ul[density], d_p = pr - pl;
  const Real d_vn = vnr - vnl;
  const Real vtl = (-ul[momentum_x] * ny + ul[momentum_y] * nx) / ul[density];
  const Real vtr = (-ur[momentum_x] * ny + ur[momentum_y] * nx) / ur[density];
  const Real d_vt = vtr - vtl;
  const Real a1 = (d_p - rho * c * d_vn) / (Real(2) * c2);  // the vn - c wave
  const Real a2 = d_rho - d_p / c2;                         // entropy wave
  const Real a3 = rho * d_vt;                               // shear wave
  const Real a4 = (d_p + rho * c * d_vn) / (Real(2) * c2);  // the vn + c wave
  auto fixed = [&](Real lambda) {
    const Real abs_l = std::abs(lambda), delta = Real(0.1) * c;
    return abs_l < delta ? (lambda * lambda + delta * delta) / (Real(2) * delta) : abs_l;
  };
  const Real l1 = fixed(vn - c), l2 = std::abs(vn), l4 = fixed(vn + c);
  // |A| (uR - uL) as the sum of |lambda_k| a_k r_k.
  Real dissipation[num_vars];
  dissipation[density] = l1 * a1 + l2 * a2 + l4 * a4;
  dissipation[momentum_x] = l1 * a1 * (vx - c * nx) + l2 * (a2 * vx - a3 * ny) + l4 * a4 * (vx + c * nx);
  dissipation[momentum_y] = l1 * a1 * (vy - c * ny) + l2 * (a2 * vy + a3 * nx) + l4 * a4 * (vy + c * ny);
  dissipation[energy] =
      l1 * a1 * (h - c * vn) + l2 * (a2 * Real(0.5) * q2 + a3 * vt) + l4 * a4 * (h + c * vn);
  for (int k = 0; k < num_vars; ++k) f[k] = Real(0.5) * (fl[k] + fr[k]) - Real(0.5) * dissipation[k];
}

/// The numerical fluxes, chosen by name (the YAML key `flux`). The flux kernels are instantiated per flux.
enum class Flux { rusanov, hll, hllc, roe };

/// F(uL, uR, n) of the given flux; the switch folds away when `flux` is a compile-time constant.
template <class Real>
KEMPE_HD void numerical_flux(Flux flux, const Real* ul, const Real* ur, Real nx, Real ny, Real gamma, Real* f) {
  switch (flux) {
    case Flux::rusanov: rusanov(ul, ur, nx, ny, gamma, f); return;
    case Flux::hll: hll(ul, ur, nx, ny, gamma, f); return;
    case Flux::hllc: hllc(ul, ur, nx, ny, gamma, f); return;
    case Flux::roe: roe(ul, ur, nx, ny, gamma, f); return;
  }
}

/// The fluxes a solver is built for (dg::EulerSolver): its flux kernels are instantiated once per member, the
/// rest of it once for all.
template <Flux... Fs>
struct FluxSet {};
using AllFluxes = FluxSet<Flux::rusanov, Flux::hll, Flux::hllc, Flux::roe>;
template <Flux F>
using FluxConstant = std::integral_constant<Flux, F>;

/// fn(FluxConstant<flux>{}) where `flux` is in the set, so that fn instantiates its kernels with the flux as a
/// compile-time constant; false (fn not called) where it is not.
template <Flux... Fs, class Fn>
bool with_flux(FluxSet<Fs...>, Flux flux, Fn&& fn) {
  return ((flux == Fs ? (fn(FluxConstant<Fs>{}), true) : false) || ...);
}

/// The registry: every flux with its name and a line for the documentation and error messages.
using FluxInfo = Named<Flux>;
inline constexpr FluxInfo fluxes[] = {
    {Flux::rusanov, "rusanov", "local Lax-Friedrichs: robust, most dissipative (the coloring paper's flux)"},
    {Flux::hll, "hll", "Harten-Lax-van Leer with Einfeldt's wave speeds: positivity preserving, smears contacts"},
    {Flux::hllc, "hllc", "HLL with the contact restored (Toro): exact on stationary contacts"},
    {Flux::roe, "roe", "Roe's linearisation with Harten's entropy fix: least dissipative"},
};

/// The flux of the given name; std::invalid_argument naming the closest known name otherwise.
inline Flux flux_from_name(std::string_view name) { return find_by_name("flux", name, fluxes).value; }

}  // namespace kempe::euler
