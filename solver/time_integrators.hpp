// Explicit Runge-Kutta methods, chosen by name, for any semi-discrete system du/dt = L(u, t) held in a vector.
// The right-hand side is a callable rhs(u, t, out); the vector updates run through forall, so the same code
// serves every backend that provides its vectors' storage.
#pragma once

#include <string_view>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/registry.hpp"

namespace kempe::dg {

enum class Integrator { euler, ssprk2, ssprk3, rk4, lsrk54 };
inline constexpr Named<Integrator> integrators[] = {
    {Integrator::euler, "euler", "forward Euler: first order, for tests"},
    {Integrator::ssprk2, "ssprk2", "SSP-RK2 (Shu & Osher): second order, strong stability preserving"},
    {Integrator::ssprk3, "ssprk3", "SSP-RK3 (Shu & Osher): third order, strong stability preserving (default)"},
    {Integrator::rk4, "rk4", "classical fourth-order Runge-Kutta"},
    {Integrator::lsrk54, "lsrk54", "Carpenter-Kennedy five-stage fourth order, low storage (2N)"},
};
inline Integrator integrator_from_name(std::string_view name) { return find_by_name("integrator", name, integrators); }

/// Nothing to do after a stage.
struct NoLimiter {
  template <class Vector>
  void operator()(Vector&) const {}
};

/// Work vectors and the steps of every method. At most three vectors besides u (rk4: start, stage, rhs).
/// `limit(v)` runs on every stage value before the right-hand side sees it, and on the result (the SSP way of
/// combining a limiter with a Runge-Kutta method).
template <class Real>
class RungeKutta {
 public:
  template <class Rhs, class Limit = NoLimiter>
  void step(Integrator method, Real t, Real dt, std::vector<Real>& u, Rhs&& rhs, Limit&& limit = Limit{}) {
    const index_t n = static_cast<index_t>(u.size());
    for (auto* w : {&start_, &stage_, &rhs_}) w->resize(u.size());
    Real* c = u.data();
    Real *start = start_.data(), *stage = stage_.data(), *k = rhs_.data();
    switch (method) {
      case Integrator::euler:
        rhs(u, t, rhs_);
        combine(n, Real(1), c, Real(0), c, dt, k, c);
        limit(u);
        return;
      case Integrator::ssprk2:  // u1 = u + dt L(u); u = (u + u1 + dt L(u1)) / 2
        start_ = u;
        rhs(u, t, rhs_);
        combine(n, Real(1), start, Real(0), c, dt, k, stage);
        limit(stage_);
        rhs(stage_, t + dt, rhs_);
        combine(n, Real(0.5), start, Real(0.5), stage, Real(0.5) * dt, k, c);
        limit(u);
        return;
      case Integrator::ssprk3:  // u1 = u + dt L(u); u2 = 3/4 u + 1/4 (u1 + dt L(u1)); u = 1/3 u + 2/3 (u2 + dt L(u2))
        start_ = u;
        rhs(u, t, rhs_);
        combine(n, Real(1), start, Real(0), c, dt, k, stage);
        limit(stage_);
        rhs(stage_, t + dt, rhs_);
        combine(n, Real(0.75), start, Real(0.25), stage, Real(0.25) * dt, k, stage);
        limit(stage_);
        rhs(stage_, t + Real(0.5) * dt, rhs_);
        combine(n, Real(1) / 3, start, Real(2) / 3, stage, Real(2) / 3 * dt, k, c);
        limit(u);
        return;
      case Integrator::rk4: {  // u accumulates u0 + dt (k1 + 2 k2 + 2 k3 + k4) / 6
        start_ = u;
        stage_ = u;
        const Real stage_time[4] = {t, t + dt / 2, t + dt / 2, t + dt};
        const Real stage_step[3] = {dt / 2, dt / 2, dt};
        const Real weight[4] = {dt / 6, dt / 3, dt / 3, dt / 6};
        for (int i = 0; i < 4; ++i) {
          rhs(stage_, stage_time[i], rhs_);
          combine(n, Real(1), c, Real(0), c, weight[i], k, c);
          if (i < 3) {
            combine(n, Real(1), start, Real(0), start, stage_step[i], k, stage);
            limit(stage_);
          }
        }
        limit(u);
        return;
      }
      case Integrator::lsrk54: {
        // Carpenter & Kennedy (NASA TM 109112, 1994), five stages, fourth order, Williamson's 2N storage:
        // du = A_i du + dt L(u); u = u + B_i du.
        constexpr double a[5] = {0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
                                 -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0};
        constexpr double b[5] = {1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
                                 1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
                                 2277821191437.0 / 14882151754819.0};
        constexpr double ct[5] = {0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363962896.0,
                                  2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0};
        for (int i = 0; i < 5; ++i) {
          rhs(u, t + Real(ct[i]) * dt, rhs_);
          if (i == 0)  // A_1 = 0: du starts afresh, whatever the vector held
            combine(n, dt, k, Real(0), k, Real(0), k, stage);
          else
            combine(n, Real(a[i]), stage, Real(0), stage, dt, k, stage);
          combine(n, Real(1), c, Real(0), c, Real(b[i]), stage, c);
          limit(u);
        }
        return;
      }
    }
  }

 private:
  /// out = a x + b y + g z, elementwise (out may alias any input).
  static void combine(index_t n, Real a, const Real* x, Real b, const Real* y, Real g, const Real* z, Real* out) {
    forall(Backend::cpu, n, [=](index_t i) { out[i] = a * x[i] + b * y[i] + g * z[i]; });
  }

  std::vector<Real> start_, stage_, rhs_;
};

}  // namespace kempe::dg
