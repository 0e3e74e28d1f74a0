// Point functions for element and face geometry (host only for now; the kernels get their own copies of
// the per-element factors they need, computed from these).
#pragma once

#include <array>
#include <cmath>

namespace kempe::geom {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};
inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline double norm(Vec3 a) { return std::sqrt(dot(a, a)); }

/// Vector area of a planar or bilinear face given counter-clockwise (seen from the side it points to):
/// for a triangle half the cross product of two edges; for a quadrilateral half the cross product of the
/// diagonals, which is the exact integral of the normal over a bilinear patch.
inline Vec3 face_vector_area(const Vec3* v, int n) {
  if (n == 3) return 0.5 * cross(v[1] - v[0], v[2] - v[0]);
  return 0.5 * cross(v[2] - v[0], v[3] - v[1]);
}

}  // namespace kempe::geom
