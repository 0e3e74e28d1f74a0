// First-order element types, their vertices and their faces, in Gmsh's node ordering.
// Face vertex lists are ordered so that the right-hand rule gives the outward normal of a positively
// oriented element (counter-clockwise seen from outside); edges of 2D elements run counter-clockwise.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kempe {

enum class ElementType : std::uint8_t { triangle = 0, quadrilateral, tetrahedron, hexahedron, prism, pyramid };
inline constexpr int num_element_types = 6;

/// The vertices of one face of the reference element (2 for an edge of a 2D element, 3 or 4 in 3D).
struct FaceDef {
  int num_vertices;
  std::array<int, 4> vertices;
};

struct ElementInfo {
  std::string_view name;  ///< lower-case name used in reports and JSON ("triangle", ...)
  int dim;                ///< topological dimension
  int num_vertices;
  int num_faces;
  std::array<FaceDef, 6> faces;
  int gmsh_type;  ///< Gmsh element type number of the first-order element
  /// Vertex permutation that mirrors the element (turns a negatively oriented element positive).
  std::array<int, 8> mirror;
};

inline constexpr std::array<ElementInfo, num_element_types> element_infos = {{
    {"triangle", 2, 3, 3, {{{2, {0, 1}}, {2, {1, 2}}, {2, {2, 0}}}}, 2, {0, 2, 1}},
    {"quadrilateral", 2, 4, 4, {{{2, {0, 1}}, {2, {1, 2}}, {2, {2, 3}}, {2, {3, 0}}}}, 3, {0, 3, 2, 1}},
    {"tetrahedron", 3, 4, 4, {{{3, {0, 2, 1}}, {3, {0, 1, 3}}, {3, {0, 3, 2}}, {3, {1, 2, 3}}}}, 4, {0, 2, 1, 3}},
    {"hexahedron",
     3,
     8,
     6,
     {{{4, {0, 3, 2, 1}}, {4, {0, 1, 5, 4}}, {4, {1, 2, 6, 5}}, {4, {2, 3, 7, 6}}, {4, {3, 0, 4, 7}}, {4, {4, 5, 6, 7}}}},
     5,
     {0, 3, 2, 1, 4, 7, 6, 5}},
    {"prism",
     3,
     6,
     5,
     {{{3, {0, 2, 1}}, {3, {3, 4, 5}}, {4, {0, 1, 4, 3}}, {4, {1, 2, 5, 4}}, {4, {2, 0, 3, 5}}}},
     6,
     {0, 2, 1, 3, 5, 4}},
    {"pyramid",
     3,
     5,
     5,
     {{{4, {0, 3, 2, 1}}, {3, {0, 1, 4}}, {3, {1, 2, 4}}, {3, {2, 3, 4}}, {3, {3, 0, 4}}}},
     7,
     {0, 3, 2, 1, 4}},
}};

constexpr const ElementInfo& element_info(ElementType type) { return element_infos[static_cast<int>(type)]; }

/// The largest number of vertices of any element type and of any face.
inline constexpr int max_element_vertices = 8;
inline constexpr int max_face_vertices = 4;

}  // namespace kempe
