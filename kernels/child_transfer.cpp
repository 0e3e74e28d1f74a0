#include "kernels/child_transfer.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <stdexcept>
#include <string>

#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"

namespace kempe::dg {

std::array<std::array<double, 2>, 3> child_vertices(int child) {
  using Point = std::array<double, 2>;
  const Point v0{-1, -1}, v1{1, -1}, v2{-1, 1};
  const Point m0{0, -1}, m1{0, 0}, m2{-1, 0};  // midpoints of edges 0 (v0 v1), 1 (v1 v2), 2 (v2 v0)
  switch (child) {
    case 0: return {v0, m0, m2};
    case 1: return {m0, v1, m1};
    case 2: return {m2, m1, v2};
    case 3: return {m1, m2, m0};
    default: throw std::invalid_argument("child_vertices: child " + std::to_string(child) + " is not in 0..3");
  }
}

ChildTransfer child_transfer(int order) {
  if (order < 0 || order > basis::max_order)
    throw std::invalid_argument("child_transfer: order " + std::to_string(order) + " is not in 0.." + std::to_string(basis::max_order));
  const int nm = basis::num_modes(order);
  const quad::Rule rule = quad::triangle_rule(2 * order);
  Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(nm, nm);
  for (int q = 0; q < rule.size(); ++q)
    for (int i = 0; i < nm; ++i)
      for (int j = 0; j < nm; ++j) mass(i, j) += rule.w[q] * basis::mode(i, rule.r[q], rule.s[q]) * basis::mode(j, rule.r[q], rule.s[q]);
  const Eigen::LLT<Eigen::MatrixXd> cholesky(mass);
  if (cholesky.info() != Eigen::Success) throw std::logic_error("child_transfer: the mass matrix is not positive definite");
  ChildTransfer t;
  t.order = order, t.num_modes = nm;
  t.prolongation.resize(std::size_t(4) * nm * nm);
  t.restriction.resize(t.prolongation.size());
  for (int c = 0; c < 4; ++c) {
    const auto v = child_vertices(c);
    // B(i, m) = integral over the reference triangle of mode i times parent mode m at the mapped point.
    Eigen::MatrixXd moments = Eigen::MatrixXd::Zero(nm, nm);
    for (int q = 0; q < rule.size(); ++q) {
      const double a = -(rule.r[q] + rule.s[q]) / 2, b = (1 + rule.r[q]) / 2, d = (1 + rule.s[q]) / 2;
      const double r = a * v[0][0] + b * v[1][0] + d * v[2][0], s = a * v[0][1] + b * v[1][1] + d * v[2][1];
      for (int i = 0; i < nm; ++i)
        for (int m = 0; m < nm; ++m) moments(i, m) += rule.w[q] * basis::mode(i, rule.r[q], rule.s[q]) * basis::mode(m, r, s);
    }
    const Eigen::MatrixXd prolong = cholesky.solve(moments);
    const Eigen::MatrixXd restriction = cholesky.solve(moments.transpose()) / 4;
    for (int i = 0; i < nm; ++i)
      for (int m = 0; m < nm; ++m) {
        t.prolongation[(std::size_t(c) * nm + i) * nm + m] = prolong(i, m);
        t.restriction[(std::size_t(c) * nm + i) * nm + m] = restriction(i, m);
      }
  }
  return t;
}

}  // namespace kempe::dg
