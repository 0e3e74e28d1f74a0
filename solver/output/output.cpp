// Sampling the solution for output (output.hpp).
#include "solver/output/output.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/basis.hpp"
#include "kernels/euler.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/subcell.hpp"
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

/// A modal solution c[var][mode][element] of order p on k elements, checked for its size, evaluated at points
/// given by their basis values.
class ModalSolution {
 public:
  ModalSolution(const std::vector<double>& c, int order, index_t k, const char* who)
      : c_(c), modes_(basis::num_modes(order)), k_(k) {
    if (c.size() != std::size_t(euler::num_vars) * modes_ * k)
      throw std::invalid_argument(std::string(who) + ": " + std::to_string(c.size()) + " coefficients, expected " +
                                  std::to_string(std::size_t(euler::num_vars) * modes_ * k) + " (order " +
                                  std::to_string(order) + ", " + std::to_string(k) + " elements)");
  }
  int modes() const { return modes_; }
  /// The basis at reference points (r[q], s[q]): [points][modes].
  std::vector<double> basis_at(const std::vector<double>& r, const std::vector<double>& s) const {
    std::vector<double> phi(r.size() * modes_);
    for (std::size_t q = 0; q < r.size(); ++q)
      for (int m = 0; m < modes_; ++m) phi[q * modes_ + m] = basis::mode(m, r[q], s[q]);
    return phi;
  }
  /// The conserved state u of element e at the point whose basis values are phi[modes].
  void state(index_t e, const double* phi, double* u) const {
    for (int var = 0; var < euler::num_vars; ++var) {
      u[var] = 0;
      for (int m = 0; m < modes_; ++m) u[var] += c_[(std::size_t(var) * modes_ + m) * k_ + e] * phi[m];
    }
  }

 private:
  const std::vector<double>& c_;
  int modes_;
  index_t k_;
};

}  // namespace

std::vector<std::array<int, 2>> lagrange_triangle_lattice(int n) {
  if (n < 1) throw std::invalid_argument("lagrange_triangle_lattice: order " + std::to_string(n) + " < 1");
  std::vector<std::array<int, 2>> nodes;
  add_nodes(n, 0, 0, nodes);
  return nodes;
}

namespace {
/// The output fields of one conserved state u: density, pressure and velocity (3 components, z = 0).
void store_state(const double* u, double gamma, double& density, double& pressure, double* velocity) {
  density = u[euler::density];
  pressure = euler::pressure(u, gamma);
  velocity[0] = u[euler::momentum_x] / u[euler::density];
  velocity[1] = u[euler::momentum_y] / u[euler::density];
  velocity[2] = 0;
}
/// The bounds of pull_into_range: least and largest density, pressure, x- and y-velocity.
using ShownRange = std::array<double, 8>;

/// u becomes mean + t (u - mean) for the largest t in [0, 1] found for which its density, pressure and velocity
/// lie in `range` (ShownRange), in which mean lies. Density is linear in t, each velocity component monotone (a
/// ratio of two linear functions of t), pressure concave along the segment, so the t where they leave their
/// ranges are found by bisection (to 2^-40 of the segment).
void pull_into_range(const double* mean, const ShownRange& range, double gamma, double* u) {
  const double rho = u[euler::density], rho_mean = mean[euler::density];
  double t = 1;
  if (rho > range[1]) t = (range[1] - rho_mean) / (rho - rho_mean);
  if (rho < range[0]) t = (range[0] - rho_mean) / (rho - rho_mean);
  t = std::clamp(t, 0.0, 1.0);
  auto state = [&](double s, double* out) {
    for (int v = 0; v < euler::num_vars; ++v) out[v] = mean[v] + s * (u[v] - mean[v]);
  };
  auto holds = [&](double s) {
    double w[euler::num_vars];
    state(s, w);
    const double p = euler::pressure(w, gamma), vx = w[euler::momentum_x] / w[euler::density],
                 vy = w[euler::momentum_y] / w[euler::density];
    return w[euler::density] >= range[0] && w[euler::density] <= range[1] && p >= range[2] && p <= range[3] && vx >= range[4] &&
           vx <= range[5] && vy >= range[6] && vy <= range[7];
  };
  if (!holds(t)) {
    double ok = 0, bad = t;
    for (int i = 0; i < 40; ++i) {
      const double mid = (ok + bad) / 2;
      (holds(mid) ? ok : bad) = mid;
    }
    t = ok;
  }
  state(t, u);
}

}  // namespace

SampledSolution sample_solution(const Mesh& mesh, int order, double gamma, const std::vector<double>& c,
                                const std::vector<std::uint8_t>& limited, double time, const std::vector<std::uint8_t>& subcells) {
  const index_t k = mesh.num_elements();
  const ModalSolution solution(c, order, k, "sample_solution");
  if (!subcells.empty() && subcells.size() != std::size_t(k))
    throw std::invalid_argument("sample_solution: " + std::to_string(subcells.size()) + " subcell flags for " + std::to_string(k) +
                                " elements");
  SampledSolution out;
  out.time = time;
  out.cell_order = order <= 1 ? 1 : order;
  const std::vector<std::array<int, 2>> lattice = lagrange_triangle_lattice(out.cell_order);
  out.points_per_cell = static_cast<int>(lattice.size());
  // The basis at the output nodes, the same for every element (the map from the reference triangle is affine).
  std::vector<double> r(lattice.size()), s(lattice.size());
  for (std::size_t q = 0; q < lattice.size(); ++q) {
    r[q] = -1 + 2.0 * lattice[q][0] / out.cell_order;
    s[q] = -1 + 2.0 * lattice[q][1] / out.cell_order;
  }
  const std::vector<double> phi = solution.basis_at(r, s);
  // The subcell averages at the same nodes: node (i, j) is the centre of subcell j (p + 1) - j (j - 1) / 2 + i.
  std::vector<double> averages;
  if (order >= 1 && !subcells.empty()) {
    const dg::SubcellOperators ops = dg::subcell_operators(order);
    const int nm = solution.modes();
    averages.resize(lattice.size() * nm);
    for (std::size_t q = 0; q < lattice.size(); ++q) {
      const int i = lattice[q][0], j = lattice[q][1], cell = j * (order + 1) - j * (j - 1) / 2 + i;
      std::copy_n(&ops.average[std::size_t(cell) * nm], nm, &averages[q * nm]);
    }
  }
  // The range of density, pressure and velocity over the subcell averages of each element and its face
  // neighbours: the bounds the shown states of an element the bounds watch keep (below).
  std::vector<ShownRange> range;  // [elements]
  if (!averages.empty()) {
    auto widen = [](ShownRange& r, const ShownRange& by) {
      for (int i = 0; i < 8; i += 2) r[i] = std::min(r[i], by[i]), r[i + 1] = std::max(r[i + 1], by[i + 1]);
    };
    std::vector<ShownRange> own(k);
    for (index_t e = 0; e < k; ++e) {
      own[e] = {1e300, -1e300, 1e300, -1e300, 1e300, -1e300, 1e300, -1e300};
      for (std::size_t q = 0; q < lattice.size(); ++q) {
        double u[euler::num_vars];
        solution.state(e, &averages[q * solution.modes()], u);
        const double rho = u[euler::density], p = euler::pressure(u, gamma);
        const double vx = u[euler::momentum_x] / rho, vy = u[euler::momentum_y] / rho;
        widen(own[e], {rho, rho, p, p, vx, vx, vy, vy});
      }
    }
    range = own;
    for (index_t f = 0; f < mesh.num_faces(); ++f) {
      const index_t left = mesh.face_left[f], right = mesh.face_right[f];
      if (right == no_element) continue;
      widen(range[left], own[right]);
      widen(range[right], own[left]);
    }
  }
  const std::size_t points = std::size_t(k) * lattice.size();
  for (auto* field : {&out.x, &out.y, &out.density, &out.pressure, &out.mach, &out.entropy}) field->resize(points);
  out.velocity.resize(3 * points);
  out.element_id.resize(k);
  out.limited.assign(k, 0);
  if (!mesh.leaf_level.empty()) out.level.assign(mesh.leaf_level.begin(), mesh.leaf_level.end());
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
      double u[euler::num_vars];
      solution.state(e, &phi[q * solution.modes()], u);
      if (!averages.empty() && subcells[e] != 0) {
        double mean[euler::num_vars];
        solution.state(e, &averages[q * solution.modes()], mean);
        pull_into_range(mean, range[e], gamma, u);
      }
      store_state(u, gamma, out.density[i], out.pressure[i], &out.velocity[3 * i]);
      const double rho = out.density[i], p = out.pressure[i];
      const double vel_x = out.velocity[3 * i], vel_y = out.velocity[3 * i + 1];
      out.mach[i] = std::sqrt((vel_x * vel_x + vel_y * vel_y) * rho / (gamma * p));
      out.entropy[i] = p / std::pow(rho, gamma);
    }
  }
  return out;
}

void add_exact_solution(SampledSolution& sampled, double gamma, const ExactState& exact) {
  const index_t n = sampled.num_points();
  sampled.exact_density.resize(n);
  sampled.exact_pressure.resize(n);
  sampled.exact_velocity.resize(3 * std::size_t(n));
  for (index_t i = 0; i < n; ++i) {
    double u[euler::num_vars];
    exact(sampled.x[i], sampled.y[i], u);
    store_state(u, gamma, sampled.exact_density[i], sampled.exact_pressure[i], &sampled.exact_velocity[3 * std::size_t(i)]);
  }
}

namespace {

/// Calls f(x, y, u, w) at the quadrature points of every element, u the solution's conserved state at (x, y)
/// and w the point's weight (its share of the area), with a rule exact for degree 2p + 2 on each element.
/// Returns the mesh's area.
template <class F>
double integrate(const Mesh& mesh, int order, const std::vector<double>& c, const char* what, F&& f) {
  const index_t k = mesh.num_elements();
  const ModalSolution solution(c, order, k, what);
  const quad::Rule rule = quad::triangle_rule(std::min(2 * order + 2, quad::max_triangle_degree));
  const std::vector<double> phi = solution.basis_at(rule.r, rule.s);
  double area = 0;
  for (index_t e = 0; e < k; ++e) {
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
    const std::array<double, 3> vx{mesh.x[v[0]], mesh.x[v[1]], mesh.x[v[2]]}, vy{mesh.y[v[0]], mesh.y[v[1]], mesh.y[v[2]]};
    const double jacobian = mesh.volume[e] / 2;  // the reference triangle's area is 2
    for (int q = 0; q < rule.size(); ++q) {
      double u[euler::num_vars];
      solution.state(e, &phi[std::size_t(q) * solution.modes()], u);
      const auto [x, y] = dg::triangle_point(vx, vy, rule.r[q], rule.s[q]);
      f(x, y, u, rule.w[q] * jacobian);
      area += rule.w[q] * jacobian;
    }
  }
  return area;
}

}  // namespace

double entropy_error(const Mesh& mesh, int order, double gamma, const std::vector<double>& c, double rho_ref,
                     double p_ref) {
  double sum = 0;
  const double area = integrate(mesh, order, c, "entropy_error", [&](double, double, const double* u, double w) {
    const double d = euler::pressure(u, gamma) / p_ref * std::pow(rho_ref / u[euler::density], gamma) - 1;
    sum += w * d * d;
  });
  return std::sqrt(sum / area);
}

DensityError density_error(const Mesh& mesh, int order, const std::vector<double>& c, const ExactState& exact) {
  double l1 = 0, l2 = 0;  // one pass: the exact state can be costly (a Riemann solve per point)
  const double area = integrate(mesh, order, c, "density_error", [&](double x, double y, const double* u, double w) {
    double exact_state[euler::num_vars];
    exact(x, y, exact_state);
    const double d = u[euler::density] - exact_state[euler::density];
    l1 += w * std::abs(d);
    l2 += w * d * d;
  });
  return {l1 / area, std::sqrt(l2 / area)};
}

}  // namespace kempe::output
