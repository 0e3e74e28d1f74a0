// Structured meshes built in code (see generators.hpp).
#include "mesh/generators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "mesh/periodic.hpp"

namespace kempe {

RawMesh rectangle_grid(int nx, int ny, bool triangles) {
  RawMesh raw;
  raw.source = triangles ? "triangle-grid" : "quad-grid";
  raw.dim = 2;
  auto node = [nx](int i, int j) { return static_cast<index_t>(j * (nx + 1) + i); };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      // A small deterministic shear keeps the mesh unstructured-looking without changing its topology.
      raw.x.push_back(i + 0.1 * ((i * 7 + j * 3) % 5) / 5.0 * (i > 0 && i < nx));
      raw.y.push_back(j);
      raw.z.push_back(0);
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
  std::int64_t tag = 1;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
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

RawMesh square_grid(int n, bool triangles) { return rectangle_grid(n, n, triangles); }


RawMesh cube_grid(int n, CellSplit split) {
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

RawMesh icosphere(int levels) {
  RawMesh raw;
  raw.source = "icosphere";
  raw.dim = 2;  // the elements' dimension: a surface, with 3D coordinates
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<std::array<double, 3>> p = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                          {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<index_t, 3>> tri = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                             {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                             {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                             {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<index_t, index_t>, index_t> midpoint;
    auto mid = [&](index_t a, index_t b) {
      const auto key = std::minmax(a, b);
      if (auto it = midpoint.find(key); it != midpoint.end()) return it->second;
      p.push_back({(p[a][0] + p[b][0]) / 2, (p[a][1] + p[b][1]) / 2, (p[a][2] + p[b][2]) / 2});
      return midpoint[key] = static_cast<index_t>(p.size() - 1);
    };
    std::vector<std::array<index_t, 3>> finer;
    for (const auto& [a, b, c] : tri) {
      const index_t ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
      finer.insert(finer.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
    }
    tri.swap(finer);
  }
  for (const auto& q : p) {
    const double r = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    raw.x.push_back(q[0] / r);
    raw.y.push_back(q[1] / r);
    raw.z.push_back(q[2] / r);
    raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
  }
  std::int64_t tag = 1;
  for (const auto& t3 : tri) raw.add_element(ElementType::triangle, t3.data(), tag++);
  return raw;
}

RawMesh torus_grid(int n, int m) {
  RawMesh raw;
  raw.source = "torus grid";
  raw.dim = 2;
  const double pi = std::acos(-1.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const double u = 2 * pi * i / n, v = 2 * pi * j / m;
      raw.x.push_back((2 + std::cos(v)) * std::cos(u));
      raw.y.push_back((2 + std::cos(v)) * std::sin(u));
      raw.z.push_back(std::sin(v));
      raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    }
  auto node = [&](int i, int j) { return static_cast<index_t>(((i + n) % n) * m + (j + m) % m); };
  std::int64_t tag = 1;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const index_t a = node(i, j), b = node(i + 1, j), c = node(i + 1, j + 1), d = node(i, j + 1);
      const std::array<index_t, 3> t1 = (i + j) % 2 ? std::array<index_t, 3>{a, b, c} : std::array<index_t, 3>{a, b, d};
      const std::array<index_t, 3> t2 = (i + j) % 2 ? std::array<index_t, 3>{a, c, d} : std::array<index_t, 3>{b, c, d};
      raw.add_element(ElementType::triangle, t1.data(), tag++);
      raw.add_element(ElementType::triangle, t2.data(), tag++);
    }
  return raw;
}

RawMesh split_into_quads(const RawMesh& tri) {
  RawMesh raw;
  raw.source = "quads-from-triangles";
  raw.dim = 2;
  raw.x = tri.x;
  raw.y = tri.y;
  raw.z = tri.z;
  raw.node_tag = tri.node_tag;
  auto add_node = [&](double x, double y) {
    raw.x.push_back(x);
    raw.y.push_back(y);
    raw.z.push_back(0);
    raw.node_tag.push_back(static_cast<std::int64_t>(raw.x.size()));
    return static_cast<index_t>(raw.x.size() - 1);
  };
  std::map<std::pair<index_t, index_t>, index_t> midpoint;
  auto mid = [&](index_t a, index_t b) {
    const auto key = std::minmax(a, b);
    if (auto it = midpoint.find(key); it != midpoint.end()) return it->second;
    return midpoint[key] = add_node((raw.x[a] + raw.x[b]) / 2, (raw.y[a] + raw.y[b]) / 2);
  };
  std::int64_t tag = 1;
  for (index_t e = 0; e < tri.num_elements(); ++e) {
    const index_t* v = &tri.element_vertices[tri.element_vertex_begin[e]];
    const index_t center = add_node((raw.x[v[0]] + raw.x[v[1]] + raw.x[v[2]]) / 3, (raw.y[v[0]] + raw.y[v[1]] + raw.y[v[2]]) / 3);
    for (int k = 0; k < 3; ++k) {
      const index_t a = v[k], b = v[(k + 1) % 3], c = v[(k + 2) % 3];
      const index_t q[4] = {a, mid(a, b), center, mid(c, a)};
      raw.add_element(ElementType::quadrilateral, q, tag++);
    }
  }
  raw.group_names = tri.group_names;
  return raw;
}

Mesh grid_mesh(int n, double size, double distortion, std::uint64_t seed) {
  RawMesh raw = square_grid(n, true);
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_real_distribution<double> shift(-distortion, distortion);
  for (index_t v = 0; v < raw.num_nodes(); ++v) {
    const bool interior = raw.x[v] > 0 && raw.x[v] < n && raw.y[v] > 0 && raw.y[v] < n;
    double x = std::round(raw.x[v]) / n, y = raw.y[v] / n;  // the unsheared grid, on [0, 1]^2
    if (distortion > 0) {
      if (interior) {  // sides stay straight and their nodes equally spaced, so opposite sides match
        x = raw.x[v] / n + shift(rng) / n;
        y += shift(rng) / n;
      }
    } else {
      const double a = -distortion / 8;
      const double bend = a * std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y);
      x += bend;
      y += bend * std::cos(std::numbers::pi * x);
    }
    raw.x[v] = x * size;
    raw.y[v] = y * size;
  }
  return build_mesh(raw);
}

Mesh periodic_grid_mesh(int n, double size, double distortion) {
  Mesh mesh = grid_mesh(n, size, distortion, 5);
  mesh.boundary_names = {"bottom", "top", "left", "right"};
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (mesh.face_right[f] == no_element)
      mesh.face_boundary[f] = mesh.normal_y[f] < -0.5 ? 0 : mesh.normal_y[f] > 0.5 ? 1 : mesh.normal_x[f] < 0 ? 2 : 3;
  make_periodic(mesh, "left", "right", {size, 0, 0});
  make_periodic(mesh, "bottom", "top", {0, size, 0});
  return mesh;
}

Mesh double_mach_mesh(int ny, unsigned shuffle_seed) {
  RawMesh raw = rectangle_grid(4 * ny, ny, true);
  for (std::size_t v = 0; v < raw.x.size(); ++v) {
    raw.x[v] = std::round(raw.x[v]) / ny;
    raw.y[v] /= ny;
  }
  if (shuffle_seed != 0) {
    std::vector<index_t> order(raw.num_elements());
    for (index_t e = 0; e < raw.num_elements(); ++e) order[e] = e;
    std::mt19937 rng(shuffle_seed);
    std::shuffle(order.begin(), order.end(), rng);
    RawMesh shuffled = raw;
    shuffled.element_type.clear();
    shuffled.element_vertex_begin.assign(1, 0);
    shuffled.element_vertices.clear();
    shuffled.element_tag.clear();
    for (const index_t e : order)
      shuffled.add_element(raw.element_type[e], &raw.element_vertices[raw.element_vertex_begin[e]], raw.element_tag[e]);
    raw = std::move(shuffled);
  }
  raw.source = "double Mach grid";
  Mesh mesh = build_mesh(raw);
  mesh.boundary_names = {"shock", "wall", "outflow"};
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    if (mesh.face_right[f] != no_element) continue;
    const index_t l = mesh.face_left[f];
    const index_t* v = &mesh.element_vertices[mesh.element_vertex_begin[l]];
    const int j = mesh.face_left_local[f];
    const double mid_x = (mesh.x[v[j]] + mesh.x[v[(j + 1) % 3]]) / 2;
    const bool bottom = mesh.normal_y[f] < -0.5, right = mesh.normal_x[f] > 0.5;
    mesh.face_boundary[f] = right ? 2 : bottom && mid_x > 1.0 / 6 ? 1 : 0;
  }
  return mesh;
}

}  // namespace kempe
