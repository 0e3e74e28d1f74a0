// Orderings: every permutation is a bijection that groups faces by color, the reordered mesh is consistent and
// maps back to the input, color_renumber follows Alg. 5 exactly, rcm and hilbert beat a shuffled numbering,
// orderings compose, metrics have the documented values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/generators.hpp"
#include "mesh/geometry.hpp"
#include "mesh_fixtures.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;

// --- meshes ----------------------------------------------------------------------------------------------------

/// nx by ny squares on [0, nx] x [0, ny] (shifted by x0), each split into two triangles, diagonals alternating;
/// nodes slightly jittered so that no two elements share a centroid coordinate.
void add_triangle_grid(RawMesh& raw, int nx, int ny, double x0 = 0) {
  const auto base = static_cast<index_t>(raw.x.size());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-0.15, 0.15);
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      const bool inner = i > 0 && i < nx && j > 0 && j < ny;
      raw.x.push_back(x0 + i + (inner ? jitter(rng) : 0));
      raw.y.push_back(j + (inner ? jitter(rng) : 0));
      raw.z.push_back(0);
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
  auto id = [&](int i, int j) { return base + static_cast<index_t>(j * (nx + 1) + i); };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const index_t a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      if ((i + j) % 2 == 0) {
        test::add(raw, ElementType::triangle, {a, b, c});
        test::add(raw, ElementType::triangle, {a, c, d});
      } else {
        test::add(raw, ElementType::triangle, {a, b, d});
        test::add(raw, ElementType::triangle, {b, c, d});
      }
    }
}

Mesh triangle_grid(int nx, int ny) {
  RawMesh raw = test::make_raw(2, {});
  add_triangle_grid(raw, nx, ny);
  test::mark(raw, "bottom", {0, 1});
  return build_mesh(raw);
}

Mesh quad_grid(int nx, int ny, double wobble = 0.1) {
  RawMesh raw = test::make_raw(2, {});
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      raw.x.push_back(i + wobble * std::sin(i * j));
      raw.y.push_back(j + wobble * std::cos(i + j));
      raw.z.push_back(0);
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
  auto id = [&](int i, int j) { return static_cast<index_t>(j * (nx + 1) + i); };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      test::add(raw, ElementType::quadrilateral, {id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)});
  return build_mesh(raw);
}

/// n^3 cubes, each split into six tetrahedra around its main diagonal (Kuhn), a conforming tetrahedral mesh.
Mesh tet_grid(int n) {
  RawMesh raw = test::make_raw(3, {});
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        raw.x.push_back(i + 0.05 * std::sin(3 * i + j + k));
        raw.y.push_back(j + 0.05 * std::cos(i + 2 * j + k));
        raw.z.push_back(k);
        raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
      }
  auto id = [&](int i, int j, int k) { return static_cast<index_t>((k * (n + 1) + j) * (n + 1) + i); };
  const std::array<std::array<int, 3>, 6> axes = {{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (const auto& a : axes) {
          std::array<int, 3> p{i, j, k};
          std::array<index_t, 4> v{};
          v[0] = id(p[0], p[1], p[2]);
          for (int s = 0; s < 3; ++s) {
            ++p[a[s]];
            v[s + 1] = id(p[0], p[1], p[2]);
          }
          test::add(raw, ElementType::tetrahedron, {v[0], v[1], v[2], v[3]});  // mirrored by build_mesh if needed
        }
  return build_mesh(raw);
}

/// n^3 hexahedra (unit cubes when wobble is 0; otherwise with warped faces).
Mesh hex_grid(int n, double wobble) {
  RawMesh raw = test::make_raw(3, {});
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        raw.x.push_back(i + wobble * std::sin(3 * i + j + k));
        raw.y.push_back(j + wobble * std::cos(i + 2 * j + k));
        raw.z.push_back(k + wobble * std::sin(i + j + 2 * k));
        raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
      }
  auto id = [&](int i, int j, int k) { return static_cast<index_t>((k * (n + 1) + j) * (n + 1) + i); };
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        test::add(raw, ElementType::hexahedron,
                  {id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k), id(i, j, k + 1),
                   id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)});
  return build_mesh(raw);
}

/// One of each 3D type but the prism: hexahedron, pyramid on top, tetrahedron below.
Mesh mixed_3d() {
  return build_mesh(test::mixed_3d_raw());
}

/// Half a cylinder of triangles in 3D: a curved surface, where normals are in-plane conormals.
Mesh half_cylinder(int na, int nz) {
  RawMesh raw = test::make_raw(2, {});
  for (int j = 0; j <= nz; ++j)
    for (int i = 0; i <= na; ++i) {
      const double t = 3.14159 * i / na;
      raw.x.push_back(std::cos(t));
      raw.y.push_back(std::sin(t));
      raw.z.push_back(0.4 * j);
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
  auto id = [&](int i, int j) { return static_cast<index_t>(j * (na + 1) + i); };
  for (int j = 0; j < nz; ++j)
    for (int i = 0; i < na; ++i) {
      test::add(raw, ElementType::triangle, {id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      test::add(raw, ElementType::triangle, {id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return build_mesh(raw);
}

/// Two triangle grids side by side that share nothing: two components of the element graph.
Mesh two_islands() {
  RawMesh raw = test::make_raw(2, {});
  add_triangle_grid(raw, 5, 4);
  add_triangle_grid(raw, 3, 6, 10);
  return build_mesh(raw);
}

struct NamedMesh {
  const char* name;
  Mesh mesh;
};

std::vector<NamedMesh> all_meshes() {
  std::vector<NamedMesh> v;
  v.push_back({"triangles", triangle_grid(9, 7)});
  v.push_back({"quads", quad_grid(8, 6)});
  v.push_back({"tets", tet_grid(3)});
  v.push_back({"hexes", hex_grid(3, 0.08)});
  v.push_back({"mixed_3d", mixed_3d()});
  v.push_back({"half_cylinder", half_cylinder(8, 4)});
  v.push_back({"two_islands", two_islands()});
  return v;
}

// --- helpers ---------------------------------------------------------------------------------------------------

::testing::AssertionResult is_bijection(const std::vector<index_t>& p, std::size_t n, const char* what) {
  if (p.size() != n) return ::testing::AssertionFailure() << what << ": size " << p.size() << ", expected " << n;
  std::vector<char> seen(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] < 0 || std::size_t(p[i]) >= n || seen[p[i]])
      return ::testing::AssertionFailure() << what << ": entry " << i << " = " << p[i] << " out of range or repeated";
    seen[p[i]] = 1;
  }
  return ::testing::AssertionSuccess();
}

/// A random numbering of the elements and a random order of the faces within each color (grouped by color).
Permutation shuffled(const Mesh& m, const FaceColoring& c, unsigned seed) {
  std::mt19937 rng(seed);
  Permutation p;
  p.element_new.resize(m.num_elements());
  std::iota(p.element_new.begin(), p.element_new.end(), index_t{0});
  std::shuffle(p.element_new.begin(), p.element_new.end(), rng);
  std::vector<index_t> order(m.num_faces());
  std::iota(order.begin(), order.end(), index_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return c.color[a] < c.color[b]; });
  p.face_new.resize(m.num_faces());
  for (std::size_t i = 0; i < order.size(); ++i) p.face_new[order[i]] = static_cast<index_t>(i);
  return p;
}

geom::Vec3 centroid(const Mesh& m, index_t e) { return {m.centroid_x[e], m.centroid_y[e], m.centroid_z[e]}; }
geom::Vec3 normal(const Mesh& m, index_t f) { return {m.normal_x[f], m.normal_y[f], m.normal_z[f]}; }
geom::Vec3 face_centroid(const Mesh& m, index_t f) {
  geom::Vec3 s{};
  const int nv = m.face_num_vertices[f];
  for (int k = 0; k < nv; ++k) {
    const index_t v = m.face_vertices[std::size_t(f) * max_face_vertices + k];
    s = s + geom::Vec3{m.x[v], m.y[v], m.z[v]};
  }
  return (1.0 / nv) * s;
}

/// Connectivity, orientation, geometry and colors of a reordered mesh agree with one another.
void expect_consistent(const Mesh& m, int num_colors, const std::string& where) {
  SCOPED_TRACE(where);
  const index_t ne = m.num_elements(), nf = m.num_faces();
  ASSERT_EQ(m.element_face_begin.size(), std::size_t(ne) + 1);
  ASSERT_EQ(m.face_right.size(), std::size_t(nf));
  int bad = 0;
  for (index_t f = 0; f < nf && bad < 5; ++f) {
    const index_t l = m.face_left[f], r = m.face_right[f];
    ASSERT_TRUE(l >= 0 && l < ne) << "face " << f;
    const int ll = m.face_left_local[f];
    ASSERT_TRUE(ll >= 0 && ll < m.element_num_faces(l)) << "face " << f;
    if (m.element_faces[m.element_face_begin[l] + ll] != f) ++bad, ADD_FAILURE() << "face " << f << " left";
    if (r != no_element) {
      ASSERT_TRUE(r >= 0 && r < ne) << "face " << f;
      if (!(l < r)) ++bad, ADD_FAILURE() << "face " << f << ": left " << l << " >= right " << r;
      const int rl = m.face_right_local[f];
      ASSERT_TRUE(rl >= 0 && rl < m.element_num_faces(r)) << "face " << f;
      if (m.element_faces[m.element_face_begin[r] + rl] != f) ++bad, ADD_FAILURE() << "face " << f << " right";
    } else if (m.face_right_local[f] != -1) {
      ++bad, ADD_FAILURE() << "boundary face " << f << " has a right local face";
    }
    // Vertices in the left element's own face order.
    const FaceDef& fd = element_info(m.element_type[l]).faces[ll];
    EXPECT_EQ(m.face_num_vertices[f], fd.num_vertices) << "face " << f;
    for (int k = 0; k < max_face_vertices; ++k) {
      const index_t expected = k < fd.num_vertices ? m.element_vertices[m.element_vertex_begin[l] + fd.vertices[k]] : -1;
      if (m.face_vertices[std::size_t(f) * max_face_vertices + k] != expected)
        ++bad, ADD_FAILURE() << "face " << f << " vertex " << k << " is not the left element's";
    }
    // Outward from the left element.
    if (geom::dot(face_centroid(m, f) - centroid(m, l), normal(m, f)) <= 0)
      ++bad, ADD_FAILURE() << "face " << f << ": normal does not point out of its left element";
  }
  // Every element's face slots point back at it.
  for (index_t e = 0; e < ne; ++e)
    for (int k = 0; k < m.element_num_faces(e); ++k) {
      const index_t f = m.element_faces[m.element_face_begin[e] + k];
      const bool ok = (m.face_left[f] == e && m.face_left_local[f] == k) ||
                      (m.face_right[f] == e && m.face_right_local[f] == k);
      ASSERT_TRUE(ok) << "element " << e << " local face " << k << " -> face " << f;
    }
  // Closed elements: the sum of area * outward normal vanishes (planar and volume meshes; on a curved surface
  // the conormals of neighbours differ by design).
  if (!(m.dim == 2 && m.space_dim == 3)) {
    std::vector<geom::Vec3> sum(ne);
    std::vector<double> scale(ne, 0);
    for (index_t f = 0; f < nf; ++f) {
      const geom::Vec3 s = m.face_area[f] * normal(m, f);
      sum[m.face_left[f]] = sum[m.face_left[f]] + s;
      scale[m.face_left[f]] += m.face_area[f];
      if (m.face_right[f] != no_element) {
        sum[m.face_right[f]] = sum[m.face_right[f]] - s;
        scale[m.face_right[f]] += m.face_area[f];
      }
    }
    for (index_t e = 0; e < ne; ++e) ASSERT_LT(geom::norm(sum[e]), 1e-12 * scale[e]) << "element " << e;
  }
  // Geometry recomputed from the reordered connectivity agrees with the permuted geometry.
  Mesh again = m;
  compute_geometry(again);
  for (index_t e = 0; e < ne; ++e) {
    ASSERT_NEAR(again.volume[e], m.volume[e], 1e-12 * std::abs(m.volume[e])) << "element " << e;
    ASSERT_LT(geom::norm(centroid(again, e) - centroid(m, e)), 1e-12) << "element " << e;
  }
  for (index_t f = 0; f < nf; ++f) {
    ASSERT_NEAR(again.face_area[f], m.face_area[f], 1e-12 * m.face_area[f]) << "face " << f;
    ASSERT_LT(geom::norm(normal(again, f) - normal(m, f)), 1e-12) << "face " << f;
  }
  // Colors: valid, grouped, with consistent ranges.
  ASSERT_EQ(m.face_color.size(), std::size_t(nf));
  EXPECT_EQ(check_coloring(m, m.face_color, num_colors), "");
  ASSERT_EQ(m.color_begin.size(), std::size_t(num_colors) + 1);
  EXPECT_EQ(m.color_begin.front(), 0);
  EXPECT_EQ(m.color_begin.back(), nf);
  for (int c = 0; c < num_colors; ++c) {
    ASSERT_LE(m.color_begin[c], m.color_begin[c + 1]);
    for (index_t f = m.color_begin[c]; f < m.color_begin[c + 1]; ++f) ASSERT_EQ(m.face_color[f], c) << "face " << f;
  }
}

std::vector<index_t> sorted_face_vertices(const Mesh& m, index_t f) {
  std::vector<index_t> v(m.face_vertices.begin() + std::ptrdiff_t(f) * max_face_vertices,
                         m.face_vertices.begin() + std::ptrdiff_t(f) * max_face_vertices + m.face_num_vertices[f]);
  std::sort(v.begin(), v.end());
  return v;
}

/// element_input and face_input lead back to the original mesh: same elements, same faces, same colors.
void expect_maps_back(const Mesh& orig, const FaceColoring& orig_coloring, const Mesh& m, const FaceColoring& coloring,
                      const std::string& where) {
  SCOPED_TRACE(where);
  const index_t ne = m.num_elements(), nf = m.num_faces();
  ASSERT_TRUE(is_bijection(m.element_input, std::size_t(ne), "element_input"));
  ASSERT_TRUE(is_bijection(m.face_input, std::size_t(nf), "face_input"));
  ASSERT_EQ(coloring.color, m.face_color);
  for (index_t e = 0; e < ne; ++e) {
    const index_t o = m.element_input[e];
    ASSERT_EQ(m.element_type[e], orig.element_type[o]);
    ASSERT_EQ(m.element_tag[e], orig.element_tag[o]);
    ASSERT_TRUE(std::equal(m.element_vertices.begin() + m.element_vertex_begin[e],
                           m.element_vertices.begin() + m.element_vertex_begin[e + 1],
                           orig.element_vertices.begin() + orig.element_vertex_begin[o],
                           orig.element_vertices.begin() + orig.element_vertex_begin[o + 1]))
        << "element " << e;
    ASSERT_EQ(m.volume[e], orig.volume[o]);
    ASSERT_EQ(m.centroid_x[e], orig.centroid_x[o]);
    ASSERT_EQ(m.centroid_y[e], orig.centroid_y[o]);
    ASSERT_EQ(m.centroid_z[e], orig.centroid_z[o]);
    // The element's local faces are the original's, renumbered.
    for (int k = 0; k < m.element_num_faces(e); ++k)
      ASSERT_EQ(m.face_input[m.element_faces[m.element_face_begin[e] + k]],
                orig.element_faces[orig.element_face_begin[o] + k]);
  }
  for (index_t f = 0; f < nf; ++f) {
    const index_t o = m.face_input[f];
    ASSERT_EQ(sorted_face_vertices(m, f), sorted_face_vertices(orig, o)) << "face " << f;
    ASSERT_EQ(m.face_boundary[f], orig.face_boundary[o]);
    ASSERT_EQ(m.face_area[f], orig.face_area[o]);
    ASSERT_EQ(coloring.color[f], orig_coloring.color[o]) << "face " << f;
    const index_t l = m.element_input[m.face_left[f]];
    const index_t r = m.face_right[f] == no_element ? no_element : m.element_input[m.face_right[f]];
    const bool same = l == orig.face_left[o] && r == orig.face_right[o];
    const bool swapped = r != no_element && l == orig.face_right[o] && r == orig.face_left[o];
    ASSERT_TRUE(same || swapped) << "face " << f;
    if (!(orig.dim == 2 && orig.space_dim == 3)) {  // planar and volume meshes: the normal is negated exactly
      const double sign = same ? 1 : -1;
      ASSERT_EQ(m.normal_x[f], sign * orig.normal_x[o]);
      ASSERT_EQ(m.normal_y[f], sign * orig.normal_y[o]);
      ASSERT_EQ(m.normal_z[f], sign * orig.normal_z[o]);
    }
  }
}

/// Bandwidth and left-coalescing of the faces of one color.
struct ColorMetrics {
  index_t bandwidth = 0;
  double coalesced_left = 0;
};
ColorMetrics color_metrics(const Mesh& m, int c) {
  ColorMetrics r;
  index_t same = 0;
  for (index_t f = m.color_begin[c]; f < m.color_begin[c + 1]; ++f) {
    if (m.face_right[f] != no_element) r.bandwidth = std::max(r.bandwidth, std::abs(m.face_right[f] - m.face_left[f]));
    if (f > m.color_begin[c] && m.face_left[f] / 16 == m.face_left[f - 1] / 16) ++same;
  }
  r.coalesced_left = double(same) / double(m.color_begin[c + 1] - m.color_begin[c] - 1);
  return r;
}

// --- tests -----------------------------------------------------------------------------------------------------

TEST(Reorder, Registry) {
  std::vector<std::string> names;
  for (const Ordering& o : orderings()) {
    names.emplace_back(o.name);
    EXPECT_FALSE(o.description.empty());
    EXPECT_EQ(&find_ordering(o.name), &o);
  }
  EXPECT_THAT(names, ::testing::ElementsAre("as_read", "color_renumber", "rcm", "hilbert"));
  try {
    find_ordering("rmc");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown ordering 'rmc'; known: as_read, color_renumber, rcm, hilbert");
  }
}

TEST(Reorder, EveryOrderingOnEveryMesh) {
  for (const auto& [name, mesh] : all_meshes()) {
    for (const char* algorithm : {"kempe", "greedy", "misra-gries"}) {
      const FaceColoring coloring = color_faces(mesh, {algorithm, 3});
      for (const bool shuffle_first : {false, true}) {
        Mesh start = mesh;
        FaceColoring start_coloring = coloring;
        if (shuffle_first) apply_ordering(start, start_coloring, shuffled(start, start_coloring, 11));
        for (const Ordering& o : orderings()) {
          const std::string where = std::string(name) + " / " + algorithm + (shuffle_first ? " / shuffled" : "") +
                                    " / " + std::string(o.name);
          const Permutation p = o.compute(start, start_coloring);
          ASSERT_TRUE(is_bijection(p.element_new, std::size_t(mesh.num_elements()), "element_new")) << where;
          ASSERT_TRUE(is_bijection(p.face_new, std::size_t(mesh.num_faces()), "face_new")) << where;
          Mesh m = start;
          FaceColoring c = start_coloring;
          apply_ordering(m, c, p);
          expect_consistent(m, c.num_colors, where);
          if (::testing::Test::HasFatalFailure()) return;
          expect_maps_back(mesh, coloring, m, c, where);
          if (::testing::Test::HasFatalFailure()) return;
          // The same ordering of an already ordered mesh changes nothing (the orderings are deterministic and
          // depend on the numbering only through ties).
          if (o.name == "as_read") {
            const Permutation again = o.compute(m, c);
            for (index_t f = 0; f < m.num_faces(); ++f) ASSERT_EQ(again.face_new[f], f) << where;
          }
        }
      }
    }
  }
}

TEST(Reorder, PeriodicFacesTakeTheirNewLeftElementsVertices) {
  // A periodic face joins nodes on opposite sides of the domain: when an ordering swaps its sides, its vertices
  // must be the new left element's own, not the old ones reversed.
  const Mesh mesh = periodic_grid_mesh(6, 1.0, 0.1);
  const FaceColoring coloring = color_faces(mesh, {"kempe", 3});
  for (const Ordering& o : orderings()) {
    Mesh m = mesh;
    FaceColoring c = coloring;
    apply_ordering(m, c, shuffled(m, c, 5));
    apply_ordering(m, c, o.compute(m, c));
    int periodic_faces = 0;
    for (index_t f = 0; f < m.num_faces(); ++f) {
      const index_t l = m.face_left[f];
      const int j = m.face_left_local[f];
      ASSERT_EQ(m.face_vertices[std::size_t(f) * max_face_vertices], m.element_vertices[3 * l + j]) << o.name << " face " << f;
      ASSERT_EQ(m.face_vertices[std::size_t(f) * max_face_vertices + 1], m.element_vertices[3 * l + (j + 1) % 3])
          << o.name << " face " << f;
      const index_t r = m.face_right[f];
      if (r != no_element && m.element_vertices[3 * r + (m.face_right_local[f] + 1) % 3] != m.element_vertices[3 * l + j])
        ++periodic_faces;
    }
    EXPECT_EQ(periodic_faces, 2 * 6) << o.name;
  }
}

TEST(Reorder, AsReadKeepsElementsAndFaceOrderWithinColors) {
  const Mesh mesh = triangle_grid(6, 5);
  const FaceColoring coloring = color_faces(mesh, {"kempe", 1});
  const Permutation p = find_ordering("as_read").compute(mesh, coloring);
  for (index_t e = 0; e < mesh.num_elements(); ++e) EXPECT_EQ(p.element_new[e], e);
  for (index_t a = 0; a < mesh.num_faces(); ++a)
    for (index_t b = a + 1; b < mesh.num_faces(); ++b)
      if (coloring.color[a] == coloring.color[b]) {
        ASSERT_LT(p.face_new[a], p.face_new[b]);
      }
}

TEST(Reorder, ColorRenumberFollowsAlgorithm5) {
  const Mesh mesh = triangle_grid(24, 20);
  FaceColoring coloring = color_faces(mesh, {"kempe", 5});
  ASSERT_EQ(coloring.num_colors, 3);
  Mesh m = mesh;
  apply_ordering(m, coloring, shuffled(m, coloring, 3));
  const ColorMetrics before = color_metrics(m, 0);
  const OrderingMetrics all_before = ordering_metrics(m);
  apply_ordering(m, coloring, find_ordering("color_renumber").compute(m, coloring));
  expect_consistent(m, 3, "color_renumber");

  const index_t n0 = m.color_begin[1];
  index_t next_right = n0;
  for (index_t k = 0; k < n0; ++k) {
    ASSERT_EQ(m.face_left[k], k) << "color-0 face " << k;
    if (m.face_right[k] != no_element) {
      ASSERT_EQ(m.face_right[k], next_right) << "color-0 face " << k;
      ++next_right;
    }
  }
  // Three colors on triangles: every element has a face of color 0, so color 0 numbers all of them.
  EXPECT_EQ(next_right, m.num_elements());
  // Other colors: ascending left element, ties by right.
  for (int c = 1; c < 3; ++c)
    for (index_t f = m.color_begin[c] + 1; f < m.color_begin[c + 1]; ++f) {
      ASSERT_LE(m.face_left[f - 1], m.face_left[f]);
      if (m.face_left[f - 1] == m.face_left[f] && m.face_right[f - 1] != no_element) {
        ASSERT_LE(m.face_right[f - 1], m.face_right[f]);
      }
    }
  const ColorMetrics after = color_metrics(m, 0);
  EXPECT_LE(after.bandwidth, n0);
  EXPECT_LT(after.bandwidth, before.bandwidth);
  EXPECT_GT(after.coalesced_left, 0.9);
  EXPECT_GT(after.coalesced_left, before.coalesced_left + 0.5);
  const OrderingMetrics all_after = ordering_metrics(m);
  EXPECT_GT(all_after.coalesced_left, all_before.coalesced_left);
  EXPECT_GT(all_after.coalesced_right, all_before.coalesced_right);
}

TEST(Reorder, ColorRenumberNumbersElementsColorZeroMisses) {
  // Greedy first fit may leave some elements without a face of color 0 (and uses more colors).
  const Mesh mesh = quad_grid(9, 7);
  for (const char* algorithm : {"greedy", "misra-gries", "kempe"}) {
    FaceColoring coloring = color_faces(mesh, {algorithm, 2});
    Mesh m = mesh;
    const Permutation p = find_ordering("color_renumber").compute(m, coloring);
    apply_ordering(m, coloring, p);
    const index_t n0 = m.color_begin[1];
    index_t next = n0;
    for (index_t k = 0; k < n0; ++k) {
      ASSERT_EQ(m.face_left[k], k);
      if (m.face_right[k] != no_element) {
        ASSERT_EQ(m.face_right[k], next);
        ++next;
      }
    }
    // The remaining elements follow in input order.
    std::vector<index_t> rest;
    for (index_t e = next; e < m.num_elements(); ++e) rest.push_back(m.element_input[e]);
    EXPECT_TRUE(std::is_sorted(rest.begin(), rest.end())) << algorithm;
    expect_consistent(m, coloring.num_colors, algorithm);
  }
}

TEST(Reorder, RcmReducesBandwidthAndProfile) {
  const Mesh mesh = triangle_grid(40, 12);
  FaceColoring coloring = color_faces(mesh, {"kempe", 1});
  Mesh m = mesh;
  apply_ordering(m, coloring, shuffled(m, coloring, 9));
  const OrderingMetrics shuffled_metrics = ordering_metrics(m);
  apply_ordering(m, coloring, find_ordering("rcm").compute(m, coloring));
  const OrderingMetrics rcm = ordering_metrics(m);
  // A 40 x 12 strip has level sets of about 2 * 12 elements from a short side: bandwidth of that order.
  EXPECT_LT(rcm.bandwidth, 60);
  EXPECT_LT(rcm.bandwidth * 10, shuffled_metrics.bandwidth);
  EXPECT_LT(rcm.profile * 5, shuffled_metrics.profile);
  // Faces of each color by ascending lower element.
  for (int c = 0; c < coloring.num_colors; ++c)
    for (index_t f = m.color_begin[c] + 1; f < m.color_begin[c + 1]; ++f) ASSERT_LE(m.face_left[f - 1], m.face_left[f]);
}

TEST(Reorder, RcmStartsFromAPeripheralElement) {
  // A strip of quads numbered from the middle outward: RCM must start at one end and number the strip in order.
  const int n = 21;
  RawMesh raw = test::make_raw(2, {});
  test::add_strip_nodes(raw, n);
  for (int k = 0; k < n; ++k) {
    const int i = (k % 2 == 0) ? n / 2 + k / 2 : n / 2 - (k + 1) / 2;  // 10, 9, 11, 8, 12, ...
    const auto a = static_cast<index_t>(2 * i);
    test::add(raw, ElementType::quadrilateral, {a, a + 2, a + 3, a + 1});
  }
  Mesh m = build_mesh(raw);
  FaceColoring coloring = color_faces(m, {"kempe", 1});
  EXPECT_GT(ordering_metrics(m).bandwidth, 1);
  apply_ordering(m, coloring, find_ordering("rcm").compute(m, coloring));
  const OrderingMetrics r = ordering_metrics(m);
  EXPECT_EQ(r.bandwidth, 1);
  EXPECT_EQ(r.profile, n - 1);
}

TEST(Reorder, RcmKeepsComponentsContiguous) {
  Mesh m = two_islands();
  FaceColoring coloring = color_faces(m, {"kempe", 1});
  const index_t first_island = 5 * 4 * 2;
  apply_ordering(m, coloring, shuffled(m, coloring, 4));
  apply_ordering(m, coloring, find_ordering("rcm").compute(m, coloring));
  // Each island occupies one contiguous range of new numbers.
  std::vector<int> island(m.num_elements());
  for (index_t e = 0; e < m.num_elements(); ++e) island[e] = m.element_input[e] < first_island ? 0 : 1;
  int changes = 0;
  for (index_t e = 1; e < m.num_elements(); ++e) changes += island[e] != island[e - 1];
  EXPECT_EQ(changes, 1);
  EXPECT_LT(ordering_metrics(m).bandwidth, 20);
}

TEST(Reorder, HilbertFollowsTheCentroids) {
  for (Mesh mesh : {triangle_grid(32, 32), tet_grid(5)}) {
    FaceColoring coloring = color_faces(mesh, {"kempe", 1});
    apply_ordering(mesh, coloring, shuffled(mesh, coloring, 2));
    auto mean_step = [](const Mesh& m) {
      double s = 0;
      for (index_t e = 1; e < m.num_elements(); ++e) s += geom::norm(centroid(m, e) - centroid(m, e - 1));
      return s / (m.num_elements() - 1);
    };
    const double shuffled_step = mean_step(mesh);
    const OrderingMetrics shuffled_metrics = ordering_metrics(mesh);
    apply_ordering(mesh, coloring, find_ordering("hilbert").compute(mesh, coloring));
    // Consecutive elements are neighbours or close: the mean step is about one element size.
    EXPECT_LT(mean_step(mesh), 1.5) << mesh.dim;
    EXPECT_LT(mean_step(mesh) * 5, shuffled_step) << mesh.dim;
    const OrderingMetrics h = ordering_metrics(mesh);
    EXPECT_LT(h.profile * 3, shuffled_metrics.profile) << mesh.dim;  // 2D: 16x smaller, 3D: 4x
    EXPECT_GT(h.coalesced_left, shuffled_metrics.coalesced_left) << mesh.dim;
    for (int c = 0; c < coloring.num_colors; ++c)
      for (index_t f = mesh.color_begin[c] + 1; f < mesh.color_begin[c + 1]; ++f)
        ASSERT_LE(mesh.face_left[f - 1], mesh.face_left[f]);
  }
}

TEST(Reorder, HilbertWalksAStructuredGridCellByCell) {
  // On a 2^k grid of unit cells the bounding-box-normalised curve visits each cell's face neighbour next: every
  // step is exactly one cell, in 2D and 3D (a Morton order would jump).
  for (Mesh mesh : {quad_grid(16, 16, 0.0), hex_grid(8, 0.0)}) {
    FaceColoring coloring = color_faces(mesh, {"kempe", 1});
    apply_ordering(mesh, coloring, shuffled(mesh, coloring, 5));
    apply_ordering(mesh, coloring, find_ordering("hilbert").compute(mesh, coloring));
    for (index_t e = 1; e < mesh.num_elements(); ++e)
      ASSERT_NEAR(geom::norm(centroid(mesh, e) - centroid(mesh, e - 1)), 1.0, 1e-12) << mesh.dim << "D, element " << e;
    // The curve starts in a corner cell.
    EXPECT_NEAR(mesh.centroid_x[0], 0.5, 1e-12);
    EXPECT_NEAR(mesh.centroid_y[0], 0.5, 1e-12);
  }
}

TEST(Reorder, OrderingsCompose) {
  const Mesh mesh = tet_grid(3);
  const FaceColoring original = color_faces(mesh, {"kempe", 8});
  Mesh m = mesh;
  FaceColoring c = original;
  apply_ordering(m, c, shuffled(m, c, 21));
  const std::vector<index_t> after_shuffle = m.element_input;
  apply_ordering(m, c, find_ordering("rcm").compute(m, c));
  expect_maps_back(mesh, original, m, c, "shuffle, rcm");
  apply_ordering(m, c, find_ordering("hilbert").compute(m, c));
  expect_maps_back(mesh, original, m, c, "shuffle, rcm, hilbert");
  const Permutation last = find_ordering("color_renumber").compute(m, c);
  const std::vector<index_t> before_last = m.element_input;
  apply_ordering(m, c, last);
  expect_maps_back(mesh, original, m, c, "shuffle, rcm, hilbert, color_renumber");
  expect_consistent(m, c.num_colors, "composed");
  // The composition is exactly input[new] = earlier_input[old].
  for (index_t e = 0; e < m.num_elements(); ++e) EXPECT_EQ(m.element_input[last.element_new[e]], before_last[e]);
  EXPECT_NE(after_shuffle, m.element_input);
}

TEST(Reorder, ApplyRejectsBadPermutationsAndChangesNothing) {
  const Mesh mesh = triangle_grid(4, 3);
  const FaceColoring coloring = color_faces(mesh, {"kempe", 1});
  const Permutation good = find_ordering("rcm").compute(mesh, coloring);
  auto rejected = [&](const Permutation& p, const char* what) {
    Mesh m = mesh;
    FaceColoring c = coloring;
    try {
      apply_ordering(m, c, p);
      ADD_FAILURE() << what << ": expected an error";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("apply_ordering")) << what;
    }
    EXPECT_EQ(m.face_left, mesh.face_left) << what;
    EXPECT_EQ(m.element_vertices, mesh.element_vertices) << what;
    EXPECT_TRUE(m.face_color.empty()) << what;
    EXPECT_EQ(c.color, coloring.color) << what;
  };
  Permutation p = good;
  p.element_new[0] = p.element_new[1];
  rejected(p, "repeated element");
  p = good;
  p.face_new.pop_back();
  rejected(p, "short face list");
  p = good;
  p.element_new[2] = mesh.num_elements();
  rejected(p, "element out of range");
  p = good;  // two faces of different colors exchanged: no longer grouped by color
  index_t a = 0, b = 0;
  while (coloring.color[b] == coloring.color[a]) ++b;
  std::swap(p.face_new[a], p.face_new[b]);
  rejected(p, "faces not grouped by color");
  FaceColoring wrong = coloring;
  wrong.color.pop_back();
  EXPECT_THROW(find_ordering("hilbert").compute(mesh, wrong), std::invalid_argument);
  Mesh m = mesh;
  EXPECT_THROW(apply_ordering(m, wrong, good), std::invalid_argument);
}

TEST(Reorder, MetricsOfAQuadStrip) {
  const int n = 40;
  RawMesh raw = test::make_raw(2, {});
  test::add_strip_nodes(raw, n);
  for (int i = 0; i < n; ++i) {
    const auto a = static_cast<index_t>(2 * i);
    test::add(raw, ElementType::quadrilateral, {a, a + 2, a + 3, a + 1});
  }
  Mesh m = build_mesh(raw);
  OrderingMetrics r = ordering_metrics(m);
  EXPECT_EQ(r.bandwidth, 1);
  EXPECT_EQ(r.profile, n - 1);

  // Renumber the elements evens first, then odds; faces grouped by color as as_read leaves them.
  FaceColoring coloring = color_faces(m, {"kempe", 1});
  Permutation p = find_ordering("as_read").compute(m, coloring);
  for (int e = 0; e < n; ++e) p.element_new[e] = e % 2 == 0 ? e / 2 : n / 2 + e / 2;
  apply_ordering(m, coloring, p);
  r = ordering_metrics(m);
  EXPECT_EQ(r.bandwidth, n / 2);  // element 0 (new 0) next to element 1 (new n/2)
  // Evens (new k) have only higher neighbours; odd 2k+1 (new n/2 + k) has lowest neighbour 2k (new k): n/2 each.
  EXPECT_EQ(r.profile, std::int64_t(n / 2) * (n / 2));
  // Coalescing, counted independently.
  index_t same_left = 0, same_right = 0, interior = 0, prev_right = -1;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    if (f > 0 && m.face_left[f] / 16 == m.face_left[f - 1] / 16) ++same_left;
    if (m.face_right[f] == no_element) continue;
    if (interior++ > 0 && m.face_right[f] / 16 == prev_right / 16) ++same_right;
    prev_right = m.face_right[f];
  }
  EXPECT_DOUBLE_EQ(r.coalesced_left, double(same_left) / (m.num_faces() - 1));
  EXPECT_DOUBLE_EQ(r.coalesced_right, double(same_right) / (interior - 1));
  EXPECT_EQ(interior, n - 1);
}

TEST(Reorder, MetricsOfTwoTriangles) {
  RawMesh raw = test::make_raw(2, {{0, 0}, {1, 0}, {1, 1}, {0, 1}});
  test::add(raw, ElementType::triangle, {0, 1, 2});
  test::add(raw, ElementType::triangle, {0, 2, 3});
  const Mesh m = build_mesh(raw);
  const OrderingMetrics r = ordering_metrics(m);
  EXPECT_EQ(r.bandwidth, 1);
  EXPECT_EQ(r.profile, 1);
  EXPECT_DOUBLE_EQ(r.coalesced_left, 1.0);  // five faces, all on elements 0 and 1: one segment
  EXPECT_DOUBLE_EQ(r.coalesced_right, 0.0);  // one interior face: no pair
}

}  // namespace
}  // namespace kempe
