// The slope limiters (kernels/limiter_K.hpp): their Taylor tables, the Taylor coefficients against exact
// derivatives, the defining bounds of the vertex-based and moment limiters, and the polynomials they must leave
// alone. The shock tubes that run them are in test_dg.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "dg_cases.hpp"
#include "kernels/limiter_K.hpp"
#include "kernels/triangle.hpp"
#include "solver/numerics/euler_dg.hpp"

namespace kempe {
namespace {

using test::FixedState;
using test::gamma_air;

using Solver1 = dg::EulerDG<1, double, euler::Flux::hll, FixedState>;

TEST(LimiterTables, DegreePartsAddUpToTheIdentityAndMonomialsReproduceTheModes) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int p = 0; p <= basis::max_order; ++p) {
    const dg::TriangleOperators op = dg::triangle_operators(p);
    const int nm = op.num_modes;
    for (int n = 0; n < nm; ++n)
      for (int m = 0; m < nm; ++m) {
        double sum = 0;
        for (int k = 1; k <= p; ++k) sum += op.degree_part[(std::size_t(k - 1) * nm + n) * nm + m];
        EXPECT_NEAR(sum, n == m && n > 0 ? 1.0 : 0.0, 1e-12) << "p = " << p << ", row " << n << ", column " << m;
      }
    for (int trial = 0; trial < 10; ++trial) {
      const double a = unit(rng), b = unit(rng) * (1 - a);  // a point inside the triangle
      const double r = -1 + 2 * a, s = -1 + 2 * b;
      for (int m = 0; m < nm; ++m) {
        double sum = 0;
        for (int k = 0; k <= p; ++k)
          for (int i = 0; i <= k; ++i)
            sum += op.taylor_from_modes[std::size_t(dg::taylor_index(k, i)) * nm + m] * std::pow(r + 1.0 / 3, k - i) *
                   std::pow(s + 1.0 / 3, i);
        EXPECT_NEAR(sum, basis::mode(m, r, s), 1e-11) << "p = " << p << ", mode " << m;
      }
    }
  }
}

/// A polynomial of degree P in x and y per variable, with its derivatives: u_v = sum a[v][i][j] x^i y^j.
template <int P>
struct Polynomial {
  double a[euler::num_vars][P + 1][P + 1] = {};
  explicit Polynomial(std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> coefficient(-1, 1);
    for (auto& v : a)
      for (int i = 0; i <= P; ++i)
        for (int j = 0; i + j <= P; ++j) v[i][j] = coefficient(rng);
    for (int v = 0; v < euler::num_vars; ++v) a[v][0][0] += 4;  // away from zero, like a state
  }
  /// D^(dx, dy) u_v at (x, y).
  double derivative(int v, int dx, int dy, double x, double y) const {
    double sum = 0;
    for (int i = dx; i <= P; ++i)
      for (int j = dy; i + j <= P; ++j) {
        double f = a[v][i][j];
        for (int t = 0; t < dx; ++t) f *= i - t;
        for (int t = 0; t < dy; ++t) f *= j - t;
        sum += f * std::pow(x, i - dx) * std::pow(y, j - dy);
      }
    return sum;
  }
  void operator()(double x, double y, double* out) const {
    for (int v = 0; v < euler::num_vars; ++v) out[v] = derivative(v, 0, 0, x, y);
  }
};

std::array<double, 2> centroid(const Mesh& mesh, index_t e) {
  const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
  return {(mesh.x[v[0]] + mesh.x[v[1]] + mesh.x[v[2]]) / 3, (mesh.y[v[0]] + mesh.y[v[1]] + mesh.y[v[2]]) / 3};
}

template <int P>
void check_taylor_coefficients() {
  const Mesh mesh = test::solver_mesh(6, 2.0, 0.3);
  dg::EulerDG<P, double, euler::Flux::hll, FixedState> solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  const Polynomial<P> u(11 + P);
  solver.project(u);
  const std::vector<double> taylor = solver.taylor_coefficients();
  const index_t n = mesh.num_elements();
  constexpr int nm = basis::num_modes(P);
  for (index_t e = 0; e < n; ++e) {
    const auto [xc, yc] = centroid(mesh, e);
    // Rounding of the coefficients (relative to the size of u, at most 4 + 2^P * 15 here) grows in the k-th
    // derivative like k! times the k-th power of the inverse map: the tolerance follows it.
    const double size_of_u = 4 + std::pow(2.0, P) * 15;
    const index_t* vert = &mesh.element_vertices[mesh.element_vertex_begin[e]];
    const dg::TriangleGeometry g = dg::triangle_geometry({mesh.x[vert[0]], mesh.x[vert[1]], mesh.x[vert[2]]},
                                                         {mesh.y[vert[0]], mesh.y[vert[1]], mesh.y[vert[2]]});
    const double inverse_map = std::max({std::abs(g.dr_dx), std::abs(g.dr_dy), std::abs(g.ds_dx), std::abs(g.ds_dy)});
    for (int v = 0; v < euler::num_vars; ++v) {
      // The cell average, from the projection (mode 0) and from a fine rule on the exact polynomial.
      EXPECT_NEAR(taylor[std::size_t(v * nm) * n + e], solver.solution()[std::size_t(v * nm) * n + e] * dg::mode0_value, 1e-14);
      for (int k = 1; k <= P; ++k)
        for (int i = 0; i <= k; ++i) {
          const double exact = u.derivative(v, k - i, i, xc, yc);
          EXPECT_NEAR(taylor[std::size_t(v * nm + dg::taylor_index(k, i)) * n + e], exact,
                      1e-13 * size_of_u * std::tgamma(k + 1) * std::pow(inverse_map, k))
              << "p = " << P << ", element " << e << ", derivative (" << k - i << ", " << i << ")";
        }
    }
  }
}

TEST(TaylorCoefficients, AreTheExactDerivativesAtTheCentroidOnADistortedMesh) {
  check_taylor_coefficients<1>();
  check_taylor_coefficients<2>();
  check_taylor_coefficients<3>();
  check_taylor_coefficients<5>();
}

/// Elements with no vertex on the boundary (where every vertex is surrounded by elements).
std::vector<bool> interior_elements(const Mesh& mesh) {
  std::vector<bool> boundary_node(mesh.num_nodes(), false);
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element) {
      const index_t l = mesh.face_left[f];
      const int j = mesh.face_left_local[f];
      const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[l]];
      boundary_node[v[j]] = boundary_node[v[(j + 1) % 3]] = true;
    }
  std::vector<bool> interior(mesh.num_elements());
  for (index_t e = 0; e < mesh.num_elements(); ++e) {
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
    interior[e] = !boundary_node[v[0]] && !boundary_node[v[1]] && !boundary_node[v[2]];
  }
  return interior;
}

template <int P>
void check_polynomials_pass(dg::Limiter limiter) {
  // A polynomial of degree P is smooth: its derivatives of order P - 1 are linear, so their reconstructions
  // meet every bound, the top level keeps alpha = 1, and the hierarchy stops there. The vertex limiter needs
  // the vertex inside its neighbours' centroids, so elements touching the boundary are skipped for it.
  const Mesh mesh = test::solver_mesh(8, 1.0, 0.3);
  dg::EulerDG<P, double, euler::Flux::hll, FixedState> solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  solver.project(Polynomial<P>(7 * P));
  std::vector<double> c = solver.solution();
  solver.set_limiter(limiter, 1.0, false);  // every element: the limiter itself, not the indicator
  solver.limit_slopes(c);
  const std::vector<bool> interior = interior_elements(mesh);
  const index_t n = mesh.num_elements();
  int checked = 0;
  for (index_t e = 0; e < n; ++e) {
    if (limiter == dg::Limiter::vertex && !interior[e]) continue;
    ++checked;
    for (std::size_t vm = 0; vm < c.size() / n; ++vm)
      EXPECT_NEAR(c[vm * n + e], solver.solution()[vm * n + e], 1e-12 * (1 + std::abs(solver.solution()[vm * n + e])))
          << dg::limiters[int(limiter)].name << ", p = " << P << ", element " << e;
  }
  EXPECT_GT(checked, n / 3);
}

TEST(SlopeLimiters, LeaveAPolynomialOfTheSchemesDegreeAlone) {
  for (const dg::Limiter limiter : {dg::Limiter::vertex, dg::Limiter::moment}) {
    check_polynomials_pass<1>(limiter);
    check_polynomials_pass<2>(limiter);
    check_polynomials_pass<3>(limiter);
    check_polynomials_pass<4>(limiter);
  }
}

/// Random p = 1 coefficients with cell averages near 1: rough data that both limiters must change.
std::vector<double> rough_linear_state(index_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mean(0.5, 1.5), slope(-1, 1);
  std::vector<double> c(std::size_t(euler::num_vars) * 3 * n);
  for (int v = 0; v < euler::num_vars; ++v)
    for (index_t e = 0; e < n; ++e) {
      c[(std::size_t(v) * 3) * n + e] = mean(rng) / dg::mode0_value;
      for (int m = 1; m < 3; ++m) c[(std::size_t(v) * 3 + m) * n + e] = slope(rng);
    }
  return c;
}

/// u at reference vertex j (r, s) = (-1, -1), (1, -1), (-1, 1) of element e, p = 1.
double vertex_value(const std::vector<double>& c, index_t n, int v, index_t e, int j) {
  const double r[3] = {-1, 1, -1}, s[3] = {-1, -1, 1};
  double sum = 0;
  for (int m = 0; m < 3; ++m) sum += c[(std::size_t(v) * 3 + m) * n + e] * basis::mode(m, r[j], s[j]);
  return sum;
}

TEST(VertexLimiter, PutsEveryVertexValueWithinTheAveragesAroundThatVertex) {
  // Kuzmin's bound at p = 1: after limiting, the solution at each vertex of each element lies between the
  // smallest and largest cell average of the elements sharing that vertex; the averages do not change.
  const Mesh mesh = test::solver_mesh(10, 1.0, 0.3);
  const index_t n = mesh.num_elements();
  Solver1 solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  const std::vector<double> rough = rough_linear_state(n, 5);
  std::vector<double> c = rough;
  solver.set_limiter(dg::Limiter::vertex, 2, false);
  solver.limit_slopes(c);
  std::vector<double> lo(std::size_t(euler::num_vars) * mesh.num_nodes(), 1e300), hi(lo.size(), -1e300);
  for (int v = 0; v < euler::num_vars; ++v)
    for (index_t e = 0; e < n; ++e)
      for (index_t k = mesh.element_vertex_begin[e]; k < mesh.element_vertex_begin[e + 1]; ++k) {
        const std::size_t i = std::size_t(v) * mesh.num_nodes() + mesh.element_vertices[k];
        const double mean = rough[(std::size_t(v) * 3) * n + e] * dg::mode0_value;
        lo[i] = std::min(lo[i], mean);
        hi[i] = std::max(hi[i], mean);
      }
  int changed = 0;
  for (int v = 0; v < euler::num_vars; ++v)
    for (index_t e = 0; e < n; ++e) {
      EXPECT_EQ(c[(std::size_t(v) * 3) * n + e], rough[(std::size_t(v) * 3) * n + e]);
      changed += c[(std::size_t(v) * 3 + 1) * n + e] != rough[(std::size_t(v) * 3 + 1) * n + e];
      for (int j = 0; j < 3; ++j) {
        const std::size_t i = std::size_t(v) * mesh.num_nodes() + mesh.element_vertices[mesh.element_vertex_begin[e] + j];
        const double value = vertex_value(c, n, v, e, j);
        EXPECT_GE(value, lo[i] - 1e-13) << "element " << e << ", vertex " << j;
        EXPECT_LE(value, hi[i] + 1e-13) << "element " << e << ", vertex " << j;
      }
    }
  EXPECT_GT(changed, int(n));  // the data was rough: most slopes had to change
}

/// Limiting the troubled elements only, the limiters compute the Taylor coefficients (and the vertex limiter
/// its bounds) only where those elements read them: around their vertices (TroubledVertices' marks) or their
/// face neighbours. Each troubled element must come out as the limiter of every element leaves it, bit for bit,
/// and every other element untouched.
template <int P>
void expect_troubled_elements_limited_as_by_the_whole_limiter(dg::Limiter limiter) {
  const Mesh mesh = test::solver_mesh(16, 1.0, 0.3);
  const index_t n = mesh.num_elements();
  dg::EulerDG<P, double, euler::Flux::hll, FixedState> solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  solver.project([](double x, double y, double* u) {
    const bool left = x + 0.3 * y < 0.55;  // a shock tube's step across the elements
    euler::conserved(left ? 1.0 : 0.125, 0.2, 0.1 * std::sin(3 * y), left ? 1.0 : 0.1, gamma_air, u);
  });
  const std::vector<double> start = solver.solution();
  const test::TroubledOnlyAgainstWhole result = test::troubled_only_against_whole(solver, limiter, start);
  EXPECT_GT(result.flagged, 0);
  EXPECT_LT(result.flagged, n / 4);  // a band along the step: most elements and vertices are left out
  EXPECT_EQ(result.differ, 0) << "p = " << P << ", " << (limiter == dg::Limiter::vertex ? "vertex" : "moment");
  EXPECT_TRUE(result.changed);  // the limiter did change slopes
}

TEST(SlopeLimiters, OfTheTroubledElementsGiveThemWhatTheWholeLimiterGives) {
  for (const dg::Limiter limiter : {dg::Limiter::vertex, dg::Limiter::moment}) {
    expect_troubled_elements_limited_as_by_the_whole_limiter<1>(limiter);
    expect_troubled_elements_limited_as_by_the_whole_limiter<2>(limiter);
  }
}

TEST(MomentLimiter, BoundsEachSlopeByTheDifferencesToItsNeighbours) {
  // The minmod property at p = 1: along the direction to each face neighbour, the limited slope has the sign
  // of the difference of the averages and at most theta times its size; the averages do not change.
  const Mesh mesh = test::solver_mesh(10, 1.0, 0.3);
  const index_t n = mesh.num_elements();
  Solver1 solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  for (const double theta : {1.0, 2.0}) {
    const std::vector<double> rough = rough_linear_state(n, 9);
    std::vector<double> c = rough;
    solver.set_limiter(dg::Limiter::moment, theta, false);
    solver.limit_slopes(c);
    solver.set_solution(c);
    const std::vector<double> taylor = solver.taylor_coefficients();  // of the limited state
    int limited = 0;
    for (index_t f = 0; f < mesh.num_faces(); ++f) {
      const index_t l = mesh.face_left[f], r = mesh.face_right[f];
      if (r == no_element) continue;
      const auto cl = centroid(mesh, l), cr = centroid(mesh, r);
      for (int v = 0; v < euler::num_vars; ++v) {
        for (const auto& [e, sign] : {std::pair{l, 1.0}, std::pair{r, -1.0}}) {
          // Seen from e: the neighbour's average minus its own, and its slope toward the neighbour.
          const double difference = sign * (taylor[std::size_t(v * 3) * n + r] - taylor[std::size_t(v * 3) * n + l]);
          const double slope = sign * (taylor[std::size_t(v * 3 + 1) * n + e] * (cr[0] - cl[0]) +
                                       taylor[std::size_t(v * 3 + 2) * n + e] * (cr[1] - cl[1]));
          EXPECT_GE(slope * difference, -1e-13) << "face " << f;
          EXPECT_LE(std::abs(slope), theta * std::abs(difference) + 1e-13) << "face " << f;
          // Set to zero by the limiter; converted to Taylor form, zero up to rounding (which differs with FMA).
          limited += std::abs(taylor[std::size_t(v * 3 + 1) * n + e]) < 1e-13;
        }
      }
    }
    EXPECT_GT(limited, 0);
    for (std::size_t i = 0; i < std::size_t(euler::num_vars); ++i)
      for (index_t e = 0; e < n; ++e) EXPECT_EQ(c[i * 3 * n + e], rough[i * 3 * n + e]);
  }
}

template <int P>
double largest_vertex_overshoot(const dg::EulerDG<P, double, euler::Flux::hll, FixedState>& solver, index_t n) {
  // The largest density at an element vertex above 1 (the step's upper state), p = P.
  const double r[3] = {-1, 1, -1}, s[3] = {-1, -1, 1};
  constexpr int nm = basis::num_modes(P);
  double worst = 0;
  for (index_t e = 0; e < n; ++e)
    for (int j = 0; j < 3; ++j) {
      double value = 0;
      for (int m = 0; m < nm; ++m) value += solver.solution()[std::size_t(m) * n + e] * basis::mode(m, r[j], s[j]);
      worst = std::max(worst, value - 1);
    }
  return worst;
}

template <int P>
void check_step_overshoot(dg::Limiter limiter) {
  // A density step along a line that cuts elements: the projection overshoots at vertices next to it; the
  // limiters remove nearly all of that (the bounds hold strictly at p = 1; at higher p the top level cuts).
  const Mesh mesh = test::solver_mesh(12, 1.0, 0.3);
  dg::EulerDG<P, double, euler::Flux::hll, FixedState> solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  solver.project([](double x, double y, double* out) { euler::conserved(x + 0.3 * y < 0.61 ? 1.0 : 0.2, 0.0, 0.0, 1.0, gamma_air, out); });
  const double before = largest_vertex_overshoot(solver, mesh.num_elements());
  std::vector<double> c = solver.solution();
  solver.set_limiter(limiter, 1.0, false);  // every element: the limiter itself, not the indicator
  solver.limit_slopes(c);
  solver.set_solution(c);
  const double after = largest_vertex_overshoot(solver, mesh.num_elements());
  std::printf("%s limiter, p = %d: largest vertex overshoot of a density step %.3e before, %.3e after\n",
              std::string(dg::limiters[int(limiter)].name).c_str(), P, before, after);
  EXPECT_GT(before, 0.5);
  if (limiter == dg::Limiter::vertex && P <= 2) {
    EXPECT_LT(after, 1e-13) << "p = " << P;  // within the vertex bounds, to round-off
  } else if (limiter == dg::Limiter::vertex) {
    // At p >= 3 the top-level derivatives of a step lie within their neighbours' bounds (all of them are
    // large near the step), so Kuzmin's hierarchy stops at alpha = 1 and leaves the step as projected.
    EXPECT_EQ(after, before) << "p = " << P;
  } else {
    // Directional minmod bounds the slopes toward the neighbours' centroids, not the vertex values: a
    // fourfold reduction, measured 4.4, 4.0 and 6.8 at p = 1, 2, 3.
    EXPECT_LT(after, 0.3 * before) << "p = " << P;
  }
}

TEST(SlopeLimiters, RemoveTheOvershootOfAStep) {
  for (const dg::Limiter limiter : {dg::Limiter::vertex, dg::Limiter::moment}) {
    check_step_overshoot<1>(limiter);
    check_step_overshoot<2>(limiter);
    check_step_overshoot<3>(limiter);
  }
}

TEST(SlopeLimiters, UnknownNamesAndImpossibleParametersAreClearErrors) {
  EXPECT_EQ(dg::limiter_from_name("moment"), dg::Limiter::moment);
  EXPECT_THAT([] { dg::limiter_from_name("vertx"); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("did you mean 'vertex'")));
  const Mesh mesh = test::solver_mesh(2, 1.0, 0.0);
  Solver1 solver(mesh, gamma_air, FixedState{}, dg::Strategy::colored);
  EXPECT_THAT([&] { solver.set_limiter(dg::Limiter::moment, 2.5); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("expected a value in [1, 2]")));
}

}  // namespace
}  // namespace kempe
