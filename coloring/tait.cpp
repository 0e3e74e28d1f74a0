// Tait coloring: 3 colors for the faces of a closed triangle surface, whose dual is a cubic graph, by reduction
// and restoration with bicolor cycles (Gulicheva & Rybakov, after Kurapov et al.).
//
// Reduction removes a dual edge e = (v1, v2) and both its vertices; the two other edges of v1 merge into one
// edge r1, those of v2 into r2. On the surface this is the collapse of the mesh edge (a, b) that e crosses:
// triangles v1 = (a, b, c) and v2 = (b, a, d) vanish, b becomes a, and the edges ca/cb (and da/db) become one.
// The paper reduces any edge, but on a dual graph with a 2-edge cut that can leave a bridge, which no
// 3-coloring survives. We collapse only edges that meet the link condition (the common neighbours of a and b
// are exactly c and d): the surface stays a simplicial surface of the same genus, so its dual stays
// bridgeless. Collapses go in rounds over the breadth-first edge order, each surface vertex merged at most once
// a round and merged degrees capped, until none is allowed:
// an irreducible triangulation (the tetrahedron for a sphere, at most a few dozen triangles for a low genus),
// colored exactly by backtracking.
//
// Restoration undoes the collapses in reverse. It subdivides r1 and r2 by v1 and v2 and puts e between them:
// if r1 and r2 lie on one bicolor cycle of a pair of colors containing both their colors, swapping the colors
// of one arc of that cycle between them and giving e the third color keeps the coloring proper (the halves of
// r1 and r2 next to the swapped arc take the other color of the pair). Otherwise Kempe interchanges of bicolor
// cycles are made until they share one (see restore_collapse). The paper walks whole cycles, O(n) each, so
// O(n^2) in all; we walk from r1 both ways and around r2's cycle in lock step and stop at the first of: r2
// reached (the shorter arc), or either cycle closed, so each step costs the shortest of the three.
//
// Measured (docs/benchmarks.md): it is still superlinear, because bicolor cycles grow with the mesh whatever the
// collapse order (rounds, degree caps, the paper's plain order or a reversed breadth-first order), and
// about 6% of the steps need random interchanges. That is no surprise: 3-edge-coloring a planar cubic graph is
// 4-coloring the faces of a planar map, for which no near-linear algorithm is known (Robertson, Sanders, Seymour
// and Thomas 1996 is quadratic). Effort is bounded like kempe's; past the bound kempe colors the mesh. kempe
// remains the default: its random greedy pass and chain walks are linear in practice on the same surfaces.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "coloring/detail.hpp"

namespace kempe::detail {
namespace {

constexpr index_t none = -1;
/// Kempe interchanges tried per restoration step before tait gives up (and kempe colors the mesh instead).
constexpr int max_swaps_per_step = 256;
/// Merged vertex degree allowed in the first collapse rounds (a mesh vertex has about 6 neighbours): it keeps
/// the coarse surfaces free of huge fans. Doubled whenever a round collapses little.
constexpr int first_degree_cap = 9;
/// Effort bound of the restoration, in faces walked along bicolor cycles: a floor plus so many per face.
constexpr std::int64_t tait_work_floor = 50'000'000;
constexpr std::int64_t tait_work_per_face = 100;
/// Backtracking nodes allowed for the irreducible remainder (a tetrahedron or a few dozen triangles).
constexpr std::int64_t max_remainder_nodes = 1 << 22;

/// A cubic graph (the dual of the surface) with the surface's vertices at each dual vertex's corners. Slot k of
/// a triangle holds the dual edge across its mesh edge from corner k to corner k + 1.
class Surface {
 public:
  Surface(const Mesh& mesh, const DualGraph& g)
      : adj_(g.num_elements), corner_(g.num_elements), alive_(g.num_elements, 1), node_tri_(mesh.num_nodes(), none) {
    ends_.reserve(std::size_t(g.num_faces) * 2);
    for (index_t f = 0; f < g.num_faces; ++f) ends_.push_back({g.left[f], g.right[f]});
    color_.assign(ends_.size(), -1);
    for (index_t v = 0; v < g.num_elements; ++v) {
      const index_t* nodes = &mesh.element_vertices[mesh.element_vertex_begin[g.mesh_element[v]]];
      for (int k = 0; k < 3; ++k) {
        adj_[v][k] = g.faces[g.face_begin[v] + k];
        corner_[v][k] = nodes[k];
        node_tri_[nodes[k]] = v;
      }
    }
  }

  index_t num_vertices() const { return static_cast<index_t>(adj_.size()); }
  index_t num_edges() const { return static_cast<index_t>(ends_.size()); }
  index_t other(index_t e, index_t v) const { return ends_[e][0] == v ? ends_[e][1] : ends_[e][0]; }
  const std::array<index_t, 2>& ends(index_t e) const { return ends_[e]; }
  const std::array<index_t, 3>& adj(index_t v) const { return adj_[v]; }
  const std::array<index_t, 3>& corners(index_t v) const { return corner_[v]; }
  int slot(index_t v, index_t e) const { return adj_[v][0] == e ? 0 : adj_[v][1] == e ? 1 : adj_[v][2] == e ? 2 : -1; }
  int corner(index_t v, index_t node) const {
    return corner_[v][0] == node ? 0 : corner_[v][1] == node ? 1 : corner_[v][2] == node ? 2 : -1;
  }
  int color(index_t e) const { return color_[e]; }
  void set_color(index_t e, int c) { color_[e] = static_cast<std::int8_t>(c); }
  bool alive(index_t v) const { return alive_[v] != 0; }
  bool edge_alive(index_t e) const {
    const auto [v, w] = ends_[e];
    return alive(v) && alive(w) && slot(v, e) >= 0 && slot(w, e) >= 0;
  }
  void kill(index_t v) { alive_[v] = 0; }
  void revive(index_t v) { alive_[v] = 1; }
  index_t triangle_at(index_t node) const { return node_tri_[node]; }
  void set_triangle_at(index_t node, index_t v) { node_tri_[node] = v; }
  void rename_corner(index_t v, index_t from, index_t to) { corner_[v][corner(v, from)] = to; }
  /// In v's adjacency, edge `from` becomes `to` (same slot).
  void replace(index_t v, index_t from, index_t to) {
    const int k = slot(v, from);
    if (k < 0) throw std::logic_error("tait: adjacency out of step");
    adj_[v][k] = to;
  }
  index_t add_edge(index_t a, index_t b) {
    ends_.push_back({a, b});
    color_.push_back(-1);
    return num_edges() - 1;
  }
  /// The edge of color c at v (every vertex of a properly 3-colored cubic graph has one).
  index_t edge_of(index_t v, int c) const {
    for (index_t e : adj_[v])
      if (color_[e] == c) return e;
    throw std::logic_error("tait: a vertex lacks a color");
  }
  /// Swaps colors c and d on the given edges.
  void swap(const std::vector<index_t>& edges, int c, int d) {
    for (index_t e : edges) color_[e] = static_cast<std::int8_t>(color_[e] == c ? d : c);
  }

  /// Calls visit(triangle, neighbour) once for each mesh edge at `node`, walking the fan of triangles around it.
  template <class Visit>
  void around(index_t node, Visit&& visit) const {
    const index_t first = node_tri_[node];
    index_t t = first;
    int k = corner(t, node);
    index_t came = adj_[t][(k + 2) % 3];
    do {
      k = corner(t, node);
      const int s = adj_[t][k] == came ? (k + 2) % 3 : k;  // the slot of the other edge at `node`
      const index_t out = adj_[t][s];
      visit(t, corner_[t][s] == node ? corner_[t][(s + 1) % 3] : corner_[t][s]);
      came = out;
      t = other(out, t);
    } while (t != first);
  }

 private:
  std::vector<std::array<index_t, 2>> ends_;
  std::vector<std::array<index_t, 3>> adj_;
  std::vector<std::array<index_t, 3>> corner_;
  std::vector<std::int8_t> color_;
  std::vector<std::uint8_t> alive_;
  std::vector<index_t> node_tri_;
};

/// One collapse, enough to undo it: v1 and v2 and the edge e between them were removed; r1 replaced v1's edges
/// a1 (at ends(r1)[0]) and b1 (at ends(r1)[1]), r2 likewise a2 and b2.
struct Collapse {
  index_t v1, v2, e;
  index_t a1, b1, r1;
  index_t a2, b2, r2;
};

/// A walker along a bicolor cycle: the vertex it stands on, the edge it arrived by, the edges it passed.
struct Walker {
  index_t vertex, edge;
  std::vector<index_t>* trail;
};

class Tait {
 public:
  Tait(const Mesh& mesh, const DualGraph& g, std::uint64_t seed)
      : s_(mesh, g), random_(seed), stamp_(mesh.num_nodes(), 0), round_(mesh.num_nodes(), 0) {}

  /// Collapses edges in rounds until the surface is irreducible. Returns the dual edges left.
  std::vector<index_t> reduce() {
    std::vector<index_t> candidates(s_.num_edges()), next;
    for (index_t e = 0; e < s_.num_edges(); ++e) candidates[e] = e;
    int cap = first_degree_cap;
    for (int round = 1;; ++round) {
      next.clear();
      index_t collapsed = 0;
      for (const index_t e : candidates) {
        if (!s_.edge_alive(e)) continue;
        next.push_back(e);
        const Check c = check(e, round);
        if (!c.allowed || c.merged_degree > cap) continue;
        next.pop_back();
        const auto [r1, r2] = collapse(e, c);
        round_[c.a] = round;
        next.push_back(r1);
        next.push_back(r2);
        ++collapsed;
      }
      candidates.swap(next);
      // A round that collapses little under the cap would only rescan: raise the cap.
      if (collapsed == 0 && cap > s_.num_vertices()) break;
      if (collapsed * 64 < static_cast<index_t>(candidates.size()) && cap <= s_.num_vertices()) cap *= 2;
    }
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(), [&](index_t e) { return !s_.edge_alive(e); }),
                     candidates.end());
    return candidates;
  }

  /// Colors the irreducible remainder exactly: depth-first, each edge a color free at both its ends. False if
  /// the node budget runs out (or no 3-coloring exists: a snark).
  bool color_remainder(const std::vector<index_t>& edges, std::int64_t max_nodes = max_remainder_nodes) {
    std::int64_t nodes = 0;
    std::size_t i = 0;
    while (i < edges.size()) {
      if (++nodes > max_nodes) return false;
      const index_t e = edges[i];
      int c = s_.color(e) + 1;
      for (; c < 3; ++c) {
        bool free = true;
        for (const index_t v : s_.ends(e))
          for (const index_t g : s_.adj(v)) free &= g == e || s_.color(g) != c;
        if (free) break;
      }
      if (c < 3) {
        s_.set_color(e, c);
        ++i;
      } else {
        s_.set_color(e, -1);
        if (i == 0) return false;
        --i;
      }
    }
    return true;
  }

  /// Undoes the collapses in reverse order, keeping a proper 3-coloring. False if a step could not be restored
  /// within its swap budget.
  bool restore(std::int64_t budget) {
    for (std::size_t i = collapses_.size(); i-- > 0;)
      if (!restore_collapse(collapses_[i], budget)) return false;
    return true;
  }

  const Surface& surface() const { return s_; }

 private:
  struct Check {
    bool allowed = false;
    index_t a = none, b = none;
    int merged_degree = 0;
  };

  /// Whether collapsing the mesh edge that dual edge e crosses keeps a simplicial surface (link condition),
  /// and touches no surface vertex already merged in this round.
  Check check(index_t e, int round) {
    Check out;
    const auto [v1, v2] = s_.ends(e);
    const int k = s_.slot(v1, e), j = s_.slot(v2, e);
    const auto& n1 = s_.corners(v1);
    const auto& n2 = s_.corners(v2);
    out.a = n1[k];
    out.b = n1[(k + 1) % 3];
    const index_t c = n1[(k + 2) % 3], d = n2[(j + 2) % 3];
    if (c == d || round_[out.a] == round || round_[out.b] == round) return out;  // v1 and v2 share all three corners: a theta graph, the end of a sphere
    // The triangles across v1's (and v2's) two other edges must differ, and differ from v2 (v1): otherwise
    // the merged edge would be a loop, or v1 and v2 share two edges (a vertex of degree 2).
    for (const auto& [v, w] : {std::pair{v1, v2}, std::pair{v2, v1}}) {
      const int s = s_.slot(v, e);
      const index_t x = s_.other(s_.adj(v)[(s + 1) % 3], v), y = s_.other(s_.adj(v)[(s + 2) % 3], v);
      if (x == y || x == w || y == w) return out;
    }
    ++stamp_value_;
    int degree_a = 0, degree_b = 0, common = 0;
    s_.around(out.a, [&](index_t, index_t n) {
      stamp_[n] = stamp_value_;
      ++degree_a;
    });
    s_.around(out.b, [&](index_t, index_t n) {
      common += n != out.a && stamp_[n] == stamp_value_;
      ++degree_b;
    });
    out.allowed = common == 2;
    out.merged_degree = degree_a + degree_b - 4;
    return out;
  }

  /// Collapses the mesh edge (a, b) that dual edge e crosses; b becomes a. Returns the two merged dual edges.
  std::pair<index_t, index_t> collapse(index_t e, const Check& c) {
    const auto [v1, v2] = s_.ends(e);
    fan_.clear();
    s_.around(c.b, [&](index_t t, index_t) { fan_.push_back(t); });
    Collapse step{v1, v2, e, none, none, none, none, none, none};
    for (const index_t v : {v1, v2}) {
      const int k = s_.slot(v, e);
      const index_t a = s_.adj(v)[(k + 1) % 3], b = s_.adj(v)[(k + 2) % 3];
      const index_t x = s_.other(a, v), y = s_.other(b, v);
      const index_t r = s_.add_edge(x, y);
      s_.replace(x, a, r);
      s_.replace(y, b, r);
      // Every surface vertex of v must point at a live triangle: v's third corner and a survive in x.
      s_.set_triangle_at(s_.corners(v)[(k + 2) % 3], x);
      s_.set_triangle_at(c.a, x);
      (v == v1 ? step.a1 : step.a2) = a;
      (v == v1 ? step.b1 : step.b2) = b;
      (v == v1 ? step.r1 : step.r2) = r;
    }
    s_.kill(v1);
    s_.kill(v2);
    for (const index_t t : fan_)
      if (s_.alive(t)) s_.rename_corner(t, c.b, c.a);
    collapses_.push_back(step);
    return {step.r1, step.r2};
  }

  /// One step of a walker along the c/d cycle: to the far end of the next edge.
  void advance(Walker& w, int c, int d) {
    const int next = s_.color(w.edge) == c ? d : c;
    w.edge = s_.edge_of(w.vertex, next);
    w.vertex = s_.other(w.edge, w.vertex);
    ++walked_;
  }

  /// What the lock-step search found between r1 and r2 on the c/d cycles.
  enum class Found { arc, r1_cycle, r2_cycle };

  /// Walks from r1 both ways and around r2's c/d cycle in lock step. On `arc`, arc_ holds the edges strictly
  /// between r1 and r2 on the shorter side, and end1/end2 the endpoints of r1 and r2 where it attaches; when
  /// the cycles differ, cycle_ holds the shorter of the two (without its starting edge).
  Found search(index_t r1, index_t r2, int c, int d, index_t& end1, index_t& end2) {
    for (auto& t : trail_) t.clear();
    const auto [p, q] = s_.ends(r1);
    Walker forward{q, r1, &trail_[0]}, backward{p, r1, &trail_[1]};
    const index_t start2 = s_.ends(r2)[1];
    Walker around{start2, r2, &trail_[2]};
    for (;;) {
      for (int k = 0; k < 2; ++k) {
        Walker& w = k == 0 ? forward : backward;
        advance(w, c, d);
        if (w.edge == r2) {
          arc_.swap(*w.trail);
          end1 = k == 0 ? q : p;
          end2 = s_.other(r2, w.vertex);
          return Found::arc;
        }
        if (k == 1 && forward.edge == backward.edge) {
          // The walkers met: r1's cycle closed without r2. The forward trail already holds the meeting edge.
          cycle_.assign(trail_[0].begin(), trail_[0].end());
          cycle_.insert(cycle_.end(), trail_[1].begin(), trail_[1].end());
          return Found::r1_cycle;
        }
        w.trail->push_back(w.edge);
      }
      advance(around, c, d);
      if (around.edge == r1) {
        arc_.swap(*around.trail);
        end2 = start2;
        end1 = s_.other(r1, around.vertex);
        return Found::arc;
      }
      if (around.edge == r2) {
        cycle_.swap(*around.trail);
        return Found::r2_cycle;
      }
      around.trail->push_back(around.edge);
    }
  }

  /// Inserts e if r1 and r2 lie on one bicolor cycle whose pair holds both their colors.
  bool try_insert(const Collapse& step) {
    const int c1 = s_.color(step.r1), c2 = s_.color(step.r2);
    index_t end1 = none, end2 = none;
    for (const int d : {c1 != c2 ? c2 : (c1 + 1) % 3, c1 != c2 ? c2 : (c1 + 2) % 3}) {
      found_ = search(step.r1, step.r2, c1, d, end1, end2);
      if (found_ == Found::arc) {
        insert(step, c1, d, end1, end2);
        return true;
      }
      if (c1 != c2) break;
    }
    return false;
  }

  bool restore_collapse(const Collapse& step, std::int64_t budget) {
    if (try_insert(step)) return true;
    if (s_.color(step.r1) != s_.color(step.r2)) {
      // The paper's variant 1: r1 and r2 lie on different c1/c2 cycles; swap the shorter (the search left it in
      // cycle_), and they share a color. Cheap, and it mostly restores at once (variant 2, in try_insert).
      const index_t start = found_ == Found::r1_cycle ? step.r1 : step.r2;
      const int c1 = s_.color(step.r1), c2 = s_.color(step.r2);
      s_.swap(cycle_, c1, c2);
      s_.set_color(start, s_.color(start) == c1 ? c2 : c1);
      if (try_insert(step)) return true;
    }
    for (int swaps = 0; swaps < max_swaps_per_step && walked_ < budget; ++swaps) {
      // No common cycle (the paper never met this; we do, in about 6% of the steps on a sphere): reshape the
      // cycles by a Kempe interchange of a random bicolor cycle through a random vertex w of a bicolor cycle
      // through r1 or r2, and retry. Two things matter (measured on coarse sphere graphs where restoration got
      // stuck): the swapped pair must be any pair, so that the color r1 and r2 share can change too; and r1
      // and r2 must not be forced back to one color after a swap gave them two (variant 1 again): under either
      // constraint the search stays in a class of colorings none of which restores.
      const index_t r = random_.below(2) == 0 ? step.r1 : step.r2;
      const int c = s_.color(r), d = (c + 1 + static_cast<int>(random_.below(2))) % 3;
      Walker walker{s_.ends(r)[1], r, nullptr};
      near_.assign(1, walker.vertex);
      for (advance(walker, c, d); walker.edge != r; advance(walker, c, d)) near_.push_back(walker.vertex);
      const index_t w = near_[random_.below(static_cast<unsigned>(near_.size()))];
      const int x = static_cast<int>(random_.below(3)), y = (x + 1 + static_cast<int>(random_.below(2))) % 3;
      const index_t first = s_.edge_of(w, x);
      Walker around{s_.other(first, w), first, nullptr};
      cycle_.assign(1, first);
      for (advance(around, x, y); around.edge != first; advance(around, x, y)) cycle_.push_back(around.edge);
      s_.swap(cycle_, x, y);
      if (try_insert(step)) return true;
    }
    return false;
  }

  /// Puts v1, v2 and e back: r1 and r2 lie on one c/d cycle and arc_ is the part between them, attached at
  /// r1's endpoint end1 and r2's endpoint end2. Swapping the arc lets the halves next to it take the other
  /// color of the pair, the far halves keep the old color, and e takes the third color.
  void insert(const Collapse& step, int c, int d, index_t end1, index_t end2) {
    s_.swap(arc_, c, d);
    auto split = [&](index_t r, index_t v, index_t a, index_t b, index_t arc_end) {
      const int old = s_.color(r);
      const int flipped = old == c ? d : c;
      const auto [x, y] = s_.ends(r);  // a was attached at x, b at y
      s_.replace(x, r, a);
      s_.replace(y, r, b);
      s_.set_color(a, x == arc_end ? flipped : old);
      s_.set_color(b, x == arc_end ? old : flipped);
      s_.revive(v);
    };
    split(step.r1, step.v1, step.a1, step.b1, end1);
    split(step.r2, step.v2, step.a2, step.b2, end2);
    s_.set_color(step.e, 3 - c - d);
  }

  Surface s_;
  Random random_;
  std::vector<Collapse> collapses_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t stamp_value_ = 0;
  std::vector<int> round_;
  std::vector<index_t> fan_;
  std::array<std::vector<index_t>, 3> trail_;
  std::vector<index_t> arc_, cycle_, near_;
  Found found_ = Found::arc;
  std::int64_t walked_ = 0;
};

/// A node where the triangles around it form more than one fan (two cones touching at their tips), or none. Tait's
/// collapses walk the fan around a node and assume it is one cycle. Corners of the triangles are joined across
/// every edge at their node (union-find); a node whose corners end in more than one set is pinched. O(n).
index_t pinched_node(const Mesh& m) {
  const index_t ne = m.num_elements();
  std::vector<index_t> parent(std::size_t(3) * ne);
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<index_t>(i);
  auto root = [&](index_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  auto corner = [&](index_t e, index_t node) {
    for (int j = 0; j < 3; ++j)
      if (m.element_vertices[m.element_vertex_begin[e] + j] == node) return 3 * e + j;
    return none;
  };
  for (index_t f = 0; f < m.num_faces(); ++f)
    for (int k = 0; k < 2; ++k) {
      const index_t node = m.face_vertices[std::size_t(f) * max_face_vertices + k];
      const index_t a = corner(m.face_left[f], node), b = corner(m.face_right[f], node);
      if (a != none && b != none) parent[root(a)] = root(b);
    }
  std::vector<index_t> fan(m.num_nodes(), none);  // the set of the first corner met at each node
  for (index_t e = 0; e < ne; ++e)
    for (int j = 0; j < 3; ++j) {
      const index_t node = m.element_vertices[m.element_vertex_begin[e] + j], set = root(3 * e + j);
      if (fan[node] == none) fan[node] = set;
      else if (fan[node] != set) return node;
    }
  return none;
}

}  // namespace

std::string not_a_closed_triangle_surface(const Mesh& mesh) {
  index_t others = 0;
  for (const ElementType t : mesh.element_type) others += t != ElementType::triangle;
  if (mesh.num_elements() == 0 || others > 0 || mesh.num_boundary_faces() > 0)
    return "tait colors closed triangle surfaces only (every element a triangle, every face between two of them), "
           "and this mesh has " + std::to_string(mesh.num_boundary_faces()) + " boundary faces and " +
           std::to_string(others) + " elements that are not triangles";
  if (const index_t node = pinched_node(mesh); node != none)
    return "tait colors closed triangle surfaces whose triangles around each node form one fan, and at node " +
           std::to_string(node < index_t(mesh.node_tag.size()) ? mesh.node_tag[node] : node) +
           " this surface is pinched (two fans of triangles touch there)";
  return {};
}

FaceColoring run_tait(const Mesh& mesh, std::uint64_t seed) {
  if (const std::string why = not_a_closed_triangle_surface(mesh); !why.empty())
    throw std::invalid_argument(why + "; use kempe");
  const DualGraph g(mesh);
  Tait tait(mesh, g, seed);
  const std::vector<index_t> remainder = tait.reduce();
  // Effort bound in faces walked along bicolor cycles, linear in the mesh size: a quarter of kempe's per face,
  // since restoration that needs more is on its quadratic way (docs/benchmarks.md), with a higher floor.
  const std::int64_t budget = tait_work_floor + tait_work_per_face * static_cast<std::int64_t>(g.num_faces);
  const bool colored = tait.color_remainder(remainder) && tait.restore(budget);
  if (!colored) {
    // A snark (no 3-coloring exists), or the effort bound ran out: kempe colors the mesh, with its own bound.
    FaceColoring result = run_kempe(mesh, seed);
    result.algorithm = "tait (not restored within the effort bound; colored by kempe)";
    return result;
  }
  std::vector<std::int8_t> color(g.num_faces);
  for (index_t f = 0; f < g.num_faces; ++f) color[f] = static_cast<std::int8_t>(tait.surface().color(f));
  return make_result(mesh, "tait", g.to_mesh(color));
}

}  // namespace kempe::detail
