// Element renumbering and face reordering for coalesced memory access, applied once at start-up.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "coloring/coloring.hpp"
#include "mesh/mesh.hpp"

namespace kempe {

/// A renumbering of elements and faces: new index of each old one.
struct Permutation {
  std::vector<index_t> element_new;  ///< [elements] new index of element e
  std::vector<index_t> face_new;     ///< [faces] new index of face f
};

struct Ordering {
  std::string_view name;
  std::string_view description;
  /// Computes the permutation. Faces always end up grouped by color (color 0 first); within a color the
  /// ordering decides.
  Permutation (*compute)(const Mesh&, const FaceColoring&);
};

/// as_read, color_renumber (Alg. 5 of the coloring paper), rcm (reverse Cuthill-McKee), hilbert.
const std::vector<Ordering>& orderings();
const Ordering& find_ordering(std::string_view name);  ///< throws std::invalid_argument naming the known ones

/// Applies a permutation to the mesh and the coloring: renumbers every element and face array, keeps
/// face_left < face_right (swapping sides, negating the normal and reversing the face's vertices where
/// needed), stores the colors in mesh.face_color with contiguous ranges mesh.color_begin, and records the
/// input numbering in mesh.element_input / mesh.face_input.
void apply_ordering(Mesh& mesh, FaceColoring& coloring, const Permutation& permutation);

/// Access-pattern metrics of the current numbering.
struct OrderingMetrics {
  index_t bandwidth = 0;         ///< max |left - right| over interior faces (paper 002, Table 3)
  std::int64_t profile = 0;      ///< sum over elements of (element - lowest neighbour), 0 when none is lower
  /// Fraction of faces whose left (right) element's 8-byte value lies in the same 128-byte segment as the
  /// previous face's: a coalescing score of the face loop's reads. Boundary faces count for left only.
  double coalesced_left = 0;
  double coalesced_right = 0;
};
OrderingMetrics ordering_metrics(const Mesh& mesh);

}  // namespace kempe
