// Choosing the solver instantiation by name (simulation.hpp).
#include "solver/numerics/simulation.hpp"

#include <stdexcept>

namespace kempe::sim {

// Made in simulation/order_N.cpp (simulation_impl.hpp), one translation unit per order, for a Mesh and a forest.
template <int P, class Source>
std::unique_ptr<Simulation> make_simulation_of_order(const Source& mesh, const SolverOptions& options,
                                                     const BoundaryGroups& groups);

Precision precision_from_name(const std::string& name) {
  if (name == "double") return Precision::float64;
  if (name == "float") return Precision::float32;
  throw std::invalid_argument("unknown precision '" + name + "'; known: double, float");
}

const char* precision_name(Precision p) { return p == Precision::float32 ? "float" : "double"; }

int stages_per_step(dg::Integrator method) {
  switch (method) {
    case dg::Integrator::euler: return 1;
    case dg::Integrator::ssprk2: return 2;
    case dg::Integrator::ssprk3: return 3;
    case dg::Integrator::rk4: return 4;
    case dg::Integrator::lsrk54: return 5;
  }
  return 1;
}

namespace {
template <class Source>
std::unique_ptr<Simulation> make_of_order(const Source& mesh, const SolverOptions& options, const BoundaryGroups& boundaries) {
  if (options.backend == Backend::cuda && cuda_device_count() == 0)
    throw std::invalid_argument(
        "backend cuda: no usable CUDA device (or this build has no CUDA backend); use backend cpu or auto");
  switch (options.order) {
    case 0: return make_simulation_of_order<0>(mesh, options, boundaries);
    case 1: return make_simulation_of_order<1>(mesh, options, boundaries);
    case 2: return make_simulation_of_order<2>(mesh, options, boundaries);
    case 3: return make_simulation_of_order<3>(mesh, options, boundaries);
    case 4: return make_simulation_of_order<4>(mesh, options, boundaries);
    case 5: return make_simulation_of_order<5>(mesh, options, boundaries);
  }
  throw std::invalid_argument("solver order " + std::to_string(options.order) + " is out of range: 0 to " +
                              std::to_string(max_order));
}
}  // namespace

std::unique_ptr<Simulation> make_simulation(const Mesh& mesh, const SolverOptions& options,
                                            const BoundaryGroups& boundaries) {
  return make_of_order(mesh, options, boundaries);
}

std::unique_ptr<Simulation> make_simulation(const adapt::TriangleForest& forest, const SolverOptions& options,
                                            const BoundaryGroups& boundaries) {
  if (forest.backend() != options.backend)
    throw std::invalid_argument(forest.source() + ": the adaptive mesh lives on another backend than the solver's");
  return make_of_order(forest, options, boundaries);
}

}  // namespace kempe::sim
