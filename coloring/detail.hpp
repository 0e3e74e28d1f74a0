// Internals shared by the coloring algorithms (not part of the public interface).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coloring/coloring.hpp"

namespace kempe::detail {

/// An empty slot or no face.
inline constexpr index_t no_face = -1;

/// splitmix64: a small, fast, well-mixed generator; the same seed gives the same coloring on every machine.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  unsigned below(unsigned n) { return static_cast<unsigned>((next() >> 32) * n >> 32); }
  /// A uniformly chosen set bit of a non-zero mask.
  int pick(unsigned mask) {
    unsigned k = below(static_cast<unsigned>(std::popcount(mask)));
    while (k--) mask &= mask - 1;
    return std::countr_zero(mask);
  }

 private:
  std::uint64_t state_;
};

/// The element dual multigraph in a breadth-first numbering of its own: elements in the order a breadth-first
/// search reaches them, faces in the order their first element is reached. Coloring walks chains from element
/// to element; in the file's numbering neighbours can lie anywhere in memory (Rect E: 5.9 s, 3x slower, almost
/// all of it cache misses), in this one they lie close together. Arrays: left, right [faces] (right =
/// no_element for a boundary face's ghost); face_begin [elements + 1] and faces [face slots], CSR of each
/// element's faces (in the element's local face order); mesh_face [faces] and mesh_element [elements] give each
/// face's and element's index in the mesh.
struct DualGraph {
  index_t num_elements = 0, num_faces = 0;
  std::vector<index_t> left, right, face_begin, faces, mesh_face, mesh_element;

  /// `breadth_first` false keeps the mesh's numbering (a plain copy, for algorithms that walk no chains).
  explicit DualGraph(const Mesh& m, bool breadth_first = true);
  /// Colors in the mesh's face numbering.
  std::vector<std::int8_t> to_mesh(const std::vector<std::int8_t>& color) const;
};

/// The registered algorithms that others call: kempe is tait's fallback.
FaceColoring run_kempe(const Mesh& mesh, std::uint64_t seed);
FaceColoring run_tait(const Mesh& mesh, std::uint64_t seed);
/// Empty when every element is a triangle and every face lies between two of them (a closed surface, whose
/// dual is cubic); else what is wrong, for the error message.
std::string not_a_closed_triangle_surface(const Mesh& mesh);

/// Triangle meshes (planar or surfaces, with or without boundary): a 3-coloring of the faces from a vertex
/// 4-coloring (Tait's correspondence, surface.cpp); nothing for other meshes, for periodic ones whose
/// translated nodes the vertex colors do not fit, or when the bounded vertex search does not finish. The
/// classes are not balanced here.
std::optional<FaceColoring> color_triangles_by_vertices(const Mesh& mesh, std::uint64_t seed);

/// The fewest colors possible: the largest face count of any element.
int max_faces(const Mesh& m);
/// A finished coloring: counts its colors and sets the status against the fewest possible.
FaceColoring make_result(const Mesh& m, const char* algorithm, std::vector<std::int8_t> color);

}  // namespace kempe::detail
