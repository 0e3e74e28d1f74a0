// Cases shared by the DG tests and the convergence benchmark: triangle grids (distorted, bent or periodic),
// colored and renumbered as the solver runs them, and the isentropic vortex.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "kernels/boundary_K.hpp"
#include "kernels/euler.hpp"
#include "mesh/periodic.hpp"
#include "solver/euler_dg.hpp"
#include "structured_meshes.hpp"

namespace kempe::test {

inline constexpr double gamma_air = 1.4;
/// pi (the GPU tests include this header, and nvcc compiles C++17: no std::numbers).
inline constexpr double pi = 3.141592653589793;

/// An n x n triangle grid on [0, size]^2. `distortion` > 0 moves interior nodes at random by up to that many
/// cells; < 0 bends the grid by a smooth map of that amplitude (in cells of an 8 x 8 grid), the same domain map
/// at every n, so that the meshes of a convergence study are one family. Sides stay straight.
inline Mesh grid_mesh(int n, double size, double distortion, std::uint64_t seed) {
  RawMesh raw = test::square_grid(n, true);
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_real_distribution<double> shift(-distortion, distortion);
  for (index_t v = 0; v < raw.num_nodes(); ++v) {
    const bool interior = raw.x[v] > 0 && raw.x[v] < n && raw.y[v] > 0 && raw.y[v] < n;
    double x = std::round(raw.x[v]) / n, y = raw.y[v] / n;  // the unsheared grid, on [0, 1]^2
    if (distortion > 0) {
      if (interior) {  // sides stay straight and their nodes equally spaced, so opposite sides match
        x = raw.x[v] / n + shift(rng) / n;
        y += shift(rng) / n;
      }
    } else {
      const double a = -distortion / 8;
      const double bend = a * std::sin(pi * x) * std::sin(pi * y);
      x += bend;
      y += bend * std::cos(pi * x);
    }
    raw.x[v] = x * size;
    raw.y[v] = y * size;
  }
  return build_mesh(raw);
}

/// Colored with kempe and renumbered with color_renumber, as the solver runs it.
inline Mesh prepared(Mesh mesh) {
  FaceColoring coloring = color_faces(mesh, {"kempe", 1});
  apply_ordering(mesh, coloring, find_ordering("color_renumber").compute(mesh, coloring));
  return mesh;
}

inline Mesh solver_mesh(int n, double size, double distortion, std::uint64_t seed = 5) {
  return prepared(grid_mesh(n, size, distortion, seed));
}

/// The same grid with its sides named bottom, top, left and right, then joined periodically in x and y.
inline Mesh periodic_mesh(int n, double size, double distortion) {
  Mesh mesh = grid_mesh(n, size, distortion, 5);
  mesh.boundary_names = {"bottom", "top", "left", "right"};
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element)
      mesh.face_boundary[f] = mesh.normal_y[f] < -0.5 ? 0 : mesh.normal_y[f] > 0.5 ? 1 : mesh.normal_x[f] < 0 ? 2 : 3;
  make_periodic(mesh, "left", "right", {size, 0, 0});
  make_periodic(mesh, "bottom", "top", {0, size, 0});
  return prepared(std::move(mesh));
}

/// cases.md's double Mach reflection domain [0, 4] x [0, 1] as a 4 ny x ny grid of squares split into 8 ny^2
/// triangles (ny = 280: 627,200, the coloring paper's Table 10 size), not yet colored. Groups: 0 "shock"
/// (left, top, and the bottom for x < 1/6: the moving shock's states), 1 "wall" (the bottom beyond x = 1/6),
/// 2 "outflow" (right). ny must be a multiple of 6 for a grid line to meet the bottom at the shock foot.
/// With shuffle_seed != 0 the triangles (and so the faces) come in a random order, as an unstructured mesh
/// generator's numbering would: first-fit greedy then needs 4-5 colors, as in the paper, instead of the 3 the
/// grid's own order gives it.
inline Mesh double_mach_mesh(int ny, unsigned shuffle_seed = 0) {
  RawMesh raw = test::rectangle_grid(4 * ny, ny, true);
  for (std::size_t v = 0; v < raw.x.size(); ++v) {
    raw.x[v] = std::round(raw.x[v]) / ny;
    raw.y[v] /= ny;
  }
  if (shuffle_seed != 0) {
    std::vector<index_t> order(raw.num_elements());
    for (index_t e = 0; e < raw.num_elements(); ++e) order[e] = e;
    std::mt19937 rng(shuffle_seed);
    std::shuffle(order.begin(), order.end(), rng);
    RawMesh shuffled = raw;
    shuffled.element_type.clear();
    shuffled.element_vertex_begin.assign(1, 0);
    shuffled.element_vertices.clear();
    shuffled.element_tag.clear();
    for (const index_t e : order)
      shuffled.add_element(raw.element_type[e], &raw.element_vertices[raw.element_vertex_begin[e]], raw.element_tag[e]);
    raw = std::move(shuffled);
  }
  raw.source = "double Mach grid";
  Mesh mesh = build_mesh(raw);
  mesh.boundary_names = {"shock", "wall", "outflow"};
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    if (mesh.face_right[f] != no_element) continue;
    const index_t l = mesh.face_left[f];
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[l]];
    const int j = mesh.face_left_local[f];
    const double mid_x = (mesh.x[v[j]] + mesh.x[v[(j + 1) % 3]]) / 2;
    const bool bottom = mesh.normal_y[f] < -0.5, right = mesh.normal_x[f] > 0.5;
    mesh.face_boundary[f] = right ? 2 : bottom && mid_x > 1.0 / 6 ? 1 : 0;
  }
  return mesh;
}

/// The boundary table of double_mach_mesh: the moving shock's states, a slip wall, outflow.
struct DoubleMachBoundary {
  bc::Kind kind[3] = {bc::Kind::function, bc::Kind::wall, bc::Kind::outflow};
  bc::StateFunction function[3] = {bc::StateFunction::double_mach, bc::StateFunction::double_mach, bc::StateFunction::double_mach};
  std::vector<double> unused = std::vector<double>(3 * euler::num_vars, 0.0);
  template <class Real>
  bc::GroupBoundary<Real> table(const std::vector<Real>& states) const {
    return {kind, states.data(), Real(gamma_air), function};
  }
};

/// Ghost state: one fixed state on every boundary face.
struct FixedState {
  double u[euler::num_vars];
  template <class Real>
  KEMPE_HD void operator()(std::int32_t, const Real*, Real, Real, Real, Real, Real, Real* out) const {
    for (int v = 0; v < euler::num_vars; ++v) out[v] = Real(u[v]);
  }
};

/// Shu's isentropic vortex (../shared/reference/cases.md): centre (5, 5) at t = 0, carried by the mean flow
/// (1, 1); its exact state is also the boundary state.
struct Vortex {
  static KEMPE_HD void state(double x, double y, double t, double* u) {
    constexpr double eps = 5;
    const double xc = x - 5 - t, yc = y - 5 - t, r2 = xc * xc + yc * yc;
    const double bump = std::exp((1 - r2) / 2);
    const double vx = 1 - yc * eps / (2 * pi) * bump, vy = 1 + xc * eps / (2 * pi) * bump;
    const double temperature = 1 - (gamma_air - 1) * eps * eps / (8 * gamma_air * pi * pi) * std::exp(1 - r2);
    const double rho = std::pow(temperature, 1 / (gamma_air - 1));
    euler::conserved(rho, vx, vy, rho * temperature, gamma_air, u);
  }
  template <class Real>
  KEMPE_HD void operator()(std::int32_t, const Real*, Real, Real, Real x, Real y, Real t, Real* out) const {
    double u[euler::num_vars];
    state(x, y, t, u);
    for (int v = 0; v < euler::num_vars; ++v) out[v] = Real(u[v]);
  }
};

/// L2 density errors at t = 1 on bent n x n meshes of [0, 10]^2, for order P (exact boundary states), with
/// the given slope limiter after every stage.
template <int P>
std::vector<double> vortex_errors(const std::vector<int>& sizes, dg::Limiter limiter = dg::Limiter::none) {
  std::vector<double> errors;
  for (const int n : sizes) {
    const Mesh mesh = solver_mesh(n, 10.0, -0.5);
    dg::EulerDG<P, double, euler::Flux::hllc, Vortex> solver(mesh, gamma_air, Vortex{}, dg::Strategy::colored);
    solver.set_limiter(limiter);
    solver.project([](double x, double y, double* out) { Vortex::state(x, y, 0, out); });
    const double end = 1.0;
    const double dt_max = solver.stable_dt(0.5);
    const int steps = static_cast<int>(std::ceil(end / dt_max));
    for (int s = 0; s < steps; ++s) solver.step(dg::Integrator::ssprk3, end / steps);  // lands exactly on the end time
    errors.push_back(solver.l2_error(euler::density, [&](double x, double y, double* out) { Vortex::state(x, y, end, out); }));
  }
  return errors;
}

/// Prints the convergence table of vortex_errors (deal.II step-67 style).
inline void print_convergence_table(int p, const std::vector<int>& sizes, const std::vector<double>& errors) {
  std::printf("isentropic vortex, p = %d, HLLC, SSP-RK3, t = 1\n   cells   L2 error (density)   rate\n", p);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i == 0)
      std::printf("  %3dx%-3d  %.4e\n", sizes[i], sizes[i], errors[i]);
    else
      std::printf("  %3dx%-3d  %.4e           %.2f\n", sizes[i], sizes[i], errors[i],
                  std::log(errors[i - 1] / errors[i]) / std::log(double(sizes[i]) / sizes[i - 1]));
  }
}

}  // namespace kempe::test
