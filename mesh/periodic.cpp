// Periodic boundaries (see periodic.hpp).
#include "mesh/periodic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "mesh/element.hpp"

namespace kempe {
namespace {

std::int32_t group_index(const Mesh& mesh, std::string_view name) {
  for (std::size_t i = 0; i < mesh.boundary_names.size(); ++i)
    if (mesh.boundary_names[i] == name) return static_cast<std::int32_t>(i);
  std::string known;
  for (const auto& n : mesh.boundary_names) known += (known.empty() ? "" : ", ") + n;
  throw MeshError(mesh.source + ": no boundary group '" + std::string(name) + "' to make periodic; groups: " + known);
}

std::array<double, 3> centroid(const Mesh& mesh, index_t f) {
  std::array<double, 3> c{0, 0, 0};
  const int n = mesh.face_num_vertices[f];
  for (int k = 0; k < n; ++k) {
    const index_t v = mesh.face_vertices[std::size_t(f) * max_face_vertices + k];
    c[0] += mesh.x[v] / n;
    c[1] += mesh.y[v] / n;
    c[2] += mesh.z[v] / n;
  }
  return c;
}

}  // namespace

void make_periodic(Mesh& mesh, std::string_view group_a, std::string_view group_b, const std::array<double, 3>& shift) {
  if (!mesh.color_begin.empty() || !mesh.face_color.empty())
    throw MeshError(mesh.source + ": make the boundaries periodic before coloring the faces");
  const std::int32_t ia = group_index(mesh, group_a), ib = group_index(mesh, group_b);
  std::vector<index_t> faces_a, faces_b;
  double smallest = 1e300;
  for (index_t f = 0; f < mesh.num_faces(); ++f) {
    if (mesh.face_boundary[f] == ia) faces_a.push_back(f);
    if (mesh.face_boundary[f] == ib) faces_b.push_back(f);
    if (mesh.face_boundary[f] == ia || mesh.face_boundary[f] == ib) smallest = std::min(smallest, mesh.face_area[f]);
  }
  if (faces_a.empty() || faces_a.size() != faces_b.size())
    throw MeshError(mesh.source + ": periodic groups '" + std::string(group_a) + "' (" + std::to_string(faces_a.size()) +
                    " faces) and '" + std::string(group_b) + "' (" + std::to_string(faces_b.size()) +
                    " faces) must be non-empty and of the same size");
  // Match centroids on a grid of cells far smaller than any face: a face's partner lies in its cell or a
  // neighbouring one (rounding of the shifted coordinates), and nowhere else.
  const double dim = mesh.dim == 3 ? std::sqrt(smallest) : smallest;  // a length
  const double cell = 1e-3 * dim, tolerance = 1e-6 * dim;
  auto key = [&](double x, double y, double z) {
    const auto q = [&](double v) { return static_cast<std::int64_t>(std::floor(v / cell)) & 0x1fffff; };
    return (q(x) << 42) | (q(y) << 21) | q(z);
  };
  std::unordered_map<std::int64_t, std::vector<index_t>> cells;
  for (const index_t f : faces_b) {
    const auto c = centroid(mesh, f);
    cells[key(c[0], c[1], c[2])].push_back(f);
  }
  std::vector<index_t> partner(mesh.num_faces(), no_element);
  for (const index_t f : faces_a) {
    const auto c = centroid(mesh, f);
    const double x = c[0] + shift[0], y = c[1] + shift[1], z = c[2] + shift[2];
    index_t found = no_element;
    for (int dx = -1; dx <= 1 && found == no_element; ++dx)
      for (int dy = -1; dy <= 1 && found == no_element; ++dy)
        for (int dz = -1; dz <= 1 && found == no_element; ++dz) {
          const auto it = cells.find(key(x + dx * cell, y + dy * cell, z + dz * cell));
          if (it == cells.end()) continue;
          for (const index_t g : it->second) {
            const auto d = centroid(mesh, g);
            if (std::abs(d[0] - x) + std::abs(d[1] - y) + std::abs(d[2] - z) < tolerance && partner[g] == no_element) {
              found = g;
              break;
            }
          }
        }
    if (found == no_element) {
      char where[160];
      std::snprintf(where, sizeof where, "(%.9g, %.9g, %.9g)", c[0], c[1], c[2]);
      throw MeshError(mesh.source + ": face of group '" + std::string(group_a) + "' at " + where +
                      " has no partner in group '" + std::string(group_b) + "' at that position plus the shift");
    }
    partner[found] = f;
    partner[f] = found;
  }
  // Each pair becomes face a; face b goes away. The lower-numbered element is the left one.
  for (const index_t fa : faces_a) {
    const index_t fb = partner[fa];
    const index_t ea = mesh.face_left[fa], eb = mesh.face_left[fb];
    const std::int8_t la = mesh.face_left_local[fa], lb = mesh.face_left_local[fb];
    if (eb < ea) {
      mesh.face_left[fa] = eb;
      mesh.face_left_local[fa] = lb;
      mesh.face_right[fa] = ea;
      mesh.face_right_local[fa] = la;
      mesh.normal_x[fa] = mesh.normal_x[fb];
      mesh.normal_y[fa] = mesh.normal_y[fb];
      mesh.normal_z[fa] = mesh.normal_z[fb];
      std::copy_n(&mesh.face_vertices[std::size_t(fb) * max_face_vertices], max_face_vertices,
                  &mesh.face_vertices[std::size_t(fa) * max_face_vertices]);
    } else {
      mesh.face_right[fa] = eb;
      mesh.face_right_local[fa] = lb;
    }
    mesh.face_boundary[fa] = no_boundary;
    mesh.element_faces[mesh.element_face_begin[eb] + lb] = fa;
  }
  // Renumber the faces without the b sides.
  std::vector<std::uint8_t> removed(mesh.num_faces(), 0);
  for (const index_t fb : faces_b) removed[fb] = 1;
  std::vector<index_t> new_index(mesh.num_faces(), no_element);
  index_t kept = 0;
  for (index_t f = 0; f < mesh.num_faces(); ++f)
    if (!removed[f]) new_index[f] = kept++;
  auto compact = [&](auto& array, std::size_t width) {
    std::size_t out = 0;
    for (std::size_t f = 0; f < removed.size(); ++f) {
      if (removed[f]) continue;
      for (std::size_t k = 0; k < width; ++k) array[out * width + k] = array[f * width + k];
      ++out;
    }
    array.resize(out * width);
  };
  mesh.for_each_array([&](const MeshArray& a, auto& array) {
    if (a.rows == MeshRows::faces && !array.empty()) compact(array, std::size_t(a.width));
  });
  for (index_t& f : mesh.element_faces) f = new_index[f];
}

}  // namespace kempe
