// Reference operators of the modal DG method on triangles of order p, built once on the host: the basis and
// its gradient at the volume quadrature points, the basis at the face quadrature points of each local face,
// and the affine geometry of an element. The kernels apply them; the tests check them on real meshes.
#pragma once

#include <array>
#include <vector>

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
TriangleGeometry triangle_geometry(const std::array<double, 3>& x, const std::array<double, 3>& y);

/// Physical coordinates of the reference point (r, s) of the triangle with these vertices.
std::array<double, 2> triangle_point(const std::array<double, 3>& x, const std::array<double, 3>& y, double r, double s);

}  // namespace kempe::dg
