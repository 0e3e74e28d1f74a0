// Adaptive refinement on the GPU (adapt/forest.hpp): the same seeded cycles on the CPU and on the CUDA backend
// give the same meshes and colors bit for bit (nodes, elements, tree, faces), on planar, periodic and
// closed-surface meshes; the GPU round trip gives the start mesh back. Skipped without a device.
#include <gtest/gtest.h>

#include <string>

#include "adapt/forest.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/generators.hpp"
#include "skip.hpp"

namespace kempe {
namespace {

Mesh prepared(Mesh mesh) {
  FaceColoring coloring = color_faces(mesh, ColoringOptions{});
  apply_ordering(mesh, coloring, find_ordering("color_renumber").compute(mesh, coloring));
  return mesh;
}

void expect_same(const adapt::LeafMesh& cpu, const adapt::LeafMesh& gpu, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(cpu.x, gpu.x);
  EXPECT_EQ(cpu.y, gpu.y);
  EXPECT_EQ(cpu.z, gpu.z);
  EXPECT_EQ(cpu.element_vertices, gpu.element_vertices);
  EXPECT_EQ(cpu.element_edges, gpu.element_edges);
  EXPECT_EQ(cpu.element_sides, gpu.element_sides);
  EXPECT_EQ(cpu.level, gpu.level);
  EXPECT_EQ(cpu.path, gpu.path);
  EXPECT_EQ(cpu.root, gpu.root);
  EXPECT_EQ(cpu.face_left, gpu.face_left);
  EXPECT_EQ(cpu.face_right, gpu.face_right);
  EXPECT_EQ(cpu.face_left_local, gpu.face_left_local);
  EXPECT_EQ(cpu.face_right_local, gpu.face_right_local);
  EXPECT_EQ(cpu.face_left_half, gpu.face_left_half);
  EXPECT_EQ(cpu.face_right_half, gpu.face_right_half);
  EXPECT_EQ(cpu.face_color, gpu.face_color);
  EXPECT_EQ(cpu.face_boundary, gpu.face_boundary);
  EXPECT_EQ(cpu.face_vertices, gpu.face_vertices);
  EXPECT_EQ(cpu.color_begin, gpu.color_begin);
}

TEST(GpuAdapt, SameMeshesAndColorsAsTheCpu) {
  SKIP_WITHOUT_GPU();
  const Mesh meshes[] = {prepared(grid_mesh(24, 1.0, 0.2, 3)), prepared(periodic_grid_mesh(16, 1.0, 0.2)),
                         prepared(build_mesh(icosphere(3))), prepared(double_mach_mesh(24))};
  for (const Mesh& mesh : meshes) {
    adapt::TriangleForest cpu(mesh, Backend::cpu, 4), gpu(mesh, Backend::cuda, 4);
    expect_same(cpu.to_host(), gpu.to_host(), mesh.source + " start");
    for (int c = 0; c < 8; ++c) {
      cpu.flag_random(0.25, 0.2, 17, std::uint64_t(c));
      gpu.flag_random(0.25, 0.2, 17, std::uint64_t(c));
      const adapt::AdaptReport rc = cpu.adapt(), rg = gpu.adapt();
      ASSERT_TRUE(rg.valid()) << mesh.source << " cycle " << c << ": " << rg.failures << " failures";
      EXPECT_EQ(rc.elements, rg.elements);
      EXPECT_EQ(rc.hanging_faces, rg.hanging_faces);
      EXPECT_EQ(rc.balance_passes, rg.balance_passes);
      expect_same(cpu.to_host(), gpu.to_host(), mesh.source + " cycle " + std::to_string(c));
    }
  }
}

TEST(GpuAdapt, RoundTripGivesTheStartMesh) {
  SKIP_WITHOUT_GPU();
  const Mesh mesh = prepared(periodic_grid_mesh(16, 1.0, 0.2));
  adapt::TriangleForest gpu(mesh, Backend::cuda, 3);
  for (int l = 0; l < 3; ++l) {
    gpu.flag_all(true, false);
    ASSERT_TRUE(gpu.adapt().valid());
  }
  for (int l = 0; l < 3; ++l) {
    gpu.flag_all(false, true);
    ASSERT_TRUE(gpu.adapt().valid());
  }
  EXPECT_EQ(gpu.difference_from(mesh), "");
}

}  // namespace
}  // namespace kempe
