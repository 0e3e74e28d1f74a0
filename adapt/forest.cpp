// The pipeline of one adaptation (adapt/forest.hpp): flags -> 2:1 balance -> counts and offsets (prefix sums)
// -> new nodes, edges (colors by Alg. 4) and elements -> incidence -> faces grouped by color -> check.
// Compiled by nvcc in a CUDA build, so that the same passes run on either backend.
#include "adapt/forest.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "adapt/fused_passes.hpp"
#include "kernels/algorithms.hpp"
#include "mesh/boundary_curve.hpp"

namespace kempe::adapt {

namespace {

/// The seconds of an adaptation's phases. Each phase's end is a mark on the backend's work (WorkMarks: on the GPU
/// an event, which waits for nothing), so that timing the phases adds no wait between them; finish() waits for
/// the last and writes every phase's seconds.
class PhaseClock {
 public:
  explicit PhaseClock(Backend backend) : marks_(backend), start_(std::chrono::steady_clock::now()) { marks_.mark(); }
  /// The phase that began at the last mark ends here; its seconds go to `seconds` at finish().
  void lap(double& seconds) {
    marks_.mark();
    phases_.push_back(&seconds);
  }
  /// Waits for the work so far, writes each phase's seconds, and `total`: the host's wall time since the start.
  void finish(double& total) {
    const std::vector<double> s = marks_.seconds();
    for (std::size_t k = 0; k < phases_.size() && k < s.size(); ++k) *phases_[k] = s[k];
    total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  WorkMarks marks_;
  std::chrono::steady_clock::time_point start_;
  std::vector<double*> phases_;
};

/// Slots of the workspace's totals (backend memory) that an adaptation's passes fill and the host reads in a few
/// copies: the counts (new edges, midpoints, new elements, refinements), the face count, the color ranges
/// (up to 2 x 8 colors + 1), read with the face count, and the check's four figures (MeshTotals).
enum TotalSlot : int {
  total_new_edges = 0, total_midpoints, total_new_elements, total_refinements, total_faces,
  total_color_begin = 8, total_mesh = total_color_begin + 2 * 8 + 1, total_slots = total_mesh + 4
};

/// The totals of the counts' three scans (new edges, midpoints, new elements) into their slots, in one work item:
/// in[n-1] + out[n-1] of each (the scans' inputs are kept).
struct ScanTotals {
  const index_t* in[3];
  const index_t* out[3];
  index_t n[3];
  std::int64_t* totals;
  KEMPE_HD void operator()(index_t) const {
    for (int k = 0; k < 3; ++k)
      totals[total_new_edges + k] = n[k] > 0 ? std::int64_t(in[k][n[k] - 1]) + std::int64_t(out[k][n[k] - 1]) : 0;
  }
};

struct HangingFace {
  FacePtrs faces;
  KEMPE_HD int operator()(index_t i) const { return faces.face[i].left_half != whole_edge || faces.face[i].right_half != whole_edge; }
};

struct Level {
  const std::uint8_t* level;
  int sign;
  KEMPE_HD int operator()(index_t i) const { return sign * int(level[i]); }
};

/// What count() reads of the current mesh, reduced on the GPU in one pass over leaves and faces.
struct MeshTotals {
  std::int64_t hanging_faces, max_level, min_level_negated, failures;
};
static_assert(sizeof(MeshTotals) == 4 * sizeof(std::int64_t), "the check's totals fill four total slots");
struct CombineMeshTotals {
  KEMPE_HD MeshTotals operator()(const MeshTotals& a, const MeshTotals& b) const {
    return {a.hanging_faces + b.hanging_faces, a.max_level > b.max_level ? a.max_level : b.max_level,
            a.min_level_negated > b.min_level_negated ? a.min_level_negated : b.min_level_negated, a.failures + b.failures};
  }
};
/// Item i < leaves: leaf i's level and check (CheckColors, or CheckElement for the full check); item leaves + k:
/// face k's hanging flag (and CheckFace for the full check). Leaves and faces are separate items, so that the
/// threads that split the range on the CPU get equal shares of each.
struct LeafAndFaceTotals {
  ForestPtrs f;
  FacePtrs faces;
  const index_t* edge_face;
  bool full;
  /// The face count in the backend's memory when the items cover every edge (a deferred face count: Workspace::faces_pending), or null.
  const std::int64_t* pending_faces = nullptr;
  KEMPE_HD MeshTotals operator()(index_t i) const {
    constexpr std::int64_t none = -(std::int64_t(1) << 62);
    MeshTotals t{0, none, none, 0};
    if (i < f.num_elements) {
      t.max_level = f.elem_level[i], t.min_level_negated = -std::int64_t(f.elem_level[i]);
      t.failures = full ? std::int64_t(CheckElement{f, faces, edge_face}(i)) : std::int64_t(CheckColors{f}(i));
    } else {
      const index_t k = i - f.num_elements;
      if (pending_faces != nullptr && k >= *pending_faces) return t;
      t.hanging_faces = HangingFace{faces}(k);
      if (full) t.failures = CheckFace{f, faces}(k);
    }
    return t;
  }
};

/// color_begin[c] (c in [0, colors]) into a total slot: the place of color c's first word (FaceRanks).
struct ColorBeginTotals {
  const index_t* first;  ///< [colors][blocks]
  index_t blocks;
  const std::int64_t* num_faces;
  int colors;
  std::int64_t* color_begin;
  KEMPE_HD void operator()(index_t c) const {
    color_begin[c] = c == colors || blocks == 0 ? *num_faces : std::int64_t(first[std::size_t(c) * std::size_t(blocks)]);
  }
};

/// f(i) for i below a count in the backend's memory: a launch over an upper bound of a count not read yet.
template <class F>
struct BelowCount {
  F f;
  const std::int64_t* count;
  KEMPE_HD void operator()(index_t i) const {
    if (i < *count) f(i);
  }
};

/// The 32-bit words that hold MarkFaces' bytes ([elements][colors]).
std::size_t face_mark_words(index_t elements, int colors) {
  return (std::size_t(elements) * std::size_t(colors) + 3) / 4;
}

template <class T>
struct Value {
  const T* p;
  KEMPE_HD T operator()(index_t i) const { return p[i]; }
};

template <class T>
struct Nonzero {
  const T* p;
  KEMPE_HD int operator()(index_t i) const { return p[i] != 0; }
};

/// Makes b hold at least n values, keeping it when it does: arrays are reused from one adaptation to the
/// next and grow by half again when they must, so that an adaptation allocates (and, on the CPU, touches fresh
/// pages) only when the mesh outgrows every earlier one. Contents are not kept across a growth.
template <class T>
void grow(Backend backend, RawArray<T>& b, std::size_t n, const char* what) {
  if (b.size() >= n && b.backend() == backend && b.size() > 0) return;
  b = RawArray<T>();
  b = RawArray<T>(backend, n + n / 2 + 16, what);
}

template <class T>
struct Zero {
  T* p;
  KEMPE_HD void operator()(index_t i) const { p[i] = T{}; }
};

/// Writes every value of b, so that the host backs its pages now rather than in the middle of a run.
template <class T>
void touch(Backend backend, RawArray<T>& b) {
  if (b.size() > 0) forall(backend, static_cast<index_t>(b.size()), Zero<T>{b.data()});
}

template <class T>
struct CopyValue {
  T* to;
  const T* from;
  KEMPE_HD void operator()(index_t i) const { to[i] = from[i]; }
};

/// to[0, n) = from[0, n) in the backend's memory.
template <class T>
void copy_values(Backend backend, RawArray<T>& to, const RawArray<T>& from, std::size_t n) {
  if (n > 0) forall(backend, static_cast<index_t>(n), CopyValue<T>{to.data(), from.data()});
}

/// The first n values of a backend's array, on the host.
template <class T>
std::vector<T> head(const RawArray<T>& b, std::size_t n) {
  return b.to_host(n);
}

/// An index count that must fit index_t: std::length_error naming what would not fit.
index_t fitting(std::int64_t n, const char* what) {
  if (n > std::numeric_limits<index_t>::max())
    throw std::length_error("the adapted mesh would have " + std::to_string(n) + " " + what + ", more than the " +
                            std::to_string(std::numeric_limits<index_t>::max()) + " a 32-bit index holds");
  return static_cast<index_t>(n);
}

}  // namespace

/// The buffers behind ForestPtrs.
struct TriangleForest::Arrays {
  RawArray<double> x, y, z;
  RawArray<index_t> node_edge;
  RawArray<index_t> elem_vertices, elem_edges;
  RawArray<std::uint8_t> elem_sides, elem_level;
  RawArray<std::uint64_t> elem_path;
  RawArray<index_t> elem_root;
  RawArray<index_t> edge_parent, edge_child, edge_mid;
  RawArray<std::int8_t> edge_color;
  RawArray<std::int32_t> edge_boundary;
  RawArray<std::uint8_t> edge_flags, edge_shift;
  RawArray<index_t> edge_elem;
  RawArray<std::int8_t> edge_local;
  RawArray<double> edge_tangent;  // empty when no boundary bends
  bool bent = false;

  /// f(array) for every array.
  template <class Self, class F>
  static void each(Self& a, F&& f) {
    f(a.x), f(a.y), f(a.z), f(a.node_edge), f(a.elem_vertices), f(a.elem_edges), f(a.elem_sides), f(a.elem_level);
    f(a.elem_path), f(a.elem_root), f(a.edge_parent), f(a.edge_child), f(a.edge_mid), f(a.edge_color);
    f(a.edge_boundary), f(a.edge_flags), f(a.edge_shift), f(a.edge_elem), f(a.edge_local), f(a.edge_tangent);
  }

  void reserve(Backend b, index_t nodes, index_t elements, index_t edges) {
    const std::size_t n = std::size_t(nodes), e = std::size_t(elements), m = std::size_t(edges);
    grow(b, x, n, "adapted mesh x"), grow(b, y, n, "adapted mesh y"), grow(b, z, n, "adapted mesh z");
    grow(b, node_edge, n, "adapted mesh node edges");
    grow(b, elem_vertices, 3 * e, "adapted mesh element vertices"), grow(b, elem_edges, 3 * e, "adapted mesh element edges");
    grow(b, elem_sides, e, "adapted mesh element sides"), grow(b, elem_level, e, "adapted mesh levels");
    grow(b, elem_path, e, "adapted mesh tree paths"), grow(b, elem_root, e, "adapted mesh roots");
    grow(b, edge_parent, m, "adapted mesh edge parents"), grow(b, edge_child, m, "adapted mesh edge children");
    grow(b, edge_mid, 2 * m, "adapted mesh edge midpoints"), grow(b, edge_color, m, "adapted mesh edge colors");
    grow(b, edge_boundary, m, "adapted mesh edge boundaries"), grow(b, edge_flags, m, "adapted mesh edge flags");
    grow(b, edge_shift, m, "adapted mesh edge shifts"), grow(b, edge_elem, 2 * m, "adapted mesh edge elements");
    grow(b, edge_local, 2 * m, "adapted mesh edge local indices");
    if (bent) grow(b, edge_tangent, 4 * m, "adapted mesh boundary tangents");
  }

  /// The first nodes, elements and edges of `o` (its mesh) into these arrays, which must hold them.
  void copy_from(Backend b, const Arrays& o, index_t nodes, index_t elements, index_t edges) {
    const std::size_t n = std::size_t(nodes), e = std::size_t(elements), m = std::size_t(edges);
    copy_values(b, x, o.x, n), copy_values(b, y, o.y, n), copy_values(b, z, o.z, n), copy_values(b, node_edge, o.node_edge, n);
    copy_values(b, elem_vertices, o.elem_vertices, 3 * e), copy_values(b, elem_edges, o.elem_edges, 3 * e);
    copy_values(b, elem_sides, o.elem_sides, e), copy_values(b, elem_level, o.elem_level, e);
    copy_values(b, elem_path, o.elem_path, e), copy_values(b, elem_root, o.elem_root, e);
    copy_values(b, edge_parent, o.edge_parent, m), copy_values(b, edge_child, o.edge_child, m);
    copy_values(b, edge_mid, o.edge_mid, 2 * m), copy_values(b, edge_color, o.edge_color, m);
    copy_values(b, edge_boundary, o.edge_boundary, m), copy_values(b, edge_flags, o.edge_flags, m);
    copy_values(b, edge_shift, o.edge_shift, m), copy_values(b, edge_elem, o.edge_elem, 2 * m);
    copy_values(b, edge_local, o.edge_local, 2 * m);
    if (bent) copy_values(b, edge_tangent, o.edge_tangent, 4 * m);
  }

  ForestPtrs ptrs(index_t nodes, index_t elements, index_t edges, index_t root_nodes, int colors) {
    ForestPtrs p;
    p.num_nodes = nodes, p.num_elements = elements, p.num_edges = edges;
    p.root_nodes = root_nodes, p.num_colors = colors;
    p.x = x.data(), p.y = y.data(), p.z = z.data(), p.node_edge = node_edge.data();
    p.elem_vertices = elem_vertices.data(), p.elem_edges = elem_edges.data(), p.elem_sides = elem_sides.data();
    p.elem_level = elem_level.data(), p.elem_path = elem_path.data(), p.elem_root = elem_root.data();
    p.edge_parent = edge_parent.data(), p.edge_child = edge_child.data(), p.edge_mid = edge_mid.data();
    p.edge_color = edge_color.data(), p.edge_boundary = edge_boundary.data(), p.edge_flags = edge_flags.data();
    p.edge_shift = edge_shift.data(), p.edge_elem = edge_elem.data(), p.edge_local = edge_local.data();
    p.edge_tangent = bent ? edge_tangent.data() : nullptr;
    return p;
  }
};

struct TriangleForest::FaceArrays {
  RawArray<Face> face;

  template <class Self, class F>
  static void each(Self& a, F&& f) {
    f(a.face);
  }

  void reserve(Backend b, index_t faces) { grow(b, face, std::size_t(faces), "faces"); }

  FacePtrs ptrs(index_t n) {
    FacePtrs p;
    p.num_faces = n;
    p.face = face.data();
    return p;
  }
};

/// Scratch arrays of one adaptation, kept for the next.
struct TriangleForest::Workspace {
  RawArray<std::int8_t> delta;
  RawArray<std::uint8_t> raise[2], vetoed, state;
  RawArray<index_t> edge_count, mid_count, elem_count;
  RawArray<index_t> node_new, edge_new, mid_offset, elem_offset;
  RawArray<std::uint32_t> face_marks;  // [elements][2K] bytes (MarkFaces), as words
  RawArray<std::uint64_t> face_bits;   // [2K][blocks] FaceRanks::bits
  RawArray<index_t> face_first;        // [2K][blocks] FaceRanks::first
  RawArray<std::int64_t> totals;  // [total_slots] TotalSlot
  // On the GPU an adaptation leaves the face count and color ranges in the totals (faces_pending): faces_ then
  // spans the edges until count() reads them with the check's figures into face_totals, one wait instead of two.
  bool defer_face_count = false, faces_pending = false;
  std::vector<std::int64_t> face_totals;  // [total_mesh - total_faces] from total_faces, as count() read them
  // Geometry of the current mesh.
  RawArray<double> area, centroid_x, centroid_y, centroid_z, length, normal_x, normal_y, normal_z;

  template <class Self, class F>
  static void each(Self& a, F&& f) {
    f(a.delta), f(a.raise[0]), f(a.raise[1]), f(a.vetoed), f(a.state), f(a.edge_count), f(a.mid_count), f(a.elem_count);
    f(a.node_new), f(a.edge_new), f(a.mid_offset), f(a.elem_offset), f(a.face_marks), f(a.face_bits);
    f(a.face_first), f(a.totals);
    f(a.area), f(a.centroid_x), f(a.centroid_y), f(a.centroid_z), f(a.length), f(a.normal_x), f(a.normal_y);
    f(a.normal_z);
  }

  Geometry geometry() {
    return Geometry{area.data(), centroid_x.data(), centroid_y.data(), centroid_z.data(),
                    length.data(), normal_x.data(), normal_y.data(), normal_z.data()};
  }
};

TriangleForest::TriangleForest(const Mesh& start, Backend backend, int max_level)
    : backend_(backend), max_level_(max_level), source_(start.source) {
  const std::string& name = start.source;
  if (start.dim != 2)
    throw std::invalid_argument(name + ": adaptive refinement needs a triangle mesh; this one has " + std::to_string(start.dim) + "D elements");
  for (const ElementType t : start.element_type)
    if (t != ElementType::triangle)
      throw std::invalid_argument(name + ": adaptive refinement needs a triangle mesh; this one has " +
                                  std::string(element_info(t).name) + "s");
  if (start.color_begin.size() < 2 || start.face_color.size() != std::size_t(start.num_faces()))
    throw std::invalid_argument(name + ": adaptive refinement needs a colored mesh with its faces grouped by color");
  const int colors = static_cast<int>(start.color_begin.size()) - 1;
  if (colors > 8)
    throw std::invalid_argument(name + ": adaptive refinement maps at most 8 start colors (16 after refinement); the mesh has " +
                                std::to_string(colors));
  if (max_level < 0 || max_level > max_level_limit)
    throw std::invalid_argument("maximum level " + std::to_string(max_level) + " is outside 0.." + std::to_string(max_level_limit));
  const index_t ne = start.num_elements(), nf = start.num_faces(), nn = start.num_nodes();
  for (index_t f = 0; f < nf; ++f)
    if (start.face_right[f] != no_element && start.face_right[f] < start.face_left[f])
      throw std::invalid_argument(name + ": adaptive refinement needs an ordering applied (face " + std::to_string(f) +
                                  " has its higher-numbered element on the left)");

  // The start mesh on the host: every element and face becomes a root of its tree. Faces become edges in the
  // order of their left elements (each face once, at its left element's local edge), so that edges, and the
  // midpoints and edges that adaptations number after them (EdgeCounts), follow the elements' order.
  std::vector<index_t> edge_of_face(nf, no_element), face_of_edge;
  face_of_edge.reserve(nf);
  for (index_t e = 0; e < ne; ++e)
    for (int j = 0; j < 3; ++j) {
      const index_t f = start.element_faces[start.element_face_begin[e] + j];
      if (start.face_left[f] == e && start.face_left_local[f] == j && edge_of_face[f] == no_element) {
        edge_of_face[f] = static_cast<index_t>(face_of_edge.size());
        face_of_edge.push_back(f);
      }
    }
  if (index_t(face_of_edge.size()) != nf)
    throw std::invalid_argument(name + ": a face is not listed by its left element (the mesh's face tables disagree)");
  std::vector<double> x = start.x, y = start.y, z = start.z;
  std::vector<index_t> node_edge(nn, no_element);
  std::vector<index_t> ev(start.element_vertices.begin(), start.element_vertices.end()), ee(3 * std::size_t(ne));
  std::vector<std::uint8_t> sides(ne, 0), level(ne, 0);
  std::vector<std::uint64_t> path(ne, 0);
  std::vector<index_t> root(ne);
  for (index_t e = 0; e < ne; ++e) {
    root[e] = e;
    for (int j = 0; j < 3; ++j) {
      const index_t f = start.element_faces[start.element_face_begin[e] + j];
      ee[3 * e + j] = edge_of_face[f];
      if (!(start.face_left[f] == e && start.face_left_local[f] == j)) sides[e] |= std::uint8_t(1u << j);
    }
  }
  std::vector<index_t> parent(nf, no_element), child(nf, no_element), mid(2 * std::size_t(nf), no_element);
  std::vector<std::int8_t> color(nf);
  std::vector<std::int32_t> boundary(nf);
  std::vector<std::uint8_t> flags(nf, 0), shift(nf, 0);
  std::vector<index_t> elem(2 * std::size_t(nf));
  std::vector<std::int8_t> local(2 * std::size_t(nf));
  double extent = 0;
  for (index_t i = 0; i < nn; ++i) extent = std::max({extent, std::abs(x[i]), std::abs(y[i]), std::abs(z[i])});
  int num_shifts = 0;
  for (index_t k = 0; k < nf; ++k) {
    const index_t f = face_of_edge[k];
    elem[2 * k] = start.face_left[f], local[2 * k] = start.face_left_local[f];
    elem[2 * k + 1] = start.face_right[f], local[2 * k + 1] = start.face_right_local[f];
    color[k] = start.face_color[f], boundary[k] = start.face_boundary[f];
    if (color[k] < 0 || color[k] >= colors)
      throw std::invalid_argument(name + ": face " + std::to_string(f) + " has color " + std::to_string(color[k]) +
                                  ", outside the mesh's " + std::to_string(colors));
    const index_t r = start.face_right[f];
    if (r == no_element) continue;
    const index_t l = start.face_left[f];
    const int jl = start.face_left_local[f], jr = start.face_right_local[f];
    const index_t a = ev[3 * l + jl], b = ev[3 * l + (jl + 1) % 3];
    const index_t c = ev[3 * r + jr], d = ev[3 * r + (jr + 1) % 3];
    if (c == b && d == a) continue;
    // A periodic join: the right element sees vertex a at d; the translation is found once per distinct shift.
    flags[k] = edge_periodic;
    const double dx = x[d] - x[a], dy = y[d] - y[a], dz = z[d] - z[a];
    const double tolerance = 1e-9 * std::max(extent, 1.0);
    int n = 0;
    while (n < num_shifts && !(std::abs(shifts_.dx[n] - dx) <= tolerance && std::abs(shifts_.dy[n] - dy) <= tolerance &&
                               std::abs(shifts_.dz[n] - dz) <= tolerance))
      ++n;
    if (n == num_shifts) {
      if (num_shifts == max_periodic_shifts)
        throw std::invalid_argument(name + ": more than " + std::to_string(max_periodic_shifts) +
                                    " distinct periodic translations; adaptive refinement supports translations only");
      shifts_.dx[n] = dx, shifts_.dy[n] = dy, shifts_.dz[n] = dz;
      ++num_shifts;
    }
    shift[k] = static_cast<std::uint8_t>(n);
  }

  // Unit tangents of the boundary curve at both ends of each bent boundary face (planar meshes).
  std::vector<double> tangent;
  if (start.space_dim == 2) {
    const std::vector<double> angles = boundary_tangent_angles(start);
    if (!angles.empty()) {
      tangent.assign(4 * std::size_t(nf), 0.0);
      for (index_t edge = 0; edge < nf; ++edge) {
        const index_t f = face_of_edge[edge];
        if (start.face_right[f] != no_element || (angles[3 * f] == 0 && angles[3 * f + 2] == 0)) continue;
        const index_t a = start.face_vertices[std::size_t(f) * max_face_vertices];
        const index_t b = start.face_vertices[std::size_t(f) * max_face_vertices + 1];
        const double dx = x[b] - x[a], dy = y[b] - y[a], length = std::hypot(dx, dy);
        for (int k = 0; k < 2; ++k) {
          const double angle = angles[3 * f + 2 * k], c = std::cos(angle), s = std::sin(angle);
          tangent[4 * edge + 2 * k] = (c * dx - s * dy) / length;
          tangent[4 * edge + 2 * k + 1] = (s * dx + c * dy) / length;
        }
      }
    }
  }

  arrays_ = std::make_shared<Arrays>();
  spare_ = std::make_shared<Arrays>();
  faces_now_ = std::make_shared<FaceArrays>();
  work_ = std::make_shared<Workspace>();
  // Zeroed: each phase reads its slots in one copy, which spans slots it leaves unwritten (compute-sanitizer
  // initcheck).
  work_->totals = RawArray<std::int64_t>(backend, std::vector<std::int64_t>(total_slots, 0), "adaptation totals");
  Arrays& a = *arrays_;
  a.x = RawArray<double>(backend, x, "adapted mesh x"), a.y = RawArray<double>(backend, y, "adapted mesh y");
  a.z = RawArray<double>(backend, z, "adapted mesh z"), a.node_edge = RawArray<index_t>(backend, node_edge, "adapted mesh node edges");
  a.elem_vertices = RawArray<index_t>(backend, ev, "adapted mesh element vertices");
  a.elem_edges = RawArray<index_t>(backend, ee, "adapted mesh element edges");
  a.elem_sides = RawArray<std::uint8_t>(backend, sides, "adapted mesh element sides");
  a.elem_level = RawArray<std::uint8_t>(backend, level, "adapted mesh levels");
  a.elem_path = RawArray<std::uint64_t>(backend, path, "adapted mesh tree paths");
  a.elem_root = RawArray<index_t>(backend, root, "adapted mesh roots");
  a.edge_parent = RawArray<index_t>(backend, parent, "adapted mesh edge parents");
  a.edge_child = RawArray<index_t>(backend, child, "adapted mesh edge children");
  a.edge_mid = RawArray<index_t>(backend, mid, "adapted mesh edge midpoints");
  a.edge_color = RawArray<std::int8_t>(backend, color, "adapted mesh edge colors");
  a.edge_boundary = RawArray<std::int32_t>(backend, boundary, "adapted mesh edge boundaries");
  a.edge_flags = RawArray<std::uint8_t>(backend, flags, "adapted mesh edge flags");
  a.edge_shift = RawArray<std::uint8_t>(backend, shift, "adapted mesh edge shifts");
  a.edge_elem = RawArray<index_t>(backend, elem, "adapted mesh edge elements");
  a.edge_local = RawArray<std::int8_t>(backend, local, "adapted mesh edge local indices");
  a.bent = spare_->bent = !tangent.empty();
  if (a.bent) a.edge_tangent = RawArray<double>(backend, tangent, "adapted mesh boundary tangents");
  f_ = a.ptrs(nn, ne, nf, nn, colors);
  planar_ = start.space_dim == 2;
  grow(backend_, refine_, ne, "refinement flags");
  grow(backend_, coarsen_, ne, "coarsening flags");
  flag_all(false, false);
  build_faces();
  build_geometry();
}

void TriangleForest::refine_to(const std::vector<index_t>& root, const std::vector<std::int64_t>& path,
                               const std::vector<std::int8_t>& level, const std::string& source) {
  if (path.size() != root.size() || level.size() != root.size())
    throw std::invalid_argument(source + ": the leaves' roots, paths and levels differ in length");
  if (f_.num_nodes != f_.root_nodes)  // refining adds midpoints
    throw std::logic_error("refine_to: the forest is not at its start mesh");
  int deepest = 0;
  for (const std::int8_t l : level) {
    if (l < 0) throw std::invalid_argument(source + ": a leaf has a negative level");
    deepest = std::max(deepest, int(l));
  }
  if (deepest > max_level_)
    throw std::invalid_argument(source + ": its adapted mesh reaches level " + std::to_string(deepest) +
                                ", beyond the maximum level " + std::to_string(max_level_));
  // Every proper ancestor of a saved leaf refines; the saved leaves' own (root, level, path) must then be what
  // the forest holds, in the same order.
  auto key = [](index_t r, int l, std::uint64_t p) {
    return std::to_string(r) + ':' + std::to_string(l) + ':' + std::to_string(p);
  };
  std::unordered_set<std::string> ancestors;
  for (std::size_t i = 0; i < root.size(); ++i)
    for (int l = 0; l < level[i]; ++l)
      ancestors.insert(key(root[i], l, std::uint64_t(path[i]) & ((std::uint64_t(1) << (2 * l)) - 1)));
  for (int pass = 0; pass < deepest; ++pass) {
    const LeafMesh now = to_host();
    std::vector<std::uint8_t> flags(now.num_elements(), 0);
    bool any = false;
    for (index_t e = 0; e < now.num_elements(); ++e) {
      flags[e] = ancestors.count(key(now.root[e], now.level[e], now.path[e])) ? 1 : 0;
      any = any || flags[e];
    }
    if (!any) break;
    flag_all(false, false);
    refine_.upload(flags);
    const AdaptReport r = adapt();
    if (!r.valid()) throw std::logic_error(source + ": rebuilding its adapted mesh failed the check");
  }
  const LeafMesh now = to_host();
  const std::size_t n = std::min<std::size_t>(root.size(), std::size_t(now.num_elements()));
  for (std::size_t i = 0; i <= n; ++i) {
    if (i == n && root.size() == std::size_t(now.num_elements())) return;
    if (i < n && root[i] == now.root[i] && int(level[i]) == int(now.level[i]) && std::uint64_t(path[i]) == now.path[i]) continue;
    std::string what = source + ": the refinement tree of its adapted mesh is inconsistent: ";
    if (i == n)
      what += "it lists " + std::to_string(root.size()) + " leaves where its tree has " + std::to_string(now.num_elements());
    else
      what += "leaf " + std::to_string(i) + " is triangle " + std::to_string(root[i]) + " at level " + std::to_string(level[i]) +
              " where the tree (refined 1-irregular, depth first) has triangle " + std::to_string(now.root[i]) + " at level " +
              std::to_string(now.level[i]);
    throw std::invalid_argument(what);
  }
}

void TriangleForest::reserve(index_t elements, index_t nodes, index_t edges, index_t faces) {
  const Backend b = backend_;
  Workspace& w = *work_;
  const std::size_t ne = std::size_t(std::max(elements, f_.num_elements)), nn = std::size_t(std::max(nodes, f_.num_nodes));
  const std::size_t nm = std::size_t(std::max(edges, f_.num_edges)), nf = std::size_t(std::max(faces, faces_.num_faces));
  const std::size_t colors = 2 * std::size_t(f_.num_colors), words = colors * std::size_t(face_rank_blocks(index_t(ne)));
  const std::size_t mark_words = face_mark_words(index_t(ne), int(colors));
  auto each = [&](auto& array, std::size_t n) { grow(b, array, n, "adaptation storage (reserve)"); };
  auto touch_each = [&](auto& array) { touch(b, array); };
  // The mesh moves into reserved arrays, and its old arrays become the reserved spare. Every array is written
  // once here (before the mesh moves in), so that no adaptation meets a page the host has not backed yet.
  spare_->reserve(b, index_t(nn), index_t(ne), index_t(nm));
  Arrays::each(*spare_, touch_each);
  spare_->copy_from(b, *arrays_, f_.num_nodes, f_.num_elements, f_.num_edges);
  std::swap(arrays_, spare_);
  f_ = arrays_->ptrs(f_.num_nodes, f_.num_elements, f_.num_edges, f_.root_nodes, f_.num_colors);
  spare_->reserve(b, index_t(nn), index_t(ne), index_t(nm));
  // On the GPU an adaptation builds its faces into room for every edge (Workspace::faces_pending).
  const std::size_t face_room = b == Backend::cuda ? std::max(nf, nm) : nf;
  faces_now_->reserve(b, index_t(face_room));
  each(w.delta, ne), each(w.raise[0], ne), each(w.raise[1], ne), each(w.vetoed, ne), each(w.elem_count, ne), each(w.elem_offset, ne), each(w.node_new, nn);
  each(w.state, nm), each(w.edge_count, nm), each(w.mid_count, nm), each(w.edge_new, nm), each(w.mid_offset, nm);
  each(w.face_marks, mark_words), each(w.face_bits, words), each(w.face_first, words), each(edge_face_, nm);
  each(w.area, ne), each(w.centroid_x, ne), each(w.centroid_y, ne), each(w.centroid_z, ne);
  each(w.length, face_room), each(w.normal_x, face_room), each(w.normal_y, face_room), each(w.normal_z, face_room);
  each(refine_, ne), each(coarsen_, ne);
  Arrays::each(*spare_, touch_each);
  FaceArrays::each(*faces_now_, touch_each);
  Workspace::each(w, touch_each);
  touch(b, edge_face_), touch(b, refine_), touch(b, coarsen_);
  // What growing dropped is derived from the mesh.
  flag_all(false, false);
  build_faces();
  build_geometry();
  map_ = AdaptMap{};  // the old leaves' arrays were overwritten
}

void TriangleForest::flag_random(double refine_fraction, double coarsen_fraction, std::uint64_t seed, std::uint64_t cycle) {
  forall(backend_, f_.num_elements,
         FlagRandom{f_, refine_fraction, coarsen_fraction, seed, cycle, refine_.data(), coarsen_.data()});
}

void TriangleForest::flag_all(bool refine, bool coarsen) {
  forall(backend_, f_.num_elements, FlagAll{refine_.data(), coarsen_.data(), std::uint8_t(refine), std::uint8_t(coarsen)});
}

AdaptReport TriangleForest::adapt(Check check) {
  AdaptReport report;
  PhaseClock clock(backend_);
  const ForestPtrs from = f_;
  const index_t ne = from.num_elements, nm = from.num_edges, nn = from.num_nodes;

  Workspace& w = *work_;
  const Backend b = backend_;
  std::int64_t* totals = w.totals.data();
  grow(b, w.delta, ne, "refinement actions");
  grow(b, w.raise[0], ne, "balance flags"), grow(b, w.raise[1], ne, "balance flags");
  grow(b, w.vetoed, ne, "balance vetoes");
  forall(b, ne, InitDelta{from, refine_.data(), coarsen_.data(), max_level_, w.delta.data(), w.raise[0].data()});
  clock.lap(report.seconds_flags);

  // 2:1 balance: raise leaves until no neighbour's new level exceeds another's by more than one. Levels only
  // rise, and never above the maximum (a raised leaf is below a neighbour that is at most at the maximum).
  // Pass p writes the flags raise[p % 2] (FindRaise says which leaves look), and applying them clears the other
  // set for the next pass. On the GPU two passes per look at the count of raised leaves, since each look waits
  // for the device: applying a pass that raised nothing changes nothing.
  const int passes_per_look = b == Backend::cuda ? 2 : 1;
  auto find = [&](int p) {
    const bool first = p == 0;
    forall(b, ne, FindRaise{from, w.delta.data(), first ? nullptr : w.raise[(p - 1) % 2].data(), first ? nullptr : w.vetoed.data(),
                            max_level_, w.raise[p % 2].data()});
  };
  auto apply = [&](int p) {
    forall(b, ne, ApplyRaise{from, w.raise[p % 2].data(), w.delta.data(), w.vetoed.data(), w.raise[(p + 1) % 2].data()});
  };
  for (int p = 0;;) {
    for (int k = 0; k < passes_per_look; ++k, ++p) {
      if (k > 0) apply(p - 1);
      find(p);
      ++report.balance_passes;
    }
    if (sum(b, ne, Nonzero<std::uint8_t>{w.raise[(p - 1) % 2].data()}) == 0) break;  // the last pass's flags
    apply(p - 1);
    if (report.balance_passes > 4 * max_level_limit + ne)
      throw std::logic_error("adaptive refinement: the 2:1 balance did not settle");
  }
  clock.lap(report.seconds_balance);

  // Counts and offsets: the scans' totals and the refinements are read in one copy.
  grow(b, w.state, nm, "edge actions");
  grow(b, w.edge_count, nm, "new edges per edge"), grow(b, w.mid_count, nm, "midpoints per edge");
  grow(b, w.elem_count, ne, "new elements");
  forall_both(b, nm, EdgeActions{from, w.delta.data(), w.state.data()}, ne, ElementCounts{from, w.delta.data(), w.elem_count.data()});
  forall(b, nm, EdgeCounts{from, w.delta.data(), w.state.data(), w.edge_count.data(), w.mid_count.data()});
  // Bounds before the 32-bit scans and indices: at most 4 elements per leaf, 1 + 2 + 6 edges per edge, 2 nodes
  // per edge; the widest rows are [elements][3] and [edges][4] (boundary tangents).
  const std::int64_t bound = 12 * std::int64_t(ne) + 36 * std::int64_t(nm) + 2 * std::int64_t(nm) + nn;
  if (bound > std::numeric_limits<index_t>::max()) {
    fitting(3 * sum(b, ne, Value<index_t>{w.elem_count.data()}), "element table entries (three per element)");
    fitting(4 * sum(b, nm, Value<index_t>{w.edge_count.data()}), "edge table entries (four per edge)");
    fitting(from.root_nodes + sum(b, nm, Value<index_t>{w.mid_count.data()}), "nodes");
  }
  grow(b, w.node_new, nn, "node renumbering"), grow(b, w.edge_new, nm, "edge renumbering");
  grow(b, w.mid_offset, nm, "midpoint offsets"), grow(b, w.elem_offset, ne, "element offsets");
  AdaptOffsets o{};
  exclusive_scan(b, w.edge_count.data(), nm, w.edge_new.data(), nullptr);
  exclusive_scan(b, w.mid_count.data(), nm, w.mid_offset.data(), nullptr);
  exclusive_scan(b, w.elem_count.data(), ne, w.elem_offset.data(), nullptr);
  forall(b, 1, ScanTotals{{w.edge_count.data(), w.mid_count.data(), w.elem_count.data()},
                          {w.edge_new.data(), w.mid_offset.data(), w.elem_offset.data()}, {nm, nm, ne}, totals});
  sum(b, ne, Refines{w.delta.data()}, totals + total_refinements);
  o.edge_count = w.edge_count.data(), o.edge_new = w.edge_new.data(), o.mid_offset = w.mid_offset.data();
  o.elem_offset = w.elem_offset.data(), o.state = w.state.data(), o.delta = w.delta.data();
  o.root_nodes = from.root_nodes;
  forall(b, nn, NodeNumbers{from, o, w.node_new.data()});
  o.node_new = w.node_new.data();
  const std::vector<std::int64_t> counts = read_totals(b, totals, total_refinements + 1);
  const index_t new_edges_total = index_t(counts[total_new_edges]);
  const index_t new_elements = index_t(counts[total_new_elements]);
  const index_t new_nodes_total = from.root_nodes + index_t(counts[total_midpoints]);
  const index_t refinements = index_t(counts[total_refinements]);
  report.refined = refinements;
  report.coarsened = ((ne - refinements) - (new_elements - 4 * refinements)) / 3;
  clock.lap(report.seconds_counts);

  if (refinements == 0 && report.coarsened == 0) {
    // Nothing changes (every flag vetoed or none set): the leaves, faces and geometry stay as they are, and the
    // map is the identity (delta 0, offsets 0 .. ne - 1) over the present leaves.
    map_ = AdaptMap{ne, ne, w.delta.data(), w.elem_offset.data(), from.elem_level, from.elem_path};
    flag_all(false, false);
    count(report, check);
    clock.lap(report.seconds_check);
    clock.finish(report.seconds);
    return report;
  }

  // New nodes, edges and elements into the spare arrays; each new leaf enters itself on its edges.
  spare_->reserve(b, new_nodes_total, new_elements, new_edges_total);
  const ForestPtrs to = spare_->ptrs(new_nodes_total, new_elements, new_edges_total, from.root_nodes, from.num_colors);
  forall_three(b, nn, MoveNodes{from, to, o}, nm, NewMidpoints{from, to, o, shifts_}, nm, MoveEdges{from, to, o});
  forall(b, ne, BuildElements{from, to, o});
  std::swap(arrays_, spare_);
  f_ = to;
  // The old leaves stay in the spare arrays, and delta and the offsets in the workspace, until the next adaptation.
  map_ = AdaptMap{ne, new_elements, w.delta.data(), w.elem_offset.data(), from.elem_level, from.elem_path};
  grow(b, refine_, new_elements, "refinement flags");
  grow(b, coarsen_, new_elements, "coarsening flags");
  flag_all(false, false);
  clock.lap(report.seconds_build);

  w.defer_face_count = true;  // taken (and reset) by build_faces
  build_faces();
  clock.lap(report.seconds_faces);
  build_geometry();
  clock.lap(report.seconds_geometry);
  count(report, check);
  if (w.faces_pending) {
    faces_.num_faces = index_t(w.face_totals[0]);
    color_begin_.assign(w.face_totals.begin() + (total_color_begin - total_faces), w.face_totals.end());
    w.faces_pending = false;
  }
  clock.lap(report.seconds_check);
  clock.finish(report.seconds);
  return report;
}

void TriangleForest::build_faces() {
  Workspace& w = *work_;
  const Backend b = backend_;
  // Taken and reset first, so that no later call defers its count whatever this one throws.
  const bool defer = std::exchange(w.defer_face_count, false);
  const index_t nm = f_.num_edges, ne = f_.num_elements;
  const int colors = 2 * f_.num_colors;
  const index_t blocks = face_rank_blocks(ne), words = colors * blocks;
  const std::size_t mark_words = face_mark_words(ne, colors);
  if (mark_words > std::size_t(std::numeric_limits<index_t>::max())) fitting(std::int64_t(mark_words), "face marks (four a word)");
  std::int64_t* totals = w.totals.data();
  grow(b, w.face_marks, mark_words, "face marks");
  grow(b, w.face_bits, std::size_t(words), "face order words"), grow(b, w.face_first, std::size_t(words), "face order places");
  forall(b, index_t(mark_words), Zero<std::uint32_t>{w.face_marks.data()});
  auto* marks = reinterpret_cast<std::uint8_t*>(w.face_marks.data());
  forall(b, nm, MarkFaces{f_, marks});
  forall(b, words, PackFaceMarks{marks, ne, blocks, colors, w.face_bits.data(), w.face_first.data()});
  exclusive_scan(b, w.face_first.data(), words, w.face_first.data(), totals + total_faces);
  forall(b, colors + 1, ColorBeginTotals{w.face_first.data(), blocks, totals + total_faces, colors, totals + total_color_begin});
  const FaceRanks ranks{blocks, w.face_bits.data(), w.face_first.data()};
  grow(b, edge_face_, nm, "edge faces");
  w.faces_pending = defer && b == Backend::cuda;
  if (w.faces_pending) {
    // Every face is a leaf edge: room for the edges holds them, and the count is read later (count()).
    faces_now_->reserve(b, nm);
    faces_ = faces_now_->ptrs(nm);
    forall(b, nm, BuildFaces{f_, ranks, faces_, edge_face_.data()});
    return;
  }
  // The face count and the color ranges come in one copy.
  const std::vector<std::int64_t> t = read_totals(b, totals + total_faces, std::size_t(total_color_begin - total_faces + colors + 1));
  const index_t nf = index_t(t[0]);
  color_begin_.assign(t.begin() + (total_color_begin - total_faces), t.end());
  faces_now_->reserve(b, nf);
  const FacePtrs faces = faces_now_->ptrs(nf);
  forall(b, nm, BuildFaces{f_, ranks, faces, edge_face_.data()});
  faces_ = faces;
}

void TriangleForest::build_geometry() {
  Workspace& w = *work_;
  const Backend b = backend_;
  const std::size_t ne = f_.num_elements, nf = faces_.num_faces;  // with w.faces_pending, the edges
  grow(b, w.area, ne, "leaf areas"), grow(b, w.centroid_x, ne, "leaf centroids x"), grow(b, w.centroid_y, ne, "leaf centroids y");
  grow(b, w.centroid_z, ne, "leaf centroids z"), grow(b, w.length, nf, "face lengths"), grow(b, w.normal_x, nf, "face normals x");
  grow(b, w.normal_y, nf, "face normals y"), grow(b, w.normal_z, nf, "face normals z");
  const ElementGeometry elements{f_, w.geometry(), planar_};
  const FaceGeometry faces{f_, faces_, w.geometry(), planar_};
  if (w.faces_pending)
    forall_both(b, f_.num_elements, elements, faces_.num_faces, BelowCount<FaceGeometry>{faces, w.totals.data() + total_faces});
  else
    forall_both(b, f_.num_elements, elements, faces_.num_faces, faces);
}

Geometry TriangleForest::geometry() const { return work_->geometry(); }

namespace {
/// The check's reduction starts from these (MeshTotals: no hanging face, levels, no failure).
constexpr MeshTotals no_mesh_totals{0, 0, -std::int64_t(max_level_limit + 1), 0};

/// The report's figures of a leaf mesh: sizes, the check's totals, colors used.
void report_totals(AdaptReport& report, const ForestPtrs& f, index_t faces, std::vector<index_t> color_begin,
                   const std::int64_t* mesh_totals, Check check) {
  report.elements = f.num_elements;
  report.faces = faces;
  report.nodes = f.num_nodes;
  report.edges = f.num_edges;
  report.hanging_faces = static_cast<index_t>(mesh_totals[0]);
  report.max_level = static_cast<int>(mesh_totals[1]);
  report.min_level = f.num_elements > 0 ? -static_cast<int>(mesh_totals[2]) : 0;
  report.failures = mesh_totals[3];
  report.colors = 0;
  for (std::size_t c = 0; c + 1 < color_begin.size(); ++c) report.colors += color_begin[c + 1] > color_begin[c];
  report.color_begin = std::move(color_begin);
  report.checked = check;
}
}  // namespace

void TriangleForest::count(AdaptReport& report, Check check) const {
  const bool full = check == Check::full;
  Workspace& w = *work_;
  if (backend_ == Backend::cuda) {
    // On the GPU one reduction and one copy: each reduction is a launch and each value read a wait. With the face
    // count pending, the faces span the edges (those past the count in its slot left out), and the count and the
    // color ranges come in the same copy.
    std::int64_t* totals = w.totals.data();
    const std::int64_t* pending = w.faces_pending ? totals + total_faces : nullptr;
    reduce(backend_, f_.num_elements + faces_.num_faces, LeafAndFaceTotals{f_, faces_, edge_face_.data(), full, pending},
           CombineMeshTotals{}, no_mesh_totals, reinterpret_cast<MeshTotals*>(totals + total_mesh));
    if (!w.faces_pending) {
      report_totals(report, f_, faces_.num_faces, color_begin_, read_totals(backend_, totals + total_mesh, 4).data(), check);
      return;
    }
    const std::vector<std::int64_t> t = read_totals(backend_, totals + total_faces, std::size_t(total_slots - total_faces));
    const int colors = 2 * f_.num_colors;
    w.face_totals.assign(t.begin(), t.begin() + (total_color_begin - total_faces + colors + 1));
    std::vector<index_t> color_begin(w.face_totals.begin() + (total_color_begin - total_faces), w.face_totals.end());
    report_totals(report, f_, index_t(t[0]), std::move(color_begin), t.data() + (total_mesh - total_faces), check);
    return;
  }
  // On the CPU a pass per figure: the one-value passes vectorize, and the fused pass ran the check at half the speed.
  const std::int64_t t[4] = {
      sum(backend_, faces_.num_faces, HangingFace{faces_}), maximum(backend_, f_.num_elements, Level{f_.elem_level, 1}, 0),
      maximum(backend_, f_.num_elements, Level{f_.elem_level, -1}, 0),
      full ? sum(backend_, f_.num_elements, CheckElement{f_, faces_, edge_face_.data()}) + sum(backend_, faces_.num_faces, CheckFace{f_, faces_})
           : sum(backend_, f_.num_elements, CheckColors{f_})};
  report_totals(report, f_, faces_.num_faces, color_begin_, t, check);
}

AdaptReport TriangleForest::check(Check check) const {
  AdaptReport report;
  PhaseClock clock(backend_);
  count(report, check);
  clock.lap(report.seconds_check);
  clock.finish(report.seconds);
  return report;
}

std::size_t TriangleForest::bytes() const {
  std::size_t total = 0;
  auto add = [&](const auto& a) { total += a.size() * sizeof(*a.data()); };
  Arrays::each(*arrays_, add), Arrays::each(*spare_, add);
  FaceArrays::each(*faces_now_, add);
  Workspace::each(*work_, add);
  add(edge_face_), add(refine_), add(coarsen_);
  return total;
}

LeafMesh TriangleForest::to_host() const {
  LeafMesh m;
  const Arrays& a = *arrays_;
  const std::size_t nn = f_.num_nodes, ne = f_.num_elements, nf = faces_.num_faces;
  m.x = head(a.x, nn), m.y = head(a.y, nn), m.z = head(a.z, nn);
  m.element_vertices = head(a.elem_vertices, 3 * ne), m.element_edges = head(a.elem_edges, 3 * ne);
  m.element_sides = head(a.elem_sides, ne), m.level = head(a.elem_level, ne), m.path = head(a.elem_path, ne);
  m.root = head(a.elem_root, ne);
  const std::vector<Face> faces = head(faces_now_->face, nf);
  m.face_vertices.reserve(2 * nf);
  for (const Face& face : faces) {
    m.face_left.push_back(face.left), m.face_right.push_back(face.right);
    m.face_left_local.push_back(face.left_local), m.face_right_local.push_back(face.right_local);
    m.face_left_half.push_back(face.left_half), m.face_right_half.push_back(face.right_half);
    m.face_color.push_back(face.color), m.face_boundary.push_back(face.boundary);
    m.face_vertices.push_back(face.vertices[0]), m.face_vertices.push_back(face.vertices[1]);
  }
  m.color_begin = color_begin_;
  const Workspace& w = *work_;
  m.area = head(w.area, ne), m.centroid_x = head(w.centroid_x, ne), m.centroid_y = head(w.centroid_y, ne);
  m.centroid_z = head(w.centroid_z, ne), m.face_length = head(w.length, nf), m.normal_x = head(w.normal_x, nf);
  m.normal_y = head(w.normal_y, nf), m.normal_z = head(w.normal_z, nf);
  return m;
}

Mesh leaf_elements_mesh(const LeafMesh& leaves, const Mesh& start) {
  Mesh out;
  out.source = start.source, out.origin = start.origin;
  out.dim = start.dim, out.space_dim = start.space_dim;
  out.x = leaves.x, out.y = leaves.y, out.z = leaves.z;
  const index_t ne = leaves.num_elements();
  out.element_type.assign(ne, ElementType::triangle);
  out.element_vertices = leaves.element_vertices;
  out.element_vertex_begin.resize(std::size_t(ne) + 1);
  for (index_t e = 0; e <= ne; ++e) out.element_vertex_begin[e] = 3 * e;
  out.element_tag.resize(ne);
  for (index_t e = 0; e < ne; ++e) out.element_tag[e] = start.element_tag[leaves.root[e]];
  out.volume = leaves.area, out.centroid_x = leaves.centroid_x, out.centroid_y = leaves.centroid_y, out.centroid_z = leaves.centroid_z;
  out.boundary_names = start.boundary_names;
  out.leaf_root = leaves.root;
  out.leaf_path.assign(leaves.path.begin(), leaves.path.end());
  out.leaf_level.assign(leaves.level.begin(), leaves.level.end());
  return out;
}

std::string TriangleForest::difference_from(const Mesh& start) const {
  const LeafMesh m = to_host();
  std::ostringstream out;
  auto differ = [&](const char* what, auto&& a, auto&& b) {
    if (a.size() != b.size()) {
      out << what << ": " << a.size() << " values instead of " << b.size();
      return true;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i])) {
        out << what << " [" << i << "]: " << +a[i] << " instead of " << +b[i];
        return true;
      }
    return false;
  };
  if (differ("x", m.x, start.x) || differ("y", m.y, start.y) || differ("z", m.z, start.z) ||
      differ("element vertices", m.element_vertices, start.element_vertices) ||
      differ("face left", m.face_left, start.face_left) || differ("face right", m.face_right, start.face_right) ||
      differ("face left local", m.face_left_local, start.face_left_local) ||
      differ("face right local", m.face_right_local, start.face_right_local) ||
      differ("face color", m.face_color, start.face_color) || differ("face boundary", m.face_boundary, start.face_boundary) ||
      differ("color ranges", std::vector<index_t>(m.color_begin.begin(), m.color_begin.begin() + start.color_begin.size()),
             start.color_begin))
    return out.str();
  std::vector<index_t> start_vertices(2 * std::size_t(start.num_faces()));
  for (index_t f = 0; f < start.num_faces(); ++f)
    for (int k = 0; k < 2; ++k) start_vertices[2 * f + k] = start.face_vertices[std::size_t(f) * max_face_vertices + k];
  if (differ("face vertices", m.face_vertices, start_vertices)) return out.str();
  for (std::size_t c = start.color_begin.size(); c < m.color_begin.size(); ++c)
    if (m.color_begin[c] != start.num_faces()) return "faces of color " + std::to_string(c - 1) + " remain";
  return "";
}

}  // namespace kempe::adapt
