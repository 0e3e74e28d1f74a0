// Sampling the solution for output (output.hpp).
#include "solver/output.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/basis.hpp"
#include "kernels/euler.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/triangle.hpp"

namespace kempe::output {
namespace {

/// Appends the nodes of a triangle of order m whose corner 0 is lattice point (a, b), in VTK's order.
void add_nodes(int m, int a, int b, std::vector<std::array<int, 2>>& out) {
  if (m < 0) return;
  if (m == 0) {
    out.push_back({a, b});
    return;
  }
  out.push_back({a, b});
  out.push_back({a + m, b});
  out.push_back({a, b + m});
  for (int t = 1; t < m; ++t) out.push_back({a + t, b});          // edge 0-1
  for (int t = 1; t < m; ++t) out.push_back({a + m - t, b + t});  // edge 1-2
  for (int t = 1; t < m; ++t) out.push_back({a, b + m - t});      // edge 2-0
  add_nodes(m - 3, a + 1, b + 1, out);
}

}  // namespace

std::vector<std::array<int, 2>> lagrange_triangle_lattice(int n) {
  if (n < 1) throw std::invalid_argument("lagrange_triangle_lattice: order " + std::to_string(n) + " < 1");
  std::vector<std::array<int, 2>> nodes;
  add_nodes(n, 0, 0, nodes);
  return nodes;
}

SampledSolution sample_solution(const Mesh& mesh, int order, double gamma, const std::vector<double>& c,
                                const std::vector<std::uint8_t>& limited, double time) {
  const index_t k = mesh.num_elements();
  const int modes = basis::num_modes(order);
  if (c.size() != std::size_t(euler::num_vars) * modes * k)
    throw std::invalid_argument("sample_solution: " + std::to_string(c.size()) + " coefficients, expected " +
                                std::to_string(std::size_t(euler::num_vars) * modes * k));
  SampledSolution out;
  out.time = time;
  out.cell_order = order <= 1 ? 1 : order;
  const std::vector<std::array<int, 2>> lattice = lagrange_triangle_lattice(out.cell_order);
  out.points_per_cell = static_cast<int>(lattice.size());
  // The basis at the output nodes, the same for every element (the map from the reference triangle is affine).
  std::vector<double> r(lattice.size()), s(lattice.size()), phi(lattice.size() * modes);
  for (std::size_t q = 0; q < lattice.size(); ++q) {
    r[q] = -1 + 2.0 * lattice[q][0] / out.cell_order;
    s[q] = -1 + 2.0 * lattice[q][1] / out.cell_order;
    for (int m = 0; m < modes; ++m) phi[q * modes + m] = basis::mode(m, r[q], s[q]);
  }
  const std::size_t points = std::size_t(k) * lattice.size();
  for (auto* field : {&out.x, &out.y, &out.density, &out.pressure, &out.mach, &out.entropy}) field->resize(points);
  out.velocity.resize(3 * points);
  out.element_id.resize(k);
  out.limited.assign(k, 0);
  for (index_t e = 0; e < k; ++e) {
    out.element_id[e] = mesh.element_tag[e];
    if (!limited.empty()) out.limited[e] = limited[e];
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
    const std::array<double, 3> vx{mesh.x[v[0]], mesh.x[v[1]], mesh.x[v[2]]}, vy{mesh.y[v[0]], mesh.y[v[1]], mesh.y[v[2]]};
    for (std::size_t q = 0; q < lattice.size(); ++q) {
      const std::size_t i = std::size_t(e) * lattice.size() + q;
      const auto [px, py] = dg::triangle_point(vx, vy, r[q], s[q]);
      out.x[i] = px;
      out.y[i] = py;
      double u[euler::num_vars] = {};
      for (int var = 0; var < euler::num_vars; ++var)
        for (int m = 0; m < modes; ++m) u[var] += c[(std::size_t(var) * modes + m) * k + e] * phi[q * modes + m];
      const double rho = u[euler::density], vel_x = u[euler::momentum_x] / rho, vel_y = u[euler::momentum_y] / rho;
      const double p = euler::pressure(u, gamma);
      out.density[i] = rho;
      out.pressure[i] = p;
      out.velocity[3 * i] = vel_x;
      out.velocity[3 * i + 1] = vel_y;
      out.velocity[3 * i + 2] = 0;
      out.mach[i] = std::sqrt((vel_x * vel_x + vel_y * vel_y) * rho / (gamma * p));
      out.entropy[i] = p / std::pow(rho, gamma);
    }
  }
  return out;
}

double entropy_error(const Mesh& mesh, int order, double gamma, const std::vector<double>& c, double rho_ref,
                     double p_ref) {
  const index_t k = mesh.num_elements();
  const int modes = basis::num_modes(order);
  if (c.size() != std::size_t(euler::num_vars) * modes * k)
    throw std::invalid_argument("entropy_error: " + std::to_string(c.size()) + " coefficients for " +
                                std::to_string(k) + " elements of order " + std::to_string(order));
  const quad::Rule rule = quad::triangle_rule(std::min(2 * order + 2, quad::max_triangle_degree));
  std::vector<double> phi(std::size_t(rule.size()) * modes);
  for (int q = 0; q < rule.size(); ++q)
    for (int m = 0; m < modes; ++m) phi[std::size_t(q) * modes + m] = basis::mode(m, rule.r[q], rule.s[q]);
  double sum = 0, area = 0;
  for (index_t e = 0; e < k; ++e) {
    const double jacobian = mesh.volume[e] / 2;  // the reference triangle's area is 2
    for (int q = 0; q < rule.size(); ++q) {
      double u[euler::num_vars] = {};
      for (int var = 0; var < euler::num_vars; ++var)
        for (int m = 0; m < modes; ++m) u[var] += c[(std::size_t(var) * modes + m) * k + e] * phi[std::size_t(q) * modes + m];
      const double d = euler::pressure(u, gamma) / p_ref * std::pow(rho_ref / u[euler::density], gamma) - 1;
      sum += rule.w[q] * jacobian * d * d;
      area += rule.w[q] * jacobian;
    }
  }
  return std::sqrt(sum / area);
}

}  // namespace kempe::output
