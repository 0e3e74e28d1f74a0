// Face coloring: validity, minimum color counts per element type, fallback on snarks, balance, determinism.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "coloring/coloring.hpp"
#include "mesh_fixtures.hpp"

namespace kempe {
namespace {

TEST(Coloring, TwoTriangles) {
  RawMesh raw = test::make_raw(2, {{0, 0}, {1, 0}, {1, 1}, {0, 1}});
  test::add(raw, ElementType::triangle, {0, 1, 2});
  test::add(raw, ElementType::triangle, {0, 2, 3});
  const Mesh m = build_mesh(raw);
  for (const auto& a : coloring_algorithms()) {
    const FaceColoring c = color_faces(m, {std::string(a.name), 1});
    EXPECT_EQ(check_coloring(m, c.color, c.num_colors), "") << a.name;
    EXPECT_EQ(c.num_colors, 3) << a.name;
  }
}

}  // namespace
}  // namespace kempe
