// Adaptive refinement of triangle forests (adapt/forest.hpp), on the CPU backend: random cycles on planar,
// periodic and closed-surface meshes keep the mesh 1-irregular and validly colored with at most 2K colors, every
// element edge covered once per side, areas and the Euler characteristic unchanged, children counterclockwise;
// refining everything and coarsening it back gives the start mesh bit for bit; Alg. 4's mapping on a hand-made
// pair; bad input refused by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "adapt/forest.hpp"
#include "adapt/fused_passes.hpp"
#include "base/threads.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/generators.hpp"
#include "adapt_fixtures.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;

using test::adapt_start;
using test::disk_mesh;

Mesh planar_mesh() { return adapt_start(grid_mesh(8, 1.0, 0.2, 3)); }
Mesh periodic_mesh() { return adapt_start(periodic_grid_mesh(8, 1.0, 0.2)); }
Mesh sphere_mesh() { return adapt_start(build_mesh(icosphere(1))); }

struct Vec {
  double x, y, z;
};
Vec node(const adapt::LeafMesh& m, index_t i) { return {m.x[i], m.y[i], m.z[i]}; }
Vec sub(Vec a, Vec b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec cross(Vec a, Vec b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double norm(Vec a) { return std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

/// Signed area in the xy plane.
double planar_area(const adapt::LeafMesh& m, index_t e) {
  const Vec a = node(m, m.element_vertices[3 * e]), b = node(m, m.element_vertices[3 * e + 1]),
            c = node(m, m.element_vertices[3 * e + 2]);
  return 0.5 * cross(sub(b, a), sub(c, a)).z;
}

/// Whether leaf a comes before leaf b: lower root, or in one tree the first child number where their paths differ.
bool depth_first_before(const adapt::LeafMesh& m, index_t a, index_t b) {
  if (m.root[a] != m.root[b]) return m.root[a] < m.root[b];
  const int levels = std::min(m.level[a], m.level[b]);
  for (int l = 1; l <= levels; ++l) {
    const int ca = adapt::child_number(m.path[a], l), cb = adapt::child_number(m.path[b], l);
    if (ca != cb) return ca < cb;
  }
  return false;  // one is the other's ancestor: two leaves never are
}

/// Checks, independently of the forest's own check, what every adapted mesh must satisfy.
void expect_consistent(const adapt::LeafMesh& m, int start_colors, const std::string& what) {
  SCOPED_TRACE(what);
  const index_t ne = m.num_elements(), nf = m.num_faces();
  // Colors grouped, ranges consistent, each element's faces distinct in color, every element edge covered by
  // one face (whole) or two (halves) per side.
  ASSERT_EQ(m.color_begin.size(), std::size_t(2 * start_colors + 1));
  ASSERT_EQ(m.color_begin.back(), nf);
  std::vector<std::set<int>> colors(ne);
  std::vector<std::array<int, 3>> cover(ne, std::array<int, 3>{0, 0, 0});
  for (int c = 0; c < 2 * start_colors; ++c)
    for (index_t f = m.color_begin[c]; f < m.color_begin[c + 1]; ++f) ASSERT_EQ(m.face_color[f], c);
  for (index_t f = 0; f < nf; ++f) {
    const index_t l = m.face_left[f], r = m.face_right[f];
    ASSERT_TRUE(colors[l].insert(m.face_color[f]).second) << "element " << l << " has two faces of color " << +m.face_color[f];
    cover[l][m.face_left_local[f]] += m.face_left_half[f] == adapt::whole_edge ? 2 : 1;
    if (r == no_element) continue;
    ASSERT_LT(l, r);
    ASSERT_TRUE(colors[r].insert(m.face_color[f]).second) << "element " << r << " has two faces of color " << +m.face_color[f];
    cover[r][m.face_right_local[f]] += m.face_right_half[f] == adapt::whole_edge ? 2 : 1;
    // 1-irregular, and only the coarser side sees half an edge.
    const int dl = m.level[l], dr = m.level[r];
    ASSERT_LE(std::abs(dl - dr), 1);
    EXPECT_EQ(m.face_left_half[f] != adapt::whole_edge, dl < dr);
    EXPECT_EQ(m.face_right_half[f] != adapt::whole_edge, dr < dl);
  }
  for (index_t e = 0; e < ne; ++e)
    for (int j = 0; j < 3; ++j) ASSERT_EQ(cover[e][j], 2) << "edge " << j << " of element " << e;
  // Leaves in the order of their roots, each tree depth first (so siblings are adjacent, in child order).
  for (index_t e = 1; e < ne; ++e) ASSERT_TRUE(depth_first_before(m, e - 1, e)) << "leaves " << e - 1 << " and " << e;
}

/// The Euler characteristic V - E + F of the leaf mesh: hanging vertices are vertices, faces are its edges.
long euler_characteristic(const adapt::LeafMesh& m) {
  std::set<index_t> used(m.element_vertices.begin(), m.element_vertices.end());
  return long(used.size()) - long(m.num_faces()) + long(m.num_elements());
}

namespace {
struct CountVisits {
  int* visits;
  KEMPE_HD void operator()(index_t i) const { ++visits[i]; }
};
}  // namespace

// The GPU runs independent passes of an adaptation as one launch (adapt::BothPasses): each pass still visits its
// own range once, whichever range is the longer.
TEST(Forest, FusedPassesVisitEachOwnRangeOnce) {
  std::vector<int> a(7, 0), b(12, 0), c(3, 0);
  forall(Backend::cpu, 12, adapt::BothPasses<CountVisits, CountVisits>{{a.data()}, {b.data()}, 7, 12});
  forall(Backend::cpu, 12, adapt::BothPasses<CountVisits, CountVisits>{{b.data()}, {a.data()}, 12, 7});
  EXPECT_THAT(a, ::testing::Each(2));
  EXPECT_THAT(b, ::testing::Each(2));
  adapt::forall_three(Backend::cpu, 7, CountVisits{a.data()}, 12, CountVisits{b.data()}, 3, CountVisits{c.data()});
  adapt::forall_both(Backend::cpu, 3, CountVisits{c.data()}, 0, CountVisits{a.data()});
  EXPECT_THAT(a, ::testing::Each(3));
  EXPECT_THAT(b, ::testing::Each(3));
  EXPECT_THAT(c, ::testing::Each(2));
}

TEST(Forest, StartsAsTheStartMesh) {
  for (const Mesh& mesh : {planar_mesh(), periodic_mesh(), sphere_mesh()}) {
    const adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    EXPECT_EQ(forest.difference_from(mesh), "") << mesh.source;
    const adapt::AdaptReport r = forest.check();
    EXPECT_TRUE(r.valid()) << mesh.source << ": " << r.failures << " failures";
    EXPECT_EQ(r.hanging_faces, 0);
    EXPECT_EQ(r.colors, forest.start_colors());
  }
}

TEST(Forest, RandomCyclesStayValidOnPlanarMeshes) {
  const Mesh mesh = planar_mesh();
  adapt::TriangleForest forest(mesh, Backend::cpu, 4);
  double start_area = 0;
  for (const double v : mesh.volume) start_area += v;
  const long chi = euler_characteristic(forest.to_host());
  EXPECT_EQ(chi, 1);
  int deepest = 0, hanging = 0;
  for (int c = 0; c < 12; ++c) {
    forest.flag_random(c < 8 ? 0.3 : 0.1, c < 8 ? 0.1 : 0.4, 5, std::uint64_t(c));
    const adapt::AdaptReport r = forest.adapt();
    ASSERT_TRUE(r.valid()) << "cycle " << c << ": " << r.failures << " failures";
    ASSERT_LE(r.colors, 2 * forest.start_colors());
    const adapt::LeafMesh m = forest.to_host();
    expect_consistent(m, forest.start_colors(), "cycle " + std::to_string(c));
    EXPECT_EQ(euler_characteristic(m), chi);
    double area = 0;
    for (index_t e = 0; e < m.num_elements(); ++e) {
      const double a = planar_area(m, e);
      ASSERT_GT(a, 0) << "element " << e << " is not counterclockwise";
      area += a;
    }
    EXPECT_NEAR(area, start_area, 1e-12 * start_area);
    // The geometry kernels: areas as computed here, unit normals out of the left leaf, lengths of the faces.
    for (index_t e = 0; e < m.num_elements(); ++e) ASSERT_NEAR(m.area[e], planar_area(m, e), 1e-15) << "element " << e;
    for (index_t f = 0; f < m.num_faces(); ++f) {
      const Vec p = node(m, m.face_vertices[2 * f]), q = node(m, m.face_vertices[2 * f + 1]);
      ASSERT_NEAR(m.face_length[f], norm(sub(q, p)), 1e-15);
      ASSERT_NEAR(std::hypot(m.normal_x[f], m.normal_y[f]), 1.0, 1e-14);
      const index_t l = m.face_left[f];
      const double out = (0.5 * (p.x + q.x) - m.centroid_x[l]) * m.normal_x[f] + (0.5 * (p.y + q.y) - m.centroid_y[l]) * m.normal_y[f];
      ASSERT_GT(out, 0) << "face " << f << ": normal does not point out of its left leaf";
    }
    deepest = std::max(deepest, r.max_level);
    hanging = std::max(hanging, int(r.hanging_faces));
  }
  EXPECT_EQ(deepest, 4);  // the cycles reach the maximum level, with hanging faces on the way
  EXPECT_GT(hanging, 0);
}

TEST(Forest, RandomCyclesStayValidOnPeriodicAndClosedSurfaces) {
  for (const Mesh& mesh : {periodic_mesh(), sphere_mesh()}) {
    adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    const long chi = euler_characteristic(forest.to_host());
    for (int c = 0; c < 8; ++c) {
      forest.flag_random(0.3, 0.2, 11, std::uint64_t(c));
      const adapt::AdaptReport r = forest.adapt();
      ASSERT_TRUE(r.valid()) << mesh.source << " cycle " << c << ": " << r.failures << " failures";
      const adapt::LeafMesh m = forest.to_host();
      expect_consistent(m, forest.start_colors(), mesh.source + " cycle " + std::to_string(c));
      if (mesh.space_dim == 3) {
        EXPECT_EQ(euler_characteristic(m), chi);
      }
    }
  }
}

TEST(Forest, PeriodicFacesStayPairedByTheirTranslation) {
  const Mesh mesh = periodic_mesh();
  adapt::TriangleForest forest(mesh, Backend::cpu, 3);
  for (int c = 0; c < 6; ++c) {
    forest.flag_random(0.4, 0.1, 2, std::uint64_t(c));
    ASSERT_TRUE(forest.adapt().valid());
  }
  const adapt::LeafMesh m = forest.to_host();
  int periodic = 0;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    const index_t r = m.face_right[f];
    if (r == no_element) continue;
    // The face seen from the right element: its own edge, or the half of it the face covers.
    const index_t a = m.face_vertices[2 * f], b = m.face_vertices[2 * f + 1];
    const int j = m.face_right_local[f];
    Vec p = node(m, m.element_vertices[3 * r + j]), q = node(m, m.element_vertices[3 * r + (j + 1) % 3]);
    if (m.face_right_half[f] == adapt::first_half) q = {0.5 * (p.x + q.x), 0.5 * (p.y + q.y), 0.5 * (p.z + q.z)};
    if (m.face_right_half[f] == adapt::second_half) p = {0.5 * (p.x + q.x), 0.5 * (p.y + q.y), 0.5 * (p.z + q.z)};
    // The right element runs the other way: q matches a and p matches b, up to one translation.
    const Vec shift_a = sub(q, node(m, a)), shift_b = sub(p, node(m, b));
    ASSERT_LT(norm(sub(shift_a, shift_b)), 1e-12) << "face " << f;
    if (norm(shift_a) > 1e-9) {
      ++periodic;
      const double length = std::max(std::abs(shift_a.x), std::abs(shift_a.y));
      EXPECT_NEAR(length, 1.0, 1e-12) << "face " << f;  // the grid's period
    }
  }
  EXPECT_GT(periodic, 2 * 8);  // more periodic faces than the start mesh's 2 x 8: some were split
}

TEST(Forest, RefiningEverythingAndCoarseningBackGivesTheStartMesh) {
  for (const Mesh& mesh : {planar_mesh(), periodic_mesh(), sphere_mesh()}) {
    adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    for (int l = 0; l < 3; ++l) {
      forest.flag_all(true, false);
      const adapt::AdaptReport r = forest.adapt();
      ASSERT_TRUE(r.valid());
      EXPECT_EQ(r.elements, mesh.num_elements() << (2 * (l + 1)));
      EXPECT_EQ(r.hanging_faces, 0);
      EXPECT_EQ(r.colors, 2 * forest.start_colors()) << "uniform refinement uses both halves of the palette";
    }
    // Random cycles in between change nothing at the end: coarsening everything three times undoes any mesh.
    for (int c = 0; c < 4; ++c) {
      forest.flag_random(0.2, 0.5, 9, std::uint64_t(c));
      ASSERT_TRUE(forest.adapt().valid());
    }
    for (int l = 0; l < 3; ++l) {
      forest.flag_all(false, true);
      ASSERT_TRUE(forest.adapt().valid());
    }
    EXPECT_EQ(forest.difference_from(mesh), "") << mesh.source;
  }
}

TEST(Forest, FlagsThatChangeNothingKeepTheMeshAndGiveTheIdentityMap) {
  // No flags, or only vetoed ones (coarsening a start triangle, or one sibling of four), leave the leaves, faces
  // and colors exactly as they were, and last_adaptation() maps each leaf to itself: a solver need not follow.
  adapt::TriangleForest forest(planar_mesh(), Backend::cpu, 3);
  for (int c = 0; c < 3; ++c) {
    forest.flag_random(0.3, 0.1, 4, std::uint64_t(c));
    ASSERT_TRUE(forest.adapt().valid());
  }
  const adapt::LeafMesh before = forest.to_host();
  ASSERT_GT(before.num_elements(), planar_mesh().num_elements());
  index_t lone_child = no_element;
  for (index_t e = 0; e < before.num_elements() && lone_child == no_element; ++e)
    if (before.level[e] > 0) lone_child = e;
  ASSERT_NE(lone_child, no_element);
  for (int trial = 0; trial < 2; ++trial) {
    forest.flag_all(false, false);
    if (trial == 1) {
      std::uint8_t* coarsen = forest.coarsen_flags();  // host memory on the CPU backend
      coarsen[lone_child] = 1;  // one of four siblings: the group stays
      for (index_t e = 0; e < before.num_elements(); ++e) coarsen[e] |= before.level[e] == 0;  // roots cannot coarsen
    }
    const adapt::AdaptReport r = forest.adapt(adapt::Check::full);
    EXPECT_TRUE(r.valid());
    EXPECT_EQ(r.refined, 0);
    EXPECT_EQ(r.coarsened, 0);
    EXPECT_EQ(r.elements, before.num_elements());
    const adapt::LeafMesh after = forest.to_host();
    EXPECT_EQ(after.x, before.x);
    EXPECT_EQ(after.element_vertices, before.element_vertices);
    EXPECT_EQ(after.path, before.path);
    EXPECT_EQ(after.face_left, before.face_left);
    EXPECT_EQ(after.face_right, before.face_right);
    EXPECT_EQ(after.face_color, before.face_color);
    EXPECT_EQ(after.color_begin, before.color_begin);
    const adapt::AdaptMap& map = forest.last_adaptation();
    ASSERT_EQ(map.old_elements, before.num_elements());
    ASSERT_EQ(map.new_elements, before.num_elements());
    for (index_t e = 0; e < map.old_elements; ++e) {
      ASSERT_EQ(map.delta[e], 0) << e;
      ASSERT_EQ(map.offset[e], e) << e;
    }
  }
}

/// Two triangles sharing the diagonal of the unit square: (0,0) (1,0) (1,1) and (0,0) (1,1) (0,1).
Mesh square_pair() {
  RawMesh raw = test::make_raw(2, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}});
  test::add(raw, ElementType::triangle, {0, 1, 2});
  test::add(raw, ElementType::triangle, {0, 2, 3});
  raw.source = "square pair";
  return adapt_start(build_mesh(std::move(raw)));
}

TEST(Forest, Algorithm4MapsTheChildFacesOfAHangingEdge) {
  const Mesh mesh = square_pair();
  adapt::TriangleForest forest(mesh, Backend::cpu, 2);
  const int K = forest.start_colors();
  ASSERT_EQ(K, 3);
  // The diagonal's color, and which element refines.
  index_t diagonal = 0;
  while (mesh.face_right[diagonal] == no_element) ++diagonal;
  const int c = mesh.face_color[diagonal];
  const index_t left = mesh.face_left[diagonal];
  std::vector<std::uint8_t> flags(2, 0);
  flags[left] = 1;
  std::copy(flags.begin(), flags.end(), forest.refine_flags());
  const adapt::AdaptReport r = forest.adapt();
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.elements, 5);
  EXPECT_EQ(r.hanging_faces, 2);
  const adapt::LeafMesh m = forest.to_host();
  // The coarse element sees the diagonal as two faces: the half at the first vertex of the left element's
  // direction keeps c (first child), the other half gets c + K (second child).
  std::map<int, int> colors_by_half;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    const bool coarse_left = m.face_left_half[f] != adapt::whole_edge, coarse_right = m.face_right_half[f] != adapt::whole_edge;
    if (!coarse_left && !coarse_right) continue;
    const int half = coarse_left ? m.face_left_half[f] : m.face_right_half[f];
    colors_by_half[half] = m.face_color[f];
  }
  ASSERT_EQ(colors_by_half.size(), 2u);
  // The coarse element is the right one of the start face: it runs along the diagonal the other way, so the
  // first child (color c) is its second half.
  EXPECT_EQ(colors_by_half[adapt::second_half], c);
  EXPECT_EQ(colors_by_half[adapt::first_half], (c + K) % (2 * K));
  // The interior faces of the refined triangle take the colors of the parent faces they are parallel to: each
  // color of the parent appears on exactly one interior face.
  std::multiset<int> interior;
  for (index_t f = 0; f < m.num_faces(); ++f)
    if (m.face_right[f] != no_element && m.level[m.face_left[f]] == 1 && m.level[m.face_right[f]] == 1)
      interior.insert(m.face_color[f]);
  std::multiset<int> parent_colors;
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_left[f] == left || mesh.face_right[f] == left) parent_colors.insert(mesh.face_color[f]);
  EXPECT_EQ(interior, parent_colors);
}

TEST(Forest, BalanceRefinesTheCoarseNeighbourOfARefinement) {
  const Mesh mesh = square_pair();
  adapt::TriangleForest forest(mesh, Backend::cpu, 3);
  std::vector<std::uint8_t> flags{1, 0};
  std::copy(flags.begin(), flags.end(), forest.refine_flags());
  ASSERT_TRUE(forest.adapt().valid());
  // Refine every child of the first triangle again: the coarse neighbour must follow to level 1.
  forest.flag_all(false, false);
  {
    const adapt::LeafMesh m = forest.to_host();
    std::vector<std::uint8_t> refine(m.num_elements(), 0);
    for (index_t e = 0; e < m.num_elements(); ++e) refine[e] = m.level[e] == 1;
    std::copy(refine.begin(), refine.end(), forest.refine_flags());
  }
  const adapt::AdaptReport r = forest.adapt();
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.min_level, 1);
  EXPECT_EQ(r.max_level, 2);
  EXPECT_EQ(r.elements, 16 + 4);
  EXPECT_GE(r.balance_passes, 2);
  // The coarse element's children may not coarsen while their neighbours are at level 2 ...
  {
    const adapt::LeafMesh m = forest.to_host();
    std::vector<std::uint8_t> coarsen(m.num_elements(), 0);
    for (index_t e = 0; e < m.num_elements(); ++e) coarsen[e] = m.level[e] == 1;
    forest.flag_all(false, false);
    std::copy(coarsen.begin(), coarsen.end(), forest.coarsen_flags());
  }
  const adapt::AdaptReport vetoed = forest.adapt();
  ASSERT_TRUE(vetoed.valid());
  EXPECT_EQ(vetoed.elements, 20);
  EXPECT_EQ(vetoed.coarsened, 0);
  // ... but they may when those coarsen too: level 0 next to level 1.
  forest.flag_all(false, true);
  const adapt::AdaptReport back = forest.adapt();
  ASSERT_TRUE(back.valid());
  EXPECT_EQ(back.coarsened, 5);
  EXPECT_EQ(back.min_level, 0);
  EXPECT_EQ(back.max_level, 1);
  EXPECT_EQ(back.elements, 4 + 1);
}

/// The 2:1 balance's actions by its rule, said as plainly as it can be: the first actions from the flags, then
/// every leaf that a neighbour's new level exceeds by more than one raised (a coarsening group kept, a kept leaf
/// refined), all leaves at once from the faces' neighbour pairs, until none is. +1 refine, -1 coarsen, 0 keep.
/// With `balance` false, the first actions only.
std::vector<int> balanced_actions(const adapt::LeafMesh& m, const std::uint8_t* refine, const std::uint8_t* coarsen, int max_level,
                                  bool balance = true) {
  const index_t ne = m.num_elements();
  std::vector<std::vector<index_t>> neighbours(ne);
  for (index_t f = 0; f < m.num_faces(); ++f)
    if (m.face_right[f] != no_element) {
      neighbours[m.face_left[f]].push_back(m.face_right[f]);
      neighbours[m.face_right[f]].push_back(m.face_left[f]);
    }
  auto group = [&](index_t e) { return e - adapt::child_number(m.path[e], m.level[e]); };
  auto is_group = [&](index_t g) {
    if (m.level[g] == 0 || g + 3 >= ne) return false;
    for (int k = 0; k < 4; ++k)
      if (m.level[g + k] != m.level[g] || m.root[g + k] != m.root[g] || group(g + k) != g ||
          adapt::parent_path(m.path[g + k], m.level[g]) != adapt::parent_path(m.path[g], m.level[g]))
        return false;
    return true;
  };
  auto refines = [&](index_t e) { return refine[e] != 0 && m.level[e] < max_level; };
  std::vector<int> delta(ne, 0);
  for (index_t e = 0; e < ne; ++e) {
    if (refines(e)) {
      delta[e] = 1;
      continue;
    }
    const index_t g = group(e);
    bool coarsens = coarsen[e] != 0 && is_group(g);
    for (int k = 0; coarsens && k < 4; ++k) coarsens = coarsen[g + k] != 0 && !refines(g + k);
    delta[e] = coarsens ? -1 : 0;
  }
  while (balance) {
    std::vector<char> raise(ne, 0);
    bool any = false;
    for (index_t e = 0; e < ne; ++e) {
      const int target = m.level[e] + delta[e];
      if (delta[e] > 0 || target + 1 >= max_level) continue;
      for (const index_t n : neighbours[e]) raise[e] = raise[e] || m.level[n] + delta[n] > target + 1;
      any = any || raise[e];
    }
    if (!any) return delta;
    std::vector<int> next = delta;
    for (index_t e = 0; e < ne; ++e) {
      if (delta[e] < 0) {
        for (int k = 0; k < 4; ++k) next[e] = raise[group(e) + k] ? 0 : next[e];
      } else if (delta[e] == 0 && raise[e]) {
        next[e] = 1;
      }
    }
    delta = next;
  }
  return delta;
}

// The balance's passes look only where a leaf's new level changed (adapt/forest_K.hpp, FindRaise): they must
// reach the same actions as the rule applied to every leaf at every pass, on random cycles that keep refining
// and coarsening against each other near the maximum level.
TEST(Forest, BalanceTakesTheActionsTheRuleAsksForAndNoOthers) {
  for (const Mesh& mesh : {planar_mesh(), periodic_mesh(), sphere_mesh()}) {
    for (const int max_level : {2, 4}) {
      adapt::TriangleForest forest(mesh, Backend::cpu, max_level);
      int raised = 0, kept = 0;
      for (int c = 0; c < 14; ++c) {
        forest.flag_random(c < 4 ? 0.3 : 0.15, c < 4 ? 0.1 : 0.5, 11, std::uint64_t(c));
        const adapt::LeafMesh before = forest.to_host();
        const index_t ne = before.num_elements();
        const std::vector<std::uint8_t> refine(forest.refine_flags(), forest.refine_flags() + ne);
        const std::vector<std::uint8_t> coarsen(forest.coarsen_flags(), forest.coarsen_flags() + ne);
        const std::vector<int> expected = balanced_actions(before, refine.data(), coarsen.data(), max_level);
        const std::vector<int> first = balanced_actions(before, refine.data(), coarsen.data(), max_level, false);
        const adapt::AdaptReport r = forest.adapt(adapt::Check::full);
        ASSERT_TRUE(r.valid());
        const adapt::AdaptMap& map = forest.last_adaptation();
        ASSERT_EQ(map.old_elements, ne);
        for (index_t e = 0; e < ne; ++e) {
          ASSERT_EQ(int(map.delta[e]), expected[e]) << mesh.source << ", max level " << max_level << ", cycle " << c << ", leaf " << e;
          raised += expected[e] > 0 && first[e] <= 0;
          kept += expected[e] == 0 && first[e] < 0;
        }
      }
      // The cycles made the balance raise and keep leaves, not only take the flags as they were.
      EXPECT_GT(raised, 0) << mesh.source;
      EXPECT_GT(kept, 0) << mesh.source;
    }
  }
}

TEST(Forest, NewBoundaryVerticesGoOnTheCurve) {
  // The chord's middle of a 16-gon lies 1 - cos(pi / 16) = 0.019 inside the circle; a vertex on the curve
  // reconstructed from the start mesh lies within its O(h^4) error, at every level.
  const Mesh mesh = disk_mesh();
  adapt::TriangleForest forest(mesh, Backend::cpu, 3);
  for (int l = 0; l < 3; ++l) {
    forest.flag_all(true, false);
    ASSERT_TRUE(forest.adapt().valid());
  }
  const adapt::LeafMesh m = forest.to_host();
  double worst = 0;
  int on_boundary = 0;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    if (m.face_right[f] != no_element) continue;
    for (int k = 0; k < 2; ++k) {
      const index_t v = m.face_vertices[2 * f + k];
      worst = std::max(worst, std::abs(std::hypot(m.x[v], m.y[v]) - 1.0));
    }
    ++on_boundary;
  }
  EXPECT_EQ(on_boundary, 16 * 8);
  EXPECT_LT(worst, 1e-3) << "boundary vertices are off the circle";  // measured 6.6e-4, 30 times closer than the chord
  // Coarsening removes them again: the start mesh comes back.
  for (int l = 0; l < 3; ++l) {
    forest.flag_all(false, true);
    ASSERT_TRUE(forest.adapt().valid());
  }
  EXPECT_EQ(forest.difference_from(mesh), "");
}

TEST(Forest, RebuildsASavedMeshFromItsLeaves) {
  const Mesh mesh = periodic_mesh();
  adapt::TriangleForest adapted(mesh, Backend::cpu, 3);
  for (int c = 0; c < 5; ++c) {
    adapted.flag_random(0.3, 0.2, 8, std::uint64_t(c));
    ASSERT_TRUE(adapted.adapt().valid());
  }
  const adapt::LeafMesh want = adapted.to_host();
  const std::vector<std::int64_t> path(want.path.begin(), want.path.end());
  const std::vector<std::int8_t> level(want.level.begin(), want.level.end());
  adapt::TriangleForest rebuilt(mesh, Backend::cpu, 3);
  rebuilt.refine_to(want.root, path, level, "saved.kmesh");
  const adapt::LeafMesh got = rebuilt.to_host();
  // The same leaves in the same places (nodes are numbered in the order they were made, which differs).
  ASSERT_EQ(got.element_vertices.size(), want.element_vertices.size());
  for (std::size_t k = 0; k < got.element_vertices.size(); ++k) {
    ASSERT_EQ(got.x[got.element_vertices[k]], want.x[want.element_vertices[k]]) << "vertex " << k;
    ASSERT_EQ(got.y[got.element_vertices[k]], want.y[want.element_vertices[k]]) << "vertex " << k;
  }
  EXPECT_EQ(got.level, want.level);
  EXPECT_EQ(got.face_left, want.face_left);
  EXPECT_EQ(got.face_right, want.face_right);
  EXPECT_EQ(got.face_color, want.face_color);
  EXPECT_EQ(got.color_begin, want.color_begin);

  // Leaves that are not those of a refinement: one leaf moved deeper, one missing, one beyond the maximum level.
  auto refused = [&](std::vector<index_t> r, std::vector<std::int64_t> p, std::vector<std::int8_t> l, int max_level,
                     const std::string& message) {
    adapt::TriangleForest forest(mesh, Backend::cpu, max_level);
    EXPECT_THAT([&] { forest.refine_to(r, p, l, "saved.kmesh"); },
                ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(message)));
  };
  std::size_t deep = 0;
  while (level[deep] == 0 || level[deep] == 3) ++deep;
  std::vector<std::int8_t> deeper = level;
  ++deeper[deep];
  refused(want.root, path, deeper, 3, "saved.kmesh: the refinement tree of its adapted mesh is inconsistent: leaf");
  std::vector<index_t> fewer_roots(want.root.begin() + 1, want.root.end());
  std::vector<std::int64_t> fewer_paths(path.begin() + 1, path.end());
  std::vector<std::int8_t> fewer_levels(level.begin() + 1, level.end());
  refused(fewer_roots, fewer_paths, fewer_levels, 3, "saved.kmesh: the refinement tree of its adapted mesh is inconsistent");
  refused(want.root, path, level, 2, "saved.kmesh: its adapted mesh reaches level 3, beyond the maximum level 2");
}

TEST(Forest, RefusesSavedLeavesThatAreNotOneIrregular) {
  // One triangle of the pair refined twice everywhere next to an unrefined one: a 2:1 balance refines the
  // neighbour, so these are not the leaves of any 1-irregular refinement.
  const Mesh mesh = square_pair();
  adapt::TriangleForest forest(mesh, Backend::cpu, 3);
  std::vector<index_t> root;
  std::vector<std::int64_t> path;
  std::vector<std::int8_t> level;
  for (int child = 0; child < 4; ++child)
    for (int grandchild = 0; grandchild < 4; ++grandchild) root.push_back(0), path.push_back(child + 4 * grandchild), level.push_back(2);
  root.push_back(1), path.push_back(0), level.push_back(0);
  EXPECT_THAT([&] { forest.refine_to(root, path, level, "unbalanced.kmesh"); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("unbalanced.kmesh: the refinement tree of its adapted mesh is inconsistent")));
}

TEST(Forest, ChecksFindABrokenColoringAndABrokenFace) {
  const Mesh mesh = planar_mesh();
  adapt::TriangleForest forest(mesh, Backend::cpu, 3);
  for (int c = 0; c < 3; ++c) {
    forest.flag_random(0.3, 0.1, 9, std::uint64_t(c));
    const adapt::AdaptReport r = forest.adapt(adapt::Check::colors);
    ASSERT_TRUE(r.valid());
    EXPECT_EQ(r.checked, adapt::Check::colors);
    ASSERT_TRUE(forest.check().valid());
  }
  ASSERT_GT(forest.check().hanging_faces, 0);
  const adapt::ForestPtrs& f = forest.arrays();
  const adapt::FacePtrs& faces = forest.faces();
  // A face whose left side names the wrong local edge: the full check sees it, the colors do not change.
  const std::int8_t local = faces.face[0].left_local;
  faces.face[0].left_local = static_cast<std::int8_t>((local + 1) % 3);
  EXPECT_EQ(forest.check(adapt::Check::colors).failures, 0);
  EXPECT_GT(forest.check(adapt::Check::full).failures, 0);
  faces.face[0].left_local = local;
  ASSERT_TRUE(forest.check().valid());
  // Two faces of one leaf given one color (in the edges and in the faces, as a wrong mapping would): both
  // checks see it.
  index_t leaf = 0;
  while (leaf < f.num_elements &&
         (f.edge_child[f.elem_edges[3 * leaf]] != no_element || f.edge_child[f.elem_edges[3 * leaf + 1]] != no_element))
    ++leaf;
  ASSERT_LT(leaf, f.num_elements);
  const index_t a = f.elem_edges[3 * leaf], b = f.elem_edges[3 * leaf + 1];
  f.edge_color[b] = f.edge_color[a];
  faces.face[forest.edge_faces()[b]].color = f.edge_color[a];
  EXPECT_GT(forest.check(adapt::Check::colors).failures, 0) << "leaf " << leaf;
  EXPECT_GT(forest.check(adapt::Check::full).failures, 0) << "leaf " << leaf;
  // A color beyond 2K.
  f.edge_color[b] = static_cast<std::int8_t>(2 * forest.start_colors());
  EXPECT_GT(forest.check(adapt::Check::colors).failures, 0);
}

TEST(Forest, SameResultForAnyThreadCount) {
  const Mesh mesh = planar_mesh();
  adapt::LeafMesh results[2];
  for (int run = 0; run < 2; ++run) {
    const int threads = run == 0 ? 1 : 2;
    const int before = cpu_threads();
    set_cpu_threads(threads);
    adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    for (int c = 0; c < 5; ++c) {
      forest.flag_random(0.3, 0.3, 4, std::uint64_t(c));
      ASSERT_TRUE(forest.adapt().valid());
    }
    results[run] = forest.to_host();
    set_cpu_threads(before);
  }
  EXPECT_EQ(results[0].x, results[1].x);
  EXPECT_EQ(results[0].element_vertices, results[1].element_vertices);
  EXPECT_EQ(results[0].face_left, results[1].face_left);
  EXPECT_EQ(results[0].face_right, results[1].face_right);
  EXPECT_EQ(results[0].face_color, results[1].face_color);
}

TEST(Forest, SameResultForAnyThreadCountWhereScansSplitAmongThreads) {
  // Large enough that the scans (edges, midpoints, the face order's table) run split among the threads.
  const Mesh mesh = adapt_start(grid_mesh(40, 1.0, 0.2, 5));
  adapt::LeafMesh results[3];
  for (int run = 0; run < 3; ++run) {
    const int before = cpu_threads();
    set_cpu_threads(run + 1);
    adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    for (int c = 0; c < 3; ++c) {
      forest.flag_random(0.5, 0.2, 9, std::uint64_t(c));
      ASSERT_TRUE(forest.adapt().valid());
    }
    ASSERT_GT(6 * forest.num_elements(), 1 << 16);
    results[run] = forest.to_host();
    set_cpu_threads(before);
  }
  for (int run = 1; run < 3; ++run) {
    EXPECT_EQ(results[0].x, results[run].x) << run + 1 << " threads";
    EXPECT_EQ(results[0].element_vertices, results[run].element_vertices) << run + 1 << " threads";
    EXPECT_EQ(results[0].element_edges, results[run].element_edges) << run + 1 << " threads";
    EXPECT_EQ(results[0].face_left, results[run].face_left) << run + 1 << " threads";
    EXPECT_EQ(results[0].face_right, results[run].face_right) << run + 1 << " threads";
    EXPECT_EQ(results[0].face_color, results[run].face_color) << run + 1 << " threads";
  }
}

TEST(Forest, EdgesAndMidpointsStayInTheLeavesOrder) {
  // New edges and midpoints are numbered next to the edge they come from, so that after many adaptations a
  // leaf's edges and nodes still sit where the leaf sits in its own array (relative position), not appended.
  // Along a Hilbert curve neighbours are near each other, so a leaf's edges are too; color_renumber puts the
  // two sides of a face half the mesh apart, and then only the face's left side can be near it.
  const Mesh mesh = adapt_start(grid_mesh(24, 1.0, 0.2, 6), "hilbert");
  adapt::TriangleForest forest(mesh, Backend::cpu, 4);
  for (int c = 0; c < 8; ++c) {
    forest.flag_random(0.2, 0.2, 3, std::uint64_t(c));
    ASSERT_TRUE(forest.adapt().valid());
  }
  const adapt::LeafMesh m = forest.to_host();
  const adapt::ForestPtrs& f = forest.arrays();
  const double ne = m.num_elements(), nm = f.num_edges, midpoints = f.num_nodes - f.root_nodes;
  ASSERT_GT(midpoints, 0);
  double edge_shift = 0, node_shift = 0;
  int node_count = 0;
  for (index_t e = 0; e < m.num_elements(); ++e)
    for (int j = 0; j < 3; ++j) {
      edge_shift += std::abs(m.element_edges[3 * e + j] / nm - e / ne);
      const index_t v = m.element_vertices[3 * e + j];
      if (v >= f.root_nodes) node_shift += std::abs((v - f.root_nodes) / midpoints - e / ne), ++node_count;
    }
  edge_shift /= 3 * ne;
  node_shift /= node_count;
  std::printf("mean distance between a leaf and its edges %.4f, its midpoints %.4f (share of the arrays)\n", edge_shift,
              node_shift);
  EXPECT_LT(edge_shift, 0.02);
  EXPECT_LT(node_shift, 0.02);
}

TEST(Forest, ReservedStorageGivesTheSameMeshesAndStopsGrowing) {
  const Mesh mesh = planar_mesh();
  adapt::TriangleForest grown(mesh, Backend::cpu, 3), reserved(mesh, Backend::cpu, 3);
  std::vector<adapt::AdaptReport> reports;
  for (int c = 0; c < 6; ++c) {
    grown.flag_random(0.3, 0.2, 5, std::uint64_t(c));
    reports.push_back(grown.adapt());
  }
  adapt::AdaptReport peak;
  for (const adapt::AdaptReport& r : reports) {
    peak.elements = std::max(peak.elements, r.elements), peak.nodes = std::max(peak.nodes, r.nodes);
    peak.edges = std::max(peak.edges, r.edges), peak.faces = std::max(peak.faces, r.faces);
  }
  reserved.reserve(peak.elements, peak.nodes, peak.edges, peak.faces);
  EXPECT_EQ(reserved.check().failures, 0);  // faces and geometry rebuilt in the reserved storage
  adapt::TriangleForest again(mesh, Backend::cpu, 3);
  const std::size_t bytes = reserved.bytes();
  for (int c = 0; c < 6; ++c) {
    reserved.flag_random(0.3, 0.2, 5, std::uint64_t(c));
    again.flag_random(0.3, 0.2, 5, std::uint64_t(c));
    ASSERT_TRUE(reserved.adapt().valid());
    ASSERT_TRUE(again.adapt().valid());
    const adapt::LeafMesh a = reserved.to_host(), b = again.to_host();
    ASSERT_EQ(a.x, b.x) << "cycle " << c;
    ASSERT_EQ(a.element_vertices, b.element_vertices) << "cycle " << c;
    ASSERT_EQ(a.face_left, b.face_left) << "cycle " << c;
    ASSERT_EQ(a.face_color, b.face_color) << "cycle " << c;
    ASSERT_EQ(a.area, b.area) << "cycle " << c;
    EXPECT_EQ(reserved.bytes(), bytes) << "cycle " << c << " grew an array";
  }
}

TEST(Forest, RefusesWhatItCannotAdapt) {
  Mesh quads = adapt_start(build_mesh(split_into_quads(square_grid(2, true))));
  quads.source = "quads.msh";
  EXPECT_THAT([&] { adapt::TriangleForest(quads, Backend::cpu, 2); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("quads.msh: adaptive refinement needs a triangle mesh")));
  Mesh uncolored = build_mesh(square_grid(2, true));
  uncolored.source = "plain.msh";
  EXPECT_THAT([&] { adapt::TriangleForest(uncolored, Backend::cpu, 2); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("plain.msh: adaptive refinement needs a colored mesh")));
  EXPECT_THAT([&] { adapt::TriangleForest(planar_mesh(), Backend::cpu, adapt::max_level_limit + 1); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("outside 0..30")));
}

}  // namespace
}  // namespace kempe
