// Element renumbering and face reordering (see reorder.hpp). Everything here works on flat arrays with
// counting sorts, radix sorts and breadth-first searches: O(faces + elements) per pass and a bounded number of
// passes, no maps, no comparison sort of the whole mesh. On Rect E of Giuliani & Krivodonova (2017) (3.8M
// triangles, 5.7M faces), single-threaded, color_renumber computes and applies in about 0.7 s (their Table 11:
// 24 s), hilbert in about 1.6 s and rcm in about 2 to 2.5 s; the cost is mostly random memory access, hence the
// relabeled graph in rcm and the buffer reuse in apply_ordering.
#include "coloring/reorder.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "base/csr.hpp"
#include "base/registry.hpp"

namespace kempe {
namespace {

/// The coloring must cover every face with a color in range before any ordering can group faces by color.
void check_coloring_input(const Mesh& m, const FaceColoring& coloring, const char* who) {
  const std::string prefix = std::string(who) + ": ";
  if (coloring.color.size() != std::size_t(m.num_faces()))
    throw std::invalid_argument(prefix + "the coloring has " + std::to_string(coloring.color.size()) +
                                " colors for " + std::to_string(m.num_faces()) + " faces");
  if (coloring.num_colors < 1 || coloring.num_colors > std::numeric_limits<std::int8_t>::max())
    throw std::invalid_argument(prefix + "the coloring has " + std::to_string(coloring.num_colors) + " colors");
  for (std::size_t f = 0; f < coloring.color.size(); ++f)
    if (coloring.color[f] < 0 || coloring.color[f] >= coloring.num_colors)
      throw std::invalid_argument(prefix + "face " + std::to_string(f) + " has color " +
                                  std::to_string(int(coloring.color[f])) + ", outside 0.." +
                                  std::to_string(coloring.num_colors - 1));
}

/// Stable counting sort of `order` by key(i) in [0, range).
template <class Key>
void counting_sort(std::vector<index_t>& order, std::vector<index_t>& scratch, std::vector<index_t>& count,
                   index_t range, Key key) {
  count.assign(std::size_t(range) + 1, 0);
  for (index_t i : order) ++count[std::size_t(key(i)) + 1];
  for (index_t k = 0; k < range; ++k) count[k + 1] += count[k];
  scratch.resize(order.size());
  for (index_t i : order) scratch[count[key(i)]++] = i;
  order.swap(scratch);
}

/// Faces grouped by color (color 0 first). Without an element numbering the faces keep their input order within
/// a color; with one, they are sorted by the lower new element number of the face (its new left element). No
/// two faces of one color share an element, so within a color that key is unique and "ties by the right
/// element" never arises (with an invalid coloring, ties keep their input order).
std::vector<index_t> face_order(const Mesh& m, const FaceColoring& coloring, const std::vector<index_t>* element_new) {
  const index_t nf = m.num_faces(), ne = m.num_elements();
  std::vector<index_t> order(nf), scratch, count;
  std::iota(order.begin(), order.end(), index_t{0});
  if (element_new) {
    const std::vector<index_t>& en = *element_new;
    std::vector<index_t> lo(nf);
    for (index_t f = 0; f < nf; ++f) {
      const index_t l = en[m.face_left[f]];
      lo[f] = m.face_right[f] == no_element ? l : std::min(l, en[m.face_right[f]]);
    }
    counting_sort(order, scratch, count, ne, [&](index_t f) { return lo[f]; });
  }
  const std::int8_t* color = coloring.color.data();
  counting_sort(order, scratch, count, coloring.num_colors, [&](index_t f) { return index_t{color[f]}; });
  return order;
}

std::vector<index_t> inverse_of(const std::vector<index_t>& order) {
  std::vector<index_t> inv(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) inv[order[i]] = static_cast<index_t>(i);
  return inv;
}

Permutation with_faces(const Mesh& m, const FaceColoring& coloring, std::vector<index_t> element_new) {
  Permutation p;
  p.face_new = inverse_of(face_order(m, coloring, &element_new));
  p.element_new = std::move(element_new);
  return p;
}

// --- as_read ---------------------------------------------------------------------------------------------------

Permutation order_as_read(const Mesh& m, const FaceColoring& coloring) {
  check_coloring_input(m, coloring, "ordering as_read");
  Permutation p;
  p.element_new.resize(m.num_elements());
  std::iota(p.element_new.begin(), p.element_new.end(), index_t{0});
  p.face_new = inverse_of(face_order(m, coloring, nullptr));
  return p;
}

// --- color_renumber (Algorithm 5 of Giuliani & Krivodonova 2017) -------------------------------------------------

Permutation order_color_renumber(const Mesh& m, const FaceColoring& coloring) {
  check_coloring_input(m, coloring, "ordering color_renumber");
  const index_t ne = m.num_elements();
  const std::vector<index_t> by_color = face_order(m, coloring, nullptr);
  index_t n0 = 0;  // faces of color 0: the first n0 entries of by_color
  while (n0 < m.num_faces() && coloring.color[by_color[n0]] == 0) ++n0;

  std::vector<index_t> element_new(ne, no_element);
  auto take = [&](index_t e, index_t number) {
    if (element_new[e] != no_element)
      throw std::invalid_argument("ordering color_renumber: element " + std::to_string(e) +
                                  " has two faces of color 0 (the coloring is invalid)");
    element_new[e] = number;
  };
  index_t count = n0;
  for (index_t k = 0; k < n0; ++k) {
    const index_t f = by_color[k];
    take(m.face_left[f], k);
    if (m.face_right[f] != no_element) take(m.face_right[f], count++);
  }
  // Elements without a face of color 0 (none when every element has as many faces as there are colors, e.g.
  // triangles with 3 colors): after those, in input order.
  for (index_t e = 0; e < ne; ++e)
    if (element_new[e] == no_element) element_new[e] = count++;
  // Color 0 keeps its order (its k-th face has new left element k < N0 <= its right, so sorting by new left
  // changes nothing); the other colors are sorted by new left element.
  return with_faces(m, coloring, std::move(element_new));
}

// --- rcm ---------------------------------------------------------------------------------------------------------

/// The element adjacency graph through interior faces (parallel faces give repeated neighbours), in CSR form,
/// element by element, local face by local face: neighbours come in a deterministic, local order.
using Graph = Csr;

Graph element_graph(const Mesh& m) {
  return build_csr(m.num_elements(), [&m](auto&& add) {
    for (index_t e = 0; e < m.num_elements(); ++e)
      for (index_t k = m.element_face_begin[e]; k < m.element_face_begin[e + 1]; ++k) {
        const index_t f = m.element_faces[k];
        if (m.face_right[f] != no_element) add(e, m.face_left[f] == e ? m.face_right[f] : m.face_left[f]);
      }
  });
}

/// Breadth-first level structure rooted at one element. `mark` holds, per element, the id of the last search
/// that reached it, so no array is cleared between searches.
class LevelSearch {
 public:
  explicit LevelSearch(const Graph& g) : g_(g), mark_(g.begin.size() - 1, 0) {}
  /// Returns the eccentricity of root; queue() then holds the component in BFS order and the last level starts
  /// at last_level_begin().
  index_t run(index_t root) {
    ++stamp_;
    queue_.clear();
    queue_.push_back(root);
    mark_[root] = stamp_;
    std::size_t level_begin = 0;
    index_t depth = 0;
    while (true) {
      const std::size_t level_end = queue_.size();
      for (std::size_t i = level_begin; i < level_end; ++i)
        for (index_t k = g_.begin[queue_[i]]; k < g_.begin[queue_[i] + 1]; ++k) {
          const index_t v = g_.values[k];
          if (mark_[v] != stamp_) {
            mark_[v] = stamp_;
            queue_.push_back(v);
          }
        }
      if (queue_.size() == level_end) {
        last_level_begin_ = level_begin;
        return depth;
      }
      level_begin = level_end;
      ++depth;
    }
  }
  const std::vector<index_t>& queue() const { return queue_; }
  std::size_t last_level_begin() const { return last_level_begin_; }

 private:
  const Graph& g_;
  std::vector<std::uint32_t> mark_;
  std::uint32_t stamp_ = 0;
  std::vector<index_t> queue_;
  std::size_t last_level_begin_ = 0;
};

/// George & Liu (1979): from `start`, move to a lowest-degree element of the last BFS level while that
/// increases the eccentricity. Bounded: each round is one BFS of the component, and the eccentricity grows
/// every round but the last, which in practice stops after two to five rounds; we cap it at 16.
index_t pseudo_peripheral(const Graph& g, LevelSearch& search, index_t start) {
  index_t root = start;
  index_t ecc = search.run(root);
  for (int round = 0; round < 16; ++round) {
    const auto& q = search.queue();
    index_t best = q[search.last_level_begin()];
    for (std::size_t i = search.last_level_begin() + 1; i < q.size(); ++i)
      if (g.size(q[i]) < g.size(best)) best = q[i];
    const index_t ecc_best = search.run(best);
    if (ecc_best <= ecc) break;
    root = best;
    ecc = ecc_best;
  }
  return root;
}

/// The graph relabeled in breadth-first order (component by component, each from its lowest-numbered element):
/// `order` lists the input element of each label. Searches over the relabeled graph touch nearby labels only
/// (a level's neighbours are in the adjacent levels), which on a multi-million-element mesh makes each of the
/// later searches several times faster than on the input numbering.
Graph relabel_breadth_first(const Graph& g, std::vector<index_t>& order) {
  const index_t n = static_cast<index_t>(g.begin.size()) - 1;
  std::vector<index_t> label(n, no_element);
  order.clear();
  order.reserve(n);
  for (index_t seed = 0; seed < n; ++seed) {
    if (label[seed] != no_element) continue;
    label[seed] = static_cast<index_t>(order.size());
    order.push_back(seed);
    for (std::size_t head = order.size() - 1; head < order.size(); ++head)
      for (index_t k = g.begin[order[head]]; k < g.begin[order[head] + 1]; ++k)
        if (const index_t v = g.values[k]; label[v] == no_element) {
          label[v] = static_cast<index_t>(order.size());
          order.push_back(v);
        }
  }
  Graph h;
  h.begin.resize(std::size_t(n) + 1);
  h.values.resize(g.values.size());
  h.begin[0] = 0;
  for (index_t i = 0; i < n; ++i) {
    index_t at = h.begin[i];
    for (index_t k = g.begin[order[i]]; k < g.begin[order[i] + 1]; ++k) h.values[at++] = label[g.values[k]];
    h.begin[i + 1] = at;
  }
  return h;
}

Permutation order_rcm(const Mesh& m, const FaceColoring& coloring) {
  check_coloring_input(m, coloring, "ordering rcm");
  const index_t ne = m.num_elements();
  std::vector<index_t> input;  // input element of each label of g
  const Graph g = relabel_breadth_first(element_graph(m), input);
  LevelSearch search(g);
  std::vector<index_t> cm;  // Cuthill-McKee order (labels of g), all components one after the other
  cm.reserve(ne);
  std::vector<char> placed(ne, 0);
  std::vector<index_t> next;
  for (index_t seed = 0; seed < ne; ++seed) {
    if (placed[seed]) continue;
    const index_t root = pseudo_peripheral(g, search, seed);
    std::size_t head = cm.size();
    cm.push_back(root);
    placed[root] = 1;
    for (; head < cm.size(); ++head) {
      const index_t e = cm[head];
      next.clear();
      for (index_t k = g.begin[e]; k < g.begin[e + 1]; ++k) {
        const index_t v = g.values[k];
        if (!placed[v]) {
          placed[v] = 1;
          next.push_back(v);
        }
      }
      // Neighbours by increasing degree, ties by label (a handful of entries: insertion sort).
      for (std::size_t i = 1; i < next.size(); ++i) {
        const index_t v = next[i];
        std::size_t j = i;
        for (; j > 0 && (g.size(next[j - 1]) > g.size(v) ||
                         (g.size(next[j - 1]) == g.size(v) && next[j - 1] > v));
             --j)
          next[j] = next[j - 1];
        next[j] = v;
      }
      cm.insert(cm.end(), next.begin(), next.end());
    }
  }
  std::vector<index_t> element_new(ne);
  for (index_t i = 0; i < ne; ++i) element_new[input[cm[i]]] = ne - 1 - i;  // reversed
  return with_faces(m, coloring, std::move(element_new));
}

// --- hilbert -----------------------------------------------------------------------------------------------------

/// Spreads the low 32 bits of v to the even bits of the result (a 2D Morton interleave).
constexpr std::uint64_t spread2(std::uint64_t v) {
  v &= 0xffffffffull;
  v = (v | (v << 16)) & 0x0000ffff0000ffffull;
  v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
  v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  v = (v | (v << 1)) & 0x5555555555555555ull;
  return v;
}

/// Spreads the low 21 bits of v to every third bit of the result (a 3D Morton interleave).
constexpr std::uint64_t spread3(std::uint64_t v) {
  v &= 0x1fffffull;
  v = (v | (v << 32)) & 0x001f00000000ffffull;
  v = (v | (v << 16)) & 0x001f0000ff0000ffull;
  v = (v | (v << 8)) & 0x100f00f00f00f00full;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

/// Hilbert index of a point of a 2^bits grid in Dims (2 or 3) dimensions (Skilling, "Programming the Hilbert
/// curve", AIP Conf. Proc. 707, 2004: axes to transposed index, then the bits interleaved, most significant
/// first), written without data-dependent branches: they would be mispredicted half the time.
template <int Dims>
std::uint64_t hilbert_index(std::array<std::uint32_t, 3> x, int bits) {
  const std::uint32_t top = std::uint32_t{1} << (bits - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {  // inverse undo
    const std::uint32_t p = q - 1;
    x[0] ^= p & (0u - ((x[0] & q) != 0));  // invert where set (exchanging x[0] with itself does nothing)
    for (int i = 1; i < Dims; ++i) {
      const std::uint32_t set = 0u - ((x[i] & q) != 0);  // all ones where bit q of x[i] is set
      const std::uint32_t t = (x[0] ^ x[i]) & p & ~set;  // exchange the low bits of x[0] and x[i] where clear
      x[0] ^= (p & set) | t;                             // ... invert those of x[0] where set
      x[i] ^= t;
    }
  }
  for (int i = 1; i < Dims; ++i) x[i] ^= x[i - 1];  // Gray encode
  std::uint32_t t = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1) t ^= (q - 1) & (0u - ((x[Dims - 1] & q) != 0));
  for (int i = 0; i < Dims; ++i) x[i] ^= t;
  if constexpr (Dims == 2) return (spread2(x[0]) << 1) | spread2(x[1]);
  else return (spread3(x[0]) << 2) | (spread3(x[1]) << 1) | spread3(x[2]);
}

/// Stable LSD radix sort of (key, value) pairs by key, 16 bits a pass; passes whose digit is the same for every
/// key are skipped.
void radix_sort(std::vector<std::uint64_t>& key, std::vector<index_t>& value) {
  const std::size_t n = key.size();
  std::vector<std::uint64_t> key2(n);
  std::vector<index_t> value2(n);
  std::vector<std::size_t> count(std::size_t{1} << 16);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (std::uint64_t k : key) ++count[(k >> shift) & 0xffffu];
    if (n == 0 || count[(key[0] >> shift) & 0xffffu] == n) continue;
    std::size_t sum = 0;
    for (auto& c : count) sum += std::exchange(c, sum);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = count[(key[i] >> shift) & 0xffffu]++;
      key2[at] = key[i];
      value2[at] = value[i];
    }
    key.swap(key2);
    value.swap(value2);
  }
}

Permutation order_hilbert(const Mesh& m, const FaceColoring& coloring) {
  check_coloring_input(m, coloring, "ordering hilbert");
  const index_t ne = m.num_elements();
  // Planar meshes: a 2D curve on a 2^32 grid; volumes and surfaces in 3D: a 3D curve on a 2^21 grid (63 bits).
  const int dims = m.space_dim == 2 ? 2 : 3;
  const int bits = dims == 2 ? 32 : 21;
  const std::array<const std::vector<double>*, 3> c = {&m.centroid_x, &m.centroid_y, &m.centroid_z};
  std::array<double, 3> lo{0, 0, 0};
  double extent = 0;
  for (int d = 0; d < dims; ++d) {
    if (ne == 0) break;
    const auto [mn, mx] = std::minmax_element(c[d]->begin(), c[d]->end());
    lo[d] = *mn;
    extent = std::max(extent, *mx - *mn);
  }
  // One scale for all axes (cubic cells, the bounding box's longest side spans the grid): a stretched domain
  // keeps the curve's locality in real distance.
  const double cells = static_cast<double>((std::uint64_t{1} << bits) - 1);
  const double scale = extent > 0 ? cells / extent : 0;
  std::vector<std::uint64_t> key(ne);
  std::vector<index_t> order(ne);
  for (index_t e = 0; e < ne; ++e) {
    std::array<std::uint32_t, 3> x{0, 0, 0};
    for (int d = 0; d < dims; ++d) {
      const double s = std::clamp(((*c[d])[e] - lo[d]) * scale, 0.0, cells);
      x[d] = static_cast<std::uint32_t>(s);
    }
    key[e] = dims == 2 ? hilbert_index<2>(x, bits) : hilbert_index<3>(x, bits);
    order[e] = e;
  }
  radix_sort(key, order);
  return with_faces(m, coloring, inverse_of(order));
}

// --- apply ---------------------------------------------------------------------------------------------------------

/// Old index of each new one; throws unless `new_of_old` is a bijection of 0..n-1.
std::vector<index_t> old_of_new(const std::vector<index_t>& new_of_old, const char* what) {
  const std::size_t n = new_of_old.size();
  std::vector<index_t> old(n, no_element);
  for (std::size_t i = 0; i < n; ++i) {
    const index_t k = new_of_old[i];
    if (k < 0 || std::size_t(k) >= n || old[k] != no_element)
      throw std::invalid_argument(std::string("apply_ordering: the ") + what + " permutation is not a bijection (" +
                                  what + " " + std::to_string(i) + " goes to " + std::to_string(k) + ")");
    old[k] = static_cast<index_t>(i);
  }
  return old;
}

/// Spare buffers of one type: each permuted array is written into a spare and the array it replaces becomes the
/// next spare, so an ordering allocates about one new array per type instead of one per field (fresh memory
/// costs a page fault per 4 KiB, and freed large blocks go back to the system).
template <class T>
class Spares {
 public:
  /// A buffer of n elements (contents unspecified): the smallest spare that holds n without growing, if any.
  std::vector<T> take(std::size_t n) {
    std::size_t best = buffers_.size();
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (buffers_[i].capacity() >= n && (best == buffers_.size() || buffers_[i].capacity() < buffers_[best].capacity()))
        best = i;
    std::vector<T> v;
    if (best < buffers_.size()) {
      v.swap(buffers_[best]);
      buffers_.erase(buffers_.begin() + static_cast<std::ptrdiff_t>(best));
    }
    v.resize(n);
    return v;
  }
  void give(std::vector<T>& v) {
    buffers_.emplace_back();
    buffers_.back().swap(v);
  }
  /// Replaces v by the n values value(i), i = 0..n-1.
  template <class F>
  void fill(std::vector<T>& v, std::size_t n, F value) {
    std::vector<T> out = take(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = value(i);
    v.swap(out);
    give(out);
  }
  /// Puts v in the new order: entry i becomes the old entry old[i].
  void gather(std::vector<T>& v, const std::vector<index_t>& old) {
    fill(v, old.size(), [&](std::size_t i) { return v[old[i]]; });
  }

 private:
  std::vector<std::vector<T>> buffers_;
};

/// Puts the rows of a CSR array (begin has one more entry than there are rows) in the new order.
void gather_csr(std::vector<index_t>& begin, std::vector<index_t>& data, const std::vector<index_t>& old,
                Spares<index_t>& spares) {
  const std::size_t n = old.size();
  std::vector<index_t> b = spares.take(n + 1), d = spares.take(data.size());
  // Rows of one length k (a mesh of one element type): no offsets to look up.
  const index_t k = n > 0 ? begin[1] - begin[0] : 0;
  bool uniform = true;
  for (std::size_t i = 0; i <= n && uniform; ++i) uniform = begin[i] == static_cast<index_t>(i) * k;
  if (uniform) {
    for (std::size_t i = 0; i <= n; ++i) b[i] = static_cast<index_t>(i) * k;
    for (std::size_t i = 0; i < n; ++i) {
      const index_t* from = &data[std::size_t(old[i]) * k];
      index_t* to = &d[i * k];
      for (index_t j = 0; j < k; ++j) to[j] = from[j];
    }
  } else {
    b[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const index_t from = begin[old[i]], len = begin[old[i] + 1] - from;
      for (index_t j = 0; j < len; ++j) d[b[i] + j] = data[from + j];
      b[i + 1] = b[i] + len;
    }
  }
  begin.swap(b);
  data.swap(d);
  spares.give(b);
  spares.give(d);
}

}  // namespace

const std::vector<Ordering>& orderings() {
  static const std::vector<Ordering> table = {
      {"as_read", "elements as read; faces grouped by color, in input order within a color", order_as_read},
      {"color_renumber",
       "Alg. 5 of the coloring paper: the k-th face of color 0 gets left element k and right element N0 + k; "
       "the other colors sorted by left element",
       order_color_renumber},
      {"rcm",
       "reverse Cuthill-McKee on the element graph from pseudo-peripheral starts (small bandwidth); faces of "
       "each color sorted by left element",
       order_rcm},
      {"hilbert", "elements along a Hilbert curve of their centroids; faces of each color sorted by left element",
       order_hilbert},
  };
  return table;
}

const Ordering& find_ordering(std::string_view name) {
  return find_by_name("ordering", name, orderings());
}

void apply_ordering(Mesh& m, FaceColoring& coloring, const Permutation& p) {
  const index_t ne = m.num_elements(), nf = m.num_faces();
  // Everything is checked before anything changes: a rejected permutation leaves mesh and coloring intact.
  if (p.element_new.size() != std::size_t(ne) || p.face_new.size() != std::size_t(nf))
    throw std::invalid_argument("apply_ordering: the permutation is for " + std::to_string(p.element_new.size()) +
                                " elements and " + std::to_string(p.face_new.size()) + " faces, the mesh has " +
                                std::to_string(ne) + " and " + std::to_string(nf));
  check_coloring_input(m, coloring, "apply_ordering");
  if (!m.leaf_root.empty())
    throw std::invalid_argument(m.source + ": holds an adapted mesh (kempe adapt --save), whose leaves an ordering would "
                                "separate from their start triangles; kempe adapt reads it");
  if (!m.element_input.empty() && m.element_input.size() != std::size_t(ne))
    throw std::invalid_argument("apply_ordering: mesh.element_input has the wrong size");
  if (!m.face_input.empty() && m.face_input.size() != std::size_t(nf))
    throw std::invalid_argument("apply_ordering: mesh.face_input has the wrong size");
  const std::vector<index_t> element_old = old_of_new(p.element_new, "element");
  const std::vector<index_t> face_old = old_of_new(p.face_new, "face");
  std::vector<std::int8_t> color(nf);
  for (index_t i = 0; i < nf; ++i) {
    color[i] = coloring.color[face_old[i]];
    if (i > 0 && color[i] < color[i - 1])
      throw std::invalid_argument("apply_ordering: the permutation does not group the faces by color (new face " +
                                  std::to_string(i) + " has color " + std::to_string(int(color[i])) +
                                  " after a face of color " + std::to_string(int(color[i - 1])) + ")");
  }

  std::tuple<Spares<index_t>, Spares<std::int8_t>, Spares<double>, Spares<std::int64_t>, Spares<ElementType>> spares;
  auto& ints = std::get<Spares<index_t>>(spares);
  auto& bytes = std::get<Spares<std::int8_t>>(spares);
  auto& reals = std::get<Spares<double>>(spares);
  const std::vector<index_t>& en = p.element_new;

  // Faces first (a swapped face takes its vertices from its new left element, found here by its old number),
  // with the lower-numbered element on the left: new left/right and which faces swap sides.
  std::vector<std::int8_t> swapped = bytes.take(std::size_t(nf));
  std::vector<index_t> left = ints.take(std::size_t(nf)), right = ints.take(std::size_t(nf));
  bool any_swapped = false;
  for (index_t i = 0; i < nf; ++i) {
    const index_t o = face_old[i];
    const index_t l = en[m.face_left[o]];
    const index_t r = m.face_right[o] == no_element ? no_element : en[m.face_right[o]];
    const bool swap = r != no_element && r < l;
    any_swapped |= swap;
    swapped[i] = swap;
    left[i] = swap ? r : l;
    right[i] = swap ? l : r;
  }
  {
    // The face's vertices in its new left element's own face order, which is how build_mesh lists them, looked
    // up in that element: on a periodic face its nodes are not the old left's (the old order reversed would put
    // the face on the far side of the domain).
    std::vector<index_t> v = ints.take(std::size_t(nf) * max_face_vertices);
    for (index_t i = 0; i < nf; ++i) {
      const index_t o = face_old[i];
      index_t* nv = &v[std::size_t(i) * max_face_vertices];
      if (swapped[i]) {
        const index_t e = m.face_right[o];
        const FaceDef& fd = element_info(m.element_type[e]).faces[m.face_right_local[o]];
        const index_t* ev = &m.element_vertices[m.element_vertex_begin[e]];
        for (int k = 0; k < max_face_vertices; ++k) nv[k] = k < fd.num_vertices ? ev[fd.vertices[k]] : -1;
      } else {
        const index_t* ov = &m.face_vertices[std::size_t(o) * max_face_vertices];
        std::copy(ov, ov + max_face_vertices, nv);
      }
    }
    m.face_vertices.swap(v);
    ints.give(v);
  }
  m.face_left.swap(left);
  m.face_right.swap(right);
  ints.give(left);
  ints.give(right);
  {
    std::vector<std::int8_t> ll = bytes.take(std::size_t(nf)), rl = bytes.take(std::size_t(nf));
    for (index_t i = 0; i < nf; ++i) {
      const index_t o = face_old[i];
      ll[i] = swapped[i] ? m.face_right_local[o] : m.face_left_local[o];
      rl[i] = swapped[i] ? m.face_left_local[o] : m.face_right_local[o];
    }
    m.face_left_local.swap(ll);
    m.face_right_local.swap(rl);
    bytes.give(ll);
    bytes.give(rl);
  }
  for (std::vector<double>* n : {&m.normal_x, &m.normal_y, &m.normal_z})
    reals.fill(*n, std::size_t(nf), [&](std::size_t i) { return swapped[i] ? -(*n)[face_old[i]] : (*n)[face_old[i]]; });
  if (m.face_input.empty())
    m.face_input = face_old;
  else
    ints.gather(m.face_input, face_old);  // composed with the earlier ordering
  bytes.give(swapped);

  // Every other array of elements or faces moves with its row (areas, volumes, tags, types, ...). Faces first:
  // the face-sized spares the normals left then serve face arrays before element arrays shrink them (in the
  // other order color_renumber's reordering of Rect D takes 0.38 s instead of 0.33).
  for (const MeshRows rows : {MeshRows::faces, MeshRows::elements})
    m.for_each_array([&](const MeshArray& a, auto& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      if constexpr (!std::is_same_v<T, std::string>)
        if (a.kind == MeshArrayKind::plain && a.rows == rows)
          std::get<Spares<T>>(spares).gather(v, rows == MeshRows::elements ? element_old : face_old);
    });
  gather_csr(m.element_vertex_begin, m.element_vertices, element_old, ints);
  gather_csr(m.element_face_begin, m.element_faces, element_old, ints);
  for (index_t& f : m.element_faces) f = p.face_new[f];
  if (m.element_input.empty())
    m.element_input = element_old;
  else
    ints.gather(m.element_input, element_old);

  // Colors as contiguous ranges.
  m.color_begin = csr_offsets(coloring.num_colors, [&color](auto&& add) {
    for (std::int8_t c : color) add(c);
  });
  m.face_color = color;
  coloring.color = std::move(color);

  // On a surface in 3D the normal is the left element's in-plane conormal, which is the negative of the right
  // element's only where the surface is flat: recompute it for the new left elements.
  if (any_swapped && m.dim == 2 && m.space_dim == 3) compute_geometry(m);
}

OrderingMetrics ordering_metrics(const Mesh& m) {
  OrderingMetrics r;
  const index_t ne = m.num_elements(), nf = m.num_faces();
  std::vector<index_t> lowest(ne);
  std::iota(lowest.begin(), lowest.end(), index_t{0});
  index_t left_same = 0, right_same = 0, interior = 0, previous_right = no_element;
  for (index_t f = 0; f < nf; ++f) {
    const index_t l = m.face_left[f], rt = m.face_right[f];
    if (f > 0 && l / 16 == m.face_left[f - 1] / 16) ++left_same;
    if (rt == no_element) continue;
    if (interior > 0 && rt / 16 == previous_right / 16) ++right_same;
    previous_right = rt;
    ++interior;
    const index_t lo = std::min(l, rt), hi = std::max(l, rt);
    r.bandwidth = std::max(r.bandwidth, hi - lo);
    lowest[hi] = std::min(lowest[hi], lo);
  }
  for (index_t e = 0; e < ne; ++e) r.profile += e - lowest[e];
  r.coalesced_left = nf > 1 ? double(left_same) / double(nf - 1) : 0.0;
  r.coalesced_right = interior > 1 ? double(right_same) / double(interior - 1) : 0.0;
  return r;
}

}  // namespace kempe
