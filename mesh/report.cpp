#include "mesh/report.hpp"

#include <algorithm>
#include <numeric>

namespace kempe {

MeshSummary summarize(const Mesh& m) {
  MeshSummary s;
  s.source = m.source;
  s.origin = m.origin;
  s.dim = m.dim;
  s.space_dim = m.space_dim;
  s.elements = m.num_elements();
  s.nodes = m.num_nodes();
  s.faces = m.num_faces();
  s.boundary_faces = m.num_boundary_faces();
  s.interior_faces = s.faces - s.boundary_faces;
  std::array<index_t, num_element_types> per_type{};
  for (ElementType t : m.element_type) ++per_type[static_cast<int>(t)];
  for (int t = 0; t < num_element_types; ++t)
    if (per_type[t] > 0) s.element_types.emplace_back(std::string(element_infos[t].name), per_type[t]);
  std::vector<index_t> per_tag(m.boundary_names.size(), 0);
  for (std::int32_t b : m.face_boundary)
    if (b != no_boundary) ++per_tag[b];
  for (std::size_t b = 0; b < per_tag.size(); ++b) s.boundary_by_tag.emplace_back(m.boundary_names[b], per_tag[b]);
  s.max_faces_per_element = m.max_faces_per_element();
  s.surface = m.dim == 2;
  // For a mesh of polygons the faces are its edges: chi = V - E + F (2 - 2g for a closed orientable surface).
  if (s.surface) s.euler_characteristic = std::int64_t(s.nodes) - s.faces + s.elements;
  if (!m.volume.empty()) {
    const auto [lo, hi] = std::minmax_element(m.volume.begin(), m.volume.end());
    s.min_volume = *lo;
    s.max_volume = *hi;
    s.total_volume = std::accumulate(m.volume.begin(), m.volume.end(), 0.0);
  }
  s.report = m.report;
  return s;
}

}  // namespace kempe
