// The pipeline of one adaptation (adapt/forest.hpp): flags -> 2:1 balance -> counts and offsets (prefix sums)
// -> new nodes, edges (colors by Alg. 4) and elements -> incidence -> faces grouped by color -> check.
// Compiled by nvcc in a CUDA build, so that the same passes run on either backend.
#include "adapt/forest.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/algorithms.hpp"

namespace kempe::adapt {

namespace {

/// Seconds between phases; on the GPU the phase's launches are waited for first.
class PhaseClock {
 public:
  explicit PhaseClock(Backend backend) : backend_(backend), start_(now()), last_(start_) {}
  double lap() {
    if (backend_ == Backend::cuda) device_synchronize("an adaptation phase");
    const auto t = now();
    const double s = std::chrono::duration<double>(t - last_).count();
    last_ = t;
    return s;
  }
  double total() const { return std::chrono::duration<double>(last_ - start_).count(); }

 private:
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  Backend backend_;
  std::chrono::steady_clock::time_point start_, last_;
};

struct Fill {
  index_t* p;
  index_t value;
  KEMPE_HD void operator()(index_t i) const { p[i] = value; }
};

template <class T>
struct Nonzero {
  const T* p;
  KEMPE_HD int operator()(index_t i) const { return p[i] != 0; }
};

struct HangingFace {
  FacePtrs faces;
  KEMPE_HD int operator()(index_t i) const { return faces.left_half[i] != whole_edge || faces.right_half[i] != whole_edge; }
};

struct Level {
  const std::uint8_t* level;
  int sign;
  KEMPE_HD int operator()(index_t i) const { return sign * int(level[i]); }
};

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
  Buffer<double> x, y, z;
  Buffer<index_t> node_edge;
  Buffer<index_t> elem_vertices, elem_edges;
  Buffer<std::uint8_t> elem_sides, elem_level;
  Buffer<std::uint64_t> elem_path;
  Buffer<index_t> elem_root;
  Buffer<index_t> edge_parent, edge_child, edge_mid;
  Buffer<std::int8_t> edge_color;
  Buffer<std::int32_t> edge_boundary;
  Buffer<std::uint8_t> edge_flags, edge_shift;
  Buffer<index_t> edge_elem;
  Buffer<std::int8_t> edge_local;

  Arrays(Backend b, index_t nodes, index_t elements, index_t edges)
      : x(b, nodes, "adapted mesh x"), y(b, nodes, "adapted mesh y"), z(b, nodes, "adapted mesh z"),
        node_edge(b, nodes, "adapted mesh node edges"),
        elem_vertices(b, 3 * std::size_t(elements), "adapted mesh element vertices"),
        elem_edges(b, 3 * std::size_t(elements), "adapted mesh element edges"),
        elem_sides(b, elements, "adapted mesh element sides"), elem_level(b, elements, "adapted mesh levels"),
        elem_path(b, elements, "adapted mesh tree paths"), elem_root(b, elements, "adapted mesh roots"),
        edge_parent(b, edges, "adapted mesh edge parents"), edge_child(b, edges, "adapted mesh edge children"),
        edge_mid(b, 2 * std::size_t(edges), "adapted mesh edge midpoints"), edge_color(b, edges, "adapted mesh edge colors"),
        edge_boundary(b, edges, "adapted mesh edge boundaries"), edge_flags(b, edges, "adapted mesh edge flags"),
        edge_shift(b, edges, "adapted mesh edge shifts"), edge_elem(b, 2 * std::size_t(edges), "adapted mesh edge elements"),
        edge_local(b, 2 * std::size_t(edges), "adapted mesh edge local indices") {}

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
    return p;
  }
};

struct TriangleForest::FaceArrays {
  Buffer<index_t> left, right;
  Buffer<std::int8_t> left_local, right_local, left_half, right_half, color;
  Buffer<std::int32_t> boundary;
  Buffer<index_t> edge, vertices;

  FaceArrays(Backend b, index_t n)
      : left(b, n, "face left"), right(b, n, "face right"), left_local(b, n, "face left local"),
        right_local(b, n, "face right local"), left_half(b, n, "face left half"), right_half(b, n, "face right half"),
        color(b, n, "face color"), boundary(b, n, "face boundary"), edge(b, n, "face edge"),
        vertices(b, 2 * std::size_t(n), "face vertices") {}

  FacePtrs ptrs(index_t n) {
    FacePtrs p;
    p.num_faces = n;
    p.left = left.data(), p.right = right.data(), p.left_local = left_local.data(), p.right_local = right_local.data();
    p.left_half = left_half.data(), p.right_half = right_half.data(), p.color = color.data();
    p.boundary = boundary.data(), p.edge = edge.data(), p.vertices = vertices.data();
    return p;
  }
};

TriangleForest::TriangleForest(const Mesh& start, Backend backend, int max_level) : backend_(backend), max_level_(max_level) {
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

  // The start mesh on the host: every element and face becomes a root of its tree.
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
      ee[3 * e + j] = f;
      if (!(start.face_left[f] == e && start.face_left_local[f] == j)) sides[e] |= std::uint8_t(1u << j);
    }
  }
  std::vector<index_t> parent(nf, no_element), child(nf, no_element), mid(2 * std::size_t(nf), no_element);
  std::vector<std::int8_t> color(start.face_color.begin(), start.face_color.end());
  std::vector<std::int32_t> boundary(start.face_boundary.begin(), start.face_boundary.end());
  std::vector<std::uint8_t> flags(nf, 0), shift(nf, 0);
  std::vector<index_t> elem(2 * std::size_t(nf));
  std::vector<std::int8_t> local(2 * std::size_t(nf));
  double extent = 0;
  for (index_t i = 0; i < nn; ++i) extent = std::max({extent, std::abs(x[i]), std::abs(y[i]), std::abs(z[i])});
  int num_shifts = 0;
  for (index_t f = 0; f < nf; ++f) {
    elem[2 * f] = start.face_left[f], local[2 * f] = start.face_left_local[f];
    elem[2 * f + 1] = start.face_right[f], local[2 * f + 1] = start.face_right_local[f];
    if (color[f] < 0 || color[f] >= colors)
      throw std::invalid_argument(name + ": face " + std::to_string(f) + " has color " + std::to_string(color[f]) +
                                  ", outside the mesh's " + std::to_string(colors));
    const index_t r = start.face_right[f];
    if (r == no_element) continue;
    const index_t l = start.face_left[f];
    const int jl = start.face_left_local[f], jr = start.face_right_local[f];
    const index_t a = ev[3 * l + jl], b = ev[3 * l + (jl + 1) % 3];
    const index_t c = ev[3 * r + jr], d = ev[3 * r + (jr + 1) % 3];
    if (c == b && d == a) continue;
    // A periodic join: the right element sees vertex a at d; the translation is found once per distinct shift.
    flags[f] = edge_periodic;
    const double dx = x[d] - x[a], dy = y[d] - y[a], dz = z[d] - z[a];
    const double tolerance = 1e-9 * std::max(extent, 1.0);
    int k = 0;
    while (k < num_shifts && !(std::abs(shifts_.dx[k] - dx) <= tolerance && std::abs(shifts_.dy[k] - dy) <= tolerance &&
                               std::abs(shifts_.dz[k] - dz) <= tolerance))
      ++k;
    if (k == num_shifts) {
      if (num_shifts == max_periodic_shifts)
        throw std::invalid_argument(name + ": more than " + std::to_string(max_periodic_shifts) +
                                    " distinct periodic translations; adaptive refinement supports translations only");
      shifts_.dx[k] = dx, shifts_.dy[k] = dy, shifts_.dz[k] = dz;
      ++num_shifts;
    }
    shift[f] = static_cast<std::uint8_t>(k);
  }

  arrays_ = std::make_shared<Arrays>(backend, nn, ne, nf);
  Arrays& a = *arrays_;
  a.x.upload(x), a.y.upload(y), a.z.upload(z), a.node_edge.upload(node_edge);
  a.elem_vertices.upload(ev), a.elem_edges.upload(ee), a.elem_sides.upload(sides), a.elem_level.upload(level);
  a.elem_path.upload(path), a.elem_root.upload(root);
  a.edge_parent.upload(parent), a.edge_child.upload(child), a.edge_mid.upload(mid), a.edge_color.upload(color);
  a.edge_boundary.upload(boundary), a.edge_flags.upload(flags), a.edge_shift.upload(shift);
  a.edge_elem.upload(elem), a.edge_local.upload(local);
  f_ = a.ptrs(nn, ne, nf, nn, colors);
  refine_ = Buffer<std::uint8_t>(backend, ne, "refinement flags");
  coarsen_ = Buffer<std::uint8_t>(backend, ne, "coarsening flags");
  flag_all(false, false);
  AdaptReport report;
  build_faces(report);
}

void TriangleForest::flag_random(double refine_fraction, double coarsen_fraction, std::uint64_t seed, std::uint64_t cycle) {
  forall(backend_, f_.num_elements,
         FlagRandom{f_, refine_fraction, coarsen_fraction, seed, cycle, refine_.data(), coarsen_.data()});
}

void TriangleForest::flag_all(bool refine, bool coarsen) {
  forall(backend_, f_.num_elements, FlagAll{refine_.data(), coarsen_.data(), std::uint8_t(refine), std::uint8_t(coarsen)});
}

AdaptReport TriangleForest::adapt() {
  AdaptReport report;
  PhaseClock clock(backend_);
  const ForestPtrs from = f_;
  const index_t ne = from.num_elements, nm = from.num_edges, nn = from.num_nodes;

  Buffer<std::int8_t> delta(backend_, ne, "refinement actions");
  forall(backend_, ne, InitDelta{from, refine_.data(), coarsen_.data(), max_level_, delta.data()});
  report.seconds_flags = clock.lap();

  // 2:1 balance: raise leaves until no neighbour's new level exceeds another's by more than one. Levels only
  // rise, and never above the maximum (a raised leaf is below a neighbour that is at most at the maximum).
  Buffer<std::uint8_t> raise(backend_, ne, "balance flags");
  for (;;) {
    forall(backend_, ne, FindRaise{from, delta.data(), raise.data()});
    ++report.balance_passes;
    if (sum(backend_, ne, Nonzero<std::uint8_t>{raise.data()}) == 0) break;
    forall(backend_, ne, ApplyRaise{from, raise.data(), delta.data()});
    if (report.balance_passes > 4 * max_level_limit + ne)
      throw std::logic_error("adaptive refinement: the 2:1 balance did not settle");
  }
  report.seconds_balance = clock.lap();

  // Counts and offsets.
  Buffer<std::uint8_t> state(backend_, nm, "edge actions");
  forall(backend_, nm, EdgeActions{from, delta.data(), state.data()});
  Buffer<index_t> edge_keep(backend_, nm, "kept edges"), splits(backend_, nm, "split edges"),
      new_nodes(backend_, nm, "new midpoints"), node_keep(backend_, nn, "kept nodes"),
      elem_count(backend_, ne, "new elements"), refined(backend_, ne, "refined elements");
  forall(backend_, nm, EdgeCounts{from, delta.data(), state.data(), edge_keep.data(), splits.data(), new_nodes.data()});
  forall(backend_, nn, NodeKeep{from, state.data(), node_keep.data()});
  forall(backend_, ne, ElementCounts{from, delta.data(), elem_count.data(), refined.data()});
  // Bounds before the 32-bit scans: at most 4 elements per leaf, 2 children per edge plus 3 per leaf, 2 nodes per edge.
  const std::int64_t bound = 4 * std::int64_t(ne) + 3 * std::int64_t(nm) + 3 * std::int64_t(ne) + std::int64_t(nn) + 2 * std::int64_t(nm);
  if (bound > std::numeric_limits<index_t>::max()) {
    fitting(sum(backend_, ne, Nonzero<index_t>{refined.data()}) * 3 + ne, "elements");
    fitting(nm + 2 * sum(backend_, nm, Nonzero<index_t>{splits.data()}) + 3 * sum(backend_, ne, Nonzero<index_t>{refined.data()}),
            "edges");
    fitting(nn + 2 * sum(backend_, nm, Nonzero<index_t>{splits.data()}), "nodes");
  }
  Buffer<index_t> node_new(backend_, nn, "node renumbering"), edge_new(backend_, nm, "edge renumbering"),
      split_offset(backend_, nm, "split offsets"), mid_offset(backend_, nm, "midpoint offsets"),
      elem_offset(backend_, ne, "element offsets"), refine_offset(backend_, ne, "refinement offsets");
  AdaptOffsets o{};
  o.kept_nodes = exclusive_scan(backend_, node_keep.data(), nn, node_new.data());
  o.kept_edges = exclusive_scan(backend_, edge_keep.data(), nm, edge_new.data());
  o.splits = exclusive_scan(backend_, splits.data(), nm, split_offset.data());
  const index_t midpoints = exclusive_scan(backend_, new_nodes.data(), nm, mid_offset.data());
  const index_t new_elements = exclusive_scan(backend_, elem_count.data(), ne, elem_offset.data());
  const index_t refinements = exclusive_scan(backend_, refined.data(), ne, refine_offset.data());
  o.node_keep = node_keep.data(), o.node_new = node_new.data(), o.edge_keep = edge_keep.data();
  o.edge_new = edge_new.data(), o.split_offset = split_offset.data(), o.mid_offset = mid_offset.data();
  o.elem_offset = elem_offset.data(), o.refine_offset = refine_offset.data(), o.state = state.data(), o.delta = delta.data();
  const index_t new_nodes_total = o.kept_nodes + midpoints;
  const index_t new_edges_total = o.kept_edges + 2 * o.splits + 3 * refinements;
  report.refined = refinements;
  report.coarsened = (ne - refinements) - (new_elements - 4 * refinements);
  report.coarsened /= 3;
  report.seconds_counts = clock.lap();

  // New nodes, edges and elements; then each edge learns its leaves.
  auto next = std::make_shared<Arrays>(backend_, new_nodes_total, new_elements, new_edges_total);
  const ForestPtrs to = next->ptrs(new_nodes_total, new_elements, new_edges_total, from.root_nodes, from.num_colors);
  forall(backend_, nn, MoveNodes{from, to, o});
  forall(backend_, nm, NewMidpoints{from, to, o, shifts_});
  forall(backend_, nm, MoveEdges{from, to, o});
  forall(backend_, ne, BuildElements{from, to, o});
  forall(backend_, new_edges_total, ClearIncidence{to});
  forall(backend_, new_elements, ScatterIncidence{to});
  arrays_ = std::move(next);
  f_ = to;
  refine_ = Buffer<std::uint8_t>(backend_, new_elements, "refinement flags");
  coarsen_ = Buffer<std::uint8_t>(backend_, new_elements, "coarsening flags");
  flag_all(false, false);
  report.seconds_build = clock.lap();

  build_faces(report);
  report.seconds_faces = clock.lap();
  count(report);
  report.seconds_check = clock.lap();
  report.seconds = clock.total();
  return report;
}

void TriangleForest::build_faces(AdaptReport&) {
  const index_t nm = f_.num_edges;
  Buffer<index_t> is_face(backend_, nm, "face flags"), face_of_edge(backend_, nm, "face offsets");
  forall(backend_, nm, FaceFlags{f_, is_face.data()});
  const index_t nf = exclusive_scan(backend_, is_face.data(), nm, face_of_edge.data());
  FaceArrays unsorted(backend_, nf);
  auto sorted = std::make_shared<FaceArrays>(backend_, nf);
  Buffer<std::int64_t> key(backend_, nf, "face sort keys");
  Buffer<index_t> order(backend_, nf, "face order");
  const FacePtrs raw = unsorted.ptrs(nf);
  forall(backend_, nm, BuildFaces{f_, is_face.data(), face_of_edge.data(), raw, key.data(), order.data()});
  stable_sort_by_key(backend_, key.data(), order.data(), nf);
  edge_face_ = Buffer<index_t>(backend_, nm, "edge faces");
  forall(backend_, nm, Fill{edge_face_.data(), no_element});
  const FacePtrs faces = sorted->ptrs(nf);
  forall(backend_, nf, GatherFaces{raw, faces, order.data(), edge_face_.data()});
  const int colors = 2 * f_.num_colors;
  Buffer<index_t> color_begin(backend_, colors + 1, "color ranges");
  forall(backend_, colors + 1, Fill{color_begin.data(), 0});
  forall(backend_, nf, ColorBegin{faces, colors, color_begin.data()});
  color_begin_ = color_begin.to_host();
  face_arrays_ = std::move(sorted);
  faces_ = faces;
}

void TriangleForest::count(AdaptReport& report) const {
  report.elements = f_.num_elements;
  report.faces = faces_.num_faces;
  report.nodes = f_.num_nodes;
  report.edges = f_.num_edges;
  report.hanging_faces = static_cast<index_t>(sum(backend_, faces_.num_faces, HangingFace{faces_}));
  report.max_level = static_cast<int>(maximum(backend_, f_.num_elements, Level{f_.elem_level, 1}, 0));
  report.min_level = -static_cast<int>(maximum(backend_, f_.num_elements, Level{f_.elem_level, -1}, 0));
  report.color_begin = color_begin_;
  report.colors = 0;
  for (std::size_t c = 0; c + 1 < color_begin_.size(); ++c) report.colors += color_begin_[c + 1] > color_begin_[c];
  report.failures = sum(backend_, f_.num_elements, CheckElement{f_, faces_, edge_face_.data()}) +
                    sum(backend_, faces_.num_faces, CheckFace{f_, faces_});
}

AdaptReport TriangleForest::check() const {
  AdaptReport report;
  count(report);
  return report;
}

LeafMesh TriangleForest::to_host() const {
  LeafMesh m;
  const Arrays& a = *arrays_;
  m.x = a.x.to_host(), m.y = a.y.to_host(), m.z = a.z.to_host();
  m.element_vertices = a.elem_vertices.to_host(), m.element_edges = a.elem_edges.to_host();
  m.element_sides = a.elem_sides.to_host(), m.level = a.elem_level.to_host(), m.path = a.elem_path.to_host();
  m.root = a.elem_root.to_host();
  const FaceArrays& fa = *face_arrays_;
  m.face_left = fa.left.to_host(), m.face_right = fa.right.to_host();
  m.face_left_local = fa.left_local.to_host(), m.face_right_local = fa.right_local.to_host();
  m.face_left_half = fa.left_half.to_host(), m.face_right_half = fa.right_half.to_host();
  m.face_color = fa.color.to_host(), m.face_boundary = fa.boundary.to_host(), m.face_vertices = fa.vertices.to_host();
  m.color_begin = color_begin_;
  return m;
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
