// Hand-made raw meshes for the unit tests.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace kempe::test {

struct P {
  double x, y, z = 0;
};

inline RawMesh make_raw(int dim, std::initializer_list<P> nodes) {
  RawMesh raw;
  raw.source = "handmade.msh";
  raw.dim = dim;
  std::int64_t tag = 1;
  for (const P& p : nodes) {
    raw.x.push_back(p.x);
    raw.y.push_back(p.y);
    raw.z.push_back(p.z);
    raw.node_tag.push_back(tag++);
  }
  return raw;
}

inline void add(RawMesh& raw, ElementType type, std::initializer_list<index_t> vertices) {
  raw.add_element(type, std::data(vertices), static_cast<std::int64_t>(raw.element_type.size() + 1));
}

inline void mark(RawMesh& raw, const std::string& group, std::initializer_list<index_t> vertices) {
  std::int32_t g = -1;
  for (std::size_t i = 0; i < raw.group_names.size(); ++i)
    if (raw.group_names[i] == group) g = static_cast<std::int32_t>(i);
  if (g < 0) {
    g = static_cast<std::int32_t>(raw.group_names.size());
    raw.group_names.push_back(group);
  }
  raw.add_marker(std::data(vertices), static_cast<int>(vertices.size()), g, 1000 + static_cast<std::int64_t>(raw.marker_group.size()));
}

/// Nodes (i, j) of a 2 x (n + 1) strip: node 2 i + j at (i, j).
inline void add_strip_nodes(RawMesh& raw, int n) {
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= 1; ++j) {
      raw.x.push_back(i);
      raw.y.push_back(j);
      raw.z.push_back(0);
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
}

/// A hexahedron with a pyramid on top and a tetrahedron below, boundary group "top" on one pyramid face.
inline RawMesh mixed_3d_raw() {
  RawMesh raw = make_raw(3, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1},
                             {0.5, 0.5, 1.5}, {0.3, 0.1, -0.7}});
  add(raw, ElementType::hexahedron, {0, 1, 2, 3, 4, 5, 6, 7});
  add(raw, ElementType::pyramid, {4, 5, 6, 7, 8});
  add(raw, ElementType::tetrahedron, {0, 1, 9, 3});
  mark(raw, "top", {4, 5, 8});
  return raw;
}

}  // namespace kempe::test
