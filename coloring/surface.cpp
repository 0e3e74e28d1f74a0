// Triangle meshes colored through their vertices: Tait's correspondence (Gulicheva & Rybakov, "Cubic graph edge
// coloring in the problem of calculation parallelization on an unstructured surface computational grid", sec. 2).
//
// Number the four colors of a proper vertex coloring of the triangulation as the elements of Z2 x Z2. The mesh
// edge (face) pq then takes the color phi(p) xor phi(q), which is never 0, and the three faces of a triangle,
// whose vertices carry three distinct colors, take three distinct colors: a 3-coloring of the faces, the fewest
// possible. This holds with or without a boundary (a boundary face is just an edge with one triangle), and
// every planar triangulation has a vertex 4-coloring. Every triangle holds one face of each color, so class c
// holds (triangles + boundary faces of color c) / 2 faces: equal classes on a closed surface, and on a mesh
// with a boundary classes that differ by a share of the boundary only (the caller balances them if needed).
//
// Why not the face-based search (coloring.cpp): on a closed surface the parity defects it leaves can only be
// paired with each other through bicolor chains, which run around the whole mesh (about 200k faces each on
// Sphere C) and must be flipped at random until two defects meet: 3 to 25 s over seeds. A vertex coloring is
// repaired locally instead. And on the paper's rectangles the vertex route does a third of the face search's
// work (Rect E: 0.3 s against 1.1 s; the face search must build a dual graph in a numbering of its own).
//
// Vertices are colored in breadth-first order with the first free color of a seeded preference order, so three
// colors form the lattice's natural 3-coloring and the fourth is used only around vertices of odd degree. A
// vertex whose colored neighbours use all four colors is freed by a Kempe interchange (Kempe 1879): swap colors
// x and y on the x/y components of its x-colored neighbours, allowed when no y-colored neighbour lies in them.
// Components that involve the sparse fourth color are small, and they are tried first. Where no interchange
// works (Kempe's degree-5 gap), random interchanges around the vertex change the picture. Effort is bounded in
// vertices visited; past the bound, or on a surface whose vertices this does not 4-color (a torus may need
// more), or on a periodic mesh, the caller falls back to the face-based search.
#include "coloring/detail.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace kempe::detail {
namespace {

constexpr int vertex_colors = 4;
/// Vertex states besides the colors 0..3: not reached yet by the breadth-first search, and waiting in its queue.
constexpr std::int8_t unseen = -1;
constexpr std::int8_t queued = -2;
/// A neighbour mark no vertex carries (marks count up from 1).
constexpr std::uint32_t no_mark = 0xFFFFFFFFu;
/// Component size limits of the interchanges, tried in turn: short components first, since most stuck vertices
/// have one, and any component that frees a color will do. No unlimited try: a component of two of the three
/// lattice colors spans the mesh, and a random interchange nearby (shake_around) is cheaper than swapping it
/// (torus, 6 seeds: 1.4M-3.0M vertices visited with an unlimited try, 0.14M-0.52M without).
constexpr std::array<std::size_t, 3> component_limits = {16, 256, 4096};
/// The largest component of two of the three lattice colors that an interchange or a random interchange
/// follows. Such a component spans the mesh unless rare-color vertices close it off nearby, so a longer search
/// nearly always ends at its limit for nothing. On the torus's seam these searches were over half the vertices
/// visited (seed 1: 366k in all with the 4096 limit, 138k with this one); the sphere and the rectangles never
/// reach it.
constexpr std::size_t lattice_pair_limit = 256;
/// Random interchanges tried around one vertex before giving up on the vertex route.
constexpr int max_shakes_per_vertex = 256;
/// The largest component a random interchange swaps: a local change is what a stuck vertex needs.
constexpr std::size_t shake_limit = 4096;
/// Effort bound in vertices visited by component searches: a floor plus an allowance per vertex (linear).
constexpr std::int64_t effort_floor = 20'000'000;
constexpr std::int64_t effort_per_vertex = 200;

/// How many vertices ahead in the search's queue the adjacency is fetched.
constexpr std::size_t prefetch_distance = 16;

class VertexFourColoring {
 public:
  VertexFourColoring(const Mesh& m, std::uint64_t seed) : random_(seed) {
    const index_t n = m.num_nodes();
    // Vertex adjacency (CSR) from the faces, which are the mesh edges of a triangle surface.
    // Two sweeps over the faces, each scattering to the faces' vertices: with a random node numbering every
    // scattered access misses the cache, so the vertices a few faces ahead are fetched early.
    const index_t nf = m.num_faces();
    const index_t* face_vertex = m.face_vertices.data();
    auto vertex = [&](index_t f, int k) { return face_vertex[std::size_t(f) * max_face_vertices + k]; };
    adjacency_begin_.assign(std::size_t(n) + 1, 0);
    for (index_t f = 0; f < nf; ++f) {
      if (f + index_t(prefetch_distance) < nf) {
        __builtin_prefetch(&adjacency_begin_[vertex(f + index_t(prefetch_distance), 0) + 1], 1);
        __builtin_prefetch(&adjacency_begin_[vertex(f + index_t(prefetch_distance), 1) + 1], 1);
      }
      ++adjacency_begin_[vertex(f, 0) + 1];
      ++adjacency_begin_[vertex(f, 1) + 1];
    }
    std::partial_sum(adjacency_begin_.begin(), adjacency_begin_.end(), adjacency_begin_.begin());
    adjacency_.resize(adjacency_begin_[n]);
    std::vector<index_t> next(adjacency_begin_.begin(), adjacency_begin_.end() - 1);
    for (index_t f = 0; f < nf; ++f) {
      if (f + index_t(prefetch_distance) < nf) {
        __builtin_prefetch(&next[vertex(f + index_t(prefetch_distance), 0)], 1);
        __builtin_prefetch(&next[vertex(f + index_t(prefetch_distance), 1)], 1);
      }
      if (f + index_t(prefetch_distance / 2) < nf) {
        __builtin_prefetch(&adjacency_[next[vertex(f + index_t(prefetch_distance / 2), 0)]], 1);
        __builtin_prefetch(&adjacency_[next[vertex(f + index_t(prefetch_distance / 2), 1)]], 1);
      }
      const index_t p = vertex(f, 0), q = vertex(f, 1);
      adjacency_[next[p]++] = q;
      adjacency_[next[q]++] = p;
    }
    color_.assign(n, unseen);
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
    const index_t first_root = n > 0 ? static_cast<index_t>(random_.below(static_cast<unsigned>(n))) : 0;
    for (index_t k = 0; k < n; ++k) {
      const index_t root = (first_root + k) % n;
      if (color_[root] != unseen || degree(root) == 0) continue;
      color_[root] = queued;
      queue.push_back(root);
      for (std::size_t i = queue.size() - 1; i < queue.size(); ++i) {
        // One sweep over v's neighbours both queues the unseen ones and gathers the colors of the colored
        // ones: the adjacency is read once per vertex (it is the search's main memory traffic).
        const index_t v = queue[i];
        // The queue is this search's visiting order, known ahead: fetch the next vertices' adjacency early
        // (the mesh's numbering can be random, e.g. Gmsh's, and then every adjacency read is a cache miss).
        if (i + prefetch_distance < queue.size()) {
          const index_t ahead = queue[i + prefetch_distance];
          __builtin_prefetch(&adjacency_begin_[ahead]);
          __builtin_prefetch(&adjacency_[adjacency_begin_[queue[i + prefetch_distance / 2]]]);
        }
        unsigned used = 0;
        for (index_t j = adjacency_begin_[v]; j < adjacency_begin_[v + 1]; ++j) {
          const index_t w = adjacency_[j];
          const int c = color_[w];
          if (c == unseen) {
            color_[w] = queued;
            queue.push_back(w);
          }
          used |= 1u << (c & 7);  // the two negative states land on bits 6 and 7, outside the four colors
        }
        if (!color_vertex(v, used & 0xFu)) return false;
      }
    }
    return true;
  }

  const std::vector<std::int8_t>& colors() const { return color_; }
  index_t stuck_vertices() const { return stuck_; }
  index_t shaken_vertices() const { return shaken_; }

 private:
  index_t degree(index_t v) const { return adjacency_begin_[v + 1] - adjacency_begin_[v]; }
  /// Whether neither x nor y is the rare fourth color (the last of the preference order).
  bool lattice_pair(int x, int y) const {
    return x != preference_[vertex_colors - 1] && y != preference_[vertex_colors - 1];
  }
  /// Gives v a color not in `used` (its neighbours' colors), by interchanges when all four are used.
  bool color_vertex(index_t v, unsigned used) {
    if (const unsigned free = ~used & 0xFu) {
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
        if (x == y || (lattice_pair(x, y) && limit > lattice_pair_limit)) continue;
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
  /// vertices, lattice_pair_limit for two lattice colors) with a random other color. Always keeps the coloring
  /// proper.
  void shake_around(index_t v) {
    const index_t w = adjacency_[adjacency_begin_[v] + random_.below(static_cast<unsigned>(degree(v)))];
    if (color_[w] < 0) return;
    const int x = color_[w];
    const int y = (x + 1 + static_cast<int>(random_.below(vertex_colors - 1))) % vertex_colors;
    component_.assign(1, w);
    ++stamp_;
    visited_[w] = stamp_;
    if (!grow(x, y, no_mark, lattice_pair(x, y) ? lattice_pair_limit : shake_limit)) return;
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

/// The faces' colors from the vertices': element by element, local face k of a triangle joins its vertices k
/// and k + 1 and takes their colors' xor. Nothing when a vertex has no color, an element's vertices repeat a
/// color or the two elements of a face disagree. That is what usually happens on a periodic mesh, whose faces
/// across the period join elements with different (translated) nodes, so that its vertex graph is not the
/// dual's; where the translated nodes happen to agree, the colors are returned and are as good. Whatever the
/// mesh, where it returns colors every triangle's three vertices carry three distinct colors, so its faces get
/// three distinct xors, and every face one color both its elements agree on: a proper coloring.
std::optional<std::vector<std::int8_t>> face_colors_from_vertices(const Mesh& mesh,
                                                                  const std::vector<std::int8_t>& vertex_color) {
  constexpr std::int8_t none = -1;
  const auto& triangle = element_infos[static_cast<int>(ElementType::triangle)];
  std::vector<std::int8_t> color(mesh.num_faces(), none);
  for (index_t e = 0; e < mesh.num_elements(); ++e) {
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[e]];
    const index_t* faces = &mesh.element_faces[mesh.element_face_begin[e]];
    if (e + index_t(prefetch_distance) < mesh.num_elements()) {  // random numberings: fetch ahead
      const index_t ahead = e + index_t(prefetch_distance);
      for (int k = 0; k < triangle.num_faces; ++k) {
        __builtin_prefetch(&vertex_color[mesh.element_vertices[mesh.element_vertex_begin[ahead] + k]]);
        __builtin_prefetch(&color[mesh.element_faces[mesh.element_face_begin[ahead] + k]], 1);
      }
    }
    for (int k = 0; k < triangle.num_faces; ++k) {
      const int p = vertex_color[v[triangle.faces[k].vertices[0]]], q = vertex_color[v[triangle.faces[k].vertices[1]]];
      if (p < 0 || q < 0) return std::nullopt;
      const int pair = p ^ q;
      const auto c = static_cast<std::int8_t>(pair - 1);  // a pair of distinct colors gives 1, 2 or 3
      std::int8_t& face = color[faces[k]];
      if (c == none || (face != none && face != c)) return std::nullopt;
      face = c;
    }
  }
  return color;
}

}  // namespace

std::optional<FaceColoring> color_triangles_by_vertices(const Mesh& mesh, std::uint64_t seed) {
  for (const ElementType t : mesh.element_type)
    if (t != ElementType::triangle) return std::nullopt;
  VertexFourColoring vertices(mesh, seed);
  if (!vertices.run()) return std::nullopt;
  std::optional<std::vector<std::int8_t>> color = face_colors_from_vertices(mesh, vertices.colors());
  if (!color) return std::nullopt;
  FaceColoring result = make_result(mesh, "kempe", std::move(*color));
  result.greedy_conflicts = vertices.stuck_vertices();
  result.hard_conflicts = vertices.shaken_vertices();
  result.by_vertices = true;
  return result;
}

}  // namespace kempe::detail
