// Meshes and comparisons shared by the adaptive refinement tests (tests/unit/test_adapt*.cpp) and their GPU
// counterparts (tests/gpu/test_adapt.cu).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <utility>

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "kernels/euler.hpp"
#include "mesh/generators.hpp"
#include "mesh_fixtures.hpp"
#include "solver/numerics/dg_mesh.hpp"

namespace kempe::test {

/// The mesh as `kempe adapt` starts from it: colored and ordered (by color_renumber unless `order` names another).
inline Mesh adapt_start(Mesh mesh, const char* order = "color_renumber") {
  FaceColoring coloring = color_faces(mesh, ColoringOptions{});
  apply_ordering(mesh, coloring, find_ordering(order).compute(mesh, coloring));
  return mesh;
}

/// A disk of radius 1 in two rings of 16 triangles about its centre and 32 outside: its boundary is a 16-gon
/// on the unit circle, so the boundary bends (mesh/boundary_curve.hpp).
inline Mesh disk_mesh() {
  RawMesh raw = make_raw(2, {{0, 0, 0}});
  constexpr int n = 16;
  for (int ring = 1; ring <= 2; ++ring)
    for (int k = 0; k < n; ++k) {
      const double angle = 2 * M_PI * k / n, r = 0.5 * ring;
      raw.x.push_back(r * std::cos(angle)), raw.y.push_back(r * std::sin(angle)), raw.z.push_back(0);
      raw.node_tag.push_back(std::int64_t(raw.x.size()));
    }
  auto inner = [](int k) { return index_t(1 + k % n); };
  auto outer = [](int k) { return index_t(1 + n + k % n); };
  for (int k = 0; k < n; ++k) {
    add(raw, ElementType::triangle, {0, inner(k), inner(k + 1)});
    add(raw, ElementType::triangle, {inner(k), outer(k), outer(k + 1)});
    add(raw, ElementType::triangle, {inner(k), outer(k + 1), inner(k + 1)});
  }
  raw.source = "disk";
  return adapt_start(build_mesh(std::move(raw)));
}

/// compare(a's array, b's array, values, name) for every table of two DGMesh views of the same mesh, except
/// the boundary curve's angles (compared to a tolerance where needed). The half tables are null in tables built
/// from a Mesh.
template <class Real, class Compare>
void compare_dg_tables(const dg::DGMesh<Real>& a, const dg::DGMesh<Real>& b, Compare&& compare) {
  const std::size_t ne = std::size_t(a.num_elements()), nf = std::size_t(a.num_faces());
  const std::size_t nv = std::size_t(a.num_vertices());
  const auto &x = a.view(), &y = b.view();
  compare(x.geometry.jacobian, y.geometry.jacobian, ne, "jacobian");
  compare(x.geometry.dr_dx, y.geometry.dr_dx, ne, "dr_dx");
  compare(x.geometry.dr_dy, y.geometry.dr_dy, ne, "dr_dy");
  compare(x.geometry.ds_dx, y.geometry.ds_dx, ne, "ds_dx");
  compare(x.geometry.ds_dy, y.geometry.ds_dy, ne, "ds_dy");
  compare(x.inradius, y.inradius, ne, "inradius");
  compare(x.circumradius, y.circumradius, ne, "circumradius");
  compare(x.faces.left, y.faces.left, nf, "face left");
  compare(x.faces.right, y.faces.right, nf, "face right");
  compare(x.faces.left_local, y.faces.left_local, nf, "face left local");
  compare(x.faces.right_local, y.faces.right_local, nf, "face right local");
  compare(x.faces.left_half, y.faces.left_half, nf, "face left half");
  compare(x.faces.right_half, y.faces.right_half, nf, "face right half");
  compare(x.faces.boundary, y.faces.boundary, nf, "face boundary");
  compare(x.faces.normal_x, y.faces.normal_x, nf, "normal x");
  compare(x.faces.normal_y, y.faces.normal_y, nf, "normal y");
  compare(x.faces.length, y.faces.length, nf, "face length");
  compare(x.faces.x0, y.faces.x0, nf, "face x0");
  compare(x.faces.y0, y.faces.y0, nf, "face y0");
  compare(x.faces.x1, y.faces.x1, nf, "face x1");
  compare(x.faces.y1, y.faces.y1, nf, "face y1");
  compare(x.element_faces, y.element_faces, 3 * ne, "element faces");
  compare(x.element_half_faces, y.element_half_faces, 3 * ne, "element half faces");
  compare(x.element_vertices, y.element_vertices, 3 * ne, "element vertices");
  compare(x.element_neighbors, y.element_neighbors, 3 * ne, "element neighbours");
  compare(x.element_half_neighbors, y.element_half_neighbors, 3 * ne, "element half neighbours");
  compare(x.vertex_dx, y.vertex_dx, 3 * ne, "vertex dx");
  compare(x.vertex_dy, y.vertex_dy, 3 * ne, "vertex dy");
  compare(x.neighbor_dx, y.neighbor_dx, 3 * ne, "neighbour dx");
  compare(x.neighbor_dy, y.neighbor_dy, 3 * ne, "neighbour dy");
  compare(x.half_neighbor_dx, y.half_neighbor_dx, 3 * ne, "half neighbour dx");
  compare(x.half_neighbor_dy, y.half_neighbor_dy, 3 * ne, "half neighbour dy");
  compare(x.vertex_element_begin, y.vertex_element_begin, nv + 1, "vertex-to-element offsets");
  compare(x.vertex_elements, y.vertex_elements, 3 * ne, "vertex-to-element lists");
}

/// The mesh integrals of the conserved variables of coefficients c[var][mode][element] (`modes` per variable):
/// sum over elements of weight[e] (|J| or the area, which are proportional) times each variable's mode 0 (up to
/// the constant factor of the basis; the other modes integrate to zero).
template <class Weights, class Coefficients>
std::array<double, euler::num_vars> totals(const Weights& weight, const Coefficients& c, int modes, index_t elements) {
  std::array<double, euler::num_vars> total{};
  for (int v = 0; v < euler::num_vars; ++v)
    for (index_t e = 0; e < elements; ++e)
      total[v] += double(weight[e]) * double(c[std::size_t(v) * modes * elements + e]);
  return total;
}

/// The same of a solver's solution, weighted by |J|.
template <class Solver>
std::array<double, euler::num_vars> totals(const Solver& solver) {
  return totals(solver.mesh().jacobian(), solver.solution(), Solver::num_modes, solver.num_elements());
}

}  // namespace kempe::test
