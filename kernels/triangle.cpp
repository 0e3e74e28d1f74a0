// Reference operators on triangles (see triangle.hpp).
#include "kernels/triangle.hpp"

#include <stdexcept>
#include <string>

#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"

namespace kempe::dg {

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
  return op;
}

TriangleGeometry triangle_geometry(const std::array<double, 3>& x, const std::array<double, 3>& y) {
  // x(r, s) = x0 (-(r + s) / 2) + x1 (1 + r) / 2 + x2 (1 + s) / 2.
  const double xr = (x[1] - x[0]) / 2, xs = (x[2] - x[0]) / 2;
  const double yr = (y[1] - y[0]) / 2, ys = (y[2] - y[0]) / 2;
  const double j = xr * ys - xs * yr;
  if (!(j > 0))
    throw std::invalid_argument("triangle with vertices (" + std::to_string(x[0]) + ", " + std::to_string(y[0]) +
                                "), ... is degenerate or negatively oriented");
  return {j, ys / j, -xs / j, -yr / j, xr / j};
}

std::array<double, 2> triangle_point(const std::array<double, 3>& x, const std::array<double, 3>& y, double r, double s) {
  const double l0 = -(r + s) / 2, l1 = (1 + r) / 2, l2 = (1 + s) / 2;
  return {l0 * x[0] + l1 * x[1] + l2 * x[2], l0 * y[0] + l1 * y[1] + l2 * y[2]};
}

}  // namespace kempe::dg
