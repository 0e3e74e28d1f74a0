// Face coloring: a color per face such that no element has two faces of one color, so that each color's
// surface kernel is race-free (Giuliani & Krivodonova, "Face coloring in unstructured CFD codes", 2017).
// The graph is the element dual graph with faces as edges: boundary faces are pendant edges (their right
// "element" is a ghost with no other face) and two elements may share several faces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mesh/mesh.hpp"

namespace kempe {

enum class ColoringStatus {
  optimal,   ///< as many colors as the largest face count of any element: the fewest possible
  fallback,  ///< one more color (Vizing's bound): the minimum was not reached within the bounded effort
  extra      ///< more colors than that (only on multigraphs where two elements share several faces)
};
std::string_view status_name(ColoringStatus status);

struct FaceColoring {
  std::vector<std::int8_t> color;  ///< [faces] 0 .. num_colors - 1
  int num_colors = 0;
  int target_colors = 0;  ///< the largest face count of any element: the fewest colors possible
  ColoringStatus status = ColoringStatus::optimal;
  std::string algorithm;
  double seconds = 0;  ///< coloring time, excluding the validity check
  // What the `kempe` algorithm met on the way (zero for the others).
  index_t greedy_conflicts = 0;  ///< faces the randomized greedy pass left uncolored
  index_t hard_conflicts = 0;    ///< of those, faces no Kempe-chain interchange could place
  index_t fallback_faces = 0;    ///< faces still uncolored when the effort bound ran out (colored by Misra-Gries)
  /// A triangle mesh colored through a vertex 4-coloring (coloring/surface.cpp); greedy_conflicts
  /// and hard_conflicts then count mesh vertices: those with no free color, those that needed random interchanges.
  bool by_vertices = false;
  std::vector<index_t> faces_per_color() const;
};

struct ColoringOptions {
  std::string algorithm = "kempe";  ///< a name from coloring_algorithms(): kempe, greedy, misra-gries, tait
  std::uint64_t seed = 1;
};

/// One registered coloring algorithm: its name, what it does, and its entry point.
struct ColoringAlgorithm {
  std::string_view name;
  std::string_view description;
  FaceColoring (*run)(const Mesh&, std::uint64_t seed);
  /// Null when the algorithm colors every mesh; else why it cannot color this one, empty when it can (tait:
  /// closed triangle surfaces only). color_faces throws std::invalid_argument with that reason.
  std::string (*cannot_color)(const Mesh&) = nullptr;
};
const std::vector<ColoringAlgorithm>& coloring_algorithms();

/// Colors the faces with the named algorithm and checks the result. Throws std::invalid_argument for an
/// unknown name (listing the known ones) and std::logic_error if the coloring is invalid.
FaceColoring color_faces(const Mesh& mesh, const ColoringOptions& options = {});

/// O(faces) check: every face has a color in range and no element has two faces of one color. Returns an
/// empty string when valid, else a description of the first violation (element, faces, color).
std::string check_coloring(const Mesh& mesh, const std::vector<std::int8_t>& color, int num_colors);

}  // namespace kempe
