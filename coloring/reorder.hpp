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
  /// ordering decides. Throws std::invalid_argument when the coloring does not fit the mesh.
  Permutation (*compute)(const Mesh&, const FaceColoring&);
};

/// as_read (elements as read, faces grouped by color in input order), color_renumber (Alg. 5 of the coloring
/// paper: the k-th face of color 0 gets left element k and its right element, if any, the next number from N0 up
/// (N0 + k on a mesh without boundary faces of color 0); elements it misses follow in input order), rcm (reverse
/// Cuthill-McKee on the element graph through interior faces, from a George-Liu pseudo-peripheral start in each
/// connected component, neighbours by increasing degree), hilbert (elements along a Hilbert curve of their
/// centroids: 2D on a 2^32 grid for planar meshes, 3D on a 2^21 grid otherwise, cubic cells scaled to the
/// bounding box's longest side). Except in as_read, the faces of each color are sorted by new left element (the
/// lower one; unique within a color, so no ties arise in a valid coloring). O(n log n) at worst.
const std::vector<Ordering>& orderings();
const Ordering& find_ordering(std::string_view name);  ///< throws std::invalid_argument naming the known ones

/// Applies a permutation to the mesh and the coloring: renumbers every element and face array, keeps
/// face_left < face_right (swapping sides, negating the normal and reversing the face's vertices where
/// needed), stores the colors in mesh.face_color with contiguous ranges mesh.color_begin, and records the
/// input numbering in mesh.element_input / mesh.face_input (composed with any earlier ordering, so they always
/// refer to the numbering before the first one). A swapped face takes its vertices in the new left element's
/// face order (the old order reversed, up to a cyclic shift); surfaces in 3D get their conormals recomputed.
/// Throws std::invalid_argument, leaving mesh and coloring unchanged, when the permutation is not a bijection
/// of the right sizes, does not group the faces by color, or the coloring does not fit the mesh.
void apply_ordering(Mesh& mesh, FaceColoring& coloring, const Permutation& permutation);

/// Access-pattern metrics of the current numbering.
struct OrderingMetrics {
  index_t bandwidth = 0;         ///< max |left - right| over interior faces (de la Asunción, Mantas & Castro, CMMSE 2012, Table 3)
  std::int64_t profile = 0;      ///< sum over elements of (element - lowest neighbour), 0 when none is lower
  /// Fraction of faces f > 0 whose left element's 8-byte value lies in the same 128-byte segment as face f-1's
  /// (left[f] / 16 == left[f-1] / 16): a coalescing score of the face loop's reads. coalesced_right is the same
  /// over the sequence of interior faces only (boundary faces have no right element). 0 with fewer than two.
  double coalesced_left = 0;
  double coalesced_right = 0;
};
OrderingMetrics ordering_metrics(const Mesh& mesh);

}  // namespace kempe
