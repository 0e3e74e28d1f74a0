#include "kernels/subcell.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/basis.hpp"
#include "kernels/quadrature.hpp"

namespace kempe::dg {

namespace {

using Point = std::array<double, 2>;

double signed_area(const Point& a, const Point& b, const Point& c) {
  return ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2;
}

/// The lattice of order p: node (i, j), i + j <= p, at v0 + (i / p)(v1 - v0) + (j / p)(v2 - v0).
struct Lattice {
  int p;
  int index(int i, int j) const { return j * (p + 1) - j * (j - 1) / 2 + i; }
  Point point(int i, int j) const { return {-1 + 2.0 * i / p, -1 + 2.0 * j / p}; }
};

/// SubcellOperators' hanging-face tables: on each half of a coarse edge, the pieces that the fine face's points
/// (their pieces at the Gauss rule's cumulative weights along the half) and the coarse face's points (the same
/// along the whole edge) cut each other into, as fractions of the coarse edge, ends closer than rounding merged.
void add_hanging_pieces(SubcellOperators& ops) {
  const int p = ops.order, nq = p + 1, slots = subcell_face_slots(p);
  const quad::Rule gauss = quad::gauss_legendre(nq);
  std::vector<int> rank(nq, 0);  // the place of face point q along the edge
  for (int q = 0; q < nq; ++q)
    for (int o = 0; o < nq; ++o) rank[q] += gauss.r[o] < gauss.r[q] ? 1 : 0;
  std::vector<double> cumulative(nq + 1, 0.0);  // the pieces' ends, as fractions of the face
  for (int n = 0; n < nq; ++n)
    for (int q = 0; q < nq; ++q)
      if (rank[q] == n) cumulative[n + 1] = cumulative[n] + gauss.w[q] / 2;
  std::vector<double> lower(nq), upper(nq);  // [points] each one's piece
  for (int q = 0; q < nq; ++q) lower[q] = cumulative[rank[q]], upper[q] = cumulative[rank[q] + 1];
  auto point_at = [&](double t) {  // the face point whose piece holds t (0..1 along the face)
    for (int q = 0; q < nq; ++q)
      if (t >= lower[q] && t < upper[q]) return q;
    throw std::logic_error("subcell_operators: no face point's piece holds " + std::to_string(t));
  };
  constexpr double merge = 1e-12;
  ops.hanging_count.assign(2, 0), ops.hanging_point.assign(2 * slots, 0), ops.hanging_coarse.assign(2 * slots, 0);
  ops.hanging_length.assign(2 * slots, 0.0);
  for (int half = 0; half < 2; ++half) {
    const double from = half / 2.0, to = (half + 1) / 2.0;
    std::vector<double> ends{from, to};
    for (int q = 0; q < nq; ++q) {
      ends.push_back(from + upper[q] / 2);                                // the fine pieces' ends
      if (upper[q] > from + merge && upper[q] < to - merge) ends.push_back(upper[q]);  // the coarse pieces' inside the half
    }
    std::sort(ends.begin(), ends.end());
    std::vector<double> kept{ends.front()};
    for (const double t : ends)
      if (t > kept.back() + merge) kept.push_back(t);
    kept.back() = to;
    const int count = int(kept.size()) - 1;
    if (count > slots)
      throw std::logic_error("subcell_operators: " + std::to_string(count) + " hanging-face pieces at p = " + std::to_string(p) +
                             ", room for " + std::to_string(slots));
    ops.hanging_count[half] = count;
    for (int j = 0; j < count; ++j) {
      const double middle = (kept[j] + kept[j + 1]) / 2;
      ops.hanging_point[half * slots + j] = point_at(2 * middle - half);
      ops.hanging_coarse[half * slots + j] = point_at(middle);
      ops.hanging_length[half * slots + j] = 2 * (kept[j + 1] - kept[j]);
    }
  }
}

}  // namespace

SubcellOperators subcell_operators(int order) {
  if (order < 0 || order > basis::max_order)
    throw std::invalid_argument("subcell_operators: order " + std::to_string(order) + " is not in 0.." + std::to_string(basis::max_order));
  const int p = order, nm = basis::num_modes(p), nq = p + 1;
  SubcellOperators ops;
  ops.order = p, ops.num_cells = nm;
  ops.cell_area.assign(nm, 0.0), ops.cell_r.assign(nm, 0.0), ops.cell_s.assign(nm, 0.0);
  ops.face_point_cell.assign(3 * nq, 0);
  Eigen::MatrixXd integral = Eigen::MatrixXd::Zero(nm, nm);  // (cell, mode): the integral of the mode over the cell
  const quad::Rule rule = quad::triangle_rule(std::max(p, 1));
  auto integrate = [&](int cell, const Point& a, const Point& b, const Point& c) {
    const double area = std::fabs(signed_area(a, b, c));
    ops.cell_area[cell] += area;
    for (int q = 0; q < rule.size(); ++q) {
      const double wa = -(rule.r[q] + rule.s[q]) / 2, wb = (1 + rule.r[q]) / 2, wc = (1 + rule.s[q]) / 2;
      const double r = wa * a[0] + wb * b[0] + wc * c[0], s = wa * a[1] + wb * b[1] + wc * c[1];
      for (int m = 0; m < nm; ++m) integral(cell, m) += rule.w[q] * area / 2 * basis::mode(m, r, s);
    }
  };

  if (p == 0) {
    integrate(0, {-1, -1}, {1, -1}, {-1, 1});
    ops.cell_r[0] = ops.cell_s[0] = -1.0 / 3;
  } else {
    const Lattice lattice{p};
    const Point v[3] = {{-1, -1}, {1, -1}, {-1, 1}};
    // The face's Gauss rule: point q weighs the piece [b_q, b_{q+1}] of the edge (as a fraction of it), b the
    // cumulative weights. Lattice segment n - 1 .. n along a face crosses its dual face at b_n.
    // rank[q]: the place of face point q along the edge (the rule need not list its points in order).
    const quad::Rule gauss = quad::gauss_legendre(nq);
    std::vector<int> rank(nq, 0);
    for (int q = 0; q < nq; ++q)
      for (int o = 0; o < nq; ++o) rank[q] += gauss.r[o] < gauss.r[q] ? 1 : 0;
    std::vector<double> cumulative(nq + 1, 0.0);
    for (int n = 0; n < nq; ++n)
      for (int q = 0; q < nq; ++q)
        if (rank[q] == n) cumulative[n + 1] = cumulative[n] + gauss.w[q] / 2;
    for (int n = 1; n <= p; ++n)  // the separation theorem of Gauss rules: b_n lies between the lattice nodes
      if (!(cumulative[n] > (n - 1.0) / p && cumulative[n] < double(n) / p))
        throw std::logic_error("subcell_operators: a Gauss weight boundary outside its lattice segment at p = " + std::to_string(p));
    // Where the dual face of lattice segment (i0, j0) - (i1, j1) crosses it.
    auto crossing = [&](int i0, int j0, int i1, int j1) -> Point {
      const Point a = lattice.point(i0, j0), b = lattice.point(i1, j1);
      auto along = [&](int face, int n) -> Point {
        const Point& from = v[face];
        const Point& to = v[(face + 1) % 3];
        return {from[0] + cumulative[n] * (to[0] - from[0]), from[1] + cumulative[n] * (to[1] - from[1])};
      };
      if (j0 == 0 && j1 == 0) return along(0, std::max(i0, i1));
      if (i0 + j0 == p && i1 + j1 == p) return along(1, std::max(j0, j1));
      if (i0 == 0 && i1 == 0) return along(2, p - std::min(j0, j1));
      return {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2};
    };
    std::map<std::pair<int, int>, int> dual_face_of;
    std::vector<Point> crossings;  // [dual faces]
    auto sub_triangle = [&](const std::array<std::array<int, 2>, 3>& nodes) {
      Point centroid{0, 0};
      for (const auto& n : nodes) {
        const Point x = lattice.point(n[0], n[1]);
        centroid[0] += x[0] / 3, centroid[1] += x[1] / 3;
      }
      for (int a = 0; a < 3; ++a) {
        const auto& s = nodes[a];
        const auto& t = nodes[(a + 1) % 3];
        const auto& u = nodes[(a + 2) % 3];
        const int cell = lattice.index(s[0], s[1]);
        const Point xs = lattice.point(s[0], s[1]);
        const Point st = crossing(s[0], s[1], t[0], t[1]), su = crossing(s[0], s[1], u[0], u[1]);
        integrate(cell, xs, st, centroid);
        integrate(cell, xs, centroid, su);
        // The dual face of segment s - t in this sub-triangle: centroid to st, normal pointing from s to t.
        const int from = cell, to = lattice.index(t[0], t[1]);
        const Point xt = lattice.point(t[0], t[1]);
        Point normal{st[1] - centroid[1], -(st[0] - centroid[0])};
        if (normal[0] * (xt[0] - xs[0]) + normal[1] * (xt[1] - xs[1]) < 0) normal = {-normal[0], -normal[1]};
        const auto key = std::make_pair(std::min(from, to), std::max(from, to));
        auto [it, fresh] = dual_face_of.emplace(key, ops.num_dual_faces);
        if (fresh) {
          ++ops.num_dual_faces;
          crossings.push_back(st);
          ops.dual_face_cells.insert(ops.dual_face_cells.end(), {key.first, key.second});
          ops.dual_face_normal.insert(ops.dual_face_normal.end(), {0.0, 0.0});
        }
        const double sign = from == key.first ? 1.0 : -1.0;
        ops.dual_face_normal[2 * it->second] += sign * normal[0];
        ops.dual_face_normal[2 * it->second + 1] += sign * normal[1];
      }
    };
    for (int j = 0; j < p; ++j)
      for (int i = 0; i + j < p; ++i) {
        sub_triangle({{{i, j}, {i + 1, j}, {i, j + 1}}});
        if (i + j + 2 <= p) sub_triangle({{{i + 1, j}, {i + 1, j + 1}, {i, j + 1}}});
      }
    for (int j = 0; j <= p; ++j)
      for (int i = 0; i + j <= p; ++i) {
        const Point x = lattice.point(i, j);
        ops.cell_r[lattice.index(i, j)] = x[0], ops.cell_s[lattice.index(i, j)] = x[1];
      }
    ops.dual_face_basis.resize(std::size_t(ops.num_dual_faces) * nm);
    for (int d = 0; d < ops.num_dual_faces; ++d)
      for (int m = 0; m < nm; ++m) ops.dual_face_basis[std::size_t(d) * nm + m] = basis::mode(m, crossings[d][0], crossings[d][1]);
    for (int q = 0; q < nq; ++q) {
      const int n = rank[q];
      ops.face_point_cell[0 * nq + q] = lattice.index(n, 0);
      ops.face_point_cell[1 * nq + q] = lattice.index(p - n, n);
      ops.face_point_cell[2 * nq + q] = lattice.index(0, p - n);
    }
  }

  add_hanging_pieces(ops);

  Eigen::MatrixXd average(nm, nm);
  for (int s = 0; s < nm; ++s) average.row(s) = integral.row(s) / ops.cell_area[s];
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(average);
  if (!lu.isInvertible()) throw std::logic_error("subcell_operators: the subcell averages do not determine the modes at p = " + std::to_string(p));
  const Eigen::MatrixXd inverse = lu.inverse();
  ops.average.resize(std::size_t(nm) * nm), ops.modes_from_averages.resize(std::size_t(nm) * nm);
  for (int i = 0; i < nm; ++i)
    for (int j = 0; j < nm; ++j) {
      ops.average[std::size_t(i) * nm + j] = average(i, j);
      ops.modes_from_averages[std::size_t(i) * nm + j] = inverse(i, j);
    }
  if (ops.num_dual_faces > 0) {
    // The incidence matrix of a connected graph has rank cells - 1, its null space on the cells the constants:
    // the complete orthogonal decomposition gives the least-norm solution, exact for outflows summing to zero.
    Eigen::MatrixXd incidence = Eigen::MatrixXd::Zero(nm, ops.num_dual_faces);
    for (int d = 0; d < ops.num_dual_faces; ++d) {
      incidence(ops.dual_face_cells[2 * d], d) = 1;
      incidence(ops.dual_face_cells[2 * d + 1], d) = -1;
    }
    const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(incidence);
    if (cod.rank() != nm - 1) throw std::logic_error("subcell_operators: the dual faces do not connect the cells at p = " + std::to_string(p));
    const Eigen::MatrixXd pinv = cod.pseudoInverse();
    ops.dual_flux_from_outflow.resize(std::size_t(ops.num_dual_faces) * nm);
    for (int d = 0; d < ops.num_dual_faces; ++d)
      for (int c = 0; c < nm; ++c) ops.dual_flux_from_outflow[std::size_t(d) * nm + c] = pinv(d, c);
  }
  return ops;
}

}  // namespace kempe::dg
