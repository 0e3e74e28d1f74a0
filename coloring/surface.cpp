// Closed triangle surfaces colored through their vertices: Tait's correspondence (paper 003, section 2).
//
// Number the four colors of a proper vertex coloring of the triangulation as the elements of Z2 x Z2. The mesh
// edge (face) pq then takes the color phi(p) xor phi(q), which is never 0, and the three faces of a triangle,
// whose vertices carry three distinct colors, take three distinct colors: a 3-coloring of the faces, the fewest
// possible. On a closed surface every color class of such a coloring is a perfect matching of the dual, so
// the classes are equal without a balancing pass.
//
// Why not the face-based search (coloring.cpp) here: with no boundary, the parity defects it leaves can only
// be paired with each other through bicolor chains, which on a closed surface run around the whole mesh
// (about 200k faces each on Sphere C) and must be flipped at random until two defects meet: 3 to 25 s over
// seeds. A vertex coloring is repaired locally instead. Vertices are colored in breadth-first order with the
// first free color of a seeded preference order, so three colors form the lattice's natural 3-coloring and
// the fourth is used only around vertices of odd degree. A vertex whose colored neighbours use all four colors
// is freed by a Kempe interchange (Kempe 1879): swap colors x and y on the x/y components of its x-colored
// neighbours, allowed when no y-colored neighbour lies in them. Components that involve the sparse fourth
// color are small, and they are tried first. Where no interchange works (Kempe's degree-5 gap), random
// interchanges around the vertex change the picture. Effort is bounded in vertices visited; past the bound, or
// on a surface whose vertices this does not 4-color (a torus may need more), the caller falls back to the
// face-based search.
#include "coloring/detail.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace kempe::detail {
namespace {

constexpr int vertex_colors = 4;
constexpr std::int8_t uncolored = -1;
/// A neighbour mark no vertex carries (marks count up from 1).
constexpr std::uint32_t no_mark = 0xFFFFFFFFu;
/// Component size limits of the interchanges, tried in turn: short components first, since most stuck vertices
/// have one, and any component that frees a color will do. No unlimited try: a component of two of the three
/// lattice colors spans the mesh, and a random interchange nearby (shake_around) is cheaper than swapping it
/// (torus, 6 seeds: 1.4M-3.0M vertices visited with an unlimited try, 0.14M-0.52M without).
constexpr std::array<std::size_t, 3> component_limits = {16, 256, 4096};
/// Random interchanges tried around one vertex before giving up on the vertex route.
constexpr int max_shakes_per_vertex = 256;
/// The largest component a random interchange swaps: a local change is what a stuck vertex needs.
constexpr std::size_t shake_limit = 4096;
/// Effort bound in vertices visited by component searches: a floor plus an allowance per vertex (linear).
constexpr std::int64_t effort_floor = 20'000'000;
constexpr std::int64_t effort_per_vertex = 200;

class VertexFourColoring {
 public:
  VertexFourColoring(const Mesh& m, std::uint64_t seed) : random_(seed) {
    const index_t n = m.num_nodes();
    // Vertex adjacency (CSR) from the faces, which are the mesh edges of a triangle surface.
    adjacency_begin_.assign(std::size_t(n) + 1, 0);
    for (index_t f = 0; f < m.num_faces(); ++f) {
      ++adjacency_begin_[m.face_vertices[std::size_t(f) * max_face_vertices] + 1];
      ++adjacency_begin_[m.face_vertices[std::size_t(f) * max_face_vertices + 1] + 1];
    }
    std::partial_sum(adjacency_begin_.begin(), adjacency_begin_.end(), adjacency_begin_.begin());
    adjacency_.resize(adjacency_begin_[n]);
    std::vector<index_t> next(adjacency_begin_.begin(), adjacency_begin_.end() - 1);
    for (index_t f = 0; f < m.num_faces(); ++f) {
      const index_t p = m.face_vertices[std::size_t(f) * max_face_vertices];
      const index_t q = m.face_vertices[std::size_t(f) * max_face_vertices + 1];
      adjacency_[next[p]++] = q;
      adjacency_[next[q]++] = p;
    }
    color_.assign(n, uncolored);
    visited_.assign(n, 0);
    neighbour_mark_.assign(n, 0);
    // A seeded preference order of the colors: the first three tile the lattice, the last is the rare one.
    std::iota(preference_.begin(), preference_.end(), 0);
    for (int i = vertex_colors - 1; i > 0; --i) std::swap(preference_[i], preference_[random_.below(i + 1)]);
    budget_ = effort_floor + effort_per_vertex * static_cast<std::int64_t>(n);
  }

  /// Colors every vertex; false when the effort bound or the per-vertex shake limit ran out.
  bool run() {
    const index_t n = static_cast<index_t>(color_.size());
    std::vector<index_t> queue;
    queue.reserve(n);
    std::vector<std::uint8_t> queued(n, 0);
    const index_t first_root = n > 0 ? static_cast<index_t>(random_.below(static_cast<unsigned>(n))) : 0;
    for (index_t k = 0; k < n; ++k) {
      const index_t root = (first_root + k) % n;
      if (queued[root] || degree(root) == 0) continue;
      queued[root] = 1;
      queue.push_back(root);
      for (std::size_t i = queue.size() - 1; i < queue.size(); ++i) {
        const index_t v = queue[i];
        for (index_t j = adjacency_begin_[v]; j < adjacency_begin_[v + 1]; ++j)
          if (!queued[adjacency_[j]]) {
            queued[adjacency_[j]] = 1;
            queue.push_back(adjacency_[j]);
          }
        if (!color_vertex(v)) return false;
      }
    }
    return true;
  }

  int color(index_t v) const { return color_[v]; }
  index_t stuck_vertices() const { return stuck_; }
  index_t shaken_vertices() const { return shaken_; }

 private:
  index_t degree(index_t v) const { return adjacency_begin_[v + 1] - adjacency_begin_[v]; }
  unsigned neighbour_colors(index_t v) const {
    unsigned used = 0;
    for (index_t j = adjacency_begin_[v]; j < adjacency_begin_[v + 1]; ++j)
      if (color_[adjacency_[j]] != uncolored) used |= 1u << color_[adjacency_[j]];
    return used;
  }

  bool color_vertex(index_t v) {
    if (const unsigned free = ~neighbour_colors(v) & 0xFu) {
      for (const int c : preference_)
        if (free & (1u << c)) {
          color_[v] = static_cast<std::int8_t>(c);
          return true;
        }
    }
    ++stuck_;
    for (const std::size_t limit : component_limits)
      if (interchange(v, limit)) return true;
    ++shaken_;
    for (int shake = 0; shake < max_shakes_per_vertex && walked_ < budget_; ++shake) {
      shake_around(v);
      for (const std::size_t limit : component_limits)
        if (interchange(v, limit)) return true;
    }
    return false;
  }

  /// Frees a color at v by one Kempe interchange whose components hold at most `limit` vertices, and gives v
  /// that color. Pairs with the rare color come first: their components are small.
  bool interchange(index_t v, std::size_t limit) {
    ++stamp_;
    for (index_t j = adjacency_begin_[v]; j < adjacency_begin_[v + 1]; ++j) neighbour_mark_[adjacency_[j]] = stamp_;
    const std::uint32_t neighbour_stamp = stamp_;
    for (int i = vertex_colors - 1; i >= 0; --i)
      for (int k = vertex_colors - 1; k >= 0; --k) {
        const int x = preference_[i], y = preference_[k];
        if (x == y) continue;
        if (!component(v, x, y, neighbour_stamp, limit)) continue;
        for (const index_t w : component_) color_[w] = static_cast<std::int8_t>(color_[w] == x ? y : x);
        color_[v] = static_cast<std::int8_t>(x);
        return true;
      }
    return false;
  }

  /// The x/y components of v's x-colored neighbours, into component_. False when one of them holds a y-colored
  /// neighbour of v (swapping would not free x) or the search passes `limit` vertices.
  bool component(index_t v, int x, int y, std::uint32_t neighbour_stamp, std::size_t limit) {
    component_.clear();
    ++stamp_;
    for (index_t j = adjacency_begin_[v]; j < adjacency_begin_[v + 1]; ++j) {
      const index_t w = adjacency_[j];
      if (color_[w] == x && visited_[w] != stamp_) {
        visited_[w] = stamp_;
        component_.push_back(w);
      }
    }
    return grow(x, y, neighbour_stamp, limit);
  }

  /// Grows component_ (its vertices marked with stamp_) to the whole x/y component. False when it reaches a
  /// y-colored vertex marked with `forbidden` or passes `limit` vertices.
  bool grow(int x, int y, std::uint32_t forbidden, std::size_t limit) {
    for (std::size_t i = 0; i < component_.size(); ++i) {
      const index_t u = component_[i];
      ++walked_;
      for (index_t j = adjacency_begin_[u]; j < adjacency_begin_[u + 1]; ++j) {
        const index_t w = adjacency_[j];
        if (visited_[w] == stamp_ || (color_[w] != x && color_[w] != y)) continue;
        if (color_[w] == y && neighbour_mark_[w] == forbidden) return false;
        visited_[w] = stamp_;
        component_.push_back(w);
        if (component_.size() > limit) return false;
      }
    }
    return true;
  }

  /// A random interchange next to v: swaps a random colored neighbour's component (at most shake_limit
  /// vertices) with a random other color. Always keeps the coloring proper.
  void shake_around(index_t v) {
    const index_t w = adjacency_[adjacency_begin_[v] + random_.below(static_cast<unsigned>(degree(v)))];
    if (color_[w] == uncolored) return;
    const int x = color_[w];
    const int y = (x + 1 + static_cast<int>(random_.below(vertex_colors - 1))) % vertex_colors;
    component_.assign(1, w);
    ++stamp_;
    visited_[w] = stamp_;
    if (!grow(x, y, no_mark, shake_limit)) return;
    for (const index_t u : component_) color_[u] = static_cast<std::int8_t>(color_[u] == x ? y : x);
  }

  Random random_;
  std::vector<index_t> adjacency_begin_, adjacency_, component_;
  std::vector<std::int8_t> color_;
  std::vector<std::uint32_t> visited_, neighbour_mark_;
  std::uint32_t stamp_ = 0;
  std::array<int, vertex_colors> preference_{};
  std::int64_t walked_ = 0, budget_ = 0;
  index_t stuck_ = 0, shaken_ = 0;
};

/// Whether both elements of every face hold the face's two vertices. Not so on a periodic mesh, whose faces
/// across the period join elements with different (translated) nodes: its vertex graph is not the surface's.
bool faces_share_their_vertices(const Mesh& mesh) {
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    const index_t r = mesh.face_right[f];
    if (r == no_element) continue;
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[r]];
    const index_t* end = &mesh.element_vertices[mesh.element_vertex_begin[r + 1]];
    for (int k = 0; k < 2; ++k)
      if (std::find(v, end, mesh.face_vertices[std::size_t(f) * max_face_vertices + k]) == end) return false;
  }
  return true;
}

}  // namespace

std::optional<FaceColoring> color_closed_surface_by_vertices(const Mesh& mesh, std::uint64_t seed) {
  if (!faces_share_their_vertices(mesh)) return std::nullopt;
  VertexFourColoring vertices(mesh, seed);
  if (!vertices.run()) return std::nullopt;
  std::vector<std::int8_t> color(mesh.num_faces());
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    const int p = vertices.color(mesh.face_vertices[std::size_t(f) * max_face_vertices]);
    const int q = vertices.color(mesh.face_vertices[std::size_t(f) * max_face_vertices + 1]);
    color[f] = static_cast<std::int8_t>((p ^ q) - 1);  // p != q, so p xor q is 1, 2 or 3
  }
  // Proper by construction where every face's two vertices are shared (checked above); this O(faces) check
  // makes a surface that breaks that in a way not foreseen fall back instead of failing the validity check.
  if (!check_coloring(mesh, color, 3).empty()) return std::nullopt;
  FaceColoring result = make_result(mesh, "kempe", std::move(color));
  result.greedy_conflicts = vertices.stuck_vertices();
  result.hard_conflicts = vertices.shaken_vertices();
  result.by_vertices = true;
  return result;
}

}  // namespace kempe::detail
