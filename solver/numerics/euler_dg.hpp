// The DG Euler solver on triangles: owns the solution, the reference tables and (DGMesh) the mesh tables in the
// kernels' precision, on one backend (CPU, or the GPU's memory for the whole run), evaluates the right-hand side with the
// race strategy asked for, advances in time with the integrator asked for (solver/numerics/time_integrators.hpp), and
// applies the limiters after every stage. Both backends run the same kernels (kernels/dg_K.hpp,
// kernels/limiter_K.hpp) through forall, and the same step sequence (record_step): on the GPU it is recorded
// once as a CUDA graph and replayed, and the host reads back only the clock (3 numbers) per step.
// A solver on Backend::cuda must be instantiated in a .cu file (forall reaches the GPU only there).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "adapt/indicators_K.hpp"
#include "adapt/transfer_K.hpp"
#include "base/registry.hpp"
#include "kernels/algorithms.hpp"
#include "kernels/backend.hpp"
#include "kernels/boundary_K.hpp"
#include "kernels/buffer.hpp"
#include "kernels/child_transfer.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/entropy_filter_K.hpp"
#include "kernels/limiter_K.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/subcell.hpp"
#include "kernels/subcell_K.hpp"
#include "kernels/triangle.hpp"
#include "mesh/mesh.hpp"
#include "solver/numerics/dg_mesh.hpp"
#include "solver/numerics/non_physical_state.hpp"
#include "solver/numerics/time_integrators.hpp"

namespace kempe::dg {

/// The solver of order P in precision Real with boundary conditions Boundary, for the numerical fluxes of
/// `Fluxes` (euler::FluxSet), the one it runs chosen at construction. Only the flux kernels (the surface term,
/// the elementwise pass, the subcell blend's fluxes) are instantiated per flux; everything else once, which takes
/// a fifth off the host compile of a build with every flux (docs/benchmarks.md, Build time). EulerDG (below)
/// names one flux in its type.
template <int P, class Real, class Boundary, class Fluxes = euler::AllFluxes>
class EulerSolver {
 public:
  static constexpr int num_modes = basis::num_modes(P);
  static constexpr int nv = euler::num_vars;

  /// The mesh must hold triangles in the plane; for Strategy::colored its faces must be grouped by color
  /// (coloring/reorder.hpp: apply_ordering); `flux` must be one of Fluxes. Throws std::invalid_argument otherwise.
  /// On Backend::cuda every array goes to the device here, after a check that it fits (std::runtime_error
  /// naming the sizes otherwise).
  EulerSolver(const Mesh& mesh, Real gamma, Boundary boundary, euler::Flux flux, Strategy strategy, Backend backend = Backend::cpu)
      : k_(mesh.num_elements()), gamma_(gamma), boundary_(boundary), flux_(checked_flux(flux)), strategy_(strategy), backend_(backend),
        mesh_(backend) {
    if (strategy == Strategy::colored && mesh.color_begin.size() < 2)
      throw std::invalid_argument(mesh.source + ": the colored strategy needs faces grouped by color (apply an ordering)");
    set_reference_tables();
    place_arrays(mesh.source, mesh.num_faces(), [&](std::size_t also_needed, const std::string& what) { mesh_.rebuild(mesh, also_needed, what); });
  }

  /// The solver on the current leaf mesh of an adaptive forest (adapt/forest.hpp), in the forest's backend: its
  /// mesh tables are built there by kernels (DGMesh::rebuild of a forest), hanging faces included; its faces
  /// are grouped by the forest's 2K colors. std::invalid_argument when the forest lives on another backend or
  /// is not in the xy plane.
  EulerSolver(const adapt::TriangleForest& forest, Real gamma, Boundary boundary, euler::Flux flux, Strategy strategy,
              Backend backend = Backend::cpu)
      : k_(forest.num_elements()), gamma_(gamma), boundary_(boundary), flux_(checked_flux(flux)), strategy_(strategy), backend_(backend),
        mesh_(backend) {
    set_reference_tables();
    place_arrays(forest.source(), forest.num_faces(),
                 [&](std::size_t also_needed, const std::string& what) { mesh_.rebuild(forest, also_needed, what); });
  }

  /// The mesh tables the kernels read.
  const DGMesh<Real>& mesh() const { return mesh_; }
  /// The numerical flux at the faces.
  euler::Flux flux() const { return flux_; }

  /// Follows the forest's last adaptation (adapt/forest.hpp), in the backend's memory: the solution moves to
  /// the new leaves (prolongation to children, L2 projection of coarsened groups: kernels/child_transfer.hpp),
  /// the mesh tables are rebuilt by kernels, and the work arrays follow the new size (grown by half again when
  /// outgrown, never shrunk). The positivity limiter, when on, passes over the leaves the transfer made
  /// (restriction and prolongation keep cell averages, not point values). Only counts reach the host. std::logic_error
  /// unless the solver stands on the mesh the adaptation started from; on Backend::cuda, running out of memory
  /// is std::runtime_error naming the sizes. The forest has already moved on, so a remesh that fails leaves
  /// the solver without a mesh: any further step is std::logic_error (a run stops there; its checkpoints stay).
  void remesh(const adapt::TriangleForest& forest) {
    const adapt::AdaptMap& map = forest.last_adaptation();
    if (map.delta == nullptr || map.old_elements != k_ || map.new_elements != forest.num_elements())
      throw std::logic_error(forest.source() + ": remesh follows one adaptation of the mesh the solver stands on (" +
                             std::to_string(k_) + " elements; the adaptation went from " + std::to_string(map.old_elements) +
                             " to " + std::to_string(map.new_elements) + ")");
    try {
      transfer_and_rebuild(forest, map);
    } catch (...) {
      k_ = 0;
      first_of_some_.clear();
      lost_mesh_ = forest.source();
      step_graph_.clear();
      throw;
    }
  }

 private:
  /// The limiters' own mesh tables that `limiter` reads (none at p = 0, which has no slopes to limit).
  static typename DGMesh<Real>::LimiterTables limiter_tables(Limiter limiter) {
    return {P > 0 && limiter == Limiter::moment, P > 0 && limiter == Limiter::vertex};
  }

  void transfer_and_rebuild(const adapt::TriangleForest& forest, const adapt::AdaptMap& map) {
    const index_t k = map.new_elements;
    const std::size_t values = std::size_t(nv) * num_modes * k;
    next_.resize(values);
    forall(backend_, k_, adapt::TransferSolution<P, Real>{map, d_.prolongation, d_.restriction, c_.data(), next_.data()});
    std::swap(c_, next_);
    // Follow the new size: the old solution's storage stays for the next transfer.
    k_ = k;
    mesh_.rebuild(forest, 0, forest.source() + ": the solver's mesh tables at p = " + std::to_string(P) + " (" + std::to_string(k) + " elements)",
                  limiter_tables(limiter_));
    mesh_bytes_ = mesh_.bytes() + reference_table_bytes();
    integrator_.resize(values);
    if (strategy_ == Strategy::buffered) buffer_.resize(std::size_t(2) * nv * num_modes * std::size_t(mesh_.num_faces()));
    set_first_colors();
    if (limiter_ == Limiter::entropy_filter && P > 0) {
      size_entropy_filter();
    } else if (limiter_ != Limiter::none && P > 0) {
      troubled_.resize(k);
      taylor_.resize(values);
      if (limiter_ == Limiter::vertex) {
        bounds_.resize(std::size_t(2) * nv * VertexBounds<P, Real>::num_fields * mesh_.num_vertices());
        vertex_marks_.resize(mesh_.num_vertices());
      }
    }
    if (blending_on()) size_blending();
    // On the GPU the step's graph is recorded again here, as part of following the adaptation (so that its cost
    // counts as adapting): the recording updates the executable graph in place (DeviceGraph::clear).
    step_graph_.clear();
    if (backend_ == Backend::cuda && use_graphs_ && step_planned_) step_graph_.capture([&] { record_step(graph_plan_); });
    entropy_stale_ = true;
    // Only the leaves the transfer made can have lost positivity: a kept leaf holds what the last stage's
    // positivity pass left, and limiting it again could only move it by a rounding.
    if (positivity_epsilon_ > Real(0))
      launch(map.old_elements, adapt::EachMadeLeaf<PositivityLimiter<P, Real>>{
                                   map, PositivityLimiter<P, Real>{k_, positivity_points(), gamma_, positivity_epsilon_, d_.check_basis, d_.positivity_reach, c_.data()}});
  }

 public:

  /// Sets the forest's refine and coarsen flags for its next adaptation from the indicator of `criteria` on the
  /// present solution (adapt/indicators_K.hpp): values in double, thresholds, then criteria.buffer rings of
  /// neighbours, all in the backend's memory. The solver must stand on the forest's present leaves
  /// (std::logic_error otherwise), and a box indicator needs at most adapt::max_boxes boxes
  /// (std::invalid_argument).
  void flag_adaptation(const adapt::AdaptCriteria& criteria, adapt::TriangleForest& forest) {
    if (forest.num_elements() != k_ || forest.backend() != backend_)
      throw std::logic_error(forest.source() + ": the indicator reads a solver on another mesh than the forest's leaves");
    indicator_.resize(k_);
    const auto& view = mesh_.view();
    switch (criteria.indicator) {
      case adapt::Indicator::density_jump:
        indicator_mean_.resize(k_);
        forall(backend_, k_, adapt::VariableModes<P, Real>{k_, gamma_, criteria.variable, c_.data(), d_.tables, indicator_mean_.data(), nullptr});
        forall(backend_, k_, adapt::NeighbourJump{view.element_neighbors, view.element_half_neighbors, indicator_mean_.data(), indicator_.data()});
        break;
      case adapt::Indicator::modal_decay:
        indicator_mean_.resize(k_);
        forall(backend_, k_, adapt::VariableModes<P, Real>{k_, gamma_, criteria.variable, c_.data(), d_.tables, indicator_mean_.data(), indicator_.data()});
        break;
      case adapt::Indicator::kxrcf: {
        // Its flags go to scratch: the limiter's (limited_cells) stay those of the last limiting.
        ring_flags_.resize(k_);
        TroubledCells<P, Real> kxrcf{k_, view.element_faces, faces().left, faces().right, faces().left_local, faces().right_local,
                                     faces().normal_x, faces().normal_y, faces().length, d_.tables.face_weight, d_.tables.face_basis,
                                     view.circumradius, c_.data(), ring_flags_.data(), d_.tables.face_half_basis, faces().left_half,
                                     faces().right_half, view.element_half_faces};
        kxrcf.ratio = indicator_.data();
        forall(backend_, k_, kxrcf);
        break;
      }
      case adapt::Indicator::box: {
        if (criteria.boxes.size() > std::size_t(adapt::max_boxes))
          throw std::invalid_argument("the box indicator takes at most " + std::to_string(adapt::max_boxes) + " boxes, got " +
                                      std::to_string(criteria.boxes.size()));
        adapt::InBoxes in_boxes{forest.arrays(), int(criteria.boxes.size()), {}, indicator_.data()};
        for (std::size_t b = 0; b < criteria.boxes.size(); ++b) in_boxes.boxes[b] = criteria.boxes[b];
        forall(backend_, k_, in_boxes);
        break;
      }
    }
    std::uint8_t *refine = forest.refine_flags(), *coarsen = forest.coarsen_flags();
    forall(backend_, k_, adapt::FlagByValue{indicator_.data(), criteria.refine_above, criteria.coarsen_below, refine, coarsen});
    if (criteria.buffer > 0) ring_flags_.resize(k_);
    for (int ring = 0; ring < criteria.buffer; ++ring) {
      forall(backend_, k_, adapt::SpreadRefinement{view.element_neighbors, view.element_half_neighbors, refine, ring_flags_.data(), coarsen});
      forall(backend_, k_, adapt::CopyFlags{ring_flags_.data(), refine});
    }
  }
  /// The indicator's values of the last flag_adaptation, one per element (empty before it), on the host.
  std::vector<double> indicator_values() const { return indicator_.size() == std::size_t(k_) ? indicator_.to_host() : std::vector<double>(); }

  index_t num_elements() const { return k_; }
  Real time() const { return time_; }
  /// The size of the last step taken (0 before the first).
  Real last_dt() const { return last_dt_; }
  /// Sets the time (resuming from a checkpoint), in the device clock too.
  void set_time(Real t) {
    forall(backend_, 1, SetValue<Real>{clock_.data() + clock_time, t});
    time_ = t;
  }
  /// Per element, 1 where the last slope limiting acted: the KXRCF flags when only troubled cells are limited,
  /// every element when all are, none without a slope limiter (or before the first limiting).
  std::vector<std::uint8_t> limited_cells() const {
    if (limiter_ == Limiter::none || P == 0) return std::vector<std::uint8_t>(k_, 0);
    if (limiter_ == Limiter::entropy_filter) {  // where the last filtering damped any mode
      std::vector<std::uint8_t> flags(k_, 0);
      if (filter_strength_.size() != std::size_t(k_)) return flags;
      const std::vector<Real> f = filter_strength_.to_host();
      for (index_t e = 0; e < k_; ++e) flags[e] = f[e] < Real(1);
      return flags;
    }
    if (!troubled_cells_only_) return std::vector<std::uint8_t>(k_, 1);
    if (troubled_.size() != std::size_t(k_)) return std::vector<std::uint8_t>(k_, 0);
    return troubled_.to_host();
  }
  Backend backend() const { return backend_; }
  /// c[var][mode][element], on the host: the CPU backend's storage itself; on the GPU a copy made now.
  const std::vector<Real>& solution() const {
    if (backend_ == Backend::cpu) return c_.host();
    host_solution_ = c_.to_host();
    return host_solution_;
  }
  /// Replaces the solution (c[var][mode][element], on the host), on either backend.
  void set_solution(const std::vector<Real>& c) {
    c_.upload(c);
    entropy_stale_ = true;
  }
  /// The solution in the backend's memory (for benchmarks and tests that launch kernels on it).
  Buffer<Real>& solution_buffer() {
    entropy_stale_ = true;  // the caller may change it
    return c_;
  }

  /// The solution becomes the L2 projection of state(x, y, out) (conserved variables), with the degree 2P + 1
  /// volume rule, then passes the limiters that are on (a projected shock overshoots, and its first stage
  /// would otherwise see negative pressures). Computed on the host and copied to the backend once.
  template <class State>
  void project(State&& state) {
    const int nq = static_cast<int>(volume_weight_.size());
    std::vector<Real> c(c_.size(), Real(0));
    for (index_t e = 0; e < k_; ++e)
      for (int q = 0; q < nq; ++q) {
        const auto [x, y] = mesh_.point(e, volume_r_[q], volume_s_[q]);
        double u[nv];
        state(x, y, u);
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < num_modes; ++m)
            c[(std::size_t(v) * num_modes + m) * k_ + e] +=
                Real(volume_weight_[q] * volume_basis_[std::size_t(q) * num_modes + m] * u[v]);
      }
    c_.upload(c);
    if (limiter_ == Limiter::entropy_filter && P > 0) entropy_minimum(c_.data());  // the projection bounds itself
    limit(c_.data());
    entropy_stale_ = false;  // the filter left c_'s own least values
  }

  /// out = dc/dt at `time` for the coefficients c (CPU backend).
  void rhs(const std::vector<Real>& c, Real time, std::vector<Real>& out) {
    require_cpu("rhs on host vectors");
    set_eval_time(time);
    eval_rhs(c.data(), eval_clock_.data(), Real(0), out.data());
  }

  /// out = dc/dt on arrays in the backend's memory, at time clock[0] + stage_fraction clock[1]: eval_volume then
  /// eval_surface, or for the elementwise strategy both in one pass (EvalElement).
  /// Where the subcell blend forms its shares from c (its first stage in a step, every call outside one), the
  /// CPU's surface term stores the KXRCF indicator's face sums on the way (FaceIntegrals::kxrcf): the flags that
  /// gate the shares then cost one light pass over the elements, not a second evaluation of every face's traces.
  void eval_rhs(const Real* c, const Real* clock, Real stage_fraction, Real* out) {
    Real* kxrcf = backend_ == Backend::cpu && blending_on() && blend_stage_ <= 0 && troubled_cells_only_ && !fixed_shares_ &&
                          kxrcf_sums_.size() == 4 * std::size_t(mesh_.num_faces())
                      ? kxrcf_sums_.data()
                      : nullptr;
    if (strategy_ == Strategy::elementwise) {
      with_flux([&](auto f) { forall(backend_, k_, element_pass<decltype(f)::value>(c, clock, stage_fraction, out, kxrcf)); });
    } else if (volume_with_faces()) {
      eval_surface_with_volume(c, clock, stage_fraction, out, kxrcf);
    } else {
      eval_volume(c, out);
      eval_surface(c, clock, stage_fraction, out, kxrcf);
    }
    if (blending_on()) blend_subcells(c, clock, stage_fraction, out, kxrcf != nullptr);
  }

  /// Subcell shock capturing (kernels/subcell_K.hpp): each right-hand side becomes a blend of the DG scheme's
  /// and that of finite volumes of order `subcell_order` (1 or 2: subcell_state) on the elements' subcells, the
  /// finite-volume share from Hennemann et al.'s modal indicator, at most alpha_max (0 turns it off), in the
  /// elements the KXRCF indicator flags (all of them when set_limiter's troubled_cells_only is false).
  /// std::invalid_argument for alpha_max outside [0, 1] or another subcell order.
  void set_subcell_blending(double alpha_max, int subcell_order = 1) {
    if (!(alpha_max >= 0 && alpha_max <= 1))
      throw std::invalid_argument("subcell blending alpha_max " + std::to_string(alpha_max) + ": expected a value in [0, 1]");
    set_subcell_order(subcell_order);
    blend_alpha_max_ = Real(alpha_max);
    fixed_shares_ = false;
    step_graph_.clear();
    if (blending_on()) size_blending();
  }
  bool blending_on() const { return P > 0 && blend_alpha_max_ > Real(0); }
  /// Fixes each element's finite-volume share (before smoothing) to alpha[e] in [0, 1] instead of the indicator's,
  /// and turns the blend on: for tests of the blend itself (a uniform flow stays uniform, the scheme conserves,
  /// alpha = 1 everywhere is finite volumes on the subcells), with finite volumes of order subcell_order as in
  /// set_subcell_blending. std::invalid_argument on a wrong size or value.
  void set_blending_shares(const std::vector<Real>& alpha, int subcell_order = 1) {
    if (alpha.size() != std::size_t(k_)) throw std::invalid_argument("set_blending_shares: expected one share per element");
    for (const Real a : alpha)
      if (!(a >= Real(0) && a <= Real(1))) throw std::invalid_argument("set_blending_shares: a share outside [0, 1]");
    set_subcell_order(subcell_order);
    if (P == 0) return;
    blend_alpha_max_ = Real(1);
    fixed_shares_ = true;
    size_blending();
    blend_alpha_.upload(alpha);
    step_graph_.clear();
  }
  /// Bounds on the subcell averages under the blend (kernels/subcell_K.hpp, SubcellBoundedBlend): in the troubled
  /// elements (all of them when troubled_cells_only is false) and around those that blend, each subcell face's
  /// share of the DG flux is cut so that each subcell average keeps its density within its neighbourhood's range
  /// and its pressure positive (above a tenth of its low-order update's), after each stage's forward-Euler step
  /// (the SSP integrators' stages). The finite volumes are then first-order with Rusanov's flux
  /// (bounded_low_flux): std::invalid_argument where the subcell order is 2, whose states the bounds do not hold.
  void set_subcell_bounds(bool on) {
    if (on && d_.subcells.order >= 2)
      throw std::invalid_argument("bounds on the subcell averages need first-order subcell finite volumes, not order " +
                                  std::to_string(d_.subcells.order));
    subcell_bounds_ = on;
    step_graph_.clear();
    if (blending_on()) size_blending();
  }
  bool subcell_bounds() const { return subcell_bounds_; }
  /// Under those bounds, the repair of each stage's update where the low-order update itself leaves a subcell's
  /// density above its bound (SubcellBoundedBlend::repair): the excess moves within the element, to any of its
  /// subcells or only to the exceeding one's dual-face neighbours (`reach`; by_order: by P, as
  /// resolved_repair_reach says). Off by default: it costs the contacts beside strong shocks accuracy
  /// (docs/theory.md). `edges`, under the bounds with the repair on or off: an element whose stage low-order update
  /// leaves a subcell's upper bound takes the low-order flux on its edges in that stage
  /// (SubcellBoundedBlend::repair_edges), which keeps the overshoot out of the element means (Toro's test 5).
  void set_subcell_repair(bool on, RepairReach reach = RepairReach::element, bool edges = false) {
    subcell_repair_ = on;
    repair_reach_ = resolved_repair_reach(reach, P);
    repair_edges_ = edges;
    step_graph_.clear();
  }
  bool subcell_repair() const { return subcell_repair_; }
  RepairReach subcell_repair_reach() const { return repair_reach_; }
  bool subcell_repair_edges() const { return repair_edges_; }
  /// The subcell finite volumes' order, 1 or 2 (std::invalid_argument otherwise, and for 2 under bounds).
  void set_subcell_order(int order) {
    if (order < 1 || order > 2)
      throw std::invalid_argument("subcell finite volumes of order " + std::to_string(order) + ": expected 1 or 2");
    if (order != 1 && subcell_bounds_)
      throw std::invalid_argument("subcell finite volumes of order " + std::to_string(order) +
                                  ": bounds on the subcell averages need order 1");
    d_.subcells.order = order;
  }
  /// Per element, 1 where the bounds on the subcell averages acted at the last step (BoundedElements), [elements];
  /// empty without them: for output (whose nodes there show the subcell averages) and tests.
  std::vector<std::uint8_t> subcell_bounded() const {
    if (!blending_on() || !subcell_bounds_) return {};
    return blend_bounded_.to_host();
  }
  /// The DG share of each element in the last right-hand side (1: pure DG), [elements]: for output and tests.
  std::vector<Real> blending_shares() const {
    if (!blending_on()) return std::vector<Real>(k_, Real(1));
    return blend_beta_.to_host();
  }

  /// out = the volume term of dc/dt (overwrites out; one work item per element). CPU backend.
  void eval_volume(const std::vector<Real>& c, std::vector<Real>& out) const {
    require_cpu("eval_volume on host vectors");
    eval_volume(c.data(), out.data());
  }
  /// out += the surface term of dc/dt at `time`, by the race strategy of the solver. CPU backend.
  void eval_surface(const std::vector<Real>& c, Real time, std::vector<Real>& out) {
    require_cpu("eval_surface on host vectors");
    set_eval_time(time);
    eval_surface(c.data(), eval_clock_.data(), Real(0), out.data());
  }

  /// The volume term on arrays in the backend's memory: out = volume part of dc/dt for c.
  void eval_volume(const Real* c, Real* out) const {
    forall(backend_, k_, EvalVolume<P, Real>{k_, gamma_, c, out, d_.tables, mesh_.view().geometry});
  }

  /// out += the surface term on arrays in the backend's memory, at time clock[0] + stage_fraction clock[1]
  /// (clock in the backend's memory too); the KXRCF face sums into kxrcf ([4][faces]) where it is given.
  void eval_surface(const Real* c, const Real* clock, Real stage_fraction, Real* out, Real* kxrcf = nullptr) {
    with_flux([&](auto f) { eval_surface_with<decltype(f)::value>(c, clock, stage_fraction, out, kxrcf); });
  }
  /// eval_surface with the flux kernels of F (the solver's flux).
  template <euler::Flux F>
  void eval_surface_with(const Real* c, const Real* clock, Real stage_fraction, Real* out, Real* kxrcf) {
    const FaceIntegrals<P, Real, F, Boundary> integrals = face_integrals<F>(c, clock, stage_fraction, kxrcf);
    const index_t nf = mesh_.num_faces();
    switch (strategy_) {
      case Strategy::colored:
        // One launch per color: no two faces of a color share an element, so no update races (Giuliani & Krivodonova 2017).
        for (std::size_t color = 0; color + 1 < mesh_.color_begin().size(); ++color)
          forall(backend_, mesh_.color_begin()[color + 1] - mesh_.color_begin()[color],
                 EvalSurface<P, Real, F, false, Boundary>{mesh_.color_begin()[color], mesh_.color_begin()[color + 1], out, integrals});
        break;
      case Strategy::atomic:
        forall(backend_, nf, EvalSurface<P, Real, F, true, Boundary>{0, nf, out, integrals});
        break;
      case Strategy::buffered:
        forall(backend_, nf, EvalSurfaceBuffered<P, Real, F, Boundary>{nf, buffer_.data(), integrals});
        forall(backend_, k_,
               GatherFaces<P, Real>{k_, nf, buffer_.data(), mesh_.view().element_faces, mesh_.view().faces.left, out,
                                    mesh_.view().element_half_faces});
        break;
      case Strategy::elementwise:
        forall(backend_, k_,
               EvalSurfaceElementwise<P, Real, F, Boundary>{mesh_.view().element_faces, out, integrals, mesh_.view().element_half_faces});
        break;
    }
  }

  /// Whether eval_rhs takes the volume term with each element's first face (the colored strategy on the CPU from
  /// p = 3: EvalSurface's WithVolume), which spares the colors a pass over the elements before them. From p = 3
  /// the solution and the right-hand side outgrow the last-level cache, and the pass's traffic is what the first
  /// color saves: 0.89-0.91 of the stage's time at p = 3 and 4, 0.94-0.97 at p = 5; at p = 1 the first color's
  /// pass would wait on its right elements' geometry, 1.2 times as long a stage (docs/benchmarks.md).
  static constexpr bool volume_with_faces_on_cpu = P >= 3;
  bool volume_with_faces() const { return !first_of_some_.empty(); }

  /// out = the volume and surface terms, colored, each element's volume term stored with its first face's
  /// contribution (EvalSurface's WithVolume): eval_volume then eval_surface, to rounding. CPU only (forall_cpu:
  /// no device code is built for it).
  void eval_surface_with_volume(const Real* c, const Real* clock, Real stage_fraction, Real* out, Real* kxrcf) {
    with_flux([&](auto f) {
      constexpr euler::Flux F = decltype(f)::value;
      const FaceIntegrals<P, Real, F, Boundary> integrals = face_integrals<F>(c, clock, stage_fraction, kxrcf);
      const std::vector<index_t>& begin = mesh_.color_begin();
      for (std::size_t color = 0; color + 1 < begin.size(); ++color) {
        if (first_of_some_[color])
          forall_cpu(begin[color + 1] - begin[color],
                     EvalSurface<P, Real, F, false, Boundary, true>{begin[color], begin[color + 1], out, integrals, first_color_.data(),
                                                                    int(color)});
        else
          forall_cpu(begin[color + 1] - begin[color], EvalSurface<P, Real, F, false, Boundary>{begin[color], begin[color + 1], out, integrals});
      }
    });
  }

  /// Bytes this solver holds in the backend's memory, by use (measured from its allocations).
  struct MemoryUse {
    std::size_t mesh = 0;      ///< geometry, connectivity and reference tables
    std::size_t solution = 0;  ///< the solution, the integrator's work vectors and the clock
    std::size_t strategy = 0;  ///< the race strategy's buffers (buffered only)
    std::size_t limiter = 0;   ///< the limiters' arrays (Taylor coefficients, bounds, flags, the entropy filter's bounds), the
                               ///< subcell blend's shares and face fluxes, the refinement indicator's values
    std::size_t total() const { return mesh + solution + strategy + limiter; }
  };
  MemoryUse memory_use() const {
    MemoryUse use;
    use.mesh = mesh_bytes_;
    use.solution = c_.bytes() + next_.held_bytes() + integrator_.bytes() + clock_.bytes() + step_min_.bytes() + eval_clock_.bytes() + never_stopped_.bytes();
    use.strategy = buffer_.bytes() + first_color_.held_bytes();
    use.limiter = taylor_.bytes() + bounds_.bytes() + troubled_.held_bytes() + indicator_.held_bytes() + indicator_mean_.held_bytes() +
                  ring_flags_.held_bytes() + entropy_.held_bytes() + entropy_bound_.held_bytes() + filter_strength_.held_bytes() +
                  blend_alpha_.held_bytes() + blend_beta_.held_bytes() + blend_touching_.held_bytes() + blend_high_.held_bytes() +
                  blend_low_.held_bytes() + blend_bounded_.held_bytes() + blend_side_.held_bytes() + blend_factor_.held_bytes() +
                  blend_lists_.held_bytes() + blend_counts_.held_bytes() + blend_select_scratch_.held_bytes() + kxrcf_sums_.held_bytes();
    return use;
  }

  /// out (the DG right-hand side of c) becomes the subcell blend (set_subcell_blending). Within a step the
  /// shares are formed at the first stage, from the state the step starts from, and kept for the others: the
  /// KXRCF pass that gates them costs as much as the volume term, and a share that lags a stage still gives a
  /// convex blend (conservative, positivity as the finite volumes'). Outside a step (rhs, profiles) every call
  /// forms them.
  void blend_subcells(const Real* c, const Real* clock, Real stage_fraction, Real* out, bool kxrcf_summed = false) {
    const index_t nf = mesh_.num_faces();
    const Faces<Real> fc = faces();
    const std::uint8_t* touching = fc.left_half == nullptr ? nullptr : blend_touching_.data();
    const bool form_shares = blend_stage_ <= 0;
    if (blend_stage_ >= 0) ++blend_stage_;
    if (form_shares) {
      if (!fixed_shares_) {
        const std::uint8_t* troubled = nullptr;
        if (troubled_cells_only_) {
          if (kxrcf_summed)  // the surface term of c stored the face sums (eval_rhs)
            launch(k_, TroubledFromFaces<P, Real>{k_, mesh_.num_faces(), mesh_.view().element_faces, mesh_.view().element_half_faces,
                                                  faces().left, faces().right, kxrcf_sums_.data(), mesh_.view().circumradius, c,
                                                  troubled_.data()});
          else
            flag_troubled_cells(c);
          troubled = troubled_.data();
        }
        launch(k_, BlendingShares<P, Real>{k_, gamma_, Real(blending_alpha_min), blend_alpha_max_, c, d_.tables, troubled,
                                           blend_alpha_.data(), subcell_bounds_});
      }
      launch(k_, SmoothShares<Real>{mesh_.view().element_neighbors, mesh_.view().element_half_neighbors, blend_alpha_.data(),
                                    blend_beta_.data()});
    }
    const std::uint8_t* bounded = subcell_bounds_ ? blend_bounded_.data() : nullptr;
    const index_t *element_faces = mesh_.view().element_faces, *element_half_faces = mesh_.view().element_half_faces;
    if (form_shares) {
      if (subcell_bounds_)
        launch(k_, BoundedElements<Real>{mesh_.view().element_neighbors, mesh_.view().element_half_neighbors,
                                         troubled_cells_only_ && !fixed_shares_ ? troubled_.data() : nullptr, blend_beta_.data(),
                                         blend_bounded_.data()});
      // The passes below run over these lists alone, kept for the step's other stages with the shares.
      select_work(blend_face_list, nf, FaceBlends<Real>{fc, blend_beta_.data(), bounded});
      select_work(blend_element_list, k_, ElementBlends<Real>{fc, element_faces, element_half_faces, blend_beta_.data(), bounded});
      if (subcell_bounds_) select_work(bounded_element_list, k_, ElementBounded{bounded});
    }
    with_flux([&](auto f) {
      constexpr euler::Flux F = decltype(f)::value;
      launch_listed(blend_face_list, nf,
                    SubcellFaceFluxes<P, Real, F, Boundary>{face_integrals<F>(c, clock, stage_fraction), d_.subcells, blend_beta_.data(), nf,
                                                            blend_high_.data(), blend_low_.data(), bounded,
                                                            subcell_bounds_ ? blend_side_.data() : nullptr});
      launch_listed(blend_element_list, k_,
                    SubcellBlend<P, Real, F>{k_, nf, gamma_, c, out, d_.tables, d_.subcells, mesh_.view().geometry, fc, element_faces,
                                             blend_beta_.data(), blend_high_.data(), blend_low_.data(), bounded, element_half_faces});
    });
    if (!subcell_bounds_) return;
    auto bounded_blend = [&](bool rates) {
      return SubcellBoundedBlend<P, Real>{k_, nf, gamma_, c, out, element_faces, blend_beta_.data(), bounded, d_.tables,
                                          d_.subcells, mesh_.view().geometry, fc, blend_high_.data(), blend_low_.data(),
                                          blend_side_.data(), blend_factor_.data(), clock + clock_step, rates, element_half_faces, touching,
                                          RepairReach::element, repair_edges_};
    };
    for (const bool rates : {false, true}) launch_listed(bounded_element_list, k_, bounded_blend(rates));
    if (subcell_repair_) {
      SubcellBoundedBlend<P, Real> repair = bounded_blend(true);
      repair.repair_reach = repair_reach_;
      launch_listed(bounded_element_list, k_, SubcellRepair<P, Real>{repair});
    }
  }
  /// The blend's work lists (select_work): the faces SubcellFaceFluxes computes, the elements SubcellBlend does
  /// and the bounded ones, each in blend_lists_ at list * (elements + faces) with its count in blend_counts_.
  enum WorkList { blend_face_list, blend_element_list, bounded_element_list, num_work_lists };
  index_t* work_list(WorkList list) { return blend_lists_.data() + std::size_t(list) * (std::size_t(k_) + mesh_.num_faces()); }
  /// The items in [0, n) that pred keeps, ascending, into `list` and their number into its count, on the backend
  /// without waiting (select_if in the storage size_blending sized).
  template <class Pred>
  void select_work(WorkList list, index_t n, Pred pred) {
    select_if(backend_, n, pred, work_list(list), blend_counts_.data() + list, blend_select_scratch_.data(), blend_select_scratch_.size());
  }
  /// f over the items of `list` (at most n): on the CPU as many work items as the list holds; on the GPU n, the
  /// items beyond the count returning at once (a recorded step serves every count).
  template <class Fn>
  void launch_listed(WorkList list, index_t n, const Fn& f) {
    const index_t* count = blend_counts_.data() + list;
    launch(backend_ == Backend::cpu ? *count : n, OverList<Fn>{work_list(list), count, f});
  }
  /// The blend's work arrays for the present mesh (grown, never shrunk), and its hanging-face flags.
  void size_blending() {
    const std::size_t face_values = std::size_t(nv) * face_points(P) * mesh_.num_faces();
    const std::size_t piece_values = std::size_t(subcell_face_slots(P)) * mesh_.num_faces();  // for_each_edge_piece's slots
    fit(blend_alpha_, k_, "the subcell blend's shares"), fit(blend_beta_, k_, "the subcell blend's shares");
    forall(backend_, k_, SetAll<Real>{blend_beta_.data(), Real(1)});  // what an output before the first step shows
    if (troubled_cells_only_) {
      fit(troubled_, k_, "troubled-cell flags");
      if (backend_ == Backend::cpu) fit(kxrcf_sums_, 4 * std::size_t(mesh_.num_faces()), "the KXRCF face sums");
    }
    fit(blend_high_, face_values, "the subcell blend's face fluxes"), fit(blend_low_, nv * piece_values, "the subcell blend's face fluxes");
    if (subcell_bounds_) {
      fit(blend_bounded_, k_, "the subcell bounds' element flags");
      forall(backend_, k_, SetAll<std::uint8_t>{blend_bounded_.data(), std::uint8_t(0)});  // what an output before the first step shows
      fit(blend_side_, 2 * piece_values, "the subcell bounds' face densities");
      fit(blend_factor_, 2 * piece_values, "the subcell bounds' face shares");
    }
    fit(blend_lists_, std::size_t(num_work_lists) * (std::size_t(k_) + mesh_.num_faces()), "the subcell blend's work lists");
    fit(blend_counts_, num_work_lists, "the subcell blend's work counts");
    forall(backend_, num_work_lists, SetAll<index_t>{blend_counts_.data(), 0});
    {  // CUB's storage for the selections, set aside here: the step that selects may be recorded (a CUDA graph)
      const Faces<Real> fc = faces();
      const std::uint8_t* bounded = blend_bounded_.data();
      const std::size_t bytes = std::max({select_scratch_bytes(backend_, mesh_.num_faces(), FaceBlends<Real>{fc, nullptr, bounded}),
                                          select_scratch_bytes(backend_, k_, ElementBlends<Real>{fc, nullptr, nullptr, nullptr, bounded}),
                                          select_scratch_bytes(backend_, k_, ElementBounded{bounded}), std::size_t(1)});
      fit(blend_select_scratch_, bytes, "the subcell blend's selection storage");
    }
    // Which elements touch a hanging face depends on the mesh alone: found here, once per mesh, not per stage.
    const Faces<Real> fc = faces();
    if (fc.left_half != nullptr) {
      fit(blend_touching_, k_, "the subcell blend's hanging-face flags");
      forall(backend_, k_, TouchesHangingFace<Real>{mesh_.view().element_faces, fc, blend_touching_.data()});
    }
  }
  /// The entropy filter's arrays for the present mesh (grown, never shrunk); every strength 1 (untouched).
  void size_entropy_filter() {
    fit(entropy_, 2 * std::size_t(k_), "the entropy filter's bounds"), fit(entropy_bound_, 2 * std::size_t(k_), "the entropy filter's bounds");
    fit(filter_strength_, k_, "the entropy filter's strengths");
    forall(backend_, k_, SetAll<Real>{filter_strength_.data(), Real(1)});
  }
  /// b holds n values in the backend's memory: allocated the first time, resized (grown by capacity) after.
  template <class T>
  void fit(Buffer<T>& b, std::size_t n, const char* what) {
    if (b.held_bytes() == 0 || b.backend() != backend_)
      b = Buffer<T>(backend_, n, what);
    else
      b.resize(n);
  }

  /// The surface integrals of the solution c (backend memory) at time clock[0] + stage_fraction clock[1], with flux F.
  template <euler::Flux F>
  FaceIntegrals<P, Real, F, Boundary> face_integrals(const Real* c, const Real* clock, Real stage_fraction, Real* kxrcf = nullptr) const {
    return {k_, gamma_, clock, stage_fraction, c, d_.tables, mesh_.view().geometry, faces(), boundary_, kxrcf, mesh_.num_faces()};
  }
  /// The elementwise strategy's whole right-hand side of c into out (null where the pass applies a stage
  /// instead), as a functor for forall (public for the GPU benchmark, which times launch variants of it).
  template <euler::Flux F>
  EvalElement<P, Real, F, Boundary> element_pass(const Real* c, const Real* clock, Real stage_fraction, Real* out,
                                                  Real* kxrcf = nullptr) const {
    return {EvalVolume<P, Real>{k_, gamma_, c, out, d_.tables, mesh_.view().geometry}, mesh_.view().element_faces,
            face_integrals<F>(c, clock, stage_fraction, kxrcf), mesh_.view().element_half_faces};
  }

  /// One step of `dt` with the given integrator (see time_integrators.hpp); stage times reach the boundary
  /// states. Stops (NonPhysicalState, like check_physical) on a non-physical state.
  void step(Integrator method, Real dt) {
    if (!(dt > Real(0))) throw std::invalid_argument("step: the time step must be positive, got " + std::to_string(double(dt)));
    run_step({method, 0.0, dt, Real(1e30)});
  }

  /// Whether boundary conditions see the normal of the boundary curve through the boundary vertices (the
  /// default; mesh/boundary_curve.hpp) or the straight faces' own. Nothing changes where the boundaries are
  /// straight.
  void set_curved_boundaries(bool curved) { curved_boundaries_ = curved; }

  /// Turns on Zhang & Shu's positivity limiter after every stage: density and pressure at least epsilon at
  /// the volume and face quadrature points (0 turns it off).
  void set_positivity_limiter(Real epsilon) {
    positivity_epsilon_ = epsilon;
    step_graph_.clear();
  }

  /// The slope limiter applied after every stage (kernels/limiter_K.hpp). theta, in [1, 2], is the moment
  /// limiter's bound on slopes against neighbour differences: 1 is minmod, 2 (the default) the monotonized
  /// central bound, which gave the lower shock-tube errors (tests/unit/test_dg.cpp: Toro 3 at p = 1 on 32 x 32,
  /// L1 density 0.219 against 0.272). Throws std::invalid_argument for a theta outside [1, 2].
  /// `troubled_cells_only` (the default) limits only the elements the KXRCF indicator flags (TroubledCells):
  /// smooth flows keep their order, while shocks are still limited. With false every element is limited at
  /// every stage, as the limiters are defined.
  void set_limiter(Limiter limiter, double theta = 2, bool troubled_cells_only = true) {
    if (!(theta >= 1 && theta <= 2))
      throw std::invalid_argument("moment limiter theta " + std::to_string(theta) + ": expected a value in [1, 2]");
    // After an adaptation the tables hold only what the limiter of that time reads (limiter_tables).
    const typename DGMesh<Real>::LimiterTables needed = limiter_tables(limiter), built = mesh_.limiter_tables();
    if ((needed.neighbor_offsets && !built.neighbor_offsets) || (needed.vertex_elements && !built.vertex_elements))
      throw std::logic_error(mesh_.source() + ": the " + std::string(limiter == Limiter::moment ? "moment" : "vertex") +
                             " limiter needs mesh tables that the last adaptation did not build (set the limiter before adapting)");
    limiter_ = limiter;
    moment_theta_ = Real(theta);
    troubled_cells_only_ = troubled_cells_only;
    step_graph_.clear();
    // The limiter's work arrays, allocated now rather than inside a recorded step.
    if (limiter == Limiter::none || P == 0) return;
    entropy_stale_ = true;
    if (limiter == Limiter::entropy_filter) {
      size_entropy_filter();
      return;
    }
    ensure_troubled_flags();
    if (taylor_.size() != c_.size()) taylor_ = Buffer<Real>(backend_, c_.size(), "the limiter's Taylor coefficients");
    const std::size_t bound_values = limiter == Limiter::vertex ? std::size_t(2) * nv * VertexBounds<P, Real>::num_fields * mesh_.num_vertices() : 0;
    if (bounds_.size() != bound_values) bounds_ = Buffer<Real>(backend_, bound_values, "the vertex limiter's bounds");
    const std::size_t marks = limiter == Limiter::vertex ? std::size_t(mesh_.num_vertices()) : 0;
    if (vertex_marks_.size() != marks) vertex_marks_ = Buffer<std::uint8_t>(backend_, marks, "the vertex limiter's vertex marks");
  }

  /// The entropy filter's relative tolerances on its bounds (kernels/entropy_filter_K.hpp): an element filters
  /// where its specific entropy falls below (1 - entropy) times its neighbourhood's least at the previous stage,
  /// or its density below (1 - density) times theirs. std::invalid_argument outside [0, 1).
  void set_entropy_tolerances(double entropy, double density) {
    for (const double t : {entropy, density})
      if (!(t >= 0 && t < 1))
        throw std::invalid_argument("entropy filter tolerance " + std::to_string(t) + ": expected a value in [0, 1)");
    entropy_tolerance_ = Real(entropy), density_tolerance_ = Real(density);
    step_graph_.clear();
  }

  /// The KXRCF flags as the last forming of the subcell blend's shares or the last slope limiting left them,
  /// [elements] (empty before either), on the host. For tests: the blend's come from the surface term's face sums.
  std::vector<std::uint8_t> last_troubled_cells() const {
    return troubled_.size() == std::size_t(k_) ? troubled_.to_host() : std::vector<std::uint8_t>();
  }
  /// The KXRCF flags of the coefficients c, [elements] (1: troubled), CPU backend. For tests and output.
  const std::vector<std::uint8_t>& troubled_cells(const std::vector<Real>& c) {
    require_cpu("troubled_cells on host vectors");
    ensure_troubled_flags();
    flag_troubled_cells(c.data());
    return troubled_.host();
  }
  Limiter limiter() const { return limiter_; }

  /// Applies the slope limiter to the coefficients c (backend memory): the Taylor coefficients of the elements,
  /// then (vertex limiter) the vertex bounds, gathered per vertex with no race, and one factor per degree,
  /// element and variable; limiting the troubled elements only, the coefficients and bounds those read only.
  /// Cell averages never change. Nothing to do at P = 0 or with Limiter::none.
  void limit_slopes(Real* c) {
    if (limiter_ == Limiter::none || P == 0) return;
    if (limiter_ == Limiter::entropy_filter) {
      filter_entropy(c);
      return;
    }
    const std::uint8_t* troubled = nullptr;
    if (troubled_cells_only_) {
      flag_troubled_cells(c);
      // On the CPU a smooth state (no troubled cell) skips the Taylor coefficients and the bounds
      // altogether; the GPU runs them (the limiters leave unflagged cells alone) rather than stop for the host.
      if (backend_ == Backend::cpu) {
        const std::vector<std::uint8_t>& flags = troubled_.host();
        if (std::find(flags.begin(), flags.end(), std::uint8_t(1)) == flags.end()) return;
      }
      troubled = troubled_.data();
    }
    // The vertex limiter of the troubled elements only reads what TroubledVertices marks (the same values).
    const std::uint8_t* vertex_mark = troubled != nullptr && limiter_ == Limiter::vertex ? vertex_marks_.data() : nullptr;
    if (vertex_mark != nullptr)
      launch(mesh_.num_vertices(), TroubledVertices{mesh_.view().vertex_element_begin, mesh_.view().vertex_elements, troubled, vertex_marks_.data()});
    // The moment limiter of the troubled elements reads theirs and their face neighbours' coefficients only.
    const bool moment_listed = troubled != nullptr && limiter_ == Limiter::moment;
    launch(k_,
           TaylorCoefficients<P, Real>{k_, d_.taylor_from_modes, mesh_.view().geometry.dr_dx, mesh_.view().geometry.dr_dy, mesh_.view().geometry.ds_dx,
                                       mesh_.view().geometry.ds_dy, c, taylor_.data(), mesh_.view().element_vertices, vertex_mark,
                                       moment_listed ? troubled : nullptr, mesh_.view().element_neighbors, mesh_.view().element_half_neighbors});
    if (limiter_ == Limiter::moment) {
      launch(k_,
             MomentLimiter<P, Real>{k_, mesh_.view().element_neighbors, mesh_.view().neighbor_dx, mesh_.view().neighbor_dy, moment_theta_,
                                    d_.degree_part, taylor_.data(), c, troubled, mesh_.view().element_half_neighbors,
                                    mesh_.view().half_neighbor_dx, mesh_.view().half_neighbor_dy});
      return;
    }
    launch(mesh_.num_vertices(), VertexBounds<P, Real>{k_, mesh_.num_vertices(), mesh_.view().vertex_element_begin, mesh_.view().vertex_elements,
                                                       taylor_.data(), bounds_.data(), vertex_mark});
    launch(k_,
           VertexLimiter<P, Real>{k_, mesh_.num_vertices(), mesh_.view().element_vertices, mesh_.view().vertex_dx, mesh_.view().vertex_dy, d_.degree_part,
                                  taylor_.data(), bounds_.data(), c, troubled});
  }
  /// The entropy filter (kernels/entropy_filter_K.hpp) on the coefficients c: each element's bound is the least
  /// entropy of it and its face neighbours that the last filtering (or entropy_minimum) left, then each
  /// element filters itself and leaves its own least entropy for the next stage.
  void filter_entropy(Real* c) {
    entropy_stale_ = true;  // whatever c is; a step that ends well (run_step) or a projection says it is c_
    launch(k_, EntropyBound<Real>{k_, mesh_.view().element_neighbors, mesh_.view().element_half_neighbors, entropy_.data(),
                                  entropy_bound_.data()});
    launch(k_, EntropyFilter<P, Real>{k_, num_check_points_, gamma_, filter_floor(), entropy_tolerance_, density_tolerance_, d_.check_basis,
                                      entropy_bound_.data(), c, entropy_.data(), filter_strength_.data()});
  }
  /// The least entropy and density of each element of c: the bounds of the filter's first stage.
  void entropy_minimum(const Real* c) {
    launch(k_, EntropyMinimum<P, Real>{k_, num_check_points_, gamma_, d_.check_basis, c, entropy_.data()});
  }
  /// The filter's density and pressure floor: the positivity limiter's epsilon when it is on, else a tiny one.
  Real filter_floor() const { return positivity_epsilon_ > Real(0) ? positivity_epsilon_ : Real(1e-12); }
  /// limit_slopes on host vectors (CPU backend); the entropy filter's bounds are those of c itself.
  void limit_slopes(std::vector<Real>& c) {
    require_cpu("limit_slopes on host vectors");
    if (limiter_ == Limiter::entropy_filter && P > 0) entropy_minimum(c.data());
    limit_slopes(c.data());
  }

  /// The Taylor coefficients of the current solution about each centroid, [vars][modes][elements] (cell
  /// average, then physical derivatives; see TaylorCoefficients). For tests and diagnostics.
  std::vector<Real> taylor_coefficients() const {
    Buffer<Real> out(backend_, c_.size(), "Taylor coefficients");
    forall(backend_, k_,
           TaylorCoefficients<P, Real>{k_, d_.taylor_from_modes, mesh_.view().geometry.dr_dx, mesh_.view().geometry.dr_dy, mesh_.view().geometry.ds_dx,
                                       mesh_.view().geometry.ds_dy, c_.data(), out.data()});
    return out.to_host();
  }

  /// Applies the limiters that are on to the coefficients c (backend memory): slopes first, then positivity
  /// (which only ever shrinks them). The entropy filter keeps density and pressure at least the positivity
  /// epsilon at the same check points itself (filter_floor), so with it on the positivity pass would find
  /// nothing to do and is not run.
  void limit(Real* c) {
    limit_slopes(c);
    if (positivity_epsilon_ > Real(0) && !(limiter_ == Limiter::entropy_filter && P > 0)) limit_positivity(c);
  }

  /// The positivity limiter's check points: the volume and face points, and under bounds on the subcell
  /// averages those averages too. Rusanov's flux between the subcells (bounded_low_flux) needs admissible
  /// averages (a negative pressure's sound speed is NaN), and the bounds assume them; the averages are linear in
  /// the modes, so the limiter treats them as it treats point values (without them the double Mach reflection
  /// at p = 3 meets a NaN in its first steps).
  int positivity_points() const { return num_check_points_ + (blending_on() && subcell_bounds_ ? num_modes : 0); }
  /// Applies the positivity limiter to the coefficients c (see kernels/limiter_K.hpp).
  void limit_positivity(Real* c) const {
    launch(k_,
           PositivityLimiter<P, Real>{k_, positivity_points(), gamma_, positivity_epsilon_, d_.check_basis, d_.positivity_reach, c});
  }
  void limit_positivity(std::vector<Real>& c) const {
    require_cpu("limit_positivity on host vectors");
    limit_positivity(c.data());
  }

  /// Advances to exactly `end` with steps of at most stable_dt(cfl) (or `fixed_dt` if positive), the last
  /// one shortened so that the run lands on `end`. Returns the number of steps.
  int advance_to(Real end, Integrator method, double cfl, Real fixed_dt = Real(0),
                 int max_steps = std::numeric_limits<int>::max()) {
    int steps = 0;
    while (time_ < end && steps < max_steps) {
      run_step({method, cfl, fixed_dt, end});
      ++steps;
    }
    check_physical();
    return steps;
  }

  /// Takes `steps` steps of stable_dt(cfl) each, with no end time (benchmarks: a fixed amount of work).
  void advance_steps(int steps, Integrator method, double cfl) {
    for (int s = 0; s < steps; ++s) run_step({method, cfl, Real(0), Real(1e30)});
  }

  /// Whether steps on the GPU replay a recorded CUDA graph (the default) or launch each kernel (to measure
  /// what the graph saves). No effect on the CPU.
  void set_graphs(bool on) {
    use_graphs_ = on;
    step_graph_.clear();
  }

  /// Whether the elementwise strategy applies each SSP stage in its right-hand side pass (the default: the same
  /// values up to rounding, less memory traffic) or evaluates the right-hand side and updates in two passes (to
  /// measure the difference). No effect on the other strategies.
  void set_fused_stages(bool on) {
    fused_stages_ = on;
    step_graph_.clear();
  }

  /// Stops the run (NonPhysicalState) at the first element whose coefficients are not finite or whose cell
  /// average has a non-positive density or pressure, naming the element (its number in the mesh file), the
  /// time and the values. Never continues silently with a non-physical state.
  void check_physical() const { checked_stable_dt(0); }

  /// The largest stable step at the given CFL number: cfl * min over elements of the inradius over
  /// (|v| + c) of the cell average, divided by 2P + 1 (the usual DG scaling of the spectral radius). Throws
  /// like check_physical on a non-physical state (the same pass checks it).
  Real stable_dt(double cfl) const { return checked_stable_dt(cfl); }

  /// The lowest pressure at the positivity limiter's check points (every volume and face quadrature point of
  /// every element): positive in every run with the positivity limiter on.
  double lowest_pressure() const {
    const std::vector<Real>& c = solution();
    double lowest = 1e300;
    for (index_t e = 0; e < k_; ++e)
      for (int q = 0; q < num_check_points_; ++q) {
        double u[nv] = {};
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < num_modes; ++m)
            u[v] += double(c[(std::size_t(v) * num_modes + m) * k_ + e]) * double(check_basis_[std::size_t(q) * num_modes + m]);
        lowest = std::min(lowest, euler::pressure(u, double(gamma_)));
      }
    return lowest;
  }

  /// L2 norm over the mesh of (variable var of the solution) - exact(x, y, out)[var], with the degree-11 rule.
  template <class Exact>
  double l2_error(int var, Exact&& exact) const {
    return std::sqrt(integrate_error(var, exact, [](double d) { return d * d; }));
  }
  /// The L1 norm of the same difference (shock tubes are measured in L1).
  template <class Exact>
  double l1_error(int var, Exact&& exact) const {
    return integrate_error(var, exact, [](double d) { return std::abs(d); });
  }

 private:
  void set_reference_tables() {
    const TriangleOperators op = triangle_operators(P);
    auto convert = [](const std::vector<double>& v) { return std::vector<Real>(v.begin(), v.end()); };
    volume_weight_ = convert(op.volume_weight);
    volume_basis_ = convert(op.volume_basis);
    volume_grad_r_ = convert(op.volume_grad_r);
    volume_grad_s_ = convert(op.volume_grad_s);
    face_weight_ = convert(op.face_weight);
    face_abscissa_ = convert(op.face_abscissa);
    face_basis_ = convert(op.face_basis);
    face_half_basis_ = convert(op.face_half_basis);
    kxrcf_mode_bound_ = kxrcf_mode_bounds(face_basis_, face_half_basis_, num_modes);
    const ChildTransfer transfer = child_transfer(P);
    prolongation_ = convert(transfer.prolongation);
    restriction_ = convert(transfer.restriction);
    volume_r_ = op.volume_r;
    volume_s_ = op.volume_s;
    // The slope limiters' tables, and the positivity limiter's check points: the volume points, then the face points.
    taylor_from_modes_ = convert(op.taylor_from_modes);
    degree_part_ = convert(op.degree_part);
    check_basis_ = volume_basis_;
    check_basis_.insert(check_basis_.end(), face_basis_.begin(), face_basis_.end());
    num_check_points_ = static_cast<int>(check_basis_.size() / num_modes);
    const SubcellOperators sub = subcell_operators(P);
    // Then the subcell averages, which the positivity limiter checks too under bounds on them (positivity_points).
    if (P > 0) check_basis_.insert(check_basis_.end(), sub.average.begin(), sub.average.end());
    positivity_reach_ = positivity_reach(check_basis_, num_modes);
    subcell_average_ = convert(sub.average);
    subcell_modes_ = convert(sub.modes_from_averages);
    subcell_area_ = convert(sub.cell_area);
    subcell_normal_ = convert(sub.dual_face_normal);
    subcell_pairs_.assign(sub.dual_face_cells.begin(), sub.dual_face_cells.end());
    subcell_face_cell_.assign(sub.face_point_cell.begin(), sub.face_point_cell.end());
    subcell_dual_basis_ = convert(sub.dual_face_basis);
    subcell_dual_flux_ = convert(sub.dual_flux_from_outflow);
    subcell_hanging_count_.assign(sub.hanging_count.begin(), sub.hanging_count.end());
    subcell_hanging_point_.assign(sub.hanging_point.begin(), sub.hanging_point.end());
    subcell_hanging_coarse_.assign(sub.hanging_coarse.begin(), sub.hanging_coarse.end());
    subcell_hanging_length_ = convert(sub.hanging_length);
  }

  void require_cpu(const char* what) const {
    if (backend_ != Backend::cpu) throw std::logic_error(std::string(what) + ": the solver runs on the CUDA backend");
  }
  /// The time the single evaluations on host vectors (rhs, eval_surface) see.
  void set_eval_time(Real time) {
    std::vector<Real> clock(clock_size, Real(0));
    clock[clock_time] = time;
    eval_clock_.upload(clock);
  }

  /// What one step does. All but fixed_dt (which goes to the clock) are fixed while a recorded graph is replayed.
  struct StepPlan {
    Integrator method;
    double cfl;
    Real fixed_dt, end;
    bool same_graph(const StepPlan& o) const { return method == o.method && cfl == o.cfl && end == o.end; }
  };

  /// Launches f over [0, n) on the backend through StopGuard: inside a step the step's clock guards it (a
  /// stopped step writes nothing), outside one a clock whose stop flag is never set. Always guarded, so that each
  /// functor makes one kernel on each backend, not a guarded and a bare one: half the code of these kernels, and
  /// of the solver's compile time, for one load of a flag where no step runs.
  template <class Fn>
  void launch(index_t n, const Fn& f) const {
    forall(backend_, n, StopGuard<Real, Fn>{f, stop_guard_ != nullptr ? stop_guard_ : never_stopped_.data()});
  }

  /// One step: the state check and the step size (one reduction), the stages with their limiters, and the
  /// clock, all launched on the backend with no host synchronization in between. The same sequence for both
  /// backends; the GPU records it once per plan as a CUDA graph.
  void record_step(const StepPlan& plan) {
    Real* clock = clock_.data();
    double* step_min = step_min_.data() + reduce_blocks;
    reduce_min_into(backend_, k_, StableStep<P, Real>{k_, gamma_, c_.data(), mesh_.view().inradius}, step_min_.data(), step_min);
    forall(backend_, 1, ChooseStep<Real>{step_min, clock, plan.cfl, double(2 * P + 1), plan.end});
    struct GuardScope {  // the stages' and limiters' launches go through StopGuard, until the scope ends
      const Real*& guard;
      ~GuardScope() { guard = nullptr; }
    } scope{stop_guard_ = clock};
    auto rhs_of = [this, clock](const Real* c, Real stage_fraction, Real* out) { eval_rhs(c, clock, stage_fraction, out); };
    // limit() launches nothing when no limiter is on.
    struct StageCount {  // the subcell blend forms its shares at the step's first stage only
      int& stage;
      ~StageCount() { stage = -1; }
    } count{blend_stage_ = 0};
    integrator_.step(plan.method, clock, c_.data(), rhs_of, [this](Real* c) { limit(c); }, FusedStage{this, clock});
    forall(backend_, 1, AdvanceClock<Real>{clock, plan.end});
  }

  /// The elementwise strategy's stages in one pass each (EvalElementStage), for the integrator.
  struct FusedStage {
    const EulerSolver* solver;
    const Real* clock;
    bool available() const { return solver->strategy_ == Strategy::elementwise && solver->fused_stages_ && !solver->blending_on(); }
    void operator()(const Real* v, Real stage_fraction, const StageTerms<Real>& terms, Real* out) const {
      solver->with_flux([&](auto f) {
        constexpr euler::Flux F = decltype(f)::value;
        solver->launch(solver->k_, EvalElementStage<P, Real, F, Boundary>{solver->template element_pass<F>(v, clock, stage_fraction, nullptr),
                                                                         terms.a, terms.b, terms.g, terms.x, terms.y, clock + clock_step,
                                                                         out});
      });
    }
  };

  /// Runs one step (replaying the recorded graph on the GPU), then reads the clock: the only copy to the
  /// host per step. Throws (check_physical's message) when the step found a non-physical state.
  void run_step(const StepPlan& plan) {
    if (!lost_mesh_.empty())
      throw std::logic_error(lost_mesh_ + ": the solver has no mesh since an adaptation failed to follow the forest; start anew or resume from a checkpoint");
    if (plan.fixed_dt != clock_fixed_dt_) {
      forall(backend_, 1, SetValue<Real>{clock_.data() + clock_fixed_step, plan.fixed_dt});
      clock_fixed_dt_ = plan.fixed_dt;
    }
    // The filter's first stage is bounded by the least values of the state: the last stage's filtering left them
    // for the state a step ends on, so they are formed again only where the state came from elsewhere.
    if (limiter_ == Limiter::entropy_filter && P > 0 && entropy_stale_) entropy_minimum(c_.data());
    entropy_stale_ = true;  // until the step ends well
    integrator_.prepare(plan.method);  // before a graph records the step
    if (backend_ == Backend::cuda && use_graphs_) {
      if (step_graph_.empty() || !plan.same_graph(graph_plan_)) {
        step_graph_.capture([&] { record_step(plan); });
        graph_plan_ = plan;
        step_planned_ = true;
      }
      step_graph_.launch();
    } else {
      record_step(plan);
    }
    const std::vector<Real> clock = clock_.to_host();
    if (clock[clock_stop] != Real(0)) throw_non_physical();
    if (!(clock[clock_time] > time_)) throw_stalled(clock[clock_step]);
    entropy_stale_ = false;
    time_ = clock[clock_time];
    last_dt_ = clock[clock_step];
  }

  /// stable_dt(cfl) after checking the state (StableStep, in the same pass): every coefficient finite and
  /// every cell average of positive density and pressure, else NonPhysicalState naming the time, the element's number
  /// in the mesh file and the values.
  Real checked_stable_dt(double cfl) const {
    // One reduction: the step, or -1 (or NaN) when some element cannot go on; only then find it.
    const double dt = reduce_min(backend_, k_, StableStep<P, Real>{k_, gamma_, c_.data(), mesh_.view().inradius});
    if (dt > 0) return Real(cfl * dt / (2 * P + 1));
    throw_non_physical();
  }

  /// A step too small to change the time in Real (below half the spacing of Real numbers at time_): the run
  /// would repeat it forever. Stops it instead, with the remedy.
  [[noreturn]] void throw_stalled(Real dt) const {
    const char* precision = std::is_same_v<Real, float> ? "single precision" : "double precision";
    char message[400];
    std::snprintf(message, sizeof message,
                  "the run cannot go on in %s: at t = %.9g in %s the stable step dt = %.3g no longer changes the "
                  "time (the spacing of %s numbers there is %.3g); run in double precision, or with the time "
                  "nearer 0",
                  precision, double(time_), mesh_.source().c_str(), double(dt), precision,
                  double(std::nextafter(time_, std::numeric_limits<Real>::infinity()) - time_));
    throw std::runtime_error(message);
  }

  /// Finds (on the host) the first element that cannot go on and throws NonPhysicalState naming the time,
  /// its number in the mesh file and its cell average.
  [[noreturn]] void throw_non_physical() const {
    const std::vector<Real>& c = solution();
    const StableStep<P, Real> step{k_, gamma_, c.data(), mesh_.inradius().data()};
    index_t bad = 0;
    while (bad < k_ && step(bad) > 0) ++bad;
    if (bad == k_) {
      char message[200];
      std::snprintf(message, sizeof message, "non-physical state at t = %.9g in %s, but no element's cell average shows it",
                    double(time_), mesh_.source().c_str());
      throw NonPhysicalState(message);
    }
    const char* what = "non-positive density or pressure";
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < num_modes; ++m)
        if (!std::isfinite(double(c[(std::size_t(v) * num_modes + m) * k_ + bad]))) what = "a coefficient is not a number";
    double u[nv];
    for (int v = 0; v < nv; ++v) u[v] = double(c[std::size_t(v) * num_modes * k_ + bad]) * mode0_value;
    char message[320];
    std::snprintf(message, sizeof message,
                  "non-physical state at t = %.9g in element %lld of %s: %s, cell average density %.6g, pressure %.6g, "
                  "velocity (%.6g, %.6g)",
                  double(time_), static_cast<long long>(mesh_.element_tag()[bad]), mesh_.source().c_str(), what, u[euler::density],
                  euler::pressure(u, double(gamma_)), u[euler::momentum_x] / u[euler::density],
                  u[euler::momentum_y] / u[euler::density]);
    throw NonPhysicalState(message);
  }

  void ensure_troubled_flags() {
    if (troubled_.size() != std::size_t(k_)) troubled_ = Buffer<std::uint8_t>(backend_, k_, "troubled-cell flags");
  }
  void flag_troubled_cells(const Real* c) {
    TroubledCells<P, Real> kxrcf{k_, mesh_.view().element_faces, faces().left, faces().right, faces().left_local,
                                 faces().right_local, faces().normal_x, faces().normal_y, faces().length,
                                 d_.tables.face_weight, d_.tables.face_basis, mesh_.view().circumradius, c, troubled_.data(),
                                 d_.tables.face_half_basis, faces().left_half, faces().right_half, mesh_.view().element_half_faces};
    kxrcf.mode_bound = d_.kxrcf_mode_bound;
    kxrcf.element_neighbors = mesh_.view().element_neighbors, kxrcf.element_half_neighbors = mesh_.view().element_half_neighbors;
    launch(k_, kxrcf);
  }

  /// The reference tables the kernels read (the mesh's are DGMesh's), listed once: visit(host vector, name,
  /// where its backend pointer goes).
  template <class Visit>
  void for_each_table(Visit&& visit) {
    visit(volume_weight_, "volume weights", d_.tables.volume_weight);
    visit(volume_basis_, "volume basis", d_.tables.volume_basis);
    visit(volume_grad_r_, "volume basis gradients", d_.tables.volume_grad_r);
    visit(volume_grad_s_, "volume basis gradients", d_.tables.volume_grad_s);
    visit(face_weight_, "face weights", d_.tables.face_weight);
    visit(face_abscissa_, "face abscissae", d_.tables.face_abscissa);
    visit(face_basis_, "face basis", d_.tables.face_basis);
    visit(face_half_basis_, "half-face basis", d_.tables.face_half_basis);
    visit(prolongation_, "prolongation matrices", d_.prolongation);
    visit(restriction_, "restriction matrices", d_.restriction);
    visit(check_basis_, "positivity check basis", d_.check_basis);
    visit(positivity_reach_, "positivity check bounds", d_.positivity_reach);
    visit(kxrcf_mode_bound_, "troubled-cell mode bounds", d_.kxrcf_mode_bound);
    visit(taylor_from_modes_, "Taylor tables", d_.taylor_from_modes);
    visit(degree_part_, "Taylor tables", d_.degree_part);
    visit(subcell_average_, "subcell averages", d_.subcells.average);
    visit(subcell_modes_, "subcell averages", d_.subcells.modes_from_averages);
    visit(subcell_area_, "subcell areas", d_.subcells.cell_area);
    visit(subcell_normal_, "subcell normals", d_.subcells.dual_face_normal);
    visit(subcell_pairs_, "subcell faces", d_.subcells.dual_face_cells);
    visit(subcell_face_cell_, "subcell faces", d_.subcells.face_point_cell);
    visit(subcell_dual_basis_, "subcell dual-face basis", d_.subcells.dual_face_basis);
    visit(subcell_dual_flux_, "subcell dual-face fluxes", d_.subcells.dual_flux_from_outflow);
    visit(subcell_hanging_count_, "subcell hanging-face pieces", d_.subcells.hanging_count);
    visit(subcell_hanging_point_, "subcell hanging-face pieces", d_.subcells.hanging_point);
    visit(subcell_hanging_coarse_, "subcell hanging-face pieces", d_.subcells.hanging_coarse);
    visit(subcell_hanging_length_, "subcell hanging-face pieces", d_.subcells.hanging_length);
  }

  /// A boundary functor that holds only values travels to the device as it is.
  template <class B>
  B place_boundary(const B& boundary) {
    return boundary;
  }
  /// A group table (host pointers) is copied to the device for the mesh's boundary groups.
  bc::GroupBoundary<Real> place_boundary(const bc::GroupBoundary<Real>& boundary) {
    const std::int32_t groups = mesh_.boundary_groups();
    bc::GroupBoundary<Real> placed = boundary;
    if (groups == 0) return placed;
    boundary_kinds_ = Buffer<bc::Kind>(backend_, std::vector<bc::Kind>(boundary.kind, boundary.kind + groups), "boundary kinds");
    placed.kind = boundary_kinds_.data();
    if (boundary.state) {  // a table of walls, outflows and functions needs no states
      boundary_states_ = Buffer<Real>(backend_, std::vector<Real>(boundary.state, boundary.state + std::size_t(groups) * nv), "boundary states");
      placed.state = boundary_states_.data();
    }
    if (boundary.function) {
      boundary_functions_ = Buffer<bc::StateFunction>(
          backend_, std::vector<bc::StateFunction>(boundary.function, boundary.function + groups), "boundary functions");
      placed.function = boundary_functions_.data();
    }
    return placed;
  }

  /// Builds the mesh tables and points the kernels at every array: the host vectors themselves on the CPU;
  /// device copies on the GPU, after checking against cudaMemGetInfo that they and the solution's work vectors
  /// fit.
  std::size_t reference_table_bytes() {
    std::size_t bytes = 0;
    for_each_table([&bytes](const auto& host, const char*, auto&) { bytes += host.size() * sizeof(host[0]); });
    return bytes;
  }

  /// `rebuild(also_needed, what)` builds the mesh tables (DGMesh::rebuild of a Mesh or a forest) with `faces`
  /// faces.
  template <class Rebuild>
  void place_arrays(const std::string& source, index_t faces, Rebuild&& rebuild) {
    const std::size_t solution_values = std::size_t(nv) * num_modes * k_;
    const std::size_t table_bytes = reference_table_bytes();
    // The solution, the integrator's stage and right-hand side and the strategy's buffer; the limiter's come
    // later, as does rk4's start vector (RungeKutta::prepare).
    const std::size_t solver_bytes = table_bytes + 3 * solution_values * sizeof(Real) +
                                     (strategy_ == Strategy::buffered ? std::size_t(2) * nv * num_modes * std::size_t(faces) * sizeof(Real) : 0);
    rebuild(solver_bytes, source + ": the solver at p = " + std::to_string(P) + " (" + std::to_string(k_) + " elements)");
    mesh_bytes_ = mesh_.bytes() + table_bytes;
    for_each_table([this](const auto& host, const char* what, auto& target) { target = placed_tables_.place(backend_, host, what); });
    c_ = Buffer<Real>(backend_, solution_values, "the solution");
    next_ = Buffer<Real>(backend_, 0, "the transferred solution");
    indicator_ = Buffer<double>(backend_, 0, "the refinement indicator");
    indicator_mean_ = Buffer<double>(backend_, 0, "the refinement indicator's cell averages");
    ring_flags_ = Buffer<std::uint8_t>(backend_, 0, "the refinement buffer's flags");
    integrator_.allocate(backend_, solution_values);
    if (strategy_ == Strategy::buffered)
      buffer_ = Buffer<Real>(backend_, std::size_t(2) * nv * num_modes * mesh_.num_faces(), "the buffered strategy's face buffer");
    first_color_ = Buffer<std::int8_t>(backend_, 0, "the elements' first face colors");
    set_first_colors();
    if (backend_ == Backend::cuda) boundary_ = place_boundary(boundary_);
    // The clock starts at t = 0 (device memory comes uninitialized).
    clock_ = Buffer<Real>(backend_, std::vector<Real>(clock_size, Real(0)), "the clock");
    eval_clock_ = Buffer<Real>(backend_, clock_size, "the evaluation clock");
    never_stopped_ = Buffer<Real>(backend_, std::vector<Real>(clock_size, Real(0)), "the guard of launches outside a step");
    step_min_ = Buffer<double>(backend_, reduce_blocks + 1, "the time-step reduction");
  }

  /// Each element's lowest face color (FirstFaceColor), where the volume term goes with the faces
  /// (volume_with_faces): the colored strategy on the CPU, on a mesh whose faces are grouped by color. Launched
  /// for the colors from the last to the first, so that the lowest is the one that stays.
  void set_first_colors() {
    const std::vector<index_t>& begin = mesh_.color_begin();
    first_of_some_.clear();
    if (!volume_with_faces_on_cpu || strategy_ != Strategy::colored || backend_ != Backend::cpu || begin.size() < 2 || k_ == 0) {
      first_color_.resize(0);
      return;
    }
    first_color_.resize(k_);
    const Faces<Real> fc = faces();
    for (std::size_t color = begin.size() - 1; color-- > 0;)
      forall_cpu(begin[color + 1] - begin[color], FirstFaceColor{begin[color], fc.left, fc.right, std::int8_t(color), first_color_.data()});
    // The passes of the colors that are no element's first take the plain kernel (on a mesh with one face of each
    // color per element, every color but the first). first_color_ is host memory here (the CPU backend).
    first_of_some_.assign(begin.size() - 1, false);
    for (index_t e = 0; e < k_; ++e) first_of_some_[std::size_t(first_color_.data()[e])] = true;
  }

  /// The integral over the mesh of f(solution - exact) for variable var, with the degree-11 rule.
  template <class Exact, class Measure>
  double integrate_error(int var, Exact&& exact, Measure&& f) const {
    const quad::Rule rule = quad::triangle_rule(quad::max_triangle_degree);
    std::vector<double> phi(std::size_t(rule.size()) * num_modes);
    for (int q = 0; q < rule.size(); ++q)
      for (int m = 0; m < num_modes; ++m) phi[std::size_t(q) * num_modes + m] = basis::mode(m, rule.r[q], rule.s[q]);
    const std::vector<Real>& c = solution();
    double sum = 0;
    for (index_t e = 0; e < k_; ++e)
      for (int q = 0; q < rule.size(); ++q) {
        double uh = 0;
        for (int m = 0; m < num_modes; ++m)
          uh += double(c[(std::size_t(var) * num_modes + m) * k_ + e]) * phi[std::size_t(q) * num_modes + m];
        const auto [x, y] = mesh_.point(e, rule.r[q], rule.s[q]);
        double u[nv];
        exact(x, y, u);
        sum += rule.w[q] * double(mesh_.jacobian()[e]) * f(uh - u[var]);
      }
    return sum;
  }

  /// The kernels' view of the reference tables, in the backend's memory.
  struct Arrays {
    Tables<Real> tables{};
    const Real *check_basis = nullptr, *taylor_from_modes = nullptr, *degree_part = nullptr;
    const Real* kxrcf_mode_bound = nullptr;  ///< [modes] TroubledCells::mode_bound
    const Real* positivity_reach = nullptr;  ///< [check points][2][modes] PositivityLimiter::check_reach
    const Real *prolongation = nullptr, *restriction = nullptr;  ///< [4][modes][modes] (ChildTransfer)
    SubcellTables<Real> subcells{};
  };

  /// The faces as the kernels see them: with the boundary curve's angles where curved boundaries are on.
  Faces<Real> faces() const {
    Faces<Real> faces = mesh_.view().faces;
    faces.bend = curved_boundaries_ ? mesh_.view().boundary_bend : nullptr;
    return faces;
  }

  /// fn(euler::FluxConstant<flux_>{}): the flux kernels fn launches are those of the solver's flux.
  template <class Fn>
  void with_flux(Fn&& fn) const {
    euler::with_flux(Fluxes{}, flux_, fn);
  }
  static euler::Flux checked_flux(euler::Flux flux) {
    if (euler::with_flux(Fluxes{}, flux, [](auto) {})) return flux;
    std::string name = "number " + std::to_string(int(flux));
    for (const euler::FluxInfo& known : euler::fluxes)
      if (known.value == flux) name = std::string(known.name);
    throw std::invalid_argument("flux " + name + ": this solver is not built for it");
  }

  index_t k_;
  Real gamma_;
  Boundary boundary_;
  euler::Flux flux_;
  Strategy strategy_;
  Backend backend_;
  DGMesh<Real> mesh_;  // geometry, connectivity and the limiters' neighbour tables
  bool curved_boundaries_ = true;
  Real time_ = 0;
  Real last_dt_ = 0;
  int num_check_points_ = 0;
  // Host copies of the reference tables (set-up, projection, errors); the kernels read them through d_.
  std::vector<Real> volume_weight_, volume_basis_, volume_grad_r_, volume_grad_s_, face_weight_, face_abscissa_, face_basis_;
  std::vector<Real> face_half_basis_;  // [3][2][face points][modes]
  std::vector<Real> prolongation_, restriction_;  // [4][modes][modes]
  std::vector<double> volume_r_, volume_s_;
  std::vector<Real> check_basis_;  // [volume points + 3 face points + subcells][modes]
  std::vector<Real> kxrcf_mode_bound_;  // [modes] kxrcf_mode_bounds
  std::vector<Real> positivity_reach_;  // [check points][2][modes] positivity_reach
  std::vector<Real> taylor_from_modes_, degree_part_;  // TriangleOperators' limiter tables
  std::vector<Real> subcell_average_, subcell_modes_, subcell_area_, subcell_normal_, subcell_dual_basis_,
      subcell_dual_flux_, subcell_hanging_length_;  // SubcellOperators
  std::vector<std::int32_t> subcell_pairs_, subcell_face_cell_, subcell_hanging_count_, subcell_hanging_point_, subcell_hanging_coarse_;
  Real positivity_epsilon_ = Real(0);
  Limiter limiter_ = Limiter::none;
  Real moment_theta_ = Real(2);
  bool troubled_cells_only_ = true;
  // In the backend's memory.
  Arrays d_;
  PlacedArrays placed_tables_;
  std::size_t mesh_bytes_ = 0;
  Buffer<Real> c_;                      // [vars][modes][elements]
  Buffer<Real> next_;                   // where remesh transfers the solution (then the two swap)
  std::string lost_mesh_;               // the forest's source once a remesh failed (no step is taken after that)
  Buffer<Real> buffer_;                 // the buffered strategy's per-face contributions
  Buffer<Real> taylor_, bounds_;        // [vars][modes][elements]; [2][vars][VertexBounds::num_fields][vertices]
  Buffer<std::uint8_t> vertex_marks_;   // [vertices] TroubledVertices' marks (the vertex limiter)
  Buffer<std::uint8_t> troubled_;       // [elements] KXRCF flags
  Buffer<Real> entropy_, entropy_bound_;  // [2][elements] the entropy filter's least log entropy and density, own and around
  Buffer<Real> filter_strength_;          // [elements] the entropy filter's last factor f (1: untouched)
  Real entropy_tolerance_ = Real(1e-2), density_tolerance_ = Real(1e-3);  // set_entropy_tolerances
  bool entropy_stale_ = true;  // entropy_ is not c_'s (set outside a step): run_step forms it first
  static constexpr double blending_alpha_min = 1e-3;  // Hennemann et al.'s: smaller shares are 0
  Real blend_alpha_max_ = Real(0);                    // set_subcell_blending (0: off)
  bool fixed_shares_ = false;                         // set_blending_shares
  Buffer<Real> blend_alpha_, blend_beta_;  // [elements] finite-volume shares, then DG shares
  Buffer<Real> kxrcf_sums_;                // [4][faces] the KXRCF sums the surface term stores (FaceIntegrals::kxrcf)
  Buffer<std::int8_t> first_color_;        // [elements] each one's lowest face color (colored, CPU: FirstFaceColor)
  std::vector<bool> first_of_some_;        // [colors] whether some element's first_color_ is the color
  Buffer<std::uint8_t> blend_touching_;    // [elements] beside a hanging face
  Buffer<Real> blend_high_, blend_low_;    // SubcellFaceFluxes' fluxes: [vars][face points][faces], [vars][subcell_face_slots][faces]
  bool subcell_bounds_ = false;            // set_subcell_bounds
  bool subcell_repair_ = false;            // set_subcell_repair
  RepairReach repair_reach_ = RepairReach::element;  // set_subcell_repair
  bool repair_edges_ = false;                         // set_subcell_repair
  Buffer<std::uint8_t> blend_bounded_;     // [elements] BoundedElements
  Buffer<Real> blend_side_, blend_factor_;  // SubcellFaceFluxes' cell states and SubcellBoundedBlend's shares per edge piece
  Buffer<index_t> blend_lists_, blend_counts_;  // the blend's work lists and their counts (work_list)
  Buffer<char> blend_select_scratch_;           // select_if's storage for them
  int blend_stage_ = -1;  // the right-hand side's number within the step being recorded; -1 outside a step
  Buffer<double> indicator_, indicator_mean_;  // [elements] the refinement indicator's values, a variable's cell averages
  Buffer<std::uint8_t> ring_flags_;     // [elements] scratch of the buffer rings and the kxrcf indicator's flags
  Buffer<bc::Kind> boundary_kinds_;     // a GroupBoundary's tables on the device
  Buffer<Real> boundary_states_;
  Buffer<bc::StateFunction> boundary_functions_;
  Buffer<Real> clock_, eval_clock_;     // [clock_size]: the run's, and the single evaluations'
  Buffer<Real> never_stopped_;          // [clock_size] zeros: launch()'s guard outside a step
  Buffer<double> step_min_;             // [reduce_blocks] scratch, then the smallest StableStep value
  RungeKutta<Real> integrator_;
  mutable std::vector<Real> host_solution_;  // solution() on the GPU
  bool use_graphs_ = true;
  bool fused_stages_ = true;
  DeviceGraph step_graph_;
  StepPlan graph_plan_{};
  bool step_planned_ = false;  // graph_plan_ holds the plan of a recorded step
  Real clock_fixed_dt_ = Real(0);      // the fixed step in the clock now
  const Real* stop_guard_ = nullptr;   // the clock, while a step's kernels are launched
};

/// The solver with flux F named in its type, for code that fixes one (tests, benchmarks): it builds F's flux
/// kernels alone, and its face_integrals and element_pass need no flux argument.
template <int P, class Real, euler::Flux F, class Boundary>
class EulerDG : public EulerSolver<P, Real, Boundary, euler::FluxSet<F>> {
  using Base = EulerSolver<P, Real, Boundary, euler::FluxSet<F>>;

 public:
  EulerDG(const Mesh& mesh, Real gamma, Boundary boundary, Strategy strategy, Backend backend = Backend::cpu)
      : Base(mesh, gamma, boundary, F, strategy, backend) {}
  EulerDG(const adapt::TriangleForest& forest, Real gamma, Boundary boundary, Strategy strategy, Backend backend = Backend::cpu)
      : Base(forest, gamma, boundary, F, strategy, backend) {}

  FaceIntegrals<P, Real, F, Boundary> face_integrals(const Real* c, const Real* clock, Real stage_fraction, Real* kxrcf = nullptr) const {
    return Base::template face_integrals<F>(c, clock, stage_fraction, kxrcf);
  }
  EvalElement<P, Real, F, Boundary> element_pass(const Real* c, const Real* clock, Real stage_fraction, Real* out,
                                                  Real* kxrcf = nullptr) const {
    return Base::template element_pass<F>(c, clock, stage_fraction, out, kxrcf);
  }
};

}  // namespace kempe::dg