// Quadrature rules (see quadrature.hpp).
#include "kernels/quadrature.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace kempe::quad {

Rule gauss_legendre(int n) {
  if (n < 1) throw std::invalid_argument("Gauss-Legendre rule with " + std::to_string(n) + " points: need at least 1");
  Rule rule;
  rule.degree = 2 * n - 1;
  rule.r.resize(n);
  rule.w.resize(n);
  for (int i = 0; i < (n + 1) / 2; ++i) {
    // Chebyshev-like first guess of the i-th root from the right, then Newton on P_n.
    double x = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5));
    double derivative = 0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1, p1 = x;  // P_0, P_1; the three-term recurrence up to P_n
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = n * (x * p1 - p0) / (x * x - 1);  // P_n'(x) from P_n and P_{n-1}
      const double step = p1 / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) break;
    }
    const double weight = 2 / ((1 - x * x) * derivative * derivative);
    rule.r[i] = x;
    rule.r[n - 1 - i] = -x;
    rule.w[i] = rule.w[n - 1 - i] = weight;
  }
  if (n % 2 == 1) rule.r[n / 2] = 0;  // exactly
  return rule;
}

namespace {

/// A symmetry orbit of the triangle in barycentric coordinates: the centroid (1 point), (a, a, 1 - 2a) and
/// its rotations (3 points), or (a, b, 1 - a - b) and its permutations (6 points). Weights are fractions of
/// the area, for each point of the orbit.
enum class Orbit { s3, s21, s111 };
struct OrbitWeight {
  Orbit orbit;
  double a, b, weight;
};
struct TriangleTable {
  int degree;
  std::vector<OrbitWeight> orbits;
};

// Witherden & Vincent, "On the identification of symmetric quadrature rules for finite element methods",
// Computers & Mathematics with Applications 69 (2015) 1232-1241: the triangle rules of degree 1, 4, 5, 7, 9
// and 11, written as orbits (the published points converted to barycentric coordinates, 20 digits).
const std::vector<TriangleTable>& triangle_tables() {
  static const std::vector<TriangleTable> tables = {
      {1, {{Orbit::s3, 0, 0, 1.0}}},
      {4,
       {{Orbit::s21, 4.45948490915964886318e-1, 0, 2.23381589678011465695e-1},
        {Orbit::s21, 9.15762135097707434596e-2, 0, 1.09951743655321867638e-1}}},
      {5,
       {{Orbit::s3, 0, 0, 2.25e-1},
        {Orbit::s21, 1.01286507323456338801e-1, 0, 1.25939180544827152596e-1},
        {Orbit::s21, 4.70142064105115089770e-1, 0, 1.32394152788506180738e-1}}},
      {7,
       {{Orbit::s21, 3.37306485545878487150e-2, 0, 1.65450501107921310360e-2},
        {Orbit::s21, 2.41577382595403558950e-1, 0, 1.27944171230155572783e-1},
        {Orbit::s21, 4.74309692504718234210e-1, 0, 7.70866461859860678348e-2},
        {Orbit::s111, 4.70366446525952333414e-2, 7.54280040550053177356e-1, 5.58787329031997808398e-2}}},
      {9,
       {{Orbit::s3, 0, 0, 9.71357962827988338192e-2},
        {Orbit::s21, 4.37089591492936637270e-1, 0, 7.78275410047742793167e-2},
        {Orbit::s21, 1.88203535619032730241e-1, 0, 7.96477389272102530329e-2},
        {Orbit::s21, 4.89682519198737627784e-1, 0, 3.13347002271390705369e-2},
        {Orbit::s21, 4.47295133944527098651e-2, 0, 2.55776756586980312617e-2},
        {Orbit::s111, 3.68384120547362836348e-2, 7.41198598784498020690e-1, 4.32835393772893772894e-2}}},
      {11,
       {{Orbit::s3, 0, 0, 8.57611797322242171382e-2},
        {Orbit::s21, 2.84854176143719094798e-2, 0, 1.04318705128946958730e-2},
        {Orbit::s21, 2.10219956703178257008e-1, 0, 7.05156841117165783421e-2},
        {Orbit::s21, 1.02635482712246430449e-1, 0, 3.86307592370193224766e-2},
        {Orbit::s21, 4.95891900965890913065e-1, 0, 1.66062730545853695764e-2},
        {Orbit::s21, 4.38465926764352191023e-1, 0, 6.73161540794683011978e-2},
        {Orbit::s111, 1.49324788652082386196e-1, 8.43349783661853162199e-1, 1.02902895729532774931e-2},
        {Orbit::s111, 4.60105001654299558900e-2, 6.64408374196864197404e-1, 4.03324766405005525842e-2}}},
  };
  return tables;
}

}  // namespace

Rule triangle_rule(int degree) {
  if (degree < 0 || degree > max_triangle_degree)
    throw std::invalid_argument("triangle quadrature of degree " + std::to_string(degree) + ": available 0.." +
                                std::to_string(max_triangle_degree));
  for (const TriangleTable& table : triangle_tables()) {
    if (table.degree < degree) continue;
    Rule rule;
    rule.degree = table.degree;
    // Barycentric (l1, l2, l3) -> reference (r, s) = (-1, -1) l1 + (1, -1) l2 + (-1, 1) l3; area 2.
    auto add = [&](double l1, double l2, double l3, double weight) {
      rule.r.push_back(-l1 + l2 - l3);
      rule.s.push_back(-l1 - l2 + l3);
      rule.w.push_back(2 * weight);
    };
    for (const OrbitWeight& o : table.orbits) {
      const double a = o.a, b = o.b;
      switch (o.orbit) {
        case Orbit::s3: add(1.0 / 3, 1.0 / 3, 1.0 / 3, o.weight); break;
        case Orbit::s21:
          add(a, a, 1 - 2 * a, o.weight);
          add(a, 1 - 2 * a, a, o.weight);
          add(1 - 2 * a, a, a, o.weight);
          break;
        case Orbit::s111: {
          const double c = 1 - a - b;
          add(a, b, c, o.weight);
          add(a, c, b, o.weight);
          add(b, a, c, o.weight);
          add(b, c, a, o.weight);
          add(c, a, b, o.weight);
          add(c, b, a, o.weight);
          break;
        }
      }
    }
    return rule;
  }
  throw std::logic_error("triangle quadrature tables out of order");
}

}  // namespace kempe::quad
