// The solution's transfer between a triangle and its four children (isotropic refinement, edge midpoints
// joined; adapt/forest.hpp numbers the children), built once per order on the host: prolongation is exact (the
// parent's polynomial on each child), restriction is the L2 projection of the four children's polynomials onto
// the parent. Both are fixed matrices in reference coordinates, because the children of an affine triangle are
// its images under fixed affine maps.
#pragma once

#include <array>
#include <vector>

namespace kempe::dg {

/// The reference coordinates, in the parent's reference triangle (-1, -1), (1, -1), (-1, 1), of child c's
/// vertices 0, 1, 2: the corner children 0, 1, 2 at the parent's vertices 0, 1, 2 (child c's vertex c is the
/// parent's), and the centre child 3 = (m1, m2, m0), m_j the midpoint of the parent's edge j (from its vertex j
/// to vertex j + 1). The order adapt/forest_K.hpp (BuildElements) gives the children's vertices.
std::array<std::array<double, 2>, 3> child_vertices(int child);

/// Array shapes in brackets, last index fastest; modes as in kernels/basis.hpp.
struct ChildTransfer {
  int order = 0, num_modes = 0;
  /// [4 children][modes][modes]: child c's coefficients = prolongation[c] times the parent's, exactly (the parent's
  /// polynomial restricted to the child is of the same degree).
  std::vector<double> prolongation;
  /// [4 children][modes][modes]: the parent's coefficients = sum over c of restriction[c] times child c's, the L2
  /// projection onto the parent. Each child is a quarter of the parent, so restriction[c] is prolongation[c]
  /// transposed over 4 (with an orthonormal basis); the cell average is the children's mean, so mass, momentum
  /// and energy are conserved, and restriction after prolongation is the identity.
  std::vector<double> restriction;
};

/// The matrices of order p: the mass matrix M and the child moments B_c (the basis against the parent's basis
/// mapped onto child c) by a rule exact to degree 2p, then prolongation[c] = M^-1 B_c and restriction[c] =
/// M^-1 B_c^T / 4 by a Cholesky factorisation of M (Eigen), so that they hold to round-off whatever the
/// basis's normalisation. std::invalid_argument outside 0..basis::max_order.
ChildTransfer child_transfer(int order);

}  // namespace kempe::dg
