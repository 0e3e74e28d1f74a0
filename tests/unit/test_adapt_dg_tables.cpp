// The DG solver's mesh tables built by kernels from a forest's leaf mesh (adapt/dg_tables.hpp, DGMesh::rebuild
// of a forest), on the CPU backend: on conforming leaf meshes (the start mesh, uniform refinements; planar,
// periodic, curved boundary) they are the tables DGMesh computes on the host from the same mesh, bit for bit; on
// meshes with hanging faces every element's faces, neighbours, offsets and vertex lists are consistent from both
// sides; a surface in 3D is refused by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adapt/dg_tables_K.hpp"
#include "adapt/forest.hpp"
#include "adapt_fixtures.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;
using Tables = dg::DGMesh<double>;

using test::adapt_start;
using test::disk_mesh;

/// A conforming leaf mesh as a Mesh, with the forest's own geometry: what DGMesh::rebuild(Mesh) reads.
Mesh as_mesh(const adapt::LeafMesh& m, const Mesh& start) {
  Mesh out;
  out.source = start.source + " (leaves)";
  out.dim = 2, out.space_dim = 2;
  out.x = m.x, out.y = m.y, out.z = m.z;
  const index_t ne = m.num_elements(), nf = m.num_faces();
  out.element_type.assign(ne, ElementType::triangle);
  out.element_vertices = m.element_vertices;
  out.element_faces.assign(3 * std::size_t(ne), no_element);
  for (index_t e = 0; e <= ne; ++e) out.element_vertex_begin.push_back(3 * e), out.element_face_begin.push_back(3 * e);
  for (index_t e = 0; e < ne; ++e) out.element_tag.push_back(e + 1);
  out.volume = m.area, out.centroid_x = m.centroid_x, out.centroid_y = m.centroid_y, out.centroid_z = m.centroid_z;
  out.face_left = m.face_left, out.face_right = m.face_right;
  out.face_left_local = m.face_left_local, out.face_right_local = m.face_right_local;
  out.face_num_vertices.assign(nf, 2);
  for (index_t k = 0; k < nf; ++k) {
    EXPECT_EQ(m.face_left_half[k], adapt::whole_edge) << "as_mesh needs a conforming leaf mesh";
    out.face_vertices.insert(out.face_vertices.end(), {m.face_vertices[2 * k], m.face_vertices[2 * k + 1], -1, -1});
    out.element_faces[3 * std::size_t(m.face_left[k]) + m.face_left_local[k]] = k;
    if (m.face_right[k] != no_element) out.element_faces[3 * std::size_t(m.face_right[k]) + m.face_right_local[k]] = k;
  }
  out.face_area = m.face_length, out.normal_x = m.normal_x, out.normal_y = m.normal_y, out.normal_z = m.normal_z;
  out.face_boundary = m.face_boundary, out.boundary_names = start.boundary_names;
  out.face_color = m.face_color, out.color_begin = m.color_begin;
  return out;
}

/// Equal bit for bit; a table the Mesh's DGMesh does not have (the half tables) is checked on its own.
struct ExpectSame {
  template <class T>
  void operator()(const T* a, const T* b, std::size_t n, const char* what) const {
    if (b == nullptr) return;
    ASSERT_NE(a, nullptr) << what;
    for (std::size_t i = 0; i < n; ++i)
      if (!(a[i] == b[i])) {
        ADD_FAILURE() << what << "[" << i << "]: " << +a[i] << " (from the forest) against " << +b[i] << " (from the Mesh)";
        return;
      }
  }
};

/// Tables from the forest against tables from a Mesh of the same leaves, every array bit for bit. The boundary
/// curve's angles at the face ends agree to rounding (the forest keeps the curve as unit tangents); at the
/// middle the forest samples its cubic Hermite arc and the Mesh its cubic in chord length, which agree to the
/// curve's reconstruction error.
template <class Real>
void expect_same_tables(const dg::DGMesh<Real>& forest, const dg::DGMesh<Real>& host) {
  ASSERT_EQ(forest.num_elements(), host.num_elements());
  ASSERT_EQ(forest.num_faces(), host.num_faces());
  ASSERT_EQ(forest.num_vertices(), host.num_vertices());
  EXPECT_EQ(forest.boundary_groups(), host.boundary_groups());
  // The forest's faces use 2K colors (the upper K empty on the start mesh); a Mesh lists the colors it uses.
  const std::vector<index_t>& cf = forest.color_begin();
  const std::vector<index_t>& ch = host.color_begin();
  ASSERT_GE(cf.size(), ch.size());
  EXPECT_TRUE(std::equal(ch.begin(), ch.end(), cf.begin()));
  EXPECT_TRUE(std::all_of(cf.begin() + std::ptrdiff_t(ch.size()), cf.end(), [&](index_t b) { return b == ch.back(); }));
  test::compare_dg_tables(forest, host, ExpectSame{});
  const std::size_t ne = forest.num_elements(), nf = forest.num_faces();
  const auto &a = forest.view(), &b = host.view();
  // A conforming mesh: every face whole, no second halves.
  for (std::size_t k = 0; k < nf; ++k)
    ASSERT_TRUE(a.faces.left_half[k] == adapt::whole_edge && a.faces.right_half[k] == adapt::whole_edge) << "face " << k;
  for (std::size_t i = 0; i < 3 * ne; ++i) ASSERT_EQ(a.element_half_faces[i], no_element) << "row " << i;
  ASSERT_EQ(a.boundary_bend == nullptr, b.boundary_bend == nullptr);
  if (a.boundary_bend == nullptr) return;
  int bent = 0;
  for (std::size_t k = 0; k < nf; ++k) {
    const Real* fa = a.boundary_bend + 3 * k;
    const Real* fb = b.boundary_bend + 3 * k;
    EXPECT_NEAR(fa[0], fb[0], 1e-12) << "face " << k;
    EXPECT_NEAR(fa[2], fb[2], 1e-12) << "face " << k;
    EXPECT_NEAR(fa[1], fb[1], 0.1 * std::max(std::abs(fb[0]), std::abs(fb[2])) + 1e-12) << "face " << k;
    bent += fb[0] != 0;
  }
  EXPECT_GT(bent, 0);
}

TEST(DGTables, FromAStartForestAreTheHostTables) {
  for (const Mesh& mesh : {adapt_start(grid_mesh(8, 1.0, 0.2, 3)), adapt_start(periodic_grid_mesh(8, 1.0, 0.2)), disk_mesh()}) {
    SCOPED_TRACE(mesh.source);
    const adapt::TriangleForest forest(mesh, Backend::cpu, 2);
    Tables from_forest(Backend::cpu), from_mesh(Backend::cpu);
    from_forest.rebuild(forest);
    from_mesh.rebuild(mesh);
    expect_same_tables(from_forest, from_mesh);
    // In single precision too (the same conversions).
    dg::DGMesh<float> single_forest(Backend::cpu), single_mesh(Backend::cpu);
    single_forest.rebuild(forest);
    single_mesh.rebuild(mesh);
    expect_same_tables(single_forest, single_mesh);
  }
}

TEST(DGTables, FromAUniformlyRefinedForestAreTheHostTablesOfItsLeaves) {
  for (const Mesh& mesh : {adapt_start(grid_mesh(6, 1.0, 0.2, 3)), adapt_start(periodic_grid_mesh(6, 1.0, 0.2))}) {
    SCOPED_TRACE(mesh.source);
    adapt::TriangleForest forest(mesh, Backend::cpu, 2);
    for (int level = 0; level < 2; ++level) {
      forest.flag_all(true, false);
      ASSERT_TRUE(forest.adapt().valid());
    }
    Tables from_forest(Backend::cpu), from_mesh(Backend::cpu);
    from_forest.rebuild(forest);
    from_mesh.rebuild(as_mesh(forest.to_host(), mesh));
    ASSERT_EQ(from_forest.num_elements(), 16 * mesh.num_elements());
    expect_same_tables(from_forest, from_mesh);
  }
}

/// The face of element e's local edge j that covers `half` of it, as the face tables say.
bool face_names(const Tables::View& t, index_t k, index_t e, int j, int half) {
  return (t.faces.left[k] == e && t.faces.left_local[k] == j && t.faces.left_half[k] == half) ||
         (t.faces.right[k] == e && t.faces.right_local[k] == j && t.faces.right_half[k] == half);
}

TEST(DGTables, HangingFacesAreSeenFromBothSides) {
  const Mesh meshes[] = {adapt_start(grid_mesh(8, 1.0, 0.2, 3)), adapt_start(periodic_grid_mesh(8, 1.0, 0.2)), disk_mesh()};
  for (const Mesh& mesh : meshes) {
    const bool periodic = &mesh == &meshes[1];
    SCOPED_TRACE(mesh.source + (periodic ? " (periodic)" : ""));
    adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    index_t hanging_seen = 0;
    Tables tables(Backend::cpu);  // rebuilt after each cycle, in its storage of the cycles before
    for (int cycle = 0; cycle < 5; ++cycle) {
      forest.flag_random(0.25, 0.2, 7, cycle);
      const adapt::AdaptReport report = forest.adapt();
      ASSERT_TRUE(report.valid());
      tables.rebuild(forest);
      const adapt::LeafMesh leaves = forest.to_host();
      const Tables::View& t = tables.view();
      const index_t ne = tables.num_elements();
      ASSERT_EQ(ne, leaves.num_elements());
      index_t half_rows = 0;
      for (index_t e = 0; e < ne; ++e) {
        // The affine map's Jacobian is half the area; the faces round an element add up to its perimeter.
        EXPECT_NEAR(t.geometry.jacobian[e], leaves.area[e] / 2, 1e-14 * leaves.area[e]) << "element " << e;
        double perimeter = 0, faces_length = 0;
        for (int j = 0; j < 3; ++j) {
          const index_t a = leaves.element_vertices[3 * e + j], b = leaves.element_vertices[3 * e + (j + 1) % 3];
          perimeter += std::hypot(leaves.x[b] - leaves.x[a], leaves.y[b] - leaves.y[a]);
          const std::size_t row = 3 * std::size_t(e) + j;
          const index_t first = t.element_faces[row], second = t.element_half_faces[row];
          const bool split = second != no_element;
          half_rows += split;
          ASSERT_TRUE(face_names(t, first, e, j, split ? adapt::first_half : adapt::whole_edge)) << "element " << e << " edge " << j;
          faces_length += t.faces.length[first];
          if (split) {
            ASSERT_TRUE(face_names(t, second, e, j, adapt::second_half)) << "element " << e << " edge " << j;
            faces_length += t.faces.length[second];
            // Counterclockwise round e, the first half starts at its vertex j and the second ends at vertex j + 1
            // (a periodic face's ends are in its left side's frame: checked where there is one frame).
            if (!periodic) {
              auto has_end = [&](index_t k, index_t v) {
                return (t.faces.x0[k] == leaves.x[v] && t.faces.y0[k] == leaves.y[v]) ||
                       (t.faces.x1[k] == leaves.x[v] && t.faces.y1[k] == leaves.y[v]);
              };
              EXPECT_TRUE(has_end(first, a)) << "element " << e << " edge " << j << ": the first half is not at vertex " << j;
              EXPECT_TRUE(has_end(second, b)) << "element " << e << " edge " << j << ": the second half is not at vertex " << j + 1;
            }
          } else {
            EXPECT_EQ(t.element_half_neighbors[row], no_element);
            EXPECT_EQ(t.half_neighbor_dx[row], 0.0);
            EXPECT_EQ(t.half_neighbor_dy[row], 0.0);
          }
          // The neighbour across each face sees this element across the same face, at the opposite offset.
          for (int part = 0; part < (split ? 2 : 1); ++part) {
            const index_t k = part == 0 ? first : second;
            const index_t n = part == 0 ? t.element_neighbors[row] : t.element_half_neighbors[row];
            const double dx = part == 0 ? t.neighbor_dx[row] : t.half_neighbor_dx[row];
            const double dy = part == 0 ? t.neighbor_dy[row] : t.half_neighbor_dy[row];
            ASSERT_EQ(n, t.faces.left[k] == e ? t.faces.right[k] : t.faces.left[k]);
            if (n == no_element) continue;
            bool found = false;
            for (int i = 0; i < 3 && !found; ++i) {
              const std::size_t back = 3 * std::size_t(n) + i;
              if (t.element_faces[back] == k) {
                found = true;
                EXPECT_EQ(t.element_neighbors[back], e);
                EXPECT_EQ(t.neighbor_dx[back], -dx);
                EXPECT_EQ(t.neighbor_dy[back], -dy);
              } else if (t.element_half_faces[back] == k) {
                found = true;
                EXPECT_EQ(t.element_half_neighbors[back], e);
                EXPECT_EQ(t.half_neighbor_dx[back], -dx);
                EXPECT_EQ(t.half_neighbor_dy[back], -dy);
              }
            }
            EXPECT_TRUE(found) << "element " << n << " does not list face " << k;
            if (!periodic) {
              EXPECT_NEAR(dx, leaves.centroid_x[n] - leaves.centroid_x[e], 1e-14);
              EXPECT_NEAR(dy, leaves.centroid_y[n] - leaves.centroid_y[e], 1e-14);
            } else {
              // The centroids' difference up to the period (1 in x and y), and the short way across the join.
              const double rx = dx - (leaves.centroid_x[n] - leaves.centroid_x[e]);
              const double ry = dy - (leaves.centroid_y[n] - leaves.centroid_y[e]);
              EXPECT_NEAR(rx, std::round(rx), 1e-12) << "element " << e << " to " << n;
              EXPECT_NEAR(ry, std::round(ry), 1e-12) << "element " << e << " to " << n;
              EXPECT_LT(std::hypot(dx, dy), 3 * t.circumradius[e] + 3 * t.circumradius[n]) << "offset across a periodic join";
            }
          }
        }
        EXPECT_NEAR(faces_length, perimeter, 1e-13 * perimeter) << "element " << e;
        // Each vertex lists this element, in ascending order.
        for (int j = 0; j < 3; ++j) {
          const index_t v = leaves.element_vertices[3 * e + j];
          const index_t* begin = t.vertex_elements + t.vertex_element_begin[v];
          const index_t* end = t.vertex_elements + t.vertex_element_begin[v + 1];
          EXPECT_TRUE(std::is_sorted(begin, end));
          EXPECT_TRUE(std::binary_search(begin, end, e)) << "vertex " << v << " does not list element " << e;
        }
      }
      EXPECT_EQ(t.vertex_element_begin[tables.num_vertices()], 3 * ne);
      EXPECT_EQ(half_rows, report.hanging_faces / 2) << "each split edge has two half faces";
      hanging_seen += report.hanging_faces;
    }
    EXPECT_GT(hanging_seen, 0);
  }
}

/// Compares tables built with some of the limiters' tables left out (a) with tables built whole (b): a table a
/// has is b's bit for bit; the names of the tables a lacks are listed.
struct ExpectSameOrLeftOut {
  std::vector<std::string>* left_out;
  template <class T>
  void operator()(const T* a, const T* b, std::size_t n, const char* what) const {
    if (a == nullptr) {
      left_out->push_back(what);
      return;
    }
    ExpectSame{}(a, b, n, what);
  }
};

TEST(DGTables, TheLimitersOwnTablesCanBeLeftOutAndTheOthersStayTheSame) {
  // On meshes with hanging faces (planar with a curved boundary, periodic), rebuilt in the same storage as the
  // limiters' needs change: what is left out is null, everything else is what the whole rebuild gives.
  for (const Mesh& mesh : {disk_mesh(), adapt_start(periodic_grid_mesh(8, 1.0, 0.2))}) {
    SCOPED_TRACE(mesh.source);
    adapt::TriangleForest forest(mesh, Backend::cpu, 3);
    Tables whole(Backend::cpu), part(Backend::cpu);
    const Tables::LimiterTables wanted[] = {{false, true}, {true, false}, {false, false}, {true, true}};
    for (int cycle = 0; cycle < 4; ++cycle) {
      forest.flag_random(0.25, 0.2, 11, cycle);
      ASSERT_TRUE(forest.adapt().valid());
      whole.rebuild(forest);
      part.rebuild(forest, 0, "the tables in part", wanted[cycle]);
      EXPECT_EQ(part.limiter_tables().neighbor_offsets, wanted[cycle].neighbor_offsets);
      EXPECT_EQ(part.limiter_tables().vertex_elements, wanted[cycle].vertex_elements);
      std::vector<std::string> left_out, expected;
      test::compare_dg_tables(part, whole, ExpectSameOrLeftOut{&left_out});
      if (!wanted[cycle].neighbor_offsets)
        expected.insert(expected.end(), {"neighbour dx", "neighbour dy", "half neighbour dx", "half neighbour dy"});
      if (!wanted[cycle].vertex_elements) expected.insert(expected.end(), {"vertex-to-element offsets", "vertex-to-element lists"});
      EXPECT_EQ(left_out, expected) << "cycle " << cycle;
      if (cycle == 3)
        EXPECT_EQ(part.bytes(), whole.bytes());
      else
        EXPECT_LT(part.bytes(), whole.bytes());
    }
  }
}

TEST(DGTables, SomePlacesOfAnOptionalTableAreRefused) {
  const adapt::TriangleForest forest(adapt_start(grid_mesh(4, 1.0, 0.2, 3)), Backend::cpu, 1);
  const index_t ne = forest.num_elements();
  std::vector<double> dx(3 * ne);
  adapt::DGTablePtrs<double> t;
  t.neighbor_dx = dx.data();  // the other three offsets missing
  EXPECT_THAT([&] { adapt::build_dg_tables(forest, t); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("built whole or not at all")));
}

TEST(DGTables, VertexListsStartWhereTheirFirstSortedEntryIs) {
  // Sorted vertex keys of entries of vertices 1, 3 and 6 among 8 nodes: vertices 0, 2, 4, 5 and 7 (nodes no leaf
  // uses) get empty lists, and every offset is written once.
  const std::vector<index_t> keys = {1, 1, 3, 3, 3, 6};
  const index_t entries = index_t(keys.size()), nodes = 8;
  std::vector<index_t> begin(nodes + 1, -7);
  forall(Backend::cpu, entries + 1, adapt::VertexElementBegin{keys.data(), entries, nodes, begin.data()});
  EXPECT_THAT(begin, ::testing::ElementsAre(0, 0, 2, 2, 5, 5, 5, 6, 6));
  // No entries at all: every list is empty.
  std::vector<index_t> empty(nodes + 1, -7);
  forall(Backend::cpu, 1, adapt::VertexElementBegin{keys.data(), 0, nodes, empty.data()});
  EXPECT_THAT(empty, ::testing::Each(0));
}

TEST(DGTables, RefuseASurfaceIn3DAndAnotherBackend) {
  const adapt::TriangleForest sphere(adapt_start(build_mesh(icosphere(1))), Backend::cpu, 1);
  Tables tables(Backend::cpu);
  try {
    tables.rebuild(sphere);
    FAIL() << "a surface in 3D was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("xy plane"));
    EXPECT_THAT(e.what(), HasSubstr(sphere.source()));
  }
  const adapt::TriangleForest planar(adapt_start(grid_mesh(4, 1.0, 0.2, 3)), Backend::cpu, 1);
  Tables on_gpu(Backend::cuda);
  EXPECT_THROW(on_gpu.rebuild(planar), std::invalid_argument);
}

}  // namespace
}  // namespace kempe
