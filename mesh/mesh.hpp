// The mesh in structure-of-arrays form: nodes, elements, faces and their geometry.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "mesh/element.hpp"

namespace kempe {

/// Marks "no element" on the right of a boundary face and "no boundary tag" on an interior face.
inline constexpr index_t no_element = -1;
inline constexpr std::int32_t no_boundary = -1;

/// Every bad mesh input ends in one of these, with a message that names the file and the element or face.
class MeshError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a reader hands over: nodes, the domain elements (the highest dimension present) and the boundary
/// markers (elements of one dimension less that belong to a named group). Indices are 0-based into x/y/z.
struct RawMesh {
  std::string source;  ///< file name (or generator name) used in every message
  int dim = 0;         ///< dimension of the domain elements: 2 or 3

  std::vector<double> x, y, z;           ///< [nodes]
  std::vector<std::int64_t> node_tag;    ///< [nodes] the reader's node numbers, for messages

  std::vector<ElementType> element_type;    ///< [elements]
  std::vector<index_t> element_vertex_begin;  ///< [elements + 1] CSR offsets into element_vertices
  std::vector<index_t> element_vertices;      ///< vertex node indices, Gmsh order
  std::vector<std::int64_t> element_tag;      ///< [elements] the reader's element numbers, for messages

  std::vector<index_t> marker_vertex_begin;  ///< [markers + 1] CSR offsets into marker_vertices
  std::vector<index_t> marker_vertices;      ///< vertex node indices of each boundary marker element
  std::vector<std::int32_t> marker_group;    ///< [markers] index into group_names
  std::vector<std::int64_t> marker_tag;      ///< [markers] the reader's element numbers
  std::vector<std::string> group_names;      ///< boundary group names (Gmsh physical names)

  std::vector<std::string> warnings;  ///< things the user should know that do not stop the run

  index_t num_elements() const { return static_cast<index_t>(element_type.size()); }
  index_t num_nodes() const { return static_cast<index_t>(x.size()); }
  /// Appends one domain element given its vertex node indices.
  void add_element(ElementType type, const index_t* vertices, std::int64_t tag);
  /// Appends one boundary marker (a face given by its vertices) of group `group`.
  void add_marker(const index_t* vertices, int num_vertices, std::int32_t group, std::int64_t tag);
};

/// Counts gathered while building the mesh, for `kempe mesh info` and the logs.
struct MeshReport {
  index_t flipped_elements = 0;         ///< negatively oriented elements that were mirrored
  index_t untagged_boundary_faces = 0;  ///< boundary faces that no group marks (tagged "unassigned")
  index_t interior_markers = 0;         ///< marker elements lying on interior faces (ignored)
  index_t unmatched_markers = 0;        ///< marker elements that are no face of the mesh (ignored)
  index_t unused_nodes = 0;             ///< nodes no element references
  std::vector<std::string> warnings;
  double read_seconds = 0;   ///< time spent reading the file (not saved in .kmesh)
  double build_seconds = 0;  ///< time spent building connectivity and geometry (not saved in .kmesh)
};

/// Name given to boundary faces that no group marks.
inline constexpr const char* unassigned_boundary_name = "unassigned";

/// A processed mesh. As built, faces are numbered in order of first appearance (element by element, local face
/// by local face); after an ordering (coloring/reorder.hpp) they are grouped by color. Always, the left element
/// of a face is the lower-numbered one and its normal points out of the left element.
struct Mesh {
  std::string source;
  int dim = 0;        ///< topological dimension of the elements: 2 or 3
  int space_dim = 0;  ///< 2 for a mesh in the xy plane, 3 for volumes and for surfaces embedded in 3D

  // Nodes.
  std::vector<double> x, y, z;         ///< [nodes]
  std::vector<std::int64_t> node_tag;  ///< [nodes] input numbering

  // Elements.
  std::vector<ElementType> element_type;      ///< [elements]
  std::vector<index_t> element_vertex_begin;  ///< [elements + 1]
  std::vector<index_t> element_vertices;      ///< positively oriented, Gmsh order
  std::vector<index_t> element_face_begin;    ///< [elements + 1]
  std::vector<index_t> element_faces;         ///< face of each local face, local order of element_info
  std::vector<std::int64_t> element_tag;      ///< [elements] input numbering
  std::vector<double> volume;                 ///< [elements] area in 2D
  std::vector<double> centroid_x, centroid_y, centroid_z;  ///< [elements]

  // Faces.
  std::vector<index_t> face_left, face_right;              ///< [faces]; face_right = no_element on the boundary
  std::vector<std::int8_t> face_left_local, face_right_local;  ///< [faces] local face index; -1 when no element
  std::vector<std::int8_t> face_num_vertices;              ///< [faces] 2, 3 or 4
  std::vector<index_t> face_vertices;  ///< [faces][max_face_vertices], in the left element's face order, -1 padded
  std::vector<double> face_area;       ///< [faces] length in 2D
  /// [faces] outward unit normal of the left element (the right element's is its negative; on a surface in 3D
  /// it is the left element's in-plane conormal, which the right element shares only where the surface is flat)
  std::vector<double> normal_x, normal_y, normal_z;
  std::vector<std::int32_t> face_boundary;           ///< [faces] index into boundary_names; no_boundary inside
  std::vector<std::string> boundary_names;

  // Face colors and orderings (empty until a coloring and an ordering have been applied).
  std::vector<std::int8_t> face_color;  ///< [faces] color 0..num_colors-1; faces of one color share no element
  std::vector<index_t> color_begin;     ///< [colors + 1] after reordering, color c holds faces color_begin[c]..[c+1]
  std::vector<index_t> element_input;   ///< [elements] element index as read (before renumbering)
  std::vector<index_t> face_input;      ///< [faces] face index as first built (before reordering)

  MeshReport report;

  index_t num_nodes() const { return static_cast<index_t>(x.size()); }
  index_t num_elements() const { return static_cast<index_t>(element_type.size()); }
  index_t num_faces() const { return static_cast<index_t>(face_left.size()); }
  int element_num_faces(index_t e) const { return element_face_begin[e + 1] - element_face_begin[e]; }
  /// The largest face count of any element: the fewest colors a face coloring can use.
  int max_faces_per_element() const;
  index_t num_boundary_faces() const;
};

/// Checks a raw mesh and builds connectivity and geometry. Throws MeshError for an empty mesh, dangling node
/// references, duplicate elements, zero-volume or tangled elements and non-manifold faces; mirrors negatively
/// oriented elements (counted in report.flipped_elements); orients surface meshes consistently where possible.
Mesh build_mesh(RawMesh raw);

/// Recomputes volumes, centroids, face areas and normals from the nodes and connectivity.
void compute_geometry(Mesh& mesh);

}  // namespace kempe
