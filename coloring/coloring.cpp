// Face coloring algorithms (edge coloring of the element dual multigraph; boundary faces are pendant edges).
//
// `kempe`, the default, follows Giuliani & Krivodonova (2017): a greedy pass that gives each face a color free
// at both its elements (their Alg. 2), then conflict resolution (their Alg. 3). Where the paper walks each
// conflict along random color swaps, we first try Kempe-chain interchanges, at once during the greedy pass:
// for an uncolored face (u, v) with color a free at u and b free at v, flipping the a/b chain that starts at v
// frees a at v unless the chain ends at u; failing that, an a/c chain from u first, then the c/b chain. What
// chains cannot place is a parity defect; random chain flips from its elements exchange its parity with the
// boundary or with other defects until an interchange places it. Past a deterministic effort bound the rest is
// colored by Misra-Gries with one more color (Vizing's bound), status `fallback`. A last pass balances the
// classes by flipping a/b chains with one more face of the larger color. Triangle meshes are colored through a
// vertex 4-coloring first (surface.cpp): faster, and on closed surfaces this face search has no boundary to
// send parity to.
#include "base/registry.hpp"
#include "coloring/coloring.hpp"
#include "coloring/detail.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace kempe {
namespace {

using detail::DualGraph;
using detail::Random;
using detail::make_result;
using detail::max_faces;
using detail::no_face;

/// The most colors a slot-based algorithm tracks per element: hexahedra need 6, Misra-Gries 7, a multigraph 8.
constexpr int max_slot_colors = 8;
constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();
/// Interchanges are tried with growing chain length limits (faces): most conflicts have a short chain
/// somewhere, any chain that does the job will do, and short ones stay in cache.
constexpr std::array<std::size_t, 4> chain_limits = {24, 256, 4096, no_limit};
constexpr int no_color = -1;
constexpr index_t too_long = -2;  ///< a chain walk that passed its length limit


/// A partial proper coloring with, for each element, the face holding each color (its "slots").
/// Boundary faces end in a ghost that has no other face, so a color is free at a ghost unless it is the
/// boundary face's own.
class SlotColoring {
 public:
  SlotColoring(const DualGraph& g, int palette)
      : left_(g.left.data()),
        right_(g.right.data()),
        color_(g.num_faces, no_color),
        slot_(std::size_t(g.num_elements) * max_slot_colors, no_face),
        used_(g.num_elements, 0),
        palette_(palette) {}

  int palette() const { return palette_; }
  void grow_palette() {
    if (palette_ >= max_slot_colors) throw std::logic_error("face coloring: more than 8 colors needed");
    ++palette_;
  }
  unsigned full() const { return (1u << palette_) - 1u; }
  int color(index_t f) const { return color_[f]; }
  index_t left(index_t f) const { return left_[f]; }
  index_t right(index_t f) const { return right_[f]; }
  /// The element across face f from element e (no_element for the ghost of a boundary face).
  index_t other(index_t f, index_t e) const { return left_[f] == e ? right_[f] : left_[f]; }
  index_t at(index_t e, int c) const { return slot_[std::size_t(e) * max_slot_colors + c]; }
  /// Colors used at element e (mask).
  unsigned used(index_t e) const { return used_[e]; }
  /// Colors free at both ends of face f (a ghost end frees everything).
  unsigned free_for(index_t f) const {
    unsigned m = used(left_[f]);
    if (right_[f] != no_element) m |= used(right_[f]);
    return full() & ~m;
  }
  void set(index_t f, int c) {
    color_[f] = static_cast<std::int8_t>(c);
    take(left_[f], c, f);
    if (right_[f] != no_element) take(right_[f], c, f);
  }
  void clear(index_t f) {
    if (color_[f] == no_color) return;
    clear_keep(f);
    color_[f] = no_color;
  }
  std::vector<std::int8_t> take_colors() { return std::move(color_); }
  /// Faces visited by chain walks so far: the unit of the effort bound.
  std::int64_t walked() const { return walked_; }
  const std::vector<std::int8_t>& colors() const { return color_; }

  /// The a/b chain that starts at element `start` with its a-colored face: the faces in order, and the element
  /// where it ends (no_element at a ghost). `start` must miss b, so the chain is a path. A walk longer than
  /// `limit` faces stops early and returns `too_long`.
  index_t chain(index_t start, int a, int b, std::vector<index_t>& faces,
                std::size_t limit = no_limit) const {
    faces.clear();
    index_t e = start;
    int c = a;
    ++walked_;
    for (index_t f = at(e, c); f != no_face; f = at(e, c)) {
      ++walked_;
      if (faces.size() == limit) return too_long;
      faces.push_back(f);
      e = other(f, e);
      if (e == no_element) return no_element;
      c = c == a ? b : a;
    }
    return e;
  }
  /// Swaps colors a and b on the given faces (a maximal a/b path or cycle, so the coloring stays proper).
  void flip(const std::vector<index_t>& faces, int a, int b) {
    for (index_t f : faces) clear_keep(f);
    for (index_t f : faces) set(f, color_[f] == a ? b : a);
  }

 private:
  void take(index_t e, int c, index_t f) {
    slot_[std::size_t(e) * max_slot_colors + c] = f;
    used_[e] = static_cast<std::uint8_t>(used_[e] | 1u << c);
  }
  void release(index_t e, int c) {
    slot_[std::size_t(e) * max_slot_colors + c] = no_face;
    used_[e] = static_cast<std::uint8_t>(used_[e] & ~(1u << c));
  }
  /// Frees the slots of f but remembers its color (for flip).
  void clear_keep(index_t f) {
    const int c = color_[f];
    release(left_[f], c);
    if (right_[f] != no_element) release(right_[f], c);
  }

  const index_t* left_;
  const index_t* right_;
  std::vector<std::int8_t> color_;
  std::vector<index_t> slot_;
  /// [elements] the colors of the slots in use, as a mask: what free_for reads, one byte per element instead
  /// of a slot row (a face's two masks are two loads; the greedy pass and the fans read them for every face).
  std::vector<std::uint8_t> used_;
  int palette_;
  mutable std::int64_t walked_ = 0;
};

/// A complete coloring read in place on the mesh's arrays: the face of color c at element e is found by
/// scanning e's faces (three for a triangle). For a pass that walks few chains over a finished coloring, this
/// spares building a slot table for every element (on Rect B that was most of the balancing pass's 1.8 ms).
class MeshColoring {
 public:
  MeshColoring(const Mesh& m, std::vector<std::int8_t>& color) : m_(m), color_(color) {}
  int color(index_t f) const { return color_[f]; }
  index_t left(index_t f) const { return m_.face_left[f]; }
  index_t right(index_t f) const { return m_.face_right[f]; }
  index_t other(index_t f, index_t e) const { return m_.face_left[f] == e ? m_.face_right[f] : m_.face_left[f]; }
  index_t at(index_t e, int c) const {
    for (index_t k = m_.element_face_begin[e]; k < m_.element_face_begin[e + 1]; ++k)
      if (color_[m_.element_faces[k]] == c) return m_.element_faces[k];
    return no_face;
  }
  /// Swaps colors a and b on the given faces (a maximal a/b path or cycle, so the coloring stays proper).
  void flip(const std::vector<index_t>& faces, int a, int b) {
    for (index_t f : faces) color_[f] = static_cast<std::int8_t>(color_[f] == a ? b : a);
  }

 private:
  const Mesh& m_;
  std::vector<std::int8_t>& color_;
};

/// Colors face f by a Kempe-chain interchange if some pair of colors allows it with a chain of at most `limit`
/// faces; returns false otherwise. For an uncolored face (u, v) with a free at u and b free at v, the a/b chain
/// from v frees a at v unless it ends at u.
bool color_by_kempe_chain(SlotColoring& s, index_t f, std::vector<index_t>& path, std::size_t limit) {
  const index_t u = s.left(f), v = s.right(f);
  const unsigned free_u = s.full() & ~s.used(u), free_v = s.full() & ~s.used(v);
  // Try chains starting at v (a free at u, b free at v), then at u.
  for (int side = 0; side < 2; ++side) {
    const index_t from = side == 0 ? v : u, to = side == 0 ? u : v;
    const unsigned free_to = side == 0 ? free_u : free_v, free_from = side == 0 ? free_v : free_u;
    for (unsigned ma = free_to; ma; ma &= ma - 1) {
      const int a = std::countr_zero(ma);
      for (unsigned mb = free_from; mb; mb &= mb - 1) {
        const int b = std::countr_zero(mb);
        const index_t end = s.chain(from, a, b, path, limit);
        if (end == to || end == too_long) continue;  // flipping would take a away from `to`
        s.flip(path, a, b);
        s.set(f, a);
        return true;
      }
    }
  }
  return false;
}

/// Two interchanges: when the a/b chain of face f closes on itself (u misses only a, v only b), flip an a/c
/// chain from u first, so that u misses c instead, then try the c/b chain from v (both at most `limit` faces).
/// Returns false (and undoes the first flip) when no c works.
bool color_by_double_chain(SlotColoring& s, index_t f, std::vector<index_t>& first, std::vector<index_t>& second,
                           std::size_t limit) {
  for (int side = 0; side < 2; ++side) {
    const index_t x = side == 0 ? s.left(f) : s.right(f), y = s.other(f, x);
    if (x == no_element || y == no_element) continue;
    const unsigned free_x = s.full() & ~s.used(x), free_y = s.full() & ~s.used(y);
    if (!free_x || !free_y) continue;
    const int a = std::countr_zero(free_x), b = std::countr_zero(free_y);
    for (int c = 0; c < s.palette(); ++c) {
      if ((free_x | free_y) & (1u << c)) continue;
      if (s.chain(x, c, a, first, limit) == too_long) continue;  // x misses a: a path from x, its c face first
      s.flip(first, c, a);
      const index_t end = s.chain(y, c, b, second, limit);
      if (end != x && end != too_long) {
        s.flip(second, c, b);
        s.set(f, c);
        return true;
      }
      s.flip(first, c, a);
    }
  }
  return false;
}

/// Colors face f by one interchange or two (above), trying every chain length limit in turn: short chains
/// first, since on closed surfaces the chain that closes on f can run around the whole mesh.
bool color_by_interchange(SlotColoring& s, index_t f, std::vector<index_t>& path, std::vector<index_t>& path2) {
  for (const std::size_t limit : chain_limits)
    if (color_by_kempe_chain(s, f, path, limit) || color_by_double_chain(s, f, path, path2, limit)) return true;
  return false;
}

/// Moves the parity of defect f elsewhere: flips a random a/c chain from one of its elements x, where a is a
/// color x misses and c one that both ends of f have. x then misses c instead of a, and the chain's far end
/// (the boundary, or another defect) takes the difference. By the parity lemma a lone defect can only be placed
/// by exchanging parity with the boundary or with other defects, and chain flips are what carries it there, at
/// any distance, for the price of one walk. Chains of any length: preferring short ones keeps the parity near
/// the defect, and then it is never placed (measured on quadD and the closed surfaces).
void flip_random_chain(SlotColoring& s, index_t f, Random& random, std::vector<index_t>& path) {
  std::array<std::array<int, 3>, 2 * max_slot_colors * max_slot_colors> options{};
  unsigned count = 0;
  for (int side = 0; side < 2; ++side) {
    const index_t x = side == 0 ? s.left(f) : s.right(f), y = s.other(f, x);
    if (x == no_element || y == no_element) continue;
    const unsigned free_x = s.full() & ~s.used(x), free_y = s.full() & ~s.used(y);
    // c must not be free at y: then the a/c chain would be the one that closes on f (no change of parity).
    for (unsigned ma = free_x; ma; ma &= ma - 1)
      for (unsigned mc = s.full() & ~free_x & ~free_y; mc; mc &= mc - 1)
        options[count++] = {side, std::countr_zero(ma), std::countr_zero(mc)};
  }
  if (count == 0) return;
  const auto [side, a, c] = options[random.below(count)];
  s.chain(side == 0 ? s.left(f) : s.right(f), c, a, path);
  s.flip(path, c, a);
}

/// Misra-Gries: colors the uncolored face f using the palette, which must exceed the largest degree (Vizing).
/// Returns false when the fan argument fails (possible only on multigraphs).
bool color_by_fan(SlotColoring& s, index_t f, std::vector<index_t>& path) {
  if (unsigned free = s.free_for(f)) {
    s.set(f, std::countr_zero(free));
    return true;
  }
  const index_t x = s.left(f);
  // The fan: faces at x whose far ends y_i are distinct, each face's color free at the previous far end.
  std::array<index_t, 2 * max_slot_colors> fan{};
  std::array<index_t, 2 * max_slot_colors> far{};
  int n = 0;
  fan[n] = f;
  far[n++] = s.right(f);
  auto free_at = [&](index_t end, index_t face, int c) {  // is c free at the far end `end` of `face`?
    if (end == no_element) return s.color(face) != c;
    return s.at(end, c) == no_face;
  };
  for (bool grown = true; grown;) {
    grown = false;
    for (int c = 0; c < s.palette() && !grown; ++c) {
      const index_t g = s.at(x, c);
      if (g == no_face || !free_at(far[n - 1], fan[n - 1], c)) continue;
      const index_t y = s.other(g, x);
      bool seen = false;
      for (int i = 0; i < n; ++i) seen = seen || fan[i] == g || (y != no_element && far[i] == y);
      if (seen) continue;
      fan[n] = g;
      far[n++] = y;
      grown = true;
    }
  }
  const unsigned free_x = s.full() & ~s.used(x);
  if (!free_x) return false;
  const int c = std::countr_zero(free_x);
  int d = -1;
  for (int k = 0; k < s.palette() && d < 0; ++k)
    if (free_at(far[n - 1], fan[n - 1], k)) d = k;
  if (d < 0) return false;
  if (c != d && s.at(x, d) != no_face) {
    s.chain(x, d, c, path);  // the cd path through x, which misses c
    s.flip(path, c, d);
  }
  // The first fan prefix whose last far end misses d.
  for (int w = 0; w < n; ++w) {
    if (w > 0 && (s.color(fan[w]) == no_color || !free_at(far[w - 1], fan[w - 1], s.color(fan[w])))) return false;
    if (!free_at(far[w], fan[w], d)) continue;
    if (s.at(x, d) != no_face && s.at(x, d) != fan[w]) return false;
    std::array<int, 2 * max_slot_colors> shifted{};
    for (int i = 0; i < w; ++i) shifted[i] = s.color(fan[i + 1]);
    for (int i = 1; i <= w; ++i) s.clear(fan[i]);
    for (int i = 0; i < w; ++i) s.set(fan[i], shifted[i]);
    s.set(fan[w], d);
    return true;
  }
  return false;
}

/// Colors every uncolored face with Misra-Gries, growing the palette if a multigraph defeats the fan argument.
void complete_with_fans(SlotColoring& s, index_t num_faces) {
  std::vector<index_t> path;
  for (index_t f = 0; f < num_faces; ++f) {
    while (s.color(f) == no_color && !color_by_fan(s, f, path)) s.grow_palette();
  }
}

/// Classes count as balanced when the largest exceeds the smallest by at most one face in this many: ten times
/// tighter than the 1% the solver needs (its colors' launches then take equal time), and most colorings get
/// there without a balancing pass, which on tetC cost as much as the greedy pass (0.2 s) for 141 faces.
constexpr index_t balance_tolerance = 1000;

bool balanced(const std::vector<index_t>& count) {
  const auto [smallest, largest] = std::minmax_element(count.begin(), count.end());
  return std::int64_t(*largest - *smallest) * balance_tolerance <= *smallest;  // 64 bits: no overflow
}

/// Evens out class sizes: flipping an a/b path with one more a-face than b-faces moves one face from a to b.
/// Stops when the classes are balanced(); else evens the largest and the smallest class, in rounds. Coloring is
/// a SlotColoring or a MeshColoring (both above): color, left, right, other, at and flip are all it needs.
template <class Coloring>
void balance(Coloring& s, index_t num_faces, int num_colors) {
  std::vector<index_t> members, path;
  std::vector<std::uint32_t> visited(num_faces, 0);
  std::uint32_t stamp = 0;
  for (int round = 0; round < 4 * num_colors * num_colors; ++round) {
    std::vector<index_t> count(num_colors, 0);
    for (index_t f = 0; f < num_faces; ++f) ++count[s.color(f)];
    if (balanced(count)) return;
    const int a = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
    const int b = static_cast<int>(std::min_element(count.begin(), count.end()) - count.begin());
    index_t excess = (count[a] - count[b]) / 2;
    if (excess == 0) return;
    ++stamp;
    bool progress = false;
    for (index_t f = 0; f < num_faces && excess > 0; ++f) {
      if (s.color(f) != a || visited[f] == stamp) continue;
      // Walk the a/b component of f both ways; it is a path when both walks stop at an element missing a color.
      members.assign(1, f);
      visited[f] = stamp;
      bool cycle = false;
      for (index_t start : {s.left(f), s.right(f)}) {
        index_t e = start;
        int c = b;
        while (e != no_element) {
          const index_t g = s.at(e, c);
          if (g == no_face) break;
          if (visited[g] == stamp) {
            cycle = true;
            break;
          }
          visited[g] = stamp;
          members.push_back(g);
          e = s.other(g, e);
          c = c == a ? b : a;
        }
        if (cycle) break;
      }
      if (cycle) continue;
      index_t na = 0;
      for (index_t g : members) na += s.color(g) == a;
      if (2 * na > static_cast<index_t>(members.size())) {
        s.flip(members, a, b);
        --excess;
        progress = true;
      }
    }
    if (!progress) return;
  }
}

FaceColoring run_greedy(const Mesh& m, std::uint64_t) {
  // First fit in face order with a 64-bit mask per element: no palette limit, the papers' baseline.
  std::vector<std::uint64_t> used(m.num_elements(), 0);
  std::vector<std::int8_t> color(m.num_faces());
  for (index_t f = 0; f < m.num_faces(); ++f) {
    std::uint64_t taken = used[m.face_left[f]];
    if (m.face_right[f] != no_element) taken |= used[m.face_right[f]];
    const int c = std::countr_one(taken);
    color[f] = static_cast<std::int8_t>(c);
    used[m.face_left[f]] |= 1ull << c;
    if (m.face_right[f] != no_element) used[m.face_right[f]] |= 1ull << c;
  }
  return make_result(m, "greedy", std::move(color));
}

FaceColoring run_misra_gries(const Mesh& m, std::uint64_t) {
  const DualGraph g(m, /*breadth_first=*/false);  // fans rarely walk chains: renumbering would cost more
  SlotColoring s(g, max_faces(m) + 1);
  complete_with_fans(s, g.num_faces);
  return make_result(m, "misra-gries", g.to_mesh(s.colors()));
}

/// Effort bound of the conflict resolution after the Kempe-chain pass, counted in face visits of the local
/// searches (deterministic, unlike a time limit): a floor plus an allowance per face of the mesh, so the effort
/// is linear in the mesh size. Past it the rest is colored with one more color (status `fallback`).
constexpr std::int64_t work_floor = 20'000'000;  ///< faces walked along chains, whatever the mesh size
constexpr std::int64_t work_per_face = 400;     ///< and per face of the mesh
constexpr int max_flips_per_defect = 4096;      ///< a defect still unplaced then is left to the fallback

/// Among the colors free for face f, one already used at the most far ends of the uncolored faces next to f:
/// those faces could not take it anyway, so taking it leaves them the most choice (ties at random). This
/// leaves about 40% fewer conflicts than the paper's uniformly random choice.
int pick_greedy_color(const SlotColoring& s, const DualGraph& m, index_t f, unsigned free, Random& random) {
  std::array<int, max_slot_colors> score{};
  for (const index_t e : {s.left(f), s.right(f)}) {
    if (e == no_element) continue;
    for (index_t k = m.face_begin[e]; k < m.face_begin[e + 1]; ++k) {
      const index_t g = m.faces[k];
      if (g == f || s.color(g) != no_color) continue;
      const index_t far = s.other(g, e);
      if (far == no_element) continue;
      for (unsigned c = free & s.used(far); c; c &= c - 1) ++score[std::countr_zero(c)];
    }
  }
  int best = -1;
  unsigned best_mask = 0;
  for (unsigned c = free; c; c &= c - 1) {
    const int k = std::countr_zero(c);
    if (score[k] > best) {
      best = score[k];
      best_mask = 0;
    }
    if (score[k] == best) best_mask |= 1u << k;
  }
  return random.pick(best_mask);
}

/// A vertex-route coloring (surface.cpp) gives every triangle one face of each color, so class c holds
/// (triangles + boundary faces of color c) / 2 faces: the classes differ by the boundary's imbalance only,
/// nothing on a closed surface and a few faces in ten thousand on the paper's rectangles. Where that is not
/// balanced(), the balancing pass evens them out.
FaceColoring balance_vertex_coloring(const Mesh& mesh, FaceColoring result) {
  if (balanced(result.faces_per_color())) return result;
  MeshColoring s(mesh, result.color);  // a few chains walked: the mesh's numbering will do
  balance(s, mesh.num_faces(), result.num_colors);
  return result;
}

}  // namespace

FaceColoring detail::run_kempe(const Mesh& mesh, std::uint64_t seed) {
  // Triangle meshes go through their vertices first (surface.cpp says why); the face-based search below is
  // their fallback and colors every other mesh.
  if (std::optional<FaceColoring> result = detail::color_triangles_by_vertices(mesh, seed))
    return balance_vertex_coloring(mesh, std::move(*result));
  const DualGraph m(mesh);
  const index_t nf = m.num_faces;
  const int target = max_faces(mesh);
  SlotColoring s(m, target);
  Random random(seed);
  std::vector<index_t> conflicts, path, path2;
  // Alg. 2: a color free at both elements (see pick_greedy_color); where there is none, a Kempe-chain
  // interchange at once, while the faces ahead are still uncolored and chains therefore shorter than after
  // the pass. What neither places is a hard conflict.
  std::vector<index_t> hard;
  for (index_t f = 0; f < nf; ++f) {
    if (const unsigned free = s.free_for(f)) {
      s.set(f, std::has_single_bit(free) ? std::countr_zero(free) : pick_greedy_color(s, m, f, free, random));
    } else {
      conflicts.push_back(f);
      // Not color_by_interchange: its short double interchanges here leave harder defects on closed surfaces
      // (torus, 30 seeds: 1 fallback against none).
      if (!color_by_kempe_chain(s, f, path, chain_limits.front()) && !color_by_kempe_chain(s, f, path, no_limit) &&
          !color_by_double_chain(s, f, path, path2, no_limit))
        hard.push_back(f);
    }
  }
  // What chains cannot place are parity defects: with as many colors as faces per element, each element of f
  // misses one color, u misses a and v misses b, and the a/b chain from v comes back to u (an odd cycle with f).
  // No recoloring of a region without boundary or other defects can place f (parity lemma), so we exchange
  // parity with the rest of the mesh: flip a random a/c chain from u or v (flip_random_chain), which ends at
  // the boundary or at another defect, and try the two interchanges again. This random walk is what the
  // paper's Alg. 3 does with single swaps, but each of our steps moves parity along a whole chain at once.
  // Effort is bounded by `budget` face visits, linear in the mesh size; what remains gets one more color.
  const std::size_t first_hard = hard.size();
  const std::int64_t budget = s.walked() + work_floor + work_per_face * static_cast<std::int64_t>(nf);
  for (const index_t f : hard) {
    for (int attempt = 0; s.color(f) == no_color && s.walked() < budget && attempt < max_flips_per_defect; ++attempt) {
      if (const unsigned free = s.free_for(f)) {
        s.set(f, random.pick(free));
        break;
      }
      if (color_by_interchange(s, f, path, path2)) break;
      flip_random_chain(s, f, random, path);
    }
  }
  bool minimum = true;
  for (index_t f = 0; f < nf && minimum; ++f) minimum = s.color(f) != no_color;
  index_t fallback_faces = 0;
  for (index_t f = 0; f < nf; ++f) fallback_faces += s.color(f) == no_color;
  if (!minimum) {
    s.grow_palette();
    complete_with_fans(s, nf);
  }
  int used = 0;
  for (std::int8_t c : s.colors()) used = std::max(used, c + 1);
  balance(s, nf, used);
  FaceColoring result = make_result(mesh, "kempe", m.to_mesh(s.colors()));
  result.greedy_conflicts = static_cast<index_t>(conflicts.size());
  result.hard_conflicts = static_cast<index_t>(first_hard);
  result.fallback_faces = fallback_faces;
  return result;
}

std::string_view status_name(ColoringStatus status) {
  switch (status) {
    case ColoringStatus::optimal: return "optimal";
    case ColoringStatus::fallback: return "fallback";
    case ColoringStatus::extra: return "extra";
  }
  return "?";
}

std::vector<index_t> FaceColoring::faces_per_color() const {
  std::vector<index_t> count(num_colors, 0);
  for (std::int8_t c : color) ++count[c];
  return count;
}

const std::vector<ColoringAlgorithm>& coloring_algorithms() {
  static const std::vector<ColoringAlgorithm> table = {
      {"kempe",
       "random greedy, then Kempe-chain interchanges and bounded conflict walks; triangle meshes through a vertex "
       "4-coloring (default; the fewest colors)",
       detail::run_kempe},
      {"greedy", "first fit in face order (the papers' baseline: more colors, unbalanced)", run_greedy},
      {"misra-gries", "Misra-Gries fan rotation: at most one color more than the fewest (Vizing's bound)",
       run_misra_gries},
      {"tait", "Tait reduction and restoration with bicolor cycles (closed triangle surfaces only; quadratic effort)",
       detail::run_tait, detail::not_a_closed_triangle_surface},
  };
  return table;
}

FaceColoring color_faces(const Mesh& mesh, const ColoringOptions& options) {
  const ColoringAlgorithm& algorithm = find_by_name("coloring algorithm", options.algorithm, coloring_algorithms());
  if (algorithm.cannot_color)
    if (const std::string why = algorithm.cannot_color(mesh); !why.empty())
      throw std::invalid_argument("coloring algorithm '" + options.algorithm + "' cannot color this mesh: " + why +
                                  "; use kempe");
  const auto t0 = std::chrono::steady_clock::now();
  FaceColoring result = algorithm.run(mesh, options.seed);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (const std::string problem = check_coloring(mesh, result.color, result.num_colors); !problem.empty())
    throw std::logic_error("face coloring '" + result.algorithm + "' is invalid: " + problem);
  return result;
}

std::string check_coloring(const Mesh& m, const std::vector<std::int8_t>& color, int num_colors) {
  if (color.size() != std::size_t(m.num_faces())) return "the coloring has the wrong number of faces";
  if (num_colors > 64) return "more than 64 colors";
  std::vector<std::uint64_t> seen(m.num_elements(), 0);
  for (index_t f = 0; f < m.num_faces(); ++f) {
    const int c = color[f];
    if (c < 0 || c >= num_colors) {
      std::ostringstream s;
      s << "face " << f << " has color " << c << ", outside 0.." << num_colors - 1;
      return s.str();
    }
    for (index_t e : {m.face_left[f], m.face_right[f]}) {
      if (e == no_element) continue;
      if (seen[e] & (1ull << c)) {
        std::ostringstream s;
        s << "element " << e << " (input " << m.element_tag[e] << ") has two faces of color " << c << " (one is face "
          << f << ")";
        return s.str();
      }
      seen[e] |= 1ull << c;
    }
  }
  return {};
}

}  // namespace kempe
