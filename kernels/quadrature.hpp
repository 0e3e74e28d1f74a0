// Quadrature rules on the reference line and triangle, computed once on the host. The kernels receive the
// points and weights (or matrices built from them) as plain arrays.
//
// Reference elements: the line [-1, 1] (length 2) and the triangle with vertices (-1, -1), (1, -1), (-1, 1)
// (area 2), the convention of Hesthaven & Warburton's "Nodal DG methods" and of PyFR.
#pragma once

#include <vector>

namespace kempe::quad {

/// Points and weights; the weights sum to the reference element's measure (2 on the line and the triangle).
struct Rule {
  int degree = 0;           ///< exact for polynomials of this total degree
  std::vector<double> r;    ///< [points] first reference coordinate
  std::vector<double> s;    ///< [points] second reference coordinate (empty on the line)
  std::vector<double> w;    ///< [points]
  int size() const { return static_cast<int>(w.size()); }
};

/// The n-point Gauss-Legendre rule on [-1, 1]: exact to degree 2n - 1 (Newton's method on the Legendre
/// recurrence, to round-off). Throws std::invalid_argument for n < 1.
Rule gauss_legendre(int n);

/// The largest degree triangle_rule provides.
inline constexpr int max_triangle_degree = 11;

/// The smallest symmetric rule on the reference triangle exact to at least `degree` (Witherden & Vincent 2015:
/// all points inside, all weights positive; degree 2p + 1 for p = 0..5 takes 1, 6, 7, 15, 19 and 28 points).
/// Throws std::invalid_argument for a degree outside 0..max_triangle_degree.
Rule triangle_rule(int degree);

}  // namespace kempe::quad
