// Reference elements: the face tables describe closed, outward-oriented surfaces.
#include <gtest/gtest.h>

#include "mesh/element.hpp"
#include "mesh/geometry.hpp"

namespace {

using kempe::ElementType;
using kempe::geom::Vec3;

// Gmsh reference vertex coordinates of each first-order element.
std::vector<Vec3> reference_vertices(ElementType t) {
  switch (t) {
    case ElementType::triangle: return {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    case ElementType::quadrilateral: return {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    case ElementType::tetrahedron: return {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    case ElementType::hexahedron:
      return {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}};
    case ElementType::prism: return {{0, 0, -1}, {1, 0, -1}, {0, 1, -1}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
    case ElementType::pyramid: return {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, 0, 1}};
  }
  return {};
}

class ReferenceElement : public ::testing::TestWithParam<int> {};

TEST_P(ReferenceElement, FacesAreClosedAndOutward) {
  const auto type = static_cast<ElementType>(GetParam());
  const auto& info = kempe::element_info(type);
  const auto v = reference_vertices(type);
  ASSERT_EQ(static_cast<int>(v.size()), info.num_vertices);
  Vec3 centre{};
  for (const Vec3& p : v) centre = centre + p;
  centre = (1.0 / info.num_vertices) * centre;
  Vec3 total{};
  for (int f = 0; f < info.num_faces; ++f) {
    const auto& fd = info.faces[f];
    Vec3 face_centre{}, n{};
    for (int i = 0; i < fd.num_vertices; ++i) face_centre = face_centre + v[fd.vertices[i]];
    face_centre = (1.0 / fd.num_vertices) * face_centre;
    if (info.dim == 2) {
      const Vec3 t = v[fd.vertices[1]] - v[fd.vertices[0]];
      n = {t.y, -t.x, 0};  // counter-clockwise edges: outward is the tangent turned clockwise
    } else {
      std::array<Vec3, 4> fv;
      for (int i = 0; i < fd.num_vertices; ++i) fv[i] = v[fd.vertices[i]];
      n = kempe::geom::face_vector_area(fv.data(), fd.num_vertices);
    }
    EXPECT_GT(kempe::geom::dot(n, face_centre - centre), 0) << info.name << " face " << f << " points inward";
    total = total + n;
  }
  // The outward normals of a closed surface, weighted by area, sum to zero.
  EXPECT_NEAR(kempe::geom::norm(total), 0.0, 1e-14) << info.name;
}

TEST_P(ReferenceElement, MirrorIsAPermutation) {
  const auto& info = kempe::element_info(static_cast<ElementType>(GetParam()));
  std::vector<int> seen(info.num_vertices, 0);
  for (int i = 0; i < info.num_vertices; ++i) ++seen[info.mirror[i]];
  for (int s : seen) EXPECT_EQ(s, 1) << info.name;
}

INSTANTIATE_TEST_SUITE_P(AllTypes, ReferenceElement, ::testing::Range(0, kempe::num_element_types),
                         [](const auto& p) { return std::string(kempe::element_infos[p.param].name); });

}  // namespace
