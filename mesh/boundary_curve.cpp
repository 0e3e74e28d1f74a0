// The boundary curve through each boundary face (boundary_curve.hpp): chord-length cubic interpolation of the
// boundary vertices around it.
#include "mesh/boundary_curve.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace kempe {
namespace {

struct Point {
  double x, y;
};

constexpr index_t none = -1;
/// Angles below this count as no bend: round-off of a straight boundary's interpolant, which grows with the
/// coordinates' size over the faces' length (1e-11 for 1e-2 faces at 1e3 from the origin); 1e-9 rad changes
/// no normal measurably.
constexpr double straight = 1e-9;

/// The derivative at t of the Lagrange polynomial through (t[i], p[i]), i < n (n = 2, 3 or 4).
Point lagrange_derivative(const double* t, const Point* p, int n, double at) {
  Point d{0, 0};
  for (int i = 0; i < n; ++i) {
    double weight = 0;  // l_i'(at) = sum over k != i of 1 / (t_i - t_k) * prod over j != i, k of (at - t_j) / (t_i - t_j)
    for (int k = 0; k < n; ++k) {
      if (k == i) continue;
      double term = 1 / (t[i] - t[k]);
      for (int j = 0; j < n; ++j)
        if (j != i && j != k) term *= (at - t[j]) / (t[i] - t[j]);
      weight += term;
    }
    d.x += weight * p[i].x;
    d.y += weight * p[i].y;
  }
  return d;
}

}  // namespace

std::vector<double> boundary_tangent_angles(const Mesh& mesh, double corner_degrees) {
  if (mesh.dim != 2 || mesh.space_dim != 2) return {};
  const index_t nf = mesh.num_faces();
  const double corner_cos = std::cos(corner_degrees * 3.14159265358979323846 / 180);
  // The boundary faces at each vertex (two on a manifold boundary; more where pieces touch at a vertex: then
  // the vertex counts as a corner).
  std::vector<std::array<index_t, 2>> at_vertex(mesh.num_nodes(), {none, none});
  std::vector<std::uint8_t> count(mesh.num_nodes(), 0);
  auto vertex = [&](index_t f, int k) { return mesh.face_vertices[std::size_t(f) * max_face_vertices + k]; };
  for (index_t f = 0; f < nf; ++f) {
    if (mesh.face_right[f] != no_element) continue;
    for (int k = 0; k < 2; ++k) {
      const index_t v = vertex(f, k);
      if (count[v] < 2) at_vertex[v][count[v]] = f;
      if (count[v] < 255) ++count[v];
    }
  }
  auto point = [&](index_t v) { return Point{mesh.x[v], mesh.y[v]}; };
  // The boundary vertex beyond v on the side away from face f, or none at a corner, a group change or an end.
  auto beyond = [&](index_t f, index_t v, index_t other_end) -> index_t {
    if (count[v] != 2) return none;
    const index_t g = at_vertex[v][0] == f ? at_vertex[v][1] : at_vertex[v][0];
    if (mesh.face_boundary[g] != mesh.face_boundary[f]) return none;
    const index_t w = vertex(g, 0) == v ? vertex(g, 1) : vertex(g, 0);
    const Point a = point(w), b = point(v), c = point(other_end);
    const double ux = b.x - a.x, uy = b.y - a.y, vx = c.x - b.x, vy = c.y - b.y;
    const double turn_cos = (ux * vx + uy * vy) / (std::hypot(ux, uy) * std::hypot(vx, vy));
    return turn_cos >= corner_cos ? w : none;
  };
  std::vector<double> angles(std::size_t(nf) * 3, 0.0);
  bool bends = false;
  for (index_t f = 0; f < nf; ++f) {
    if (mesh.face_right[f] != no_element) continue;
    const index_t a = vertex(f, 0), b = vertex(f, 1);
    const index_t before = beyond(f, a, b), after = beyond(f, b, a);
    if (before == none && after == none) continue;  // a straight face between corners
    // Nodes in the cumulative chord length: the face runs from t = 0 (a) to t = length (b).
    const double length = std::hypot(mesh.x[b] - mesh.x[a], mesh.y[b] - mesh.y[a]);
    std::array<double, 4> t{};
    std::array<Point, 4> p{};
    int n = 0;
    if (before != none) {
      t[n] = -std::hypot(mesh.x[a] - mesh.x[before], mesh.y[a] - mesh.y[before]);
      p[n++] = point(before);
    }
    t[n] = 0;
    p[n++] = point(a);
    t[n] = length;
    p[n++] = point(b);
    if (after != none) {
      t[n] = length + std::hypot(mesh.x[after] - mesh.x[b], mesh.y[after] - mesh.y[b]);
      p[n++] = point(after);
    }
    const double dx = (mesh.x[b] - mesh.x[a]) / length, dy = (mesh.y[b] - mesh.y[a]) / length;
    for (int q = 0; q < 3; ++q) {
      const Point d = lagrange_derivative(t.data(), p.data(), n, 0.5 * length * q);
      const double angle = std::atan2(dx * d.y - dy * d.x, dx * d.x + dy * d.y);
      angles[std::size_t(f) * 3 + q] = angle;
      bends = bends || std::abs(angle) > straight;
    }
  }
  if (!bends) return {};
  return angles;
}

}  // namespace kempe
