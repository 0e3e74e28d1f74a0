// The orthonormal triangle basis (see basis.hpp).
#include "kernels/basis.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kempe::basis {

ModeIndex mode_index(int m) {
  if (m < 0) throw std::invalid_argument("mode index " + std::to_string(m) + " is negative");
  int degree = 0;
  while (num_modes(degree) <= m) ++degree;
  const int k = m - (degree == 0 ? 0 : num_modes(degree - 1));  // 0..degree within this degree
  return {degree - k, k};
}

double jacobi(int n, double alpha, double beta, double x) {
  // The three-term recurrence of the normalised polynomials (Hesthaven & Warburton, Appendix A, JacobiP).
  const double ab = alpha + beta;
  const double gamma0 = std::pow(2.0, ab + 1) / (ab + 1) * std::tgamma(alpha + 1) * std::tgamma(beta + 1) /
                        std::tgamma(ab + 1);
  double previous = 1 / std::sqrt(gamma0);
  if (n == 0) return previous;
  const double gamma1 = (alpha + 1) * (beta + 1) / (ab + 3) * gamma0;
  double current = ((ab + 2) * x / 2 + (alpha - beta) / 2) / std::sqrt(gamma1);
  double a_old = 2 / (2 + ab) * std::sqrt((alpha + 1) * (beta + 1) / (ab + 3));
  for (int i = 1; i < n; ++i) {
    const double h = 2 * i + ab;
    const double a_new =
        2 / (h + 2) * std::sqrt((i + 1) * (i + 1 + ab) * (i + 1 + alpha) * (i + 1 + beta) / (h + 1) / (h + 3));
    const double b_new = -(alpha * alpha - beta * beta) / h / (h + 2);
    const double next = (-a_old * previous + (x - b_new) * current) / a_new;
    previous = current;
    current = next;
    a_old = a_new;
  }
  return current;
}

double jacobi_derivative(int n, double alpha, double beta, double x) {
  if (n == 0) return 0;
  return std::sqrt(n * (n + alpha + beta + 1)) * jacobi(n - 1, alpha + 1, beta + 1, x);
}

namespace {

/// The collapsed coordinates (a, b) of (r, s): the triangle as a square with its top edge collapsed to the
/// vertex (-1, 1), where a is taken as -1.
std::array<double, 2> collapse(double r, double s) {
  const double a = s < 1 - 1e-14 ? 2 * (1 + r) / (1 - s) - 1 : -1.0;
  return {a, s};
}

}  // namespace

double mode(int m, double r, double s) {
  const auto [i, j] = mode_index(m);
  const auto [a, b] = collapse(r, s);
  return std::sqrt(2.0) * jacobi(i, 0, 0, a) * jacobi(j, 2 * i + 1, 0, b) * std::pow(1 - b, i);
}

std::array<double, 2> mode_gradient(int m, double r, double s) {
  // Hesthaven & Warburton, GradSimplex2DP: the chain rule through the collapsed coordinates, with the factor
  // (1 - b)^(i - 1) written out so that nothing is divided by zero at the collapsed vertex.
  const auto [i, j] = mode_index(m);
  const auto [a, b] = collapse(r, s);
  const double fa = jacobi(i, 0, 0, a), dfa = jacobi_derivative(i, 0, 0, a);
  const double gb = jacobi(j, 2 * i + 1, 0, b), dgb = jacobi_derivative(j, 2 * i + 1, 0, b);
  const double half_1mb = 0.5 * (1 - b);
  const double lower = i > 0 ? std::pow(half_1mb, i - 1) : 1.0;
  double d_dr = dfa * gb * lower;
  double d_ds = dfa * gb * 0.5 * (1 + a) * lower;
  double t = dgb * std::pow(half_1mb, i);
  if (i > 0) t -= 0.5 * i * gb * lower;
  d_ds += fa * t;
  const double scale = std::pow(2.0, i + 0.5);
  return {d_dr * scale, d_ds * scale};
}

}  // namespace kempe::basis
