// Face connectivity, geometry and validation on hand-made meshes of every element type.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "mesh/boundary_curve.hpp"
#include "mesh/mesh.hpp"
#include "mesh/report.hpp"
#include "mesh_fixtures.hpp"
#include "mesh/generators.hpp"

namespace kempe {
namespace {

using test::add;
using test::make_raw;
using test::mark;
using ::testing::HasSubstr;

/// Sum over an element's faces of area times outward normal: zero for any closed element (Gauss).
/// (On a surface in 3D the stored normal is the left element's conormal, which the right element does not
/// share where the surface folds; there each conormal must lie in its element's plane, across its edge.)
void expect_closed(const Mesh& m) {
  if (m.dim == 2 && m.space_dim == 3) {
    for (index_t f = 0; f < m.num_faces(); ++f) {
      const index_t* v = &m.face_vertices[std::size_t(f) * max_face_vertices];
      const double tx = m.x[v[1]] - m.x[v[0]], ty = m.y[v[1]] - m.y[v[0]], tz = m.z[v[1]] - m.z[v[0]];
      EXPECT_NEAR(tx * m.normal_x[f] + ty * m.normal_y[f] + tz * m.normal_z[f], 0.0, 1e-14);
      const index_t l = m.face_left[f];
      const double cx = m.centroid_x[l] - m.x[v[0]], cy = m.centroid_y[l] - m.y[v[0]], cz = m.centroid_z[l] - m.z[v[0]];
      // The left centroid, the edge and the conormal span the element's plane: the triple product vanishes.
      const double triple = cx * (ty * m.normal_z[f] - tz * m.normal_y[f]) - cy * (tx * m.normal_z[f] - tz * m.normal_x[f]) +
                            cz * (tx * m.normal_y[f] - ty * m.normal_x[f]);
      EXPECT_NEAR(triple, 0.0, 1e-14);
      EXPECT_NEAR(std::hypot(m.normal_x[f], m.normal_y[f], m.normal_z[f]), 1.0, 1e-14);
    }
    return;
  }
  for (index_t e = 0; e < m.num_elements(); ++e) {
    double sx = 0, sy = 0, sz = 0, perimeter = 0;
    for (index_t k = m.element_face_begin[e]; k < m.element_face_begin[e + 1]; ++k) {
      const index_t f = m.element_faces[k];
      const double s = m.face_left[f] == e ? 1.0 : -1.0;
      sx += s * m.face_area[f] * m.normal_x[f];
      sy += s * m.face_area[f] * m.normal_y[f];
      sz += s * m.face_area[f] * m.normal_z[f];
      perimeter += m.face_area[f];
    }
    EXPECT_NEAR(std::hypot(sx, sy, sz), 0.0, 1e-13 * perimeter) << "element " << e;
  }
  for (index_t f = 0; f < m.num_faces(); ++f)
    EXPECT_NEAR(std::hypot(m.normal_x[f], m.normal_y[f], m.normal_z[f]), 1.0, 1e-14);
}

/// Every normal points from the left element's centroid towards the right element's (or away from the
/// left centroid on the boundary): outward for the left element.
void expect_outward(const Mesh& m) {
  for (index_t f = 0; f < m.num_faces(); ++f) {
    double cx = 0, cy = 0, cz = 0;
    for (int k = 0; k < m.face_num_vertices[f]; ++k) {
      const index_t v = m.face_vertices[std::size_t(f) * max_face_vertices + k];
      cx += m.x[v] / m.face_num_vertices[f];
      cy += m.y[v] / m.face_num_vertices[f];
      cz += m.z[v] / m.face_num_vertices[f];
    }
    const index_t l = m.face_left[f];
    const double d = (cx - m.centroid_x[l]) * m.normal_x[f] + (cy - m.centroid_y[l]) * m.normal_y[f] +
                     (cz - m.centroid_z[l]) * m.normal_z[f];
    EXPECT_GT(d, 0) << "face " << f;
  }
}

/// Each element lists its faces, each face lists its elements, and the two agree.
void expect_consistent(const Mesh& m) {
  index_t local_faces = 0;
  for (index_t e = 0; e < m.num_elements(); ++e) local_faces += m.element_num_faces(e);
  const index_t interior = m.num_faces() - m.num_boundary_faces();
  EXPECT_EQ(local_faces, 2 * interior + m.num_boundary_faces());
  for (index_t f = 0; f < m.num_faces(); ++f) {
    EXPECT_EQ(m.element_faces[m.element_face_begin[m.face_left[f]] + m.face_left_local[f]], f);
    if (m.face_right[f] != no_element) {
      EXPECT_LT(m.face_left[f], m.face_right[f]);
      EXPECT_EQ(m.element_faces[m.element_face_begin[m.face_right[f]] + m.face_right_local[f]], f);
      EXPECT_EQ(m.face_boundary[f], no_boundary);
    } else {
      EXPECT_NE(m.face_boundary[f], no_boundary);
    }
  }
}

void expect_valid(const Mesh& m) {
  expect_closed(m);
  expect_outward(m);
  expect_consistent(m);
}

TEST(BuildMesh, TwoTrianglesFormASquare) {
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {1, 1}, {0, 1}});
  add(raw, ElementType::triangle, {0, 1, 2});
  add(raw, ElementType::triangle, {0, 2, 3});
  mark(raw, "bottom", {0, 1});
  mark(raw, "right", {1, 2});
  mark(raw, "top", {2, 3});
  mark(raw, "left", {3, 0});
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.dim, 2);
  EXPECT_EQ(m.space_dim, 2);
  EXPECT_EQ(m.num_faces(), 5);
  EXPECT_EQ(m.num_boundary_faces(), 4);
  EXPECT_EQ(m.max_faces_per_element(), 3);
  EXPECT_DOUBLE_EQ(m.volume[0], 0.5);
  EXPECT_DOUBLE_EQ(m.volume[1], 0.5);
  EXPECT_DOUBLE_EQ(m.centroid_x[0], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.centroid_y[0], 1.0 / 3.0);
  // Faces in order of first appearance: element 0's edges (0,1), (1,2), (2,0), then element 1's new ones.
  EXPECT_EQ(m.face_left[0], 0);
  EXPECT_EQ(m.face_left_local[0], 0);
  EXPECT_EQ(m.face_right[2], 1);  // the diagonal
  EXPECT_EQ(m.face_right_local[2], 0);
  EXPECT_DOUBLE_EQ(m.face_area[2], std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(m.normal_x[2], -std::sqrt(0.5));
  EXPECT_DOUBLE_EQ(m.normal_y[2], std::sqrt(0.5));
  EXPECT_EQ(m.boundary_names[m.face_boundary[0]], "bottom");
  EXPECT_EQ(m.boundary_names[m.face_boundary[1]], "right");
  EXPECT_EQ(m.report.untagged_boundary_faces, 0);
  expect_valid(m);
  const MeshSummary s = summarize(m);
  EXPECT_EQ(s.euler_characteristic, 1);  // a disc
}

TEST(BuildMesh, ClockwiseElementsAreMirroredAndCounted) {
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 0}, {2, 1}});
  add(raw, ElementType::triangle, {0, 2, 1});       // clockwise
  add(raw, ElementType::triangle, {0, 2, 3});       // counter-clockwise
  add(raw, ElementType::quadrilateral, {1, 2, 5, 4});  // clockwise
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.report.flipped_elements, 2);
  for (double v : m.volume) EXPECT_GT(v, 0);
  EXPECT_DOUBLE_EQ(m.volume[2], 1.0);
  EXPECT_EQ(m.max_faces_per_element(), 4);
  // No group marks the boundary: every boundary face is tagged "unassigned".
  EXPECT_EQ(m.report.untagged_boundary_faces, m.num_boundary_faces());
  EXPECT_EQ(m.boundary_names.back(), unassigned_boundary_name);
  expect_valid(m);
}

TEST(BuildMesh, QuadrilateralGrid) {
  // 3 x 2 unit squares: faces = 3*3 (vertical) + 4*2 (horizontal) = 17, boundary 10.
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1}, {0, 2}, {1, 2}, {2, 2}, {3, 2}});
  for (index_t j = 0; j < 2; ++j)
    for (index_t i = 0; i < 3; ++i) {
      const index_t a = 4 * j + i;
      add(raw, ElementType::quadrilateral, {a, a + 1, a + 5, a + 4});
    }
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.num_faces(), 17);
  EXPECT_EQ(m.num_boundary_faces(), 10);
  EXPECT_EQ(summarize(m).euler_characteristic, 1);
  for (double v : m.volume) EXPECT_DOUBLE_EQ(v, 1.0);
  expect_valid(m);
}

TEST(BuildMesh, Tetrahedra) {
  RawMesh raw = make_raw(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}});
  add(raw, ElementType::tetrahedron, {0, 1, 2, 3});
  add(raw, ElementType::tetrahedron, {1, 3, 2, 4});  // negatively oriented: mirrored
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.report.flipped_elements, 1);
  EXPECT_EQ(m.num_faces(), 7);
  EXPECT_EQ(m.num_boundary_faces(), 6);
  EXPECT_EQ(m.max_faces_per_element(), 4);
  EXPECT_NEAR(m.volume[0], 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(m.volume[1], 1.0 / 3.0, 1e-15);  // |det(v3 - v1, v2 - v1, v4 - v1)| / 6 = 2 / 6
  EXPECT_NEAR(m.centroid_x[0], 0.25, 1e-15);
  expect_valid(m);
}

TEST(BuildMesh, HexahedronPrismPyramidHybrid) {
  // A unit cube, a pyramid on its top face, a prism against its x = 1 face.
  RawMesh raw = make_raw(3, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1},
                             {0.5, 0.5, 1.5}, {2, 0, 0}, {2, 0, 1}});
  add(raw, ElementType::hexahedron, {0, 1, 2, 3, 4, 5, 6, 7});
  add(raw, ElementType::pyramid, {4, 5, 6, 7, 8});
  // Prism: triangle (1, 9, 2) at z = 0 and (5, 10, 6) at z = 1; its quad face (1,2,6,5) is the cube's x = 1 face.
  add(raw, ElementType::prism, {1, 9, 2, 5, 10, 6});
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.max_faces_per_element(), 6);
  EXPECT_NEAR(m.volume[0], 1.0, 1e-15);
  EXPECT_NEAR(m.volume[1], 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(m.volume[2], 0.5, 1e-15);
  EXPECT_NEAR(m.centroid_z[1], 1.125, 1e-15);  // a pyramid's centroid is a quarter of its height above the base
  EXPECT_EQ(m.num_faces(), 6 + 5 + 5 - 2);
  EXPECT_EQ(m.num_boundary_faces(), 6 + 5 + 5 - 4);
  const MeshSummary s = summarize(m);
  EXPECT_EQ(s.element_types.size(), 3u);
  expect_valid(m);
}

TEST(BuildMesh, MirroredHexPrismPyramidArePositive) {
  RawMesh raw = make_raw(3, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {0.5, 0.5, -1}});
  add(raw, ElementType::hexahedron, {0, 3, 2, 1, 4, 7, 6, 5});  // mirrored ordering
  add(raw, ElementType::pyramid, {0, 1, 2, 3, 8});              // apex below the base: negative
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.report.flipped_elements, 2);
  EXPECT_NEAR(m.volume[0], 1.0, 1e-15);
  EXPECT_NEAR(m.volume[1], 1.0 / 3.0, 1e-15);
  expect_valid(m);
}

TEST(BuildMesh, ClosedSurfaceIsOrientedConsistently) {
  // The surface of a tetrahedron: 4 triangles, 6 edges, 4 vertices, chi = 2; one triangle given inward.
  RawMesh raw = make_raw(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  add(raw, ElementType::triangle, {0, 2, 1});
  add(raw, ElementType::triangle, {0, 1, 3});
  add(raw, ElementType::triangle, {0, 3, 2});
  add(raw, ElementType::triangle, {1, 3, 2});  // inconsistent with the other three
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.space_dim, 3);
  EXPECT_EQ(m.num_faces(), 6);  // 3T/2
  EXPECT_EQ(m.num_boundary_faces(), 0);
  EXPECT_EQ(m.report.flipped_elements, 1);
  EXPECT_EQ(summarize(m).euler_characteristic, 2);
  // Consistent orientation: the two triangles of each edge run it in opposite directions.
  for (index_t f = 0; f < m.num_faces(); ++f) {
    auto runs_forward = [&](index_t e, int local) {
      const auto& fd = element_info(m.element_type[e]).faces[local];
      const index_t* v = &m.element_vertices[m.element_vertex_begin[e]];
      return std::pair{v[fd.vertices[0]], v[fd.vertices[1]]};
    };
    const auto l = runs_forward(m.face_left[f], m.face_left_local[f]);
    const auto r = runs_forward(m.face_right[f], m.face_right_local[f]);
    EXPECT_EQ(l.first, r.second);
    EXPECT_EQ(l.second, r.first);
  }
  expect_closed(m);
  EXPECT_NEAR(std::accumulate(m.volume.begin(), m.volume.end(), 0.0), 1.5 + std::sqrt(3.0) / 2.0, 1e-14);
}

TEST(BuildMesh, MarkersOnInteriorOrMissingFacesAreReported) {
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {1, 1}, {0, 1}});
  add(raw, ElementType::triangle, {0, 1, 2});
  add(raw, ElementType::triangle, {0, 2, 3});
  mark(raw, "wall", {0, 1});
  mark(raw, "cut", {0, 2});   // the interior diagonal
  mark(raw, "ghost", {1, 3});  // no face of the mesh
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.report.interior_markers, 1);
  EXPECT_EQ(m.report.unmatched_markers, 1);
  EXPECT_EQ(m.report.untagged_boundary_faces, 3);
  EXPECT_THAT(m.report.warnings, ::testing::Contains(HasSubstr("interior")));
}

TEST(BuildMesh, UnusedNodesAreDropped) {
  RawMesh raw = make_raw(2, {{5, 5}, {0, 0}, {1, 0}, {0, 1}});
  add(raw, ElementType::triangle, {1, 2, 3});
  const Mesh m = build_mesh(raw);
  EXPECT_EQ(m.num_nodes(), 3);
  EXPECT_EQ(m.report.unused_nodes, 1);
  EXPECT_EQ(m.node_tag[0], 2);
}

// Bad inputs: one clear MeshError naming the file and the offending element or face.
std::string build_error(const RawMesh& raw) {
  try {
    build_mesh(raw);
  } catch (const MeshError& e) {
    return e.what();
  }
  return "no error";
}

TEST(BuildMeshErrors, EmptyMesh) {
  const RawMesh raw = make_raw(2, {{0, 0}});
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("handmade.msh"), HasSubstr("empty")));
}

TEST(BuildMeshErrors, DanglingNodeReference) {
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {0, 1}});
  add(raw, ElementType::triangle, {0, 1, 7});
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("handmade.msh"), HasSubstr("element 1"), HasSubstr("dangling")));
}

TEST(BuildMeshErrors, DuplicateElements) {
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {0, 1}});
  add(raw, ElementType::triangle, {0, 1, 2});
  add(raw, ElementType::triangle, {1, 2, 0});
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("handmade.msh"), HasSubstr("duplicate"), HasSubstr("triangle 1"),
                                      HasSubstr("triangle 2")));
}

TEST(BuildMeshErrors, ZeroAreaElement) {
  RawMesh raw = make_raw(2, {{0, 0}, {1, 0}, {2, 0}, {0, 1}});
  add(raw, ElementType::triangle, {0, 1, 3});
  add(raw, ElementType::triangle, {0, 1, 2});  // collinear
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("handmade.msh"), HasSubstr("triangle 2"), HasSubstr("zero area")));
}

TEST(BuildMeshErrors, ZeroVolumeTetrahedron) {
  RawMesh raw = make_raw(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}});
  add(raw, ElementType::tetrahedron, {0, 1, 2, 3});  // flat
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("tetrahedron 1"), HasSubstr("zero volume")));
}

TEST(BuildMeshErrors, NonManifoldFace) {
  RawMesh raw = make_raw(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}});
  add(raw, ElementType::triangle, {0, 1, 2});
  add(raw, ElementType::triangle, {0, 3, 1});
  add(raw, ElementType::triangle, {0, 1, 4});  // a third triangle on edge (0, 1)
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("handmade.msh"), HasSubstr("non-manifold"), HasSubstr("nodes 1 2"),
                                      HasSubstr("3 elements")));
}

/// A fan of triangles around the origin over n + 1 points of the circle of radius 1 from angle 0 to `arc`,
/// closed by the two radii when arc < 2 pi (a sector), or all around (a disc).
Mesh circle_fan(int n, double arc) {
  const bool disc = arc > 6.28;
  RawMesh raw = test::make_raw(2, {{0, 0}});
  const int points = disc ? n : n + 1;
  for (int i = 0; i < points; ++i) {
    raw.x.push_back(std::cos(arc * i / n));
    raw.y.push_back(std::sin(arc * i / n));
    raw.z.push_back(0);
    raw.node_tag.push_back(i + 2);
  }
  for (int i = 0; i < n; ++i) test::add(raw, ElementType::triangle, {0, 1 + i, 1 + (i + 1) % points});
  return build_mesh(raw);
}

/// Largest error of the angles against the circle's: at a chord's ends the circle turns by half the angle
/// the chord spans, in the middle not at all. Straight faces (the radii) must have none.
double arc_angle_error(const Mesh& m, const std::vector<double>& angles, double span) {
  double worst = 0;
  for (index_t f = 0; f < m.num_faces(); ++f) {
    if (m.face_right[f] != no_element) continue;
    const index_t a = m.face_vertices[std::size_t(f) * max_face_vertices];
    const index_t b = m.face_vertices[std::size_t(f) * max_face_vertices + 1];
    const bool radius = a == 0 || b == 0;
    // Counterclockwise around the fan's centre the tangent turns left: -span/2 at the start, +span/2 at the end.
    const double turn = std::atan2(m.x[a] * m.y[b] - m.y[a] * m.x[b], m.x[a] * m.x[b] + m.y[a] * m.y[b]) > 0 ? 1 : -1;
    const double expected[3] = {radius ? 0 : -turn * span / 2, 0, radius ? 0 : turn * span / 2};
    for (int q = 0; q < 3; ++q) worst = std::max(worst, std::abs(angles[std::size_t(f) * 3 + q] - expected[q]));
  }
  return worst;
}

TEST(BoundaryCurve, FollowsACircleAtThirdOrderAndKeepsCornersAndStraightSides) {
  const double pi = 3.14159265358979323846;
  double previous = 0;
  for (const int n : {32, 64, 128}) {
    const Mesh disc = circle_fan(n, 2 * pi);
    const std::vector<double> angles = boundary_tangent_angles(disc);
    ASSERT_EQ(angles.size(), std::size_t(disc.num_faces()) * 3);
    const double error = arc_angle_error(disc, angles, 2 * pi / n);
    EXPECT_LT(error, 0.1 * std::pow(2 * pi / n, 3)) << n;  // O(h^3): 0.083 h^3 on the circle
    if (previous > 0) {
      EXPECT_GT(previous / error, 7.0) << n;  // about 8 per halving
    }
    previous = error;
  }
  // A half disc: the diameter is two collinear radii (nothing bends there), and its ends are 90-degree corners
  // that the arc is not continued across (one-sided quadratics on the arc's first and last faces).
  const Mesh half = circle_fan(32, pi);
  const std::vector<double> angles = boundary_tangent_angles(half);
  EXPECT_LT(arc_angle_error(half, angles, pi / 32), 0.05 * std::pow(pi / 32, 2));
  // A straight boundary bends nowhere: nothing to store.
  EXPECT_TRUE(boundary_tangent_angles(build_mesh(square_grid(4, true))).empty());
}

}  // namespace
}  // namespace kempe
