// Explicit Runge-Kutta methods, chosen by name, for any semi-discrete system du/dt = L(u, t) held in a Buffer.
// The right-hand side is a callable rhs(u, stage_fraction, out); the vector updates run through forall, so
// the same code serves both backends, and a whole step can be recorded as one CUDA graph.
#pragma once

#include <string_view>
#include <vector>

#include "base/registry.hpp"
#include "kernels/backend.hpp"
#include "kernels/buffer.hpp"
#include "kernels/stage_K.hpp"

namespace kempe::dg {

enum class Integrator { euler, ssprk2, ssprk3, rk4, lsrk54 };
inline constexpr Named<Integrator> integrators[] = {
    {Integrator::euler, "euler", "forward Euler: first order, for tests"},
    {Integrator::ssprk2, "ssprk2", "SSP-RK2 (Shu & Osher): second order, strong stability preserving"},
    {Integrator::ssprk3, "ssprk3", "SSP-RK3 (Shu & Osher): third order, strong stability preserving (default)"},
    {Integrator::rk4, "rk4", "classical fourth-order Runge-Kutta"},
    {Integrator::lsrk54, "lsrk54", "Carpenter-Kennedy five-stage fourth order, low storage (2N)"},
};
inline Integrator integrator_from_name(std::string_view name) { return find_by_name("integrator", name, integrators).value; }

/// Nothing to do after a stage.
struct NoLimiter {
  template <class Real>
  void operator()(Real*) const {}
};

/// The run's clock, in the backend's memory: [time, step, stop flag, fixed step]. The step's kernels read it where
/// they run, so the host need not hand them the step size (and a recorded step serves every step).
inline constexpr int clock_time = 0, clock_step = 1, clock_stop = 2, clock_fixed_step = 3, clock_size = 4;

/// One work item: clock[step] = the step from the smallest stable-step value *step_min (cfl * min / divisor, or
/// clock[fixed_step] when positive), shortened to land on `end` when within a rounding error of it. A
/// non-physical element (min <= 0 or NaN) sets the stop flag and a zero step: the step's updates and limiters
/// then leave the state as they found it (StopGuard), for the error report.
template <class Real>
struct ChooseStep {
  const double* step_min;
  Real* clock;
  double cfl, divisor;
  Real end;

  KEMPE_HD void operator()(index_t) const {
    const double m = *step_min;
    if (!(m > 0)) {
      clock[clock_step] = Real(0);
      clock[clock_stop] = Real(1);
      return;
    }
    const Real fixed = clock[clock_fixed_step];
    Real dt = fixed > Real(0) ? fixed : Real(cfl * m / divisor);
    const Real t = clock[clock_time];
    if (t + dt * Real(1 + 1e-12) >= end) dt = end - t;
    clock[clock_step] = dt;
    clock[clock_stop] = Real(0);
  }
};

/// One work item after the stages: time += step, landing exactly on `end` when within a rounding error.
template <class Real>
struct AdvanceClock {
  Real* clock;
  Real end;

  KEMPE_HD void operator()(index_t) const {
    const Real dt = clock[clock_step];
    Real t = clock[clock_time] + dt;
    if (t + dt * Real(1e-12) >= end) t = end;
    clock[clock_time] = t;
  }
};

/// One value into the backend's memory (a one-item kernel, ordered with the launches around it): the clock's
/// fixed step, set between recorded steps.
template <class Real>
struct SetValue {
  Real* at;
  Real value;
  KEMPE_HD void operator()(index_t) const { *at = value; }
};

/// One value into every entry of an array in the backend's memory.
template <class Real>
struct SetAll {
  Real* at;
  Real value;
  KEMPE_HD void operator()(index_t i) const { at[i] = value; }
};

/// f(i), unless the clock's stop flag is set: every kernel of a step that writes the state runs through it, so
/// that a step stopped for a non-physical state leaves that state exactly as it found it.
template <class Real, class F>
struct StopGuard {
  // the guarded kernel's launch shape
  static constexpr int block_size = BlockSizeOf<F>::value;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm<F>::value;
  // and its CPU blocks (backend.hpp, CpuBlock), where it has them
  static constexpr int cpu_block = CpuBlock<F>::value;
  // and lanes (CpuLanes), and how its items are dealt out (CpuSpread)
  static constexpr int cpu_lanes = CpuLanes<F>::value;
  static constexpr bool cpu_spread = CpuSpread<F>::value;
  F f;
  const Real* clock;
  KEMPE_HD void operator()(index_t i) const {
    if (clock[clock_stop] == Real(0)) f(i);
  }
  void block(index_t first) const {
    if (clock[clock_stop] == Real(0)) f.block(first);
  }
  void lanes(index_t first, int width) const {
    if (clock[clock_stop] == Real(0)) f.lanes(first, width);
  }
};

/// out[i] = a x[i] + b y[i] + (g dt) z[i], with dt = clock[step] read where the kernel runs, so that a recorded
/// step (a CUDA graph) serves every step size. A zero factor adds nothing (not 0 times a value that may be NaN).
template <class Real>
struct CombineStage {
  Real a, b, g;
  const Real *x, *y, *z, *clock;
  Real* out;
  KEMPE_HD void operator()(index_t i) const {
    const Real gdt = g * clock[clock_step];
    out[i] = stage_value(a, a != Real(0) ? x[i] : Real(0), b, b != Real(0) ? y[i] : Real(0), gdt,
                         gdt != Real(0) ? z[i] : Real(0));
  }

  /// The CPU runs the values in runs of this many (backend.hpp, CpuLanes): the clock is read and the zero factors
  /// tested once per run, and the run is a vectorized loop. One item at a time, the store through `out` may
  /// alias the clock as far as GCC knows, so it read the clock and branched on the factors at every value, in
  /// scalar code. The same operations per value as operator(), so the same bits.
  static constexpr int cpu_lanes = 512;
  void lanes(index_t first, int count) const {
    const Real gdt = g * clock[clock_step];
    const int with = (a != Real(0) ? 4 : 0) | (b != Real(0) ? 2 : 0) | (gdt != Real(0) ? 1 : 0);
    switch (with) {
      case 7: run<true, true, true>(first, count, gdt); break;
      case 6: run<true, true, false>(first, count, gdt); break;
      case 5: run<true, false, true>(first, count, gdt); break;
      case 4: run<true, false, false>(first, count, gdt); break;
      case 3: run<false, true, true>(first, count, gdt); break;
      case 2: run<false, true, false>(first, count, gdt); break;
      case 1: run<false, false, true>(first, count, gdt); break;
      default: run<false, false, false>(first, count, gdt); break;
    }
  }

 private:
  /// stage_value over a run, each factor's reads left out of the loop where the factor is zero.
  template <bool WithX, bool WithY, bool WithZ>
  void run(index_t first, int count, Real gdt) const {
    const Real *xs = x + first, *ys = y + first, *zs = z + first;
    Real* os = out + first;
    const Real a_ = WithX ? a : Real(0), b_ = WithY ? b : Real(0), g_ = WithZ ? gdt : Real(0);
    KEMPE_OMP_SIMD
    for (int i = 0; i < count; ++i)
      os[i] = stage_value(a_, WithX ? xs[i] : Real(0), b_, WithY ? ys[i] : Real(0), g_, WithZ ? zs[i] : Real(0));
  }
};

/// out[i] += a x[i] (no clock).
template <class Real>
struct AddScaled {
  Real a;
  const Real* x;
  Real* out;
  KEMPE_HD void operator()(index_t i) const { out[i] += a * x[i]; }
};

/// The terms of a stage besides the right-hand side: out = a x + b y + (g dt) L(v).
template <class Real>
struct StageTerms {
  Real a;
  const Real* x;
  Real b;
  const Real* y;
  Real g;
};

/// A right-hand side that cannot apply a stage in its own pass: the integrator evaluates L(v) into its rhs
/// vector and combines in a second pass. One that can (EulerDG's elementwise strategy) says available() and
/// does fused(v, stage_fraction, terms, out), out = terms + (g dt) L(v), with out never v.
struct NoFusedStage {
  bool available() const { return false; }
  template <class Real>
  void operator()(const Real*, Real, const StageTerms<Real>&, Real*) const {}
};

/// Work vectors and the steps of every method, on one backend: a stage vector and a right-hand side, and for rk4
/// a start vector, allocated by prepare(Integrator::rk4) only (the other methods read the start from u itself).
/// Time and step come from `clock` (clock_size values) in the backend's memory; with its stop flag set no update
/// writes (StopGuard). rhs(v, stage_fraction, out) evaluates L(v) at t + stage_fraction dt. `limit(v)` runs on
/// every stage value before the right-hand side sees it, and on the result (the SSP way of combining a limiter
/// with a Runge-Kutta method). Nothing here synchronizes with the host.
template <class Real>
class RungeKutta {
 public:
  /// Work vectors for n values on `backend`.
  void allocate(Backend backend, std::size_t n) {
    backend_ = backend;
    start_ = Buffer<Real>(backend, 0, "the Runge-Kutta start vector");
    stage_ = Buffer<Real>(backend, n, "the Runge-Kutta stage vector");
    rhs_ = Buffer<Real>(backend, n, "the Runge-Kutta right-hand side");
  }
  /// Allocates what `method` needs beyond allocate's vectors (rk4's start vector). step() does it too, but on the
  /// GPU the caller must do it before a step is recorded as a graph (no allocation while capturing).
  void prepare(Integrator method) {
    if (method == Integrator::rk4 && start_.size() != stage_.size()) start_.resize(stage_.size());
  }
  std::size_t bytes() const { return start_.bytes() + stage_.bytes() + rhs_.bytes(); }
  /// n values per work vector (their contents are per step), in storage grown by half again when outgrown; the
  /// start vector only once prepare() made it.
  void resize(std::size_t n) {
    for (Buffer<Real>* b : {&stage_, &rhs_}) b->resize(n);
    if (start_.size() > 0) start_.resize(n);
  }

  /// With a fused stage available, the SSP methods run each stage as one pass of it (the same values up to
  /// rounding); the other methods, whose stages combine more vectors, always evaluate and combine.
  template <class Rhs, class Limit = NoLimiter, class Fused = NoFusedStage>
  void step(Integrator method, const Real* clock, Real* c, Rhs&& rhs, Limit&& limit = Limit{}, Fused&& fused = Fused{}) {
    prepare(method);
    Real *start = start_.data(), *stage = stage_.data(), *k = rhs_.data();
    const index_t n = static_cast<index_t>(stage_.size());
    auto combine = [&](Real a, const Real* x, Real b, const Real* y, Real g, const Real* z, Real* out) {
      forall(backend_, n, StopGuard<Real, CombineStage<Real>>{CombineStage<Real>{a, b, g, x, y, z, clock, out}, clock});
    };
    const Real one(1), zero(0);
    // The SSP methods' first stage: stage = u + dt L(u), limited. u itself stays in c until the last stage
    // writes it (each value from its own old value), so the stages read the start there: no copy of it.
    auto first_ssp_stage = [&] {
      rhs(c, zero, k);
      combine(one, c, zero, c, one, k, stage);
      limit(stage);
    };
    if (fused.available() && (method == Integrator::ssprk2 || method == Integrator::ssprk3)) {
      // u stays in c until the last stage writes it (each element reads its own u before), so no copy of the
      // start; the stage values go to the work vectors, which the next stage's pass only reads.
      fused(c, zero, StageTerms<Real>{one, c, zero, c, one}, stage);
      limit(stage);
      if (method == Integrator::ssprk2) {
        fused(stage, one, StageTerms<Real>{Real(0.5), c, Real(0.5), stage, Real(0.5)}, c);
        limit(c);
        return;
      }
      fused(stage, one, StageTerms<Real>{Real(0.75), c, Real(0.25), stage, Real(0.25)}, k);
      limit(k);
      fused(k, Real(0.5), StageTerms<Real>{one / 3, c, Real(2) / 3, k, Real(2) / 3}, c);
      limit(c);
      return;
    }
    switch (method) {
      case Integrator::euler:
        rhs(c, zero, k);
        combine(one, c, zero, c, one, k, c);
        limit(c);
        return;
      case Integrator::ssprk2:  // u1 = u + dt L(u); u = (u + u1 + dt L(u1)) / 2
        first_ssp_stage();
        rhs(stage, one, k);
        combine(Real(0.5), c, Real(0.5), stage, Real(0.5), k, c);
        limit(c);
        return;
      case Integrator::ssprk3:  // u1 = u + dt L(u); u2 = 3/4 u + 1/4 (u1 + dt L(u1)); u = 1/3 u + 2/3 (u2 + dt L(u2))
        first_ssp_stage();
        rhs(stage, one, k);
        combine(Real(0.75), c, Real(0.25), stage, Real(0.25), k, stage);
        limit(stage);
        rhs(stage, Real(0.5), k);
        combine(one / 3, c, Real(2) / 3, stage, Real(2) / 3, k, c);
        limit(c);
        return;
      case Integrator::rk4: {  // u accumulates u0 + dt (k1 + 2 k2 + 2 k3 + k4) / 6
        combine(one, c, zero, c, zero, c, start);
        const Real stage_fraction[4] = {zero, Real(0.5), Real(0.5), one};
        const Real stage_step[3] = {Real(0.5), Real(0.5), one};
        const Real weight[4] = {one / 6, one / 3, one / 3, one / 6};
        for (int i = 0; i < 4; ++i) {
          rhs(i == 0 ? c : stage, stage_fraction[i], k);  // the first stage is u itself, before c accumulates
          combine(one, c, zero, c, weight[i], k, c);
          if (i < 3) {
            combine(one, start, zero, start, stage_step[i], k, stage);
            limit(stage);
          }
        }
        limit(c);
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
          rhs(c, Real(ct[i]), k);
          // A_1 = 0: du starts afresh from dt L(u) (not 0 times what the vector held, which may be NaN).
          if (i == 0)
            combine(zero, k, zero, k, one, k, stage);
          else
            combine(Real(a[i]), stage, zero, stage, one, k, stage);
          forall(backend_, n, StopGuard<Real, AddScaled<Real>>{AddScaled<Real>{Real(b[i]), stage, c}, clock});
          limit(c);
        }
        return;
      }
    }
  }

 private:
  Backend backend_ = Backend::cpu;
  Buffer<Real> start_, stage_, rhs_;
};

}  // namespace kempe::dg
