// A solver chosen at run time: the order, precision and flux of a case file pick one of the compiled
// dg::EulerSolver instantiations (order 0..5 x double/float, each with the 4 fluxes' kernels, on the CPU or the GPU) behind this
// interface, the way PyFR picks its kernels by name. The application (kempe run) sees only this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "adapt/indicators_K.hpp"
#include "kernels/backend.hpp"
#include "kernels/boundary_K.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/euler.hpp"
#include "kernels/limiter_K.hpp"
#include "kernels/subcell_K.hpp"
#include "mesh/mesh.hpp"
#include "solver/numerics/non_physical_state.hpp"
#include "solver/numerics/time_integrators.hpp"

namespace kempe::sim {

inline constexpr int max_order = 5;

enum class Precision { float64, float32 };
/// "double" or "float"; std::invalid_argument naming the known ones otherwise.
Precision precision_from_name(const std::string& name);
const char* precision_name(Precision p);

struct SolverOptions {
  int order = 1;  ///< 0 .. max_order
  Precision precision = Precision::float64;
  euler::Flux flux = euler::Flux::hllc;
  dg::Strategy strategy = dg::Strategy::colored;
  Backend backend = Backend::cpu;
  double gamma = 1.4;
  dg::Limiter limiter = dg::Limiter::none;
  double moment_theta = 2;
  dg::ShockCapturing shock_capturing = dg::ShockCapturing::none;
  double blending_max = 0;  ///< under ShockCapturing::subcell: the largest finite-volume share (0: dg::default_blending_max)
  int subcell_order = 1;    ///< under ShockCapturing::subcell: the finite volumes' order, 1 or 2
  bool subcell_bounds = false;  ///< under ShockCapturing::subcell: bounds on the subcell averages (set_subcell_bounds)
  bool subcell_repair = false;  ///< under those bounds: repair the low-order update's overshoots (set_subcell_repair)
  dg::RepairReach subcell_repair_reach = dg::RepairReach::element;  ///< where the repair moves an excess
  bool subcell_repair_edges = false;  ///< under the bounds: low-order edges where a low-order update overshoots
  double entropy_tolerance = 1e-2, density_tolerance = 1e-3;  ///< the entropy filter's (EulerDG::set_entropy_tolerances)
  bool troubled_cells_only = true;
  bool curved_boundaries = true;  ///< boundary conditions with the boundary curve's normal (EulerDG::set_curved_boundaries)
  double positivity = 1e-10;  ///< least density and pressure the positivity limiter keeps; 0: off
  bool cuda_graphs = true;    ///< on the GPU, each step recorded once as a CUDA graph and replayed (EulerSolver::set_graphs)
};

/// The boundary groups in the mesh's order (mesh.boundary_names): kind, outside state (conserved, num_vars per
/// group) and state function of each.
struct BoundaryGroups {
  std::vector<bc::Kind> kinds;
  std::vector<double> states;
  std::vector<bc::StateFunction> functions;
};

/// Bytes the solver holds, by category (on the device for the GPU backend).
struct MemoryUse {
  std::size_t mesh = 0, solution = 0, strategy = 0, limiter = 0;
  std::size_t total() const { return mesh + solution + strategy + limiter; }
};

/// The mean time of one call of a kernel (or pass) of the solver.
struct KernelTime {
  std::string name;
  double seconds = 0;
};

class Simulation {
 public:
  virtual ~Simulation() = default;
  virtual const SolverOptions& options() const = 0;
  virtual index_t num_elements() const = 0;
  virtual int num_modes() const = 0;
  /// Degrees of freedom: num_vars x modes x elements.
  std::int64_t dofs() const { return std::int64_t(euler::num_vars) * num_modes() * num_elements(); }
  /// L2 projection of state(x, y, conserved out), then the limiters that are on.
  virtual void project(const std::function<void(double, double, double*)>& state) = 0;
  /// Advances towards `end` (landing on it exactly) with at most `max_steps` steps of the CFL step (or of
  /// `fixed_dt` when positive); returns the steps taken. Throws dg::NonPhysicalState naming the element, time
  /// and values at a non-physical state, with the solution left as it was before the failing step.
  virtual int advance(double end, dg::Integrator method, double cfl, double fixed_dt, int max_steps) = 0;
  virtual double time() const = 0;
  /// t as the solver's clock holds it (rounded to float for a float solver): the time advance() lands on.
  virtual double solver_time(double t) const = 0;
  /// The last step size (0 before the first step).
  virtual double last_dt() const = 0;
  /// The largest stable step at CFL number `cfl` on the present state (EulerDG::stable_dt); throws
  /// dg::NonPhysicalState at a non-physical state.
  virtual double stable_dt(double cfl) const = 0;
  /// The L2 and L1 norms over the mesh of variable `var` of the solution minus exact(x, y, conserved out)[var],
  /// with a degree-11 rule on each element: the error against an exact solution at the present time.
  virtual double l2_error(int var, const std::function<void(double, double, double*)>& exact) const = 0;
  virtual double l1_error(int var, const std::function<void(double, double, double*)>& exact) const = 0;
  /// The lowest pressure at the positivity limiter's check points (every volume and face quadrature point).
  virtual double lowest_pressure() const = 0;
  /// c[var][mode][element] in double, copied from the backend.
  virtual std::vector<double> solution() const = 0;
  /// Replaces the solution and the time (resume from a checkpoint).
  virtual void restore(const std::vector<double>& c, double time) = 0;
  /// Per element, 1 where the slope limiter's indicator flagged the cell at the last limiting (all 0 without
  /// a slope limiter).
  virtual std::vector<std::uint8_t> limited_cells() = 0;
  /// Per element, the finite-volume share of subcell shock capturing (1 - the DG share; 0: pure DG) at the last
  /// step; empty when the run has no subcell shock capturing.
  virtual std::vector<double> blending_cells() const = 0;
  /// Per element, 1 where the bounds on the subcell averages acted at the last step (solver.subcell_bounds),
  /// whose output nodes show the subcell averages; empty without them.
  virtual std::vector<std::uint8_t> subcell_cells() const = 0;
  virtual MemoryUse memory_use() const = 0;
  /// For a solver on an adaptive forest's leaves (make_simulation of a forest): sets the forest's flags for
  /// its next adaptation from the indicator of `criteria` on the present solution (EulerDG::flag_adaptation).
  virtual void flag_adaptation(const adapt::AdaptCriteria& criteria, adapt::TriangleForest& forest) = 0;
  /// Follows the forest's last adaptation: the solution moves to the new leaves, conservatively
  /// (EulerDG::remesh).
  virtual void remesh(const adapt::TriangleForest& forest) = 0;
  /// The indicator's value on each element at the last flag_adaptation (empty before it).
  virtual std::vector<double> indicator_values() const = 0;
  /// Times each pass of a step on the present state, `repeats` calls each after one warm-up call (the state is
  /// left as it was): eval_volume, eval_surface (every color), the right-hand side as the strategy runs it, the
  /// limiters, and the step-size reduction.
  virtual std::vector<KernelTime> profile(int repeats) = 0;
};

/// The solver for `options` on `mesh` (triangles in the plane; faces grouped by color for the colored
/// strategy). std::invalid_argument for an order out of range or a backend this build lacks.
std::unique_ptr<Simulation> make_simulation(const Mesh& mesh, const SolverOptions& options,
                                            const BoundaryGroups& boundaries);

/// The solver for `options` on the present leaves of an adaptive forest (on the forest's backend, which must be
/// options.backend); `boundaries` are the start mesh's groups.
std::unique_ptr<Simulation> make_simulation(const adapt::TriangleForest& forest, const SolverOptions& options,
                                            const BoundaryGroups& boundaries);

/// Right-hand side evaluations per step of an integrator (for DOF updates per second).
int stages_per_step(dg::Integrator method);

}  // namespace kempe::sim
