// The instantiations behind sim::Simulation (simulation.hpp): one class per (order, precision) with every flux
// (dg::EulerSolver instantiates only its flux kernels per flux), made in one translation unit per order
// (simulation/order_N.cpp) so that a 2-core build compiles them in parallel and a change to one order rebuilds
// one file. With CUDA they are compiled by nvcc: a solver on Backend::cuda must
// be instantiated there, and the CPU backend must come from the same compilation (one definition of each kernel
// functor's launch), with OpenMP for its host loops.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "solver/numerics/euler_dg.hpp"
#include "solver/numerics/simulation.hpp"

namespace kempe::sim {

template <int P, class Real>
class SimulationOf final : public Simulation {
 public:
  /// On a Mesh or on an adaptive forest's leaves (adapt::TriangleForest).
  template <class Source>
  SimulationOf(const Source& mesh, const SolverOptions& options, const BoundaryGroups& groups)
      : options_(options),
        kinds_(groups.kinds),
        states_(groups.states.begin(), groups.states.end()),
        functions_(groups.functions),
        solver_(mesh, Real(options.gamma), boundary(), options.flux, options.strategy, options.backend) {
    solver_.set_limiter(options.limiter, options.moment_theta, options.troubled_cells_only);
    solver_.set_entropy_tolerances(options.entropy_tolerance, options.density_tolerance);
    if (options.shock_capturing == dg::ShockCapturing::subcell)
      solver_.set_subcell_blending(options.blending_max > 0 ? options.blending_max : dg::default_blending_max(P, options.subcell_order),
                                   options.subcell_order);
    solver_.set_subcell_bounds(options.shock_capturing == dg::ShockCapturing::subcell && options.subcell_bounds);
    solver_.set_subcell_repair(options.subcell_repair, options.subcell_repair_reach, options.subcell_repair_edges);
    solver_.set_positivity_limiter(Real(options.positivity));
    solver_.set_curved_boundaries(options.curved_boundaries);
    solver_.set_graphs(options.cuda_graphs);
  }
  const SolverOptions& options() const override { return options_; }
  index_t num_elements() const override { return solver_.num_elements(); }
  int num_modes() const override { return Solver::num_modes; }
  void project(const std::function<void(double, double, double*)>& state) override { solver_.project(state); }
  int advance(double end, dg::Integrator method, double cfl, double fixed_dt, int max_steps) override {
    return solver_.advance_to(Real(end), method, cfl, Real(fixed_dt), max_steps);
  }
  double time() const override { return double(solver_.time()); }
  double solver_time(double t) const override { return double(Real(t)); }
  double last_dt() const override { return double(solver_.last_dt()); }
  double stable_dt(double cfl) const override { return double(solver_.stable_dt(cfl)); }
  double l2_error(int var, const std::function<void(double, double, double*)>& exact) const override {
    return solver_.l2_error(var, exact);
  }
  double l1_error(int var, const std::function<void(double, double, double*)>& exact) const override {
    return solver_.l1_error(var, exact);
  }
  double lowest_pressure() const override { return solver_.lowest_pressure(); }
  std::vector<double> solution() const override {
    const std::vector<Real>& c = solver_.solution();
    return std::vector<double>(c.begin(), c.end());
  }
  void restore(const std::vector<double>& c, double time) override {
    if (c.size() != std::size_t(dofs()))
      throw std::invalid_argument("restore: " + std::to_string(c.size()) + " coefficients for a solver of " +
                                  std::to_string(dofs()));
    solver_.set_solution(std::vector<Real>(c.begin(), c.end()));
    solver_.set_time(Real(time));
  }
  std::vector<std::uint8_t> limited_cells() override { return solver_.limited_cells(); }
  std::vector<double> blending_cells() const override {
    if (!solver_.blending_on()) return {};
    const std::vector<Real> beta = solver_.blending_shares();
    std::vector<double> share(beta.size());
    for (std::size_t e = 0; e < beta.size(); ++e) share[e] = 1.0 - double(beta[e]);
    return share;
  }
  std::vector<std::uint8_t> subcell_cells() const override { return solver_.subcell_bounded(); }
  std::vector<KernelTime> profile(int repeats) override {
    const Backend backend = options_.backend;
    const Buffer<Real>& solution = solver_.solution_buffer();
    Buffer<Real> out(backend, solution.size(), "the profile's output");
    Buffer<Real> state(backend, solution.size(), "the profile's copy of the solution");
    state.copy_from(solution);
    std::vector<Real> clock_values(dg::clock_size, Real(0));
    clock_values[dg::clock_time] = solver_.time();
    const Buffer<Real> clock(backend, clock_values, "the profile's clock");
    auto timed = [&](const char* name, auto&& call) {
      call();
      if (backend == Backend::cuda) device_synchronize(name);
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < repeats; ++i) call();
      if (backend == Backend::cuda) device_synchronize(name);
      return KernelTime{name, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats};
    };
    std::vector<KernelTime> times;
    times.push_back(timed("eval_volume", [&] { solver_.eval_volume(state.data(), out.data()); }));
    times.push_back(timed("eval_surface", [&] { solver_.eval_surface(state.data(), clock.data(), Real(0), out.data()); }));
    times.push_back(timed("rhs", [&] { solver_.eval_rhs(state.data(), clock.data(), Real(0), out.data()); }));
    times.push_back(timed("limiters", [&] {
      out.copy_from(state);  // the limiters change what they are given: a copy each call
      solver_.limit(out.data());
    }));
    times.push_back(timed("step size", [&] { (void)solver_.stable_dt(0.5); }));
    return times;
  }
  void flag_adaptation(const adapt::AdaptCriteria& criteria, adapt::TriangleForest& forest) override {
    solver_.flag_adaptation(criteria, forest);
  }
  void remesh(const adapt::TriangleForest& forest) override { solver_.remesh(forest); }
  std::vector<double> indicator_values() const override { return solver_.indicator_values(); }
  MemoryUse memory_use() const override {
    const auto use = solver_.memory_use();
    return {use.mesh, use.solution, use.strategy, use.limiter};
  }

 private:
  using Solver = dg::EulerSolver<P, Real, bc::GroupBoundary<Real>>;  // every flux, chosen at run time
  bc::GroupBoundary<Real> boundary() const {
    return {kinds_.data(), states_.data(), Real(options_.gamma), functions_.empty() ? nullptr : functions_.data()};
  }
  SolverOptions options_;
  std::vector<bc::Kind> kinds_;  // the solver copies these to the device; on the CPU it reads them here
  std::vector<Real> states_;
  std::vector<bc::StateFunction> functions_;
  Solver solver_;
};

/// The solver of order P with the precision and flux of `options`, on a Mesh or an adaptive forest.
template <int P, class Source>
std::unique_ptr<Simulation> make_simulation_of_order(const Source& mesh, const SolverOptions& options,
                                                     const BoundaryGroups& groups) {
  if (options.precision == Precision::float32) return std::make_unique<SimulationOf<P, float>>(mesh, options, groups);
  return std::make_unique<SimulationOf<P, double>>(mesh, options, groups);
}

}  // namespace kempe::sim
