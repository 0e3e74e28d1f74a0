// The DG Euler solver on triangles, CPU backend: owns the solution, the reference tables and the mesh arrays in
// the kernels' precision, evaluates the right-hand side with the race strategy asked for, advances in time with
// the integrator asked for (solver/time_integrators.hpp), and applies the limiters after every stage. The
// kernels it runs (kernels/dg_K.hpp, kernels/limiter_K.hpp) are the ones the GPU backend will launch.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/dg_K.hpp"
#include "kernels/limiter_K.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/registry.hpp"
#include "kernels/triangle.hpp"
#include "mesh/mesh.hpp"
#include "solver/time_integrators.hpp"

namespace kempe::dg {

template <int P, class Real, euler::Flux F, class Boundary>
class EulerDG {
 public:
  static constexpr int num_modes = basis::num_modes(P);
  static constexpr int nv = euler::num_vars;

  /// The mesh must hold triangles in the plane; for Strategy::colored its faces must be grouped by color
  /// (coloring/reorder.hpp: apply_ordering). Throws std::invalid_argument otherwise.
  EulerDG(const Mesh& mesh, Real gamma, Boundary boundary, Strategy strategy)
      : k_(mesh.num_elements()), gamma_(gamma), boundary_(boundary), strategy_(strategy) {
    if (mesh.dim != 2 || mesh.space_dim != 2)
      throw std::invalid_argument(mesh.source + ": the DG solver needs a 2D mesh in the xy plane");
    for (const ElementType t : mesh.element_type)
      if (t != ElementType::triangle)
        throw std::invalid_argument(mesh.source + ": the DG solver handles triangles only, for now");
    if (strategy == Strategy::colored && mesh.color_begin.size() < 2)
      throw std::invalid_argument(mesh.source + ": the colored strategy needs faces grouped by color (apply an ordering)");
    color_begin_ = mesh.color_begin;
    element_tag_ = mesh.element_tag;
    source_ = mesh.source;
    const TriangleOperators op = triangle_operators(P);
    auto convert = [](const std::vector<double>& v) { return std::vector<Real>(v.begin(), v.end()); };
    volume_weight_ = convert(op.volume_weight);
    volume_basis_ = convert(op.volume_basis);
    volume_grad_r_ = convert(op.volume_grad_r);
    volume_grad_s_ = convert(op.volume_grad_s);
    face_weight_ = convert(op.face_weight);
    face_abscissa_ = convert(op.face_abscissa);
    face_basis_ = convert(op.face_basis);
    volume_r_ = op.volume_r;
    volume_s_ = op.volume_s;
    // The slope limiters' tables: each element's vertices, each mesh vertex's elements (CSR), and the
    // offsets from each element's centroid to its vertices and (across each face) to its neighbours' centroids.
    taylor_from_modes_ = convert(op.taylor_from_modes);
    degree_part_ = convert(op.degree_part);
    element_vertices_.resize(std::size_t(k_) * 3);
    vertex_element_begin_.assign(std::size_t(mesh.num_nodes()) + 1, 0);
    for (index_t e = 0; e < k_; ++e)
      for (int j = 0; j < 3; ++j) {
        element_vertices_[3 * std::size_t(e) + j] = mesh.element_vertices[mesh.element_vertex_begin[e] + j];
        ++vertex_element_begin_[element_vertices_[3 * std::size_t(e) + j] + 1];
      }
    for (std::size_t i = 1; i < vertex_element_begin_.size(); ++i) vertex_element_begin_[i] += vertex_element_begin_[i - 1];
    vertex_elements_.resize(std::size_t(k_) * 3);
    {
      std::vector<index_t> fill(vertex_element_begin_.begin(), vertex_element_begin_.end() - 1);
      for (index_t e = 0; e < k_; ++e)
        for (int j = 0; j < 3; ++j) vertex_elements_[fill[element_vertices_[3 * std::size_t(e) + j]]++] = e;
    }
    {
      auto centroid = [&](index_t e) {
        const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
        return std::array<double, 2>{(mesh.x[v[0]] + mesh.x[v[1]] + mesh.x[v[2]]) / 3,
                                     (mesh.y[v[0]] + mesh.y[v[1]] + mesh.y[v[2]]) / 3};
      };
      // The midpoint of local face j of element e (from its vertex j to vertex j + 1).
      auto face_midpoint = [&](index_t e, int j) {
        const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
        return std::array<double, 2>{(mesh.x[v[j]] + mesh.x[v[(j + 1) % 3]]) / 2, (mesh.y[v[j]] + mesh.y[v[(j + 1) % 3]]) / 2};
      };
      for (auto* a : {&vertex_dx_, &vertex_dy_, &neighbor_dx_, &neighbor_dy_}) a->assign(std::size_t(k_) * 3, Real(0));
      element_neighbors_.assign(std::size_t(k_) * 3, no_element);
      for (index_t e = 0; e < k_; ++e) {
        const auto ce = centroid(e);
        for (int j = 0; j < 3; ++j) {
          const index_t v = element_vertices_[3 * std::size_t(e) + j];
          vertex_dx_[3 * std::size_t(e) + j] = Real(mesh.x[v] - ce[0]);
          vertex_dy_[3 * std::size_t(e) + j] = Real(mesh.y[v] - ce[1]);
        }
      }
      for (index_t f = 0; f < mesh.num_faces(); ++f) {
        const index_t l = mesh.face_left[f], r = mesh.face_right[f];
        if (r == no_element) continue;
        const int jl = mesh.face_left_local[f], jr = mesh.face_right_local[f];
        // Centroid to face midpoint on one side, then face midpoint to centroid on the other: the true offset
        // for an interior face, the translated one for a periodic face.
        const auto cl = centroid(l), cr = centroid(r), ml = face_midpoint(l, jl), mr = face_midpoint(r, jr);
        const double dx = (ml[0] - cl[0]) + (cr[0] - mr[0]), dy = (ml[1] - cl[1]) + (cr[1] - mr[1]);
        element_neighbors_[3 * std::size_t(l) + jl] = r;
        neighbor_dx_[3 * std::size_t(l) + jl] = Real(dx);
        neighbor_dy_[3 * std::size_t(l) + jl] = Real(dy);
        element_neighbors_[3 * std::size_t(r) + jr] = l;
        neighbor_dx_[3 * std::size_t(r) + jr] = Real(-dx);
        neighbor_dy_[3 * std::size_t(r) + jr] = Real(-dy);
      }
    }
    // The positivity limiter's check points: the volume points, then the face points.
    check_basis_ = volume_basis_;
    check_basis_.insert(check_basis_.end(), face_basis_.begin(), face_basis_.end());
    // Element geometry.
    for (auto* a : {&jacobian_, &dr_dx_, &dr_dy_, &ds_dx_, &ds_dy_}) a->resize(k_);
    vx_.resize(std::size_t(k_) * 3);
    vy_.resize(vx_.size());
    inradius_.resize(k_);
    circumradius_.resize(k_);
    for (index_t e = 0; e < k_; ++e) {
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
      const std::array<double, 3> x{mesh.x[v[0]], mesh.x[v[1]], mesh.x[v[2]]}, y{mesh.y[v[0]], mesh.y[v[1]], mesh.y[v[2]]};
      const TriangleGeometry geo = triangle_geometry(x, y);
      jacobian_[e] = Real(geo.jacobian);
      dr_dx_[e] = Real(geo.dr_dx);
      dr_dy_[e] = Real(geo.dr_dy);
      ds_dx_[e] = Real(geo.ds_dx);
      ds_dy_[e] = Real(geo.ds_dy);
      double perimeter = 0;
      for (int j = 0; j < 3; ++j) {
        vx_[3 * std::size_t(e) + j] = x[j];
        vy_[3 * std::size_t(e) + j] = y[j];
        perimeter += std::hypot(x[(j + 1) % 3] - x[j], y[(j + 1) % 3] - y[j]);
      }
      inradius_[e] = Real(2 * mesh.volume[e] / perimeter);
      const double a = std::hypot(x[1] - x[0], y[1] - y[0]), b = std::hypot(x[2] - x[1], y[2] - y[1]),
                   c3 = std::hypot(x[0] - x[2], y[0] - y[2]);
      circumradius_[e] = Real(a * b * c3 / (4 * mesh.volume[e]));
    }
    // Faces.
    const index_t nf = mesh.num_faces();
    face_left_ = mesh.face_left;
    element_faces_ = mesh.element_faces;  // three per triangle, in local order
    face_right_ = mesh.face_right;
    face_left_local_ = mesh.face_left_local;
    face_right_local_ = mesh.face_right_local;
    face_boundary_ = mesh.face_boundary;
    normal_x_ = convert(mesh.normal_x);
    normal_y_ = convert(mesh.normal_y);
    length_ = convert(mesh.face_area);
    for (auto* a : {&x0_, &y0_, &x1_, &y1_}) a->resize(nf);
    for (index_t f = 0; f < nf; ++f) {
      // The left element's local face runs from its vertex k to vertex k + 1.
      const index_t l = mesh.face_left[f];
      const int kl = mesh.face_left_local[f];
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[l]];
      x0_[f] = Real(mesh.x[v[kl]]);
      y0_[f] = Real(mesh.y[v[kl]]);
      x1_[f] = Real(mesh.x[v[(kl + 1) % 3]]);
      y1_[f] = Real(mesh.y[v[(kl + 1) % 3]]);
    }
    c_.assign(std::size_t(nv) * num_modes * k_, Real(0));
  }

  index_t num_elements() const { return k_; }
  Real time() const { return time_; }
  /// c[var][mode][element].
  const std::vector<Real>& solution() const { return c_; }
  std::vector<Real>& solution() { return c_; }

  /// The solution becomes the L2 projection of state(x, y, out) (conserved variables), with the degree 2P + 1
  /// volume rule, then passes the limiters that are on (a projected shock overshoots, and its first stage
  /// would otherwise see negative pressures).
  template <class State>
  void project(State&& state) {
    const int nq = static_cast<int>(volume_weight_.size());
    std::fill(c_.begin(), c_.end(), Real(0));
    for (index_t e = 0; e < k_; ++e)
      for (int q = 0; q < nq; ++q) {
        const auto [x, y] = point(e, volume_r_[q], volume_s_[q]);
        double u[nv];
        state(x, y, u);
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < num_modes; ++m)
            c_[(std::size_t(v) * num_modes + m) * k_ + e] +=
                Real(volume_weight_[q] * volume_basis_[std::size_t(q) * num_modes + m] * u[v]);
      }
    limit(c_);
  }

  /// out = dc/dt at `time` for the coefficients c: eval_volume, then eval_surface.
  void rhs(const std::vector<Real>& c, Real time, std::vector<Real>& out) {
    eval_volume(c, out);
    eval_surface(c, time, out);
  }

  /// out = the volume term of dc/dt (overwrites out; one work item per element).
  void eval_volume(const std::vector<Real>& c, std::vector<Real>& out) const {
    forall(Backend::cpu, k_, EvalVolume<P, Real>{k_, gamma_, c.data(), out.data(), tables(), geometry()});
  }

  /// out += the surface term of dc/dt at `time`, by the race strategy of the solver.
  void eval_surface(const std::vector<Real>& c, Real time, std::vector<Real>& out) {
    const Faces<Real> fc{face_left_.data(), face_right_.data(), face_left_local_.data(), face_right_local_.data(),
                         normal_x_.data(), normal_y_.data(), length_.data(), x0_.data(), y0_.data(), x1_.data(),
                         y1_.data(), face_boundary_.data()};
    const FaceIntegrals<P, Real, F, Boundary> integrals{k_, gamma_, time, c.data(), tables(), geometry(), fc, boundary_};
    const index_t nf = static_cast<index_t>(face_left_.size());
    switch (strategy_) {
      case Strategy::colored:
        // One launch per color: no two faces of a color share an element, so no update races (paper 000).
        for (std::size_t color = 0; color + 1 < color_begin_.size(); ++color)
          forall(Backend::cpu, color_begin_[color + 1] - color_begin_[color],
                 EvalSurface<P, Real, F, false, Boundary>{color_begin_[color], color_begin_[color + 1], out.data(), integrals});
        break;
      case Strategy::atomic:
        forall(Backend::cpu, nf, EvalSurface<P, Real, F, true, Boundary>{0, nf, out.data(), integrals});
        break;
      case Strategy::buffered:
        buffer_.resize(std::size_t(2) * nv * num_modes * nf);
        forall(Backend::cpu, nf, EvalSurfaceBuffered<P, Real, F, Boundary>{nf, buffer_.data(), integrals});
        forall(Backend::cpu, k_,
               GatherFaces<P, Real>{k_, nf, buffer_.data(), element_faces_.data(), face_left_.data(), out.data()});
        break;
      case Strategy::elementwise:
        forall(Backend::cpu, k_, EvalSurfaceElementwise<P, Real, F, Boundary>{element_faces_.data(), out.data(), integrals});
        break;
    }
  }

 private:
  Tables<Real> tables() const {
    return {volume_weight_.data(), volume_basis_.data(), volume_grad_r_.data(), volume_grad_s_.data(),
            face_weight_.data(), face_abscissa_.data(), face_basis_.data()};
  }
  Geometry<Real> geometry() const {
    return {jacobian_.data(), dr_dx_.data(), dr_dy_.data(), ds_dx_.data(), ds_dy_.data()};
  }

 public:
  /// One step of the given integrator (see time_integrators.hpp); stage times reach the boundary states.
  void step(Integrator method, Real dt) {
    auto rhs_of = [this](const std::vector<Real>& c, Real t, std::vector<Real>& out) { rhs(c, t, out); };
    if (positivity_epsilon_ > Real(0) || limiter_ != Limiter::none)
      integrator_.step(method, time_, dt, c_, rhs_of, [this](std::vector<Real>& c) { limit(c); });
    else
      integrator_.step(method, time_, dt, c_, rhs_of);
    time_ += dt;
  }

  /// Turns on Zhang & Shu's positivity limiter after every stage: density and pressure at least epsilon at
  /// the volume and face quadrature points (0 turns it off).
  void set_positivity_limiter(Real epsilon) { positivity_epsilon_ = epsilon; }

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
    limiter_ = limiter;
    moment_theta_ = Real(theta);
    troubled_cells_only_ = troubled_cells_only;
  }

  /// The KXRCF flags of the coefficients c, [elements] (1: troubled). For tests and output.
  const std::vector<std::uint8_t>& troubled_cells(const std::vector<Real>& c) {
    troubled_.resize(k_);
    forall(Backend::cpu, k_,
           TroubledCells<P, Real>{k_, element_faces_.data(), face_left_.data(), face_right_.data(), face_left_local_.data(),
                                  face_right_local_.data(), normal_x_.data(), normal_y_.data(), length_.data(),
                                  face_weight_.data(), face_basis_.data(), circumradius_.data(), c.data(), troubled_.data()});
    return troubled_;
  }
  Limiter limiter() const { return limiter_; }

  /// Applies the slope limiter to the coefficients c: the Taylor coefficients of every element, then (vertex
  /// limiter) the vertex bounds, gathered per vertex with no race, and one factor per degree, element and
  /// variable. Cell averages never change. Nothing to do at P = 0 or with Limiter::none.
  void limit_slopes(std::vector<Real>& c) {
    if (limiter_ == Limiter::none || P == 0) return;
    const std::uint8_t* troubled = nullptr;
    if (troubled_cells_only_) {
      const std::vector<std::uint8_t>& flags = troubled_cells(c);
      // A smooth state (no troubled cell) skips the Taylor coefficients and the bounds altogether.
      if (std::find(flags.begin(), flags.end(), std::uint8_t(1)) == flags.end()) return;
      troubled = flags.data();
    }
    taylor_.resize(c.size());
    forall(Backend::cpu, k_,
           TaylorCoefficients<P, Real>{k_, taylor_from_modes_.data(), dr_dx_.data(), dr_dy_.data(), ds_dx_.data(),
                                       ds_dy_.data(), c.data(), taylor_.data()});
    if (limiter_ == Limiter::moment) {
      forall(Backend::cpu, k_,
             MomentLimiter<P, Real>{k_, element_neighbors_.data(), neighbor_dx_.data(), neighbor_dy_.data(), moment_theta_,
                                    degree_part_.data(), taylor_.data(), c.data(), troubled});
      return;
    }
    const index_t nvert = static_cast<index_t>(vertex_element_begin_.size()) - 1;
    bounds_.resize(std::size_t(2) * nv * VertexBounds<P, Real>::num_fields * nvert);
    forall(Backend::cpu, nvert,
           VertexBounds<P, Real>{k_, nvert, vertex_element_begin_.data(), vertex_elements_.data(), taylor_.data(),
                                 bounds_.data()});
    forall(Backend::cpu, k_,
           VertexLimiter<P, Real>{k_, nvert, element_vertices_.data(), vertex_dx_.data(), vertex_dy_.data(),
                                  degree_part_.data(), taylor_.data(), bounds_.data(), c.data(), troubled});
  }

  /// The Taylor coefficients of the current solution about each centroid, [vars][modes][elements] (cell
  /// average, then physical derivatives; see TaylorCoefficients). For tests and diagnostics.
  std::vector<Real> taylor_coefficients() const {
    std::vector<Real> out(c_.size());
    forall(Backend::cpu, k_,
           TaylorCoefficients<P, Real>{k_, taylor_from_modes_.data(), dr_dx_.data(), dr_dy_.data(), ds_dx_.data(),
                                       ds_dy_.data(), c_.data(), out.data()});
    return out;
  }

  /// Applies the limiters that are on to the coefficients c: slopes first, then positivity (which only ever
  /// shrinks them).
  void limit(std::vector<Real>& c) {
    limit_slopes(c);
    if (positivity_epsilon_ > Real(0)) limit_positivity(c);
  }

  /// Applies the positivity limiter to the coefficients c (see kernels/limiter_K.hpp).
  void limit_positivity(std::vector<Real>& c) const {
    forall(Backend::cpu, k_,
           PositivityLimiter<P, Real>{k_, static_cast<int>(check_basis_.size() / num_modes), gamma_,
                                      positivity_epsilon_, check_basis_.data(), c.data()});
  }

  /// Advances to exactly `end` with steps of at most stable_dt(cfl) (or `fixed_dt` if positive), the last
  /// one shortened so that the run lands on `end`. Returns the number of steps.
  int advance_to(Real end, Integrator method, double cfl, Real fixed_dt = Real(0)) {
    int steps = 0;
    while (time_ < end) {
      // One pass over the cell averages checks the state this step starts from and gives the stable step.
      Real dt = checked_stable_dt(cfl);
      if (fixed_dt > Real(0)) dt = fixed_dt;
      // Land on `end`: take the remainder when it is below a step (or within a rounding error above it).
      if (time_ + dt * Real(1 + 1e-12) >= end) dt = end - time_;
      step(method, dt);
      if (time_ + dt * Real(1e-12) >= end) time_ = end;
      ++steps;
    }
    check_physical();
    return steps;
  }

  /// Stops the run (std::runtime_error) at the first element whose coefficients are not finite or whose cell
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
    const int points = static_cast<int>(check_basis_.size() / num_modes);
    double lowest = 1e300;
    for (index_t e = 0; e < k_; ++e)
      for (int q = 0; q < points; ++q) {
        double u[nv] = {};
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < num_modes; ++m)
            u[v] += double(c_[(std::size_t(v) * num_modes + m) * k_ + e]) * double(check_basis_[std::size_t(q) * num_modes + m]);
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
  /// The cell average of element e (the mode-0 coefficients times the constant mode's value).
  void cell_average(index_t e, double* u) const {
    for (int v = 0; v < nv; ++v) u[v] = double(c_[std::size_t(v) * num_modes * k_ + e]) * mode0_value;
  }

  /// stable_dt(cfl) after checking the state (StableStep, in the same pass): every coefficient finite and
  /// every cell average of positive density and pressure, else std::runtime_error naming the time, the element's number
  /// in the mesh file and the values.
  Real checked_stable_dt(double cfl) const {
    // One reduction: the step, or -1 (or NaN) when some element cannot go on; only then find it.
    const double dt = reduce_min(Backend::cpu, k_, StableStep<P, Real>{k_, gamma_, c_.data(), inradius_.data()});
    if (dt > 0) return Real(cfl * dt / (2 * P + 1));
    index_t bad = 0;
    const StableStep<P, Real> step{k_, gamma_, c_.data(), inradius_.data()};
    while (bad + 1 < k_ && step(bad) > 0) ++bad;
    const char* what = "non-positive density or pressure";
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < num_modes; ++m)
        if (!std::isfinite(double(c_[(std::size_t(v) * num_modes + m) * k_ + bad]))) what = "a coefficient is not a number";
    double u[nv];
    cell_average(bad, u);
    char message[320];
    std::snprintf(message, sizeof message,
                  "non-physical state at t = %.9g in element %lld of %s: %s, cell average density %.6g, pressure %.6g, "
                  "velocity (%.6g, %.6g)",
                  double(time_), static_cast<long long>(element_tag_[bad]), source_.c_str(), what, u[euler::density],
                  euler::pressure(u, double(gamma_)), u[euler::momentum_x] / u[euler::density],
                  u[euler::momentum_y] / u[euler::density]);
    throw std::runtime_error(message);
  }

  /// The integral over the mesh of f(solution - exact) for variable var, with the degree-11 rule.
  template <class Exact, class Measure>
  double integrate_error(int var, Exact&& exact, Measure&& f) const {
    const quad::Rule rule = quad::triangle_rule(quad::max_triangle_degree);
    std::vector<double> phi(std::size_t(rule.size()) * num_modes);
    for (int q = 0; q < rule.size(); ++q)
      for (int m = 0; m < num_modes; ++m) phi[std::size_t(q) * num_modes + m] = basis::mode(m, rule.r[q], rule.s[q]);
    double sum = 0;
    for (index_t e = 0; e < k_; ++e)
      for (int q = 0; q < rule.size(); ++q) {
        double uh = 0;
        for (int m = 0; m < num_modes; ++m)
          uh += double(c_[(std::size_t(var) * num_modes + m) * k_ + e]) * phi[std::size_t(q) * num_modes + m];
        const auto [x, y] = point(e, rule.r[q], rule.s[q]);
        double u[nv];
        exact(x, y, u);
        sum += rule.w[q] * double(jacobian_[e]) * f(uh - u[var]);
      }
    return sum;
  }

  std::array<double, 2> point(index_t e, double r, double s) const {
    const std::array<double, 3> x{vx_[3 * std::size_t(e)], vx_[3 * std::size_t(e) + 1], vx_[3 * std::size_t(e) + 2]};
    const std::array<double, 3> y{vy_[3 * std::size_t(e)], vy_[3 * std::size_t(e) + 1], vy_[3 * std::size_t(e) + 2]};
    return triangle_point(x, y, r, s);
  }

  index_t k_;
  Real gamma_;
  Boundary boundary_;
  Strategy strategy_;
  Real time_ = 0;
  std::vector<index_t> color_begin_;
  std::vector<std::int64_t> element_tag_;  // the mesh file's element numbers, for messages
  std::string source_;
  std::vector<Real> volume_weight_, volume_basis_, volume_grad_r_, volume_grad_s_, face_weight_, face_abscissa_, face_basis_;
  std::vector<double> volume_r_, volume_s_;
  std::vector<Real> check_basis_;  // [volume points + 3 face points][modes]
  Real positivity_epsilon_ = Real(0);
  Limiter limiter_ = Limiter::none;
  Real moment_theta_ = Real(2);
  bool troubled_cells_only_ = true;
  std::vector<std::uint8_t> troubled_;  // [elements] KXRCF flags
  std::vector<Real> taylor_from_modes_, degree_part_;  // TriangleOperators' limiter tables
  std::vector<Real> taylor_, bounds_;  // [vars][modes][elements]; [2][vars][VertexBounds::num_fields][vertices]
  std::vector<index_t> element_vertices_, vertex_element_begin_, vertex_elements_, element_neighbors_;  // [elements][3] ...
  std::vector<Real> vertex_dx_, vertex_dy_, neighbor_dx_, neighbor_dy_;  // [elements][3]
  std::vector<Real> jacobian_, dr_dx_, dr_dy_, ds_dx_, ds_dy_;
  std::vector<double> vx_, vy_;
  std::vector<Real> inradius_, circumradius_;
  std::vector<index_t> face_left_, face_right_, element_faces_;
  std::vector<Real> buffer_;  // the buffered strategy's per-face contributions
  std::vector<std::int8_t> face_left_local_, face_right_local_;
  std::vector<std::int32_t> face_boundary_;
  std::vector<Real> normal_x_, normal_y_, length_, x0_, y0_, x1_, y1_;
  std::vector<Real> c_;
  RungeKutta<Real> integrator_;
};

}  // namespace kempe::dg
