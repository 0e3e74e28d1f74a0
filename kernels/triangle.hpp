// Reference operators of the modal DG method on triangles of order p, built once on the host: the basis and
// its gradient at the volume quadrature points, the basis at the face quadrature points of each local face,
// and the affine geometry of an element. The kernels apply them; the tests check them on real meshes.
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include "kernels/backend.hpp"

namespace kempe::dg {

/// Array shapes in brackets, last index fastest.
struct TriangleOperators {
  int order = 0, num_modes = 0;
  int num_volume_points = 0;  ///< Witherden-Vincent rule of degree 2p + 1 (1, 6, 7, 15, 19, 28 points)
  int num_face_points = 0;    ///< p + 1 Gauss-Legendre points per face
  std::vector<double> volume_r, volume_s;         ///< [volume points] reference coordinates
  std::vector<double> volume_weight;              ///< [volume points], summing to 2 (the reference area)
  std::vector<double> volume_basis;               ///< [volume points][modes]
  std::vector<double> volume_grad_r, volume_grad_s;  ///< [volume points][modes] reference derivatives
  std::vector<double> face_weight;                ///< [face points], summing to 2 (the reference length)
  std::vector<double> face_abscissa;              ///< [face points] Gauss points on [-1, 1]
  /// [3 local faces][face points][modes]: the basis along local face k, which runs from vertex k to vertex
  /// k + 1 (mod 3) of the element. The neighbour runs along the shared face the other way, so its point q is
  /// this side's point num_face_points - 1 - q (both elements are positively oriented).
  std::vector<double> face_basis;
  /// [3 local faces][2 halves][face points][modes]: the basis at the face points mapped onto the first half
  /// (vertex k to the edge's midpoint) and the second half (midpoint to vertex k + 1) of local face k: the
  /// coarse side of a hanging face of an adapted mesh, which meets a finer neighbour on half its edge.
  std::vector<double> face_half_basis;
  std::vector<double> face_r, face_s;  ///< [3][face points] reference coordinates of the face points
  /// The limiters' Taylor tables (kernels/limiter_K.hpp). Monomials about the reference centroid (-1/3, -1/3)
  /// are numbered like the modes, by degree: monomial (k, i) = (r + 1/3)^(k - i) (s + 1/3)^i has number
  /// k (k + 1) / 2 + i.
  /// [monomials][modes]: mode m = sum over monomials n of taylor_from_modes[n][m] times monomial n.
  std::vector<double> taylor_from_modes;
  /// [order][modes][modes]: block k - 1 maps the coefficients c of a solution to those of its degree-k part
  /// about the centroid minus that part's mean (the Taylor terms of degree k, hierarchical limiting). The
  /// blocks for k = 1..p add up to the identity without the constant mode. The degree-k part of a polynomial
  /// about the centroid is the same function in reference and in physical coordinates (the map is affine), so
  /// one table serves every element.
  std::vector<double> degree_part;
};

/// Throws std::invalid_argument outside 0..basis::max_order.
TriangleOperators triangle_operators(int order);

/// The affine map of a triangle from its vertices (positively oriented): x = x0 + J (r + 1, s + 1) / 2 ...
struct TriangleGeometry {
  double jacobian;                  ///< |dx/dr| = area / 2 (the mass matrix is jacobian times the identity)
  double dr_dx, dr_dy, ds_dx, ds_dy;  ///< the inverse map's derivatives (chain rule for gradients)
};
/// Throws std::invalid_argument for a degenerate or clockwise triangle.
TriangleGeometry triangle_geometry(const std::array<double, 3>& x, const std::array<double, 3>& y);

/// The same map as a point function, for tables built by kernels (adapt/dg_tables_K.hpp); jacobian <= 0 (or not
/// a number) marks a degenerate or clockwise triangle, which the caller refuses.
KEMPE_HD TriangleGeometry affine_triangle_geometry(double x0, double x1, double x2, double y0, double y1, double y2) {
  // x(r, s) = x0 (-(r + s) / 2) + x1 (1 + r) / 2 + x2 (1 + s) / 2.
  const double xr = (x1 - x0) / 2, xs = (x2 - x0) / 2;
  const double yr = (y1 - y0) / 2, ys = (y2 - y0) / 2;
  const double j = xr * ys - xs * yr;
  return {j, ys / j, -xs / j, -yr / j, xr / j};
}

/// The radii the solver's time step and limiters use: inradius 2 A / perimeter and circumradius a b c / (4 A) of
/// the triangle of area A with these vertices. Side lengths by sqrt, which is correctly rounded on both backends
/// (hypot is not on the GPU), so that tables built on either agree bit for bit.
struct TriangleRadii {
  double inradius, circumradius;
};
KEMPE_HD TriangleRadii triangle_radii(double x0, double x1, double x2, double y0, double y1, double y2, double area) {
  const double a = std::sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
  const double b = std::sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1));
  const double c = std::sqrt((x0 - x2) * (x0 - x2) + (y0 - y2) * (y0 - y2));
  return {2 * area / (a + b + c), a * b * c / (4 * area)};
}

/// triangle_radii of a triangle (above) as a host function compiled without fused multiply-adds, for host tables
/// that must equal those built by kernels (solver/numerics/dg_mesh.hpp).
TriangleRadii triangle_radii(const std::array<double, 3>& x, const std::array<double, 3>& y, double area);

/// Physical coordinates of the reference point (r, s) of the triangle with these vertices.
std::array<double, 2> triangle_point(const std::array<double, 3>& x, const std::array<double, 3>& y, double r, double s);

}  // namespace kempe::dg
