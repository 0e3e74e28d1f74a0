// Operators of the DG discretisation: quadrature exactness, basis orthonormality, hierarchy and gradients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;

double factorial(int n) { return std::tgamma(n + 1.0); }

TEST(Quadrature, GaussLegendreIsExactToDegree2nMinus1) {
  for (int n = 1; n <= 12; ++n) {
    const quad::Rule rule = quad::gauss_legendre(n);
    ASSERT_EQ(rule.size(), n);
    EXPECT_EQ(rule.degree, 2 * n - 1);
    for (int k = 0; k <= 2 * n - 1; ++k) {
      double sum = 0;
      for (int q = 0; q < n; ++q) sum += rule.w[q] * std::pow(rule.r[q], k);
      const double exact = k % 2 ? 0.0 : 2.0 / (k + 1);
      EXPECT_NEAR(sum, exact, 1e-14) << n << " points, x^" << k;
    }
    // And not beyond: x^(2n) is integrated with an error (the rule is no better than claimed).
    double sum = 0;
    for (int q = 0; q < n; ++q) sum += rule.w[q] * std::pow(rule.r[q], 2 * n);
    EXPECT_GT(std::abs(sum - 2.0 / (2 * n + 1)), 1e-10) << n << " points";
  }
}

TEST(Quadrature, TriangleRulesIntegrateEveryMonomialOfTheirDegree) {
  // On the reference triangle with u = (1 + r)/2, v = (1 + s)/2: the integral of u^a v^b is
  // 4 a! b! / (a + b + 2)! (the unit triangle's integral times the Jacobian 4).
  const int expected_points[] = {1, 6, 7, 15, 19, 28};  // degree 2p + 1 for p = 0..5
  for (int p = 0; p <= basis::max_order; ++p) {
    const quad::Rule rule = quad::triangle_rule(2 * p + 1);
    EXPECT_GE(rule.degree, 2 * p + 1);
    EXPECT_EQ(rule.size(), expected_points[p]) << "p = " << p;
    for (int q = 0; q < rule.size(); ++q) {
      EXPECT_GT(rule.w[q], 0);
      EXPECT_GT(rule.r[q], -1);
      EXPECT_GT(rule.s[q], -1);
      EXPECT_LT(rule.r[q] + rule.s[q], 0);  // strictly inside
    }
    for (int a = 0; a <= rule.degree; ++a)
      for (int b = 0; a + b <= rule.degree; ++b) {
        double sum = 0;
        for (int q = 0; q < rule.size(); ++q)
          sum += rule.w[q] * std::pow((1 + rule.r[q]) / 2, a) * std::pow((1 + rule.s[q]) / 2, b);
        EXPECT_NEAR(sum, 4 * factorial(a) * factorial(b) / factorial(a + b + 2), 1e-15)
            << "degree " << rule.degree << ": u^" << a << " v^" << b;
      }
  }
}

TEST(Quadrature, ImpossibleRequestsAreErrors) {
  EXPECT_THROW(quad::gauss_legendre(0), std::invalid_argument);
  try {
    quad::triangle_rule(quad::max_triangle_degree + 1);
    ADD_FAILURE() << "degree 12 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("degree 12"));
    EXPECT_THAT(e.what(), HasSubstr("0..11"));
  }
}

TEST(Basis, ModesAreOrderedByDegree) {
  EXPECT_EQ(basis::num_modes(0), 1);
  EXPECT_EQ(basis::num_modes(5), 21);
  int m = 0;
  for (int degree = 0; degree <= basis::max_order; ++degree)
    for (int k = 0; k <= degree; ++k, ++m) {
      const auto [i, j] = basis::mode_index(m);
      EXPECT_EQ(i + j, degree) << "mode " << m;
      EXPECT_EQ(j, k) << "mode " << m;
    }
}

TEST(Basis, IsOrthonormalOnTheReferenceTriangle) {
  const int n = basis::num_modes(basis::max_order);
  const quad::Rule rule = quad::triangle_rule(2 * basis::max_order);  // products have degree <= 10
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double sum = 0;
      for (int q = 0; q < rule.size(); ++q)
        sum += rule.w[q] * basis::mode(a, rule.r[q], rule.s[q]) * basis::mode(b, rule.r[q], rule.s[q]);
      EXPECT_NEAR(sum, a == b ? 1.0 : 0.0, 1e-13) << "modes " << a << ", " << b;
    }
  EXPECT_NEAR(basis::mode(0, 0.3, -0.7), 1 / std::sqrt(2.0), 1e-15);  // the mean mode: 1 / sqrt(area)
}

TEST(Basis, TheFirstModesSpanTheLowerDegrees) {
  // A monomial of degree q has no component along modes beyond num_modes(q): the hierarchy the moment limiter
  // and p-truncation rely on.
  const quad::Rule rule = quad::triangle_rule(2 * basis::max_order);
  for (int q = 0; q <= basis::max_order; ++q)
    for (int a = 0; a <= q; ++a) {
      const int b = q - a;
      for (int m = basis::num_modes(q); m < basis::num_modes(basis::max_order); ++m) {
        double sum = 0;
        for (int k = 0; k < rule.size(); ++k)
          sum += rule.w[k] * std::pow(rule.r[k], a) * std::pow(rule.s[k], b) * basis::mode(m, rule.r[k], rule.s[k]);
        EXPECT_NEAR(sum, 0.0, 1e-13) << "r^" << a << " s^" << b << " along mode " << m;
      }
    }
}

TEST(Basis, GradientsMatchFiniteDifferences) {
  const double h = 1e-6;
  const double points[][2] = {{-0.9, -0.9}, {-0.2, -0.5}, {0.5, -0.8}, {-0.8, 0.5}, {-0.34, -0.33}, {-0.99, 0.97}};
  for (int m = 0; m < basis::num_modes(basis::max_order); ++m)
    for (const auto& p : points) {
      const auto [d_dr, d_ds] = basis::mode_gradient(m, p[0], p[1]);
      const double fd_r = (basis::mode(m, p[0] + h, p[1]) - basis::mode(m, p[0] - h, p[1])) / (2 * h);
      const double fd_s = (basis::mode(m, p[0], p[1] + h) - basis::mode(m, p[0], p[1] - h)) / (2 * h);
      EXPECT_NEAR(d_dr, fd_r, 1e-6 * (1 + std::abs(fd_r))) << "mode " << m << " at " << p[0] << ", " << p[1];
      EXPECT_NEAR(d_ds, fd_s, 1e-6 * (1 + std::abs(fd_s))) << "mode " << m << " at " << p[0] << ", " << p[1];
    }
  // At the collapsed vertex (-1, 1) the gradient is finite (no division by 1 - s).
  for (int m = 0; m < basis::num_modes(basis::max_order); ++m) {
    const auto [d_dr, d_ds] = basis::mode_gradient(m, -1, 1);
    EXPECT_TRUE(std::isfinite(d_dr) && std::isfinite(d_ds)) << "mode " << m;
  }
}

}  // namespace
}  // namespace kempe
