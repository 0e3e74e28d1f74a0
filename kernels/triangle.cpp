// Reference operators on triangles (see triangle.hpp).
#include "kernels/triangle.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>
#include <string>

#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"

namespace kempe::dg {

namespace {

/// Monomial n = (k, i) about the reference centroid: (r + 1/3)^(k - i) (s + 1/3)^i.
double centroid_monomial(int n, double r, double s) {
  int k = 0;
  while ((k + 1) * (k + 2) / 2 <= n) ++k;
  const int i = n - k * (k + 1) / 2;
  double value = 1;
  for (int a = 0; a < k - i; ++a) value *= r + 1.0 / 3;
  for (int b = 0; b < i; ++b) value *= s + 1.0 / 3;
  return value;
}

/// Fills the limiters' Taylor tables of op (see triangle.hpp). The monomial coefficients of the modes solve
/// the interpolation problem at the equispaced points of order p (unisolvent; a 21 x 21 system at p = 5, far
/// better conditioned than the normal equations), by Gaussian elimination with partial pivoting.
void add_taylor_tables(TriangleOperators& op) {
  const int nm = op.num_modes, p = op.order;
  std::vector<double> vandermonde(std::size_t(nm) * nm), values(std::size_t(nm) * nm);  // [point][monomial], [point][mode]
  for (int row = 0, i = 0; i <= p; ++i)
    for (int j = 0; i + j <= p; ++j, ++row) {
      const double r = p == 0 ? -1.0 / 3 : -1 + 2.0 * i / p, s = p == 0 ? -1.0 / 3 : -1 + 2.0 * j / p;
      for (int a = 0; a < nm; ++a) {
        vandermonde[std::size_t(row) * nm + a] = centroid_monomial(a, r, s);
        values[std::size_t(row) * nm + a] = basis::mode(a, r, s);
      }
    }
  for (int col = 0; col < nm; ++col) {
    int pivot = col;
    for (int row = col + 1; row < nm; ++row)
      if (std::abs(vandermonde[std::size_t(row) * nm + col]) > std::abs(vandermonde[std::size_t(pivot) * nm + col])) pivot = row;
    for (int j = 0; j < nm; ++j) {
      std::swap(vandermonde[std::size_t(col) * nm + j], vandermonde[std::size_t(pivot) * nm + j]);
      std::swap(values[std::size_t(col) * nm + j], values[std::size_t(pivot) * nm + j]);
    }
    for (int row = 0; row < nm; ++row) {
      if (row == col) continue;
      const double f = vandermonde[std::size_t(row) * nm + col] / vandermonde[std::size_t(col) * nm + col];
      if (f == 0) continue;
      for (int j = 0; j < nm; ++j) {
        vandermonde[std::size_t(row) * nm + j] -= f * vandermonde[std::size_t(col) * nm + j];
        values[std::size_t(row) * nm + j] -= f * values[std::size_t(col) * nm + j];
      }
    }
  }
  const quad::Rule rule = quad::triangle_rule(2 * p);
  op.taylor_from_modes.resize(std::size_t(nm) * nm);
  // A mode of degree d has no monomial of higher degree: those entries are exact zeros, not rounding, which
  // matters because the limiters scale degree-k coefficients by up to (2 / h)^k.
  auto degree = [](int n) {
    int k = 0;
    while ((k + 1) * (k + 2) / 2 <= n) ++k;
    return k;
  };
  for (int a = 0; a < nm; ++a)
    for (int m = 0; m < nm; ++m)
      op.taylor_from_modes[std::size_t(a) * nm + m] =
          degree(a) > degree(m) ? 0.0 : values[std::size_t(a) * nm + m] / vandermonde[std::size_t(a) * nm + a];
  // degree_part[k - 1][n][m] = integral of (degree-k part of mode m) times mode n, for n >= 1 (the part's mean
  // only touches the constant mode, whose row stays zero). Exact: degree k + deg(n) <= 2p.
  op.degree_part.assign(std::size_t(p) * nm * nm, 0.0);
  for (int k = 1; k <= p; ++k)
    for (int q = 0; q < rule.size(); ++q)
      for (int i = 0; i <= k; ++i) {
        const int a = k * (k + 1) / 2 + i;
        const double ma = centroid_monomial(a, rule.r[q], rule.s[q]) * rule.w[q];
        for (int n = 1; n < nm; ++n) {
          if (degree(n) > k) continue;  // orthogonal to every polynomial of degree k: exactly zero
          const double mn = ma * basis::mode(n, rule.r[q], rule.s[q]);
          for (int m = 0; m < nm; ++m)
            op.degree_part[(std::size_t(k - 1) * nm + n) * nm + m] += mn * op.taylor_from_modes[std::size_t(a) * nm + m];
        }
      }
}

}  // namespace

TriangleOperators triangle_operators(int order) {
  if (order < 0 || order > basis::max_order)
    throw std::invalid_argument("polynomial order " + std::to_string(order) + " on triangles: available 0.." +
                                std::to_string(basis::max_order));
  TriangleOperators op;
  op.order = order;
  op.num_modes = basis::num_modes(order);
  // Degree 2p + 1: exact for the mass matrix (degree 2p) and for the volume term of a flux that is the
  // product of the solution with a degree-1 factor; the nonlinear Euler flux is integrated to that degree.
  const quad::Rule volume = quad::triangle_rule(2 * order + 1);
  op.num_volume_points = volume.size();
  op.volume_r = volume.r;
  op.volume_s = volume.s;
  op.volume_weight = volume.w;
  const int nm = op.num_modes;
  op.volume_basis.resize(std::size_t(volume.size()) * nm);
  op.volume_grad_r.resize(op.volume_basis.size());
  op.volume_grad_s.resize(op.volume_basis.size());
  for (int q = 0; q < volume.size(); ++q)
    for (int m = 0; m < nm; ++m) {
      op.volume_basis[std::size_t(q) * nm + m] = basis::mode(m, volume.r[q], volume.s[q]);
      const auto [dr, ds] = basis::mode_gradient(m, volume.r[q], volume.s[q]);
      op.volume_grad_r[std::size_t(q) * nm + m] = dr;
      op.volume_grad_s[std::size_t(q) * nm + m] = ds;
    }
  // p + 1 Gauss points: exact to degree 2p + 1 along a face, the product of two traces of degree p.
  const quad::Rule face = quad::gauss_legendre(order + 1);
  op.num_face_points = face.size();
  op.face_weight = face.w;
  op.face_abscissa = face.r;
  const double vertex_r[3] = {-1, 1, -1}, vertex_s[3] = {-1, -1, 1};
  op.face_basis.resize(std::size_t(3) * face.size() * nm);
  op.face_r.resize(std::size_t(3) * face.size());
  op.face_s.resize(op.face_r.size());
  for (int k = 0; k < 3; ++k)
    for (int q = 0; q < face.size(); ++q) {
      const double t = (1 + face.r[q]) / 2;  // 0 at vertex k, 1 at vertex k + 1
      const double r = (1 - t) * vertex_r[k] + t * vertex_r[(k + 1) % 3];
      const double s = (1 - t) * vertex_s[k] + t * vertex_s[(k + 1) % 3];
      op.face_r[std::size_t(k) * face.size() + q] = r;
      op.face_s[std::size_t(k) * face.size() + q] = s;
      for (int m = 0; m < nm; ++m) op.face_basis[(std::size_t(k) * face.size() + q) * nm + m] = basis::mode(m, r, s);
    }
  // A hanging face covers half of the coarse element's edge: the same Gauss points mapped onto each half.
  op.face_half_basis.resize(std::size_t(6) * face.size() * nm);
  for (int k = 0; k < 3; ++k)
    for (int half = 0; half < 2; ++half)
      for (int q = 0; q < face.size(); ++q) {
        const double t = (half + (1 + face.r[q]) / 2) / 2;  // [0, 1/2] on the first half, [1/2, 1] on the second
        const double r = (1 - t) * vertex_r[k] + t * vertex_r[(k + 1) % 3];
        const double s = (1 - t) * vertex_s[k] + t * vertex_s[(k + 1) % 3];
        for (int m = 0; m < nm; ++m)
          op.face_half_basis[((std::size_t(2 * k + half)) * face.size() + q) * nm + m] = basis::mode(m, r, s);
      }
  add_taylor_tables(op);
  return op;
}

TriangleGeometry triangle_geometry(const std::array<double, 3>& x, const std::array<double, 3>& y) {
  const TriangleGeometry g = affine_triangle_geometry(x[0], x[1], x[2], y[0], y[1], y[2]);
  if (!(g.jacobian > 0))
    throw std::invalid_argument("triangle with vertices (" + std::to_string(x[0]) + ", " + std::to_string(y[0]) +
                                "), ... is degenerate or negatively oriented");
  return g;
}

TriangleRadii triangle_radii(const std::array<double, 3>& x, const std::array<double, 3>& y, double area) {
  return triangle_radii(x[0], x[1], x[2], y[0], y[1], y[2], area);
}

std::array<double, 2> triangle_point(const std::array<double, 3>& x, const std::array<double, 3>& y, double r, double s) {
  const double l0 = -(r + s) / 2, l1 = (1 + r) / 2, l2 = (1 + s) / 2;
  return {l0 * x[0] + l1 * x[1] + l2 * x[2], l0 * y[0] + l1 * y[1] + l2 * y[2]};
}

}  // namespace kempe::dg
