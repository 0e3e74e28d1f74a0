// Operators of the DG discretisation: quadrature exactness, basis orthonormality, hierarchy and gradients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include <random>
#include <vector>

#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"
#include "kernels/triangle.hpp"
#include "mesh/mesh.hpp"
#include "mesh/generators.hpp"

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

// ---- The triangle operators on a real, distorted mesh ----------------------------------------------------
namespace kempe {
namespace {

/// A 6 x 6 triangle grid with every interior node moved by up to 0.25 (random, fixed seed).
Mesh distorted_triangles() {
  RawMesh raw = square_grid(6, true);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> shift(-0.25, 0.25);
  for (index_t n = 0; n < raw.num_nodes(); ++n)
    if (raw.x[n] > 0 && raw.x[n] < 6 && raw.y[n] > 0 && raw.y[n] < 6) {
      raw.x[n] += shift(rng);
      raw.y[n] += shift(rng);
    }
  return build_mesh(raw);
}

std::array<double, 3> vertex_coords(const Mesh& m, index_t e, const std::vector<double>& coord) {
  const index_t* v = &m.element_vertices[m.element_vertex_begin[e]];
  return {coord[v[0]], coord[v[1]], coord[v[2]]};
}

/// A polynomial of total degree p in (x, y) with fixed pseudo-random coefficients, and its x-derivative.
struct Polynomial {
  int p;
  double value(double x, double y) const {
    double sum = 0;
    for (int a = 0; a <= p; ++a)
      for (int b = 0; a + b <= p; ++b) sum += (0.3 + 0.1 * a - 0.07 * b) * std::pow(x / 6, a) * std::pow(y / 6, b);
    return sum;
  }
  double d_dx(double x, double y) const {
    double sum = 0;
    for (int a = 1; a <= p; ++a)
      for (int b = 0; a + b <= p; ++b) sum += (0.3 + 0.1 * a - 0.07 * b) * a / 6 * std::pow(x / 6, a - 1) * std::pow(y / 6, b);
    return sum;
  }
};

/// Modal coefficients of g on element e: the L2 projection, c_m = sum_q w_q phi_m(q) g(x(q)) (orthonormal
/// basis: the Jacobian cancels against the diagonal mass matrix).
std::vector<double> project(const dg::TriangleOperators& op, const Mesh& m, index_t e, const Polynomial& g) {
  const auto x = vertex_coords(m, e, m.x), y = vertex_coords(m, e, m.y);
  std::vector<double> c(op.num_modes, 0.0);
  for (int q = 0; q < op.num_volume_points; ++q) {
    const auto [px, py] = dg::triangle_point(x, y, op.volume_r[q], op.volume_s[q]);
    for (int k = 0; k < op.num_modes; ++k)
      c[k] += op.volume_weight[q] * op.volume_basis[std::size_t(q) * op.num_modes + k] * g.value(px, py);
  }
  return c;
}

TEST(TriangleOperators, ProjectionReproducesPolynomialsOfTheOrder) {
  const Mesh m = distorted_triangles();
  for (int p = 0; p <= basis::max_order; ++p) {
    const dg::TriangleOperators op = dg::triangle_operators(p);
    const Polynomial g{p};
    for (index_t e = 0; e < m.num_elements(); ++e) {
      const auto c = project(op, m, e, g);
      const auto x = vertex_coords(m, e, m.x), y = vertex_coords(m, e, m.y);
      for (int q = 0; q < op.num_volume_points; ++q) {
        double u = 0;
        for (int k = 0; k < op.num_modes; ++k) u += c[k] * op.volume_basis[std::size_t(q) * op.num_modes + k];
        const auto [px, py] = dg::triangle_point(x, y, op.volume_r[q], op.volume_s[q]);
        ASSERT_NEAR(u, g.value(px, py), 1e-12) << "p = " << p << ", element " << e;
      }
    }
  }
}

TEST(TriangleOperators, NeighboursSeeTheSameFacePointsAndTraces) {
  // The neighbour runs along a shared face the other way: its point q is this side's last - q. A continuous
  // polynomial projected on both elements must then have the same trace at matching points.
  const Mesh m = distorted_triangles();
  for (int p = 0; p <= basis::max_order; ++p) {
    const dg::TriangleOperators op = dg::triangle_operators(p);
    const Polynomial g{p};
    const int nq = op.num_face_points, nm = op.num_modes;
    for (index_t f = 0; f < m.num_faces(); ++f) {
      const index_t l = m.face_left[f], r = m.face_right[f];
      if (r == no_element) continue;
      const int kl = m.face_left_local[f], kr = m.face_right_local[f];
      const auto cl = project(op, m, l, g), cr = project(op, m, r, g);
      for (int q = 0; q < nq; ++q) {
        const int qr = nq - 1 - q;
        const std::size_t il = std::size_t(kl) * nq + q, ir = std::size_t(kr) * nq + qr;
        const auto xl = dg::triangle_point(vertex_coords(m, l, m.x), vertex_coords(m, l, m.y), op.face_r[il], op.face_s[il]);
        const auto xr = dg::triangle_point(vertex_coords(m, r, m.x), vertex_coords(m, r, m.y), op.face_r[ir], op.face_s[ir]);
        ASSERT_NEAR(xl[0], xr[0], 1e-13) << "face " << f;
        ASSERT_NEAR(xl[1], xr[1], 1e-13) << "face " << f;
        double ul = 0, ur = 0;
        for (int k = 0; k < nm; ++k) {
          ul += cl[k] * op.face_basis[il * nm + k];
          ur += cr[k] * op.face_basis[ir * nm + k];
        }
        ASSERT_NEAR(ul, ur, 1e-12) << "p = " << p << ", face " << f;
      }
    }
  }
}

TEST(TriangleOperators, GeometryFactorsSatisfyTheDivergenceTheorem) {
  // On each element, the integral of dg/dx from the reference gradients and the inverse map equals the
  // boundary integral of g n_x from the face points, lengths and the mesh's normals.
  const Mesh m = distorted_triangles();
  for (int p = 1; p <= basis::max_order; ++p) {
    const dg::TriangleOperators op = dg::triangle_operators(p);
    const Polynomial g{p};
    const int nq = op.num_face_points, nm = op.num_modes;
    for (index_t e = 0; e < m.num_elements(); ++e) {
      const auto x = vertex_coords(m, e, m.x), y = vertex_coords(m, e, m.y);
      const dg::TriangleGeometry geo = dg::triangle_geometry(x, y);
      EXPECT_NEAR(2 * geo.jacobian, m.volume[e], 1e-13);
      const auto c = project(op, m, e, g);
      double volume = 0;
      for (int q = 0; q < op.num_volume_points; ++q) {
        double du_dx = 0;
        for (int k = 0; k < nm; ++k)
          du_dx += c[k] * (op.volume_grad_r[std::size_t(q) * nm + k] * geo.dr_dx + op.volume_grad_s[std::size_t(q) * nm + k] * geo.ds_dx);
        const auto [px, py] = dg::triangle_point(x, y, op.volume_r[q], op.volume_s[q]);
        EXPECT_NEAR(du_dx, g.d_dx(px, py), 1e-11);
        volume += op.volume_weight[q] * geo.jacobian * du_dx;
      }
      double surface = 0;
      for (int k = 0; k < 3; ++k) {
        const index_t f = m.element_faces[m.element_face_begin[e] + k];
        const double nx = m.face_left[f] == e ? m.normal_x[f] : -m.normal_x[f];
        for (int q = 0; q < nq; ++q) {
          double u = 0;
          for (int j = 0; j < nm; ++j) u += c[j] * op.face_basis[(std::size_t(k) * nq + q) * nm + j];
          surface += op.face_weight[q] * m.face_area[f] / 2 * u * nx;
        }
      }
      ASSERT_NEAR(volume, surface, 1e-12) << "p = " << p << ", element " << e;
    }
  }
  EXPECT_THROW(dg::triangle_operators(basis::max_order + 1), std::invalid_argument);
  EXPECT_THROW(dg::triangle_geometry({0, 1, 0}, {0, 0, 0}), std::invalid_argument);  // degenerate
}

}  // namespace
}  // namespace kempe
