// Structured meshes of every element type, built in code (no Gmsh), for coloring and ordering tests.
#pragma once

#include <cstdint>

#include "mesh/mesh.hpp"

namespace kempe::test {

/// n x n unit squares on [0, n]^2, each split into two triangles (or kept as a quadrilateral). Groups: "wall".
inline RawMesh square_grid(int n, bool triangles) {
  RawMesh raw;
  raw.source = triangles ? "triangle-grid" : "quad-grid";
  raw.dim = 2;
  auto node = [n](int i, int j) { return static_cast<index_t>(j * (n + 1) + i); };
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      // A small deterministic shear keeps the mesh unstructured-looking without changing its topology.
      raw.x.push_back(i + 0.1 * ((i * 7 + j * 3) % 5) / 5.0 * (i > 0 && i < n));
      raw.y.push_back(j);
      raw.z.push_back(0);
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
  std::int64_t tag = 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const index_t a = node(i, j), b = node(i + 1, j), c = node(i + 1, j + 1), d = node(i, j + 1);
      if (triangles) {
        const index_t t1[3] = {a, b, c}, t2[3] = {a, c, d};
        raw.add_element(ElementType::triangle, t1, tag++);
        raw.add_element(ElementType::triangle, t2, tag++);
      } else {
        const index_t q[4] = {a, b, c, d};
        raw.add_element(ElementType::quadrilateral, q, tag++);
      }
    }
  raw.group_names.push_back("wall");
  return raw;
}

enum class CellSplit { hexahedra, prisms, tetrahedra };

/// n^3 unit cubes on [0, n]^3 as hexahedra, 2 prisms each, or 6 tetrahedra each (Kuhn's split along the
/// main diagonal, conforming across cubes).
inline RawMesh cube_grid(int n, CellSplit split) {
  RawMesh raw;
  raw.source = "cube-grid";
  raw.dim = 3;
  auto node = [n](int i, int j, int k) { return static_cast<index_t>((k * (n + 1) + j) * (n + 1) + i); };
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        raw.x.push_back(i);
        raw.y.push_back(j);
        raw.z.push_back(k);
        raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
      }
  std::int64_t tag = 1;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const index_t v[8] = {node(i, j, k),         node(i + 1, j, k),     node(i + 1, j + 1, k),
                              node(i, j + 1, k),     node(i, j, k + 1),     node(i + 1, j, k + 1),
                              node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)};
        if (split == CellSplit::hexahedra) {
          raw.add_element(ElementType::hexahedron, v, tag++);
        } else if (split == CellSplit::prisms) {
          const index_t p1[6] = {v[0], v[1], v[2], v[4], v[5], v[6]}, p2[6] = {v[0], v[2], v[3], v[4], v[6], v[7]};
          raw.add_element(ElementType::prism, p1, tag++);
          raw.add_element(ElementType::prism, p2, tag++);
        } else {
          // Kuhn: the six paths from v0 to v6 along the cube's edges.
          const int paths[6][2] = {{1, 2}, {1, 5}, {3, 2}, {3, 7}, {4, 5}, {4, 7}};
          for (const auto& p : paths) {
            const index_t t[4] = {v[0], v[p[0]], v[p[1]], v[6]};
            raw.add_element(ElementType::tetrahedron, t, tag++);
          }
        }
      }
  return raw;
}

}  // namespace kempe::test
