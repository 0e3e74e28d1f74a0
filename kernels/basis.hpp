// The orthonormal modal basis of the reference triangle (Dubiner; Hesthaven & Warburton, "Nodal discontinuous
// Galerkin methods", 2008, eq. 6.6 and Appendix A), evaluated on the host to build the matrices the kernels use.
//
// Modes are ordered hierarchically by total degree: the first num_modes(q) modes span the polynomials of degree
// q, for every q <= p, so a solution of order p truncated to its first modes is its projection onto a lower
// order (what the moment limiter and p-refinement need). Orthonormal on the reference triangle (-1, -1),
// (1, -1), (-1, 1): with affine elements the mass matrix is diagonal, |J| times the identity.
#pragma once

#include <array>

#include "kernels/backend.hpp"

namespace kempe::basis {

/// Modes of the complete polynomial space of degree p in two variables.
KEMPE_HD constexpr int num_modes(int p) { return (p + 1) * (p + 2) / 2; }

/// The polynomial orders compiled into the solver.
inline constexpr int max_order = 5;

/// The two indices of mode m: degree i in the collapsed coordinate a, j in b (total degree i + j).
struct ModeIndex {
  int i, j;
};
/// Hierarchical order: degree 0, then the degree-1 modes, and so on; within a degree, i descending.
ModeIndex mode_index(int m);

/// The Jacobi polynomial P_n^(alpha, beta)(x), normalised to unit L2 norm on [-1, 1] with the weight
/// (1 - x)^alpha (1 + x)^beta, and its derivative.
double jacobi(int n, double alpha, double beta, double x);
double jacobi_derivative(int n, double alpha, double beta, double x);

/// Mode m at the reference point (r, s), and its gradient (d/dr, d/ds).
double mode(int m, double r, double s);
std::array<double, 2> mode_gradient(int m, double r, double s);

}  // namespace kempe::basis
