// Adaptive refinement of triangle meshes: the start mesh's triangles are the roots of a forest of refinement
// trees, refined isotropically (edge midpoints joined) and coarsened back, with face colors mapped to the
// children without recoloring (Alg. 4 of Giuliani & Krivodonova, "Face coloring in unstructured CFD codes",
// Parallel Computing, 2017). It lives in one backend's memory: every pass of an adaptation is a kernel
// (adapt/forest_K.hpp) through forall, with Thrust's scans and reductions, and only counts come to the host.
//
// Why it is built so:
// - The leaves are stored in the order of their roots, each tree depth first: a refined leaf's four children take
//   its place, a coarsened group's parent takes theirs. Siblings are always adjacent, which makes a group a
//   range, and refining everything and coarsening it back gives the start mesh's numbering.
// - Edges are nodes of binary trees too: a start face or a refined triangle's interior edge is a root, split
//   when a leaf on it refines and merged when the leaves on its halves coarsen. An edge keeps its color while
//   split, so coarsening restores it (the paper's "parent takes its first child's color") without a lookup.
// - Faces are derived from the leaf edges after each adaptation and put in (color, left element) order, as Alg. 5
//   of the paper orders each color. A valid coloring gives each element one face per color, so the key is
//   unique and the order does not depend on how the edges happen to be stored.
// - Why the mapping stays valid: every triangle's three edges have distinct colors modulo K (true of the start
//   mesh; a corner child has halves of two parent edges and an interior edge parallel to the third, the centre
//   child three interior edges), and a split edge's halves have c and c + K. A 1-irregular mesh splits an
//   element's edge at most once, so its faces' colors are distinct among 2K. The check runs after every
//   adaptation all the same.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adapt/forest_K.hpp"
#include "kernels/buffer.hpp"
#include "mesh/mesh.hpp"

namespace kempe::adapt {

/// The largest refinement level: 2 bits per level of the tree path in 64 bits, and far beyond any memory.
inline constexpr int max_level_limit = 30;

/// What an adaptation checks. `colors`: every leaf's faces have distinct colors below 2K, as start-up checks a
/// coloring (O(elements), reading each leaf's edges; CheckColors). `full`: also that the faces cover every leaf
/// edge once from each side and name the right leaves, local edges and halves, and that neighbours differ by at
/// most one level (O(faces); CheckElement, CheckFace). Both count failures; neither changes the mesh.
enum class Check { colors, full };

/// What one adaptation did, and what the check found.
struct AdaptReport {
  index_t elements = 0, faces = 0, hanging_faces = 0, nodes = 0, edges = 0;
  int min_level = 0, max_level = 0;
  int colors = 0;                    ///< colors with at least one face
  std::vector<index_t> color_begin;  ///< [2K + 1]
  std::int64_t failures = 0;         ///< what the check found (0 for a valid mesh)
  Check checked = Check::full;       ///< which check ran
  bool valid() const { return failures == 0; }
  int balance_passes = 0;  ///< 2:1 balance passes until nothing changed
  index_t refined = 0, coarsened = 0;  ///< leaves refined, groups coarsened
  /// Seconds of each phase and of the whole adaptation (the backend synchronized at each phase's end).
  double seconds_flags = 0, seconds_balance = 0, seconds_counts = 0, seconds_build = 0, seconds_faces = 0,
         seconds_geometry = 0, seconds_check = 0, seconds = 0;
};

/// How the last adaptation moved the leaves, in the backend's memory, for carrying per-leaf data (a solution)
/// over; valid until the next adaptation (reserve() empties it). Old leaf e with delta[e] == 0 is new leaf offset[e]; refined
/// (delta[e] == 1), its children are new leaves offset[e] .. offset[e] + 3 in child order
/// (kernels/child_transfer.hpp: child_vertices); coarsened (delta[e] == -1), e is child
/// child_number(old_path[e], old_level[e]) of its group, which is old leaves e - that .. e - that + 3 and became
/// new leaf offset[e - that].
struct AdaptMap {
  index_t old_elements = 0, new_elements = 0;
  const std::int8_t* delta = nullptr;         ///< [old elements]
  const index_t* offset = nullptr;            ///< [old elements]
  const std::uint8_t* old_level = nullptr;    ///< [old elements]
  const std::uint64_t* old_path = nullptr;    ///< [old elements]
};

/// The leaf mesh on the host, for output, saving and tests.
struct LeafMesh {
  std::vector<double> x, y, z;                  ///< [nodes]
  std::vector<index_t> element_vertices;        ///< [elements][3] counterclockwise
  std::vector<index_t> element_edges;           ///< [elements][3]
  std::vector<std::uint8_t> element_sides;      ///< [elements]
  std::vector<std::uint8_t> level;              ///< [elements]
  std::vector<std::uint64_t> path;              ///< [elements]
  std::vector<index_t> root;                    ///< [elements]
  std::vector<index_t> face_left, face_right;   ///< [faces]
  std::vector<std::int8_t> face_left_local, face_right_local, face_left_half, face_right_half, face_color;
  std::vector<std::int32_t> face_boundary;
  std::vector<index_t> face_vertices;  ///< [faces][2]
  std::vector<index_t> color_begin;    ///< [2K + 1]
  std::vector<double> area, centroid_x, centroid_y, centroid_z;  ///< [elements] (adapt/forest_K.hpp, Geometry)
  std::vector<double> face_length, normal_x, normal_y, normal_z;  ///< [faces]
  index_t num_elements() const { return static_cast<index_t>(level.size()); }
  index_t num_faces() const { return static_cast<index_t>(face_left.size()); }
};

/// The leaves' nodes and triangles as a Mesh, for output and error norms (which read elements only): element_tag
/// is the start mesh's number of each leaf's root triangle, volume and centroids are the leaves'; no faces.
Mesh leaf_elements_mesh(const LeafMesh& leaves, const Mesh& start);

class TriangleForest {
 public:
  /// The forest of `start`'s triangles on `backend`. The start mesh must hold triangles only (planar, a surface in
  /// 3D, periodic) with a coloring and an ordering applied (faces grouped by color, each color by left element).
  /// std::invalid_argument naming the mesh otherwise.
  TriangleForest(const Mesh& start, Backend backend, int max_level);

  Backend backend() const { return backend_; }
  int max_level() const { return max_level_; }
  int start_colors() const { return f_.num_colors; }
  index_t num_elements() const { return f_.num_elements; }
  index_t num_faces() const { return faces_.num_faces; }
  const std::vector<index_t>& color_begin() const { return color_begin_; }

  /// Flags a seeded random fraction of the leaves for refinement and of the sibling groups for coarsening.
  void flag_random(double refine_fraction, double coarsen_fraction, std::uint64_t seed, std::uint64_t cycle);
  /// Flags every leaf for refinement, or every group for coarsening.
  void flag_all(bool refine, bool coarsen);
  /// [elements] flags an indicator may fill (1 = refine / coarsen); the group coarsens only when all four agree.
  std::uint8_t* refine_flags() { return refine_.data(); }
  std::uint8_t* coarsen_flags() { return coarsen_.data(); }

  /// Refines the start mesh until its leaves are the given ones (a mesh saved by kempe adapt --save: Mesh's
  /// leaf_root, leaf_path, leaf_level). std::invalid_argument naming `source` when they are deeper than the
  /// maximum level or are not the leaves of a 1-irregular refinement in storage order.
  void refine_to(const std::vector<index_t>& root, const std::vector<std::int64_t>& path,
                 const std::vector<std::int8_t>& level, const std::string& source);

  /// Sizes the storage of adaptations for meshes of up to these counts (AdaptReport's elements, nodes, edges,
  /// faces), so that adaptations below them allocate nothing: a solver that knows its budget reserves once
  /// instead of growing its arrays as the mesh grows. Every array is written once here, so that the run touches
  /// no memory the host has not backed yet. Clears the flags.
  void reserve(index_t elements, index_t nodes, index_t edges, index_t faces);

  /// Refines and coarsens by the flags (refinement wins; a group coarsens only as a whole), keeps the mesh
  /// 1-irregular, maps colors, regroups faces and checks the result: its colors at least (a solver's cycle), the
  /// whole mesh by default. When the flags change nothing (report.refined and report.coarsened 0) the mesh stays
  /// as it is, only counted and checked, and last_adaptation() is the identity: a solver need not follow it.
  AdaptReport adapt(Check check = Check::full);
  /// The check and the counts of the current mesh (seconds_check its time).
  AdaptReport check(Check check = Check::full) const;

  LeafMesh to_host() const;

  /// The leaf mesh in the backend's memory, for kernels that build on it (adapt/dg_tables.hpp); valid until the
  /// next adaptation.
  const ForestPtrs& arrays() const { return f_; }
  const FacePtrs& faces() const { return faces_; }
  const index_t* edge_faces() const { return edge_face_.data(); }  ///< [edges] the face a leaf edge is
  /// How the last adaptation moved the leaves (empty before the first).
  const AdaptMap& last_adaptation() const { return map_; }
  Geometry geometry() const;  ///< areas and centroids of the leaves, lengths and normals of the faces
  bool planar() const { return planar_; }  ///< in the xy plane (else a surface in 3D)
  const std::string& source() const { return source_; }  ///< the start mesh's file
  /// Bytes the forest holds in the backend's memory (both sets of mesh arrays, faces, scratch, flags).
  std::size_t bytes() const;
  /// "" when the leaf mesh is the start mesh's (nodes, elements, faces, colors) bit for bit, else the first
  /// difference.
  std::string difference_from(const Mesh& start) const;

 private:
  struct Arrays;      // the buffers behind ForestPtrs
  struct FaceArrays;  // the buffers behind FacePtrs
  struct Workspace;   // scratch of one adaptation, kept for the next
  void build_faces();
  void build_geometry();
  void count(AdaptReport& report, Check check) const;

  Backend backend_;
  int max_level_;
  std::string source_;
  bool planar_ = true;  // a mesh in the xy plane (else a surface in 3D)
  ForestPtrs f_{};
  FacePtrs faces_{};
  PeriodicShifts shifts_{};
  std::shared_ptr<Arrays> arrays_, spare_;  // the current mesh, and where the next one is built
  std::shared_ptr<FaceArrays> faces_now_;
  std::shared_ptr<Workspace> work_;
  RawArray<index_t> edge_face_;
  RawArray<std::uint8_t> refine_, coarsen_;
  std::vector<index_t> color_begin_;
  AdaptMap map_{};
};

}  // namespace kempe::adapt
