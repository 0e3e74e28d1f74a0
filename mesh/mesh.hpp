// The mesh in structure-of-arrays form: nodes, elements, faces and their geometry.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/types.hpp"
#include "mesh/element.hpp"

namespace kempe {

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

/// What the rows of a Mesh array are, for the code that treats every array alike (the .kmesh reader and writer,
/// orderings, periodic joins): a field added to Mesh::for_each_array is read, written and reordered with no more.
enum class MeshRows : std::uint8_t { nodes, elements, faces, other };
enum class MeshArrayKind : std::uint8_t {
  plain,     ///< a value per row (or `width` values): a renumbering moves it with its row
  oriented,  ///< per face, tied to which element is on the left (sides, local indices, vertices, normals)
  optional,  ///< absent (empty) until a coloring and an ordering have been applied; written only when present
  other,     ///< offsets and lists of the element-to-vertex and element-to-face tables, boundary names
};
struct MeshArray {
  const char* name;  ///< the .kmesh section name
  MeshRows rows;
  MeshArrayKind kind;
  int width = 1;  ///< values per row
};

/// A processed mesh. As built, faces are numbered in order of first appearance (element by element, local face
/// by local face); after an ordering (coloring/reorder.hpp) they are grouped by color. Always, the left element
/// of a face is the lower-numbered one and its normal points out of the left element.
struct Mesh {
  std::string source;  ///< the name every message uses: the file read (or the generator)
  /// The file (or generator) the mesh was first built from, which a .kmesh keeps through reads and writes;
  /// empty where that is `source` itself.
  std::string origin;
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

  // An adapted mesh over this one (adapt/forest.hpp; written by kempe adapt --save, empty otherwise): its leaves
  // in storage order, each a triangle of this mesh refined `leaf_level` times along `leaf_path`.
  std::vector<index_t> leaf_root;        ///< [leaves] the start triangle the leaf lies in
  std::vector<std::int64_t> leaf_path;   ///< [leaves] child number at level l in bits 2l-2 and 2l-1
  std::vector<std::int8_t> leaf_level;   ///< [leaves]

  MeshReport report;

  index_t num_nodes() const { return static_cast<index_t>(x.size()); }
  index_t num_elements() const { return static_cast<index_t>(element_type.size()); }
  index_t num_faces() const { return static_cast<index_t>(face_left.size()); }
  /// Number of rows of the given kind (0 for MeshRows::other).
  index_t num_rows(MeshRows rows) const {
    return rows == MeshRows::nodes ? num_nodes() : rows == MeshRows::elements ? num_elements() : rows == MeshRows::faces ? num_faces() : 0;
  }

  /// Every array of the mesh, once, in .kmesh order: visit(const MeshArray&, std::vector<T>&).
  template <class Visit>
  void for_each_array(Visit&& visit) { visit_arrays(*this, visit); }
  template <class Visit>
  void for_each_array(Visit&& visit) const { visit_arrays(*this, visit); }

  int element_num_faces(index_t e) const { return element_face_begin[e + 1] - element_face_begin[e]; }
  /// The largest face count of any element: the fewest colors a face coloring can use.
  int max_faces_per_element() const;
  index_t num_boundary_faces() const;

 private:
  template <class Self, class Visit>
  static void visit_arrays(Self& m, Visit& visit) {
    using R = MeshRows;
    using K = MeshArrayKind;
    visit(MeshArray{"x", R::nodes, K::plain}, m.x);
    visit(MeshArray{"y", R::nodes, K::plain}, m.y);
    visit(MeshArray{"z", R::nodes, K::plain}, m.z);
    visit(MeshArray{"node_tag", R::nodes, K::plain}, m.node_tag);
    visit(MeshArray{"element_type", R::elements, K::plain}, m.element_type);
    visit(MeshArray{"element_vertex_begin", R::other, K::other}, m.element_vertex_begin);
    visit(MeshArray{"element_vertices", R::other, K::other}, m.element_vertices);
    visit(MeshArray{"element_face_begin", R::other, K::other}, m.element_face_begin);
    visit(MeshArray{"element_faces", R::other, K::other}, m.element_faces);
    visit(MeshArray{"element_tag", R::elements, K::plain}, m.element_tag);
    visit(MeshArray{"volume", R::elements, K::plain}, m.volume);
    visit(MeshArray{"centroid_x", R::elements, K::plain}, m.centroid_x);
    visit(MeshArray{"centroid_y", R::elements, K::plain}, m.centroid_y);
    visit(MeshArray{"centroid_z", R::elements, K::plain}, m.centroid_z);
    visit(MeshArray{"face_left", R::faces, K::oriented}, m.face_left);
    visit(MeshArray{"face_right", R::faces, K::oriented}, m.face_right);
    visit(MeshArray{"face_left_local", R::faces, K::oriented}, m.face_left_local);
    visit(MeshArray{"face_right_local", R::faces, K::oriented}, m.face_right_local);
    visit(MeshArray{"face_num_vertices", R::faces, K::plain}, m.face_num_vertices);
    visit(MeshArray{"face_vertices", R::faces, K::oriented, max_face_vertices}, m.face_vertices);
    visit(MeshArray{"face_area", R::faces, K::plain}, m.face_area);
    visit(MeshArray{"normal_x", R::faces, K::oriented}, m.normal_x);
    visit(MeshArray{"normal_y", R::faces, K::oriented}, m.normal_y);
    visit(MeshArray{"normal_z", R::faces, K::oriented}, m.normal_z);
    visit(MeshArray{"face_boundary", R::faces, K::plain}, m.face_boundary);
    visit(MeshArray{"boundary_names", R::other, K::other}, m.boundary_names);
    visit(MeshArray{"face_color", R::faces, K::optional}, m.face_color);
    visit(MeshArray{"color_begin", R::other, K::optional}, m.color_begin);
    visit(MeshArray{"element_input", R::elements, K::optional}, m.element_input);
    visit(MeshArray{"face_input", R::faces, K::optional}, m.face_input);
    visit(MeshArray{"leaf_root", R::other, K::optional}, m.leaf_root);
    visit(MeshArray{"leaf_path", R::other, K::optional}, m.leaf_path);
    visit(MeshArray{"leaf_level", R::other, K::optional}, m.leaf_level);
  }
};

/// Checks a raw mesh and builds connectivity and geometry. Throws MeshError for an empty mesh, dangling node
/// references, duplicate elements, zero-volume or tangled elements and non-manifold faces; mirrors negatively
/// oriented elements (counted in report.flipped_elements); orients surface meshes consistently where possible.
Mesh build_mesh(RawMesh raw);

/// Recomputes volumes, centroids, face areas and normals from the nodes and connectivity.
void compute_geometry(Mesh& mesh);

}  // namespace kempe
