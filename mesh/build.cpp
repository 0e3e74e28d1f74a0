// From a raw element list to a mesh with faces and geometry: validation, orientation, face matching by
// sorting face keys (no maps of vectors: a 1M-triangle mesh builds in well under a second), boundary tags.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <parallel/algorithm>
#endif

#include "mesh/geometry.hpp"
#include "mesh/mesh.hpp"

namespace kempe {
namespace {

using geom::Vec3;

template <class It, class Less>
void parallel_sort(It first, It last, Less less) {
#if defined(_OPENMP)
  __gnu_parallel::sort(first, last, less);
#else
  std::sort(first, last, less);
#endif
}

/// Key of a face (or element) independent of vertex order: its sorted vertices, padded with -1 at the end
/// so that a triangle never equals a quadrilateral. Packed in two 64-bit words for fast comparison.
struct FaceKey {
  std::uint64_t hi = 0, lo = 0;
  friend bool operator==(const FaceKey&, const FaceKey&) = default;
  friend bool operator<(const FaceKey& a, const FaceKey& b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
};

FaceKey make_face_key(const index_t* vertices, int n) {
  std::array<std::uint32_t, 4> s{~0u, ~0u, ~0u, ~0u};
  for (int i = 0; i < n && i < 4; ++i) {  // insertion sort of at most four vertices
    std::uint32_t v = static_cast<std::uint32_t>(vertices[i]);
    int j = i;
    for (; j > 0 && s[j - 1] > v; --j) s[j] = s[j - 1];
    s[j] = v;
  }
  return {(std::uint64_t(s[0]) << 32) | s[1], (std::uint64_t(s[2]) << 32) | s[3]};
}

/// One local face of one element, before faces are matched.
struct FaceEntry {
  FaceKey key;
  index_t element;
  std::int8_t local;
};

Vec3 node(const RawMesh& m, index_t i) { return {m.x[i], m.y[i], m.z[i]}; }

std::string describe_element(const RawMesh& m, index_t e) {
  std::ostringstream s;
  s << element_info(m.element_type[e]).name << " " << m.element_tag[e] << " (nodes";
  for (index_t k = m.element_vertex_begin[e]; k < m.element_vertex_begin[e + 1]; ++k)
    s << " " << m.node_tag[m.element_vertices[k]];
  s << ")";
  return s.str();
}

/// Measure and first moment of one element. The measure is the signed area in the xy plane for planar 2D
/// meshes, the unsigned area for surfaces in 3D and the signed volume (positive when the faces point outward)
/// for 3D elements. Polygons are split into a fan of triangles around their vertex mean; polyhedra into
/// tetrahedra from their vertex mean to a fan of each face around the face's vertex mean, which is exact for
/// planar faces and consistent between neighbours for warped ones.
struct ElementMoments {
  double measure = 0;
  Vec3 moment{};       ///< integral of the position: centroid = moment / measure
  Vec3 vector_area{};  ///< 2D elements: integral of the unit normal (the element's plane)
};

ElementMoments element_moments(ElementType type, const index_t* v, const double* x, const double* y,
                               const double* z, int space_dim) {
  const ElementInfo& info = element_info(type);
  auto node = [&](index_t i) { return Vec3{x[i], y[i], z[i]}; };
  Vec3 p{};
  for (int i = 0; i < info.num_vertices; ++i) p = p + node(v[i]);
  p = (1.0 / info.num_vertices) * p;
  ElementMoments r;
  if (info.dim == 2) {
    for (int i = 0; i < info.num_vertices; ++i) {
      const Vec3 a = node(v[i]), b = node(v[(i + 1) % info.num_vertices]);
      const Vec3 s = 0.5 * geom::cross(a - p, b - p);
      const double area = space_dim == 2 ? s.z : geom::norm(s);
      r.vector_area = r.vector_area + s;
      r.measure += area;
      r.moment = r.moment + (area / 3.0) * (p + a + b);
    }
    return r;
  }
  for (int f = 0; f < info.num_faces; ++f) {
    const FaceDef& fd = info.faces[f];
    Vec3 c{};
    for (int i = 0; i < fd.num_vertices; ++i) c = c + node(v[fd.vertices[i]]);
    c = (1.0 / fd.num_vertices) * c;
    for (int i = 0; i < fd.num_vertices; ++i) {
      const Vec3 a = node(v[fd.vertices[i]]), b = node(v[fd.vertices[(i + 1) % fd.num_vertices]]);
      const double tet = geom::dot(geom::cross(b - a, c - a), a - p) / 6.0;
      r.measure += tet;
      r.moment = r.moment + (tet / 4.0) * (p + a + b + c);
    }
  }
  return r;
}

double signed_measure(const RawMesh& m, index_t e, int space_dim) {
  return element_moments(m.element_type[e], &m.element_vertices[m.element_vertex_begin[e]], m.x.data(), m.y.data(),
                         m.z.data(), space_dim)
      .measure;
}

double element_diameter(const RawMesh& m, index_t e) {
  double d = 0;
  for (index_t i = m.element_vertex_begin[e]; i < m.element_vertex_begin[e + 1]; ++i)
    for (index_t j = i + 1; j < m.element_vertex_begin[e + 1]; ++j)
      d = std::max(d, geom::norm(node(m, m.element_vertices[i]) - node(m, m.element_vertices[j])));
  return d;
}

void mirror_element(RawMesh& m, index_t e) {
  const ElementInfo& info = element_info(m.element_type[e]);
  index_t* v = &m.element_vertices[m.element_vertex_begin[e]];
  std::array<index_t, max_element_vertices> old{};
  std::copy(v, v + info.num_vertices, old.begin());
  for (int i = 0; i < info.num_vertices; ++i) v[i] = old[info.mirror[i]];
}

void check_indices(const RawMesh& m) {
  const index_t n = m.num_elements();
  if (m.element_vertex_begin.size() != std::size_t(n) + 1 || m.element_tag.size() != std::size_t(n))
    throw MeshError(m.source + ": inconsistent element arrays (reader bug)");
  for (index_t e = 0; e < n; ++e) {
    const ElementInfo& info = element_info(m.element_type[e]);
    if (m.element_vertex_begin[e + 1] - m.element_vertex_begin[e] != info.num_vertices)
      throw MeshError(m.source + ": element " + std::to_string(m.element_tag[e]) + " has the wrong vertex count");
    if (info.dim != m.dim)
      throw MeshError(m.source + ": element " + std::to_string(m.element_tag[e]) + " (" + std::string(info.name) +
                      ") is not of the domain dimension " + std::to_string(m.dim));
    for (index_t k = m.element_vertex_begin[e]; k < m.element_vertex_begin[e + 1]; ++k)
      if (m.element_vertices[k] < 0 || m.element_vertices[k] >= m.num_nodes())
        throw MeshError(m.source + ": element " + std::to_string(m.element_tag[e]) +
                        " references a node that does not exist (dangling node reference, index " +
                        std::to_string(m.element_vertices[k]) + ")");
  }
  for (std::size_t k = 0; k < m.marker_vertices.size(); ++k)
    if (m.marker_vertices[k] < 0 || m.marker_vertices[k] >= m.num_nodes())
      throw MeshError(m.source + ": a boundary element references a node that does not exist (dangling node reference)");
}

/// Drops nodes that no element uses, so that node counts (and the Euler characteristic) describe the mesh.
index_t compact_nodes(RawMesh& m) {
  std::vector<index_t> new_index(m.num_nodes(), -1);
  for (index_t v : m.element_vertices) new_index[v] = 0;
  index_t count = 0;
  for (index_t i = 0; i < m.num_nodes(); ++i)
    if (new_index[i] == 0) {
      new_index[i] = count;
      m.x[count] = m.x[i];
      m.y[count] = m.y[i];
      m.z[count] = m.z[i];
      m.node_tag[count] = m.node_tag[i];
      ++count;
    }
  const index_t unused = m.num_nodes() - count;
  m.x.resize(count);
  m.y.resize(count);
  m.z.resize(count);
  m.node_tag.resize(count);
  for (index_t& v : m.element_vertices) v = new_index[v];
  // Markers on nodes no element uses cannot be faces of the mesh: map them to an impossible node.
  for (index_t& v : m.marker_vertices) v = new_index[v] < 0 ? std::numeric_limits<index_t>::max() : new_index[v];
  return unused;
}

int detect_space_dim(const RawMesh& m) {
  if (m.dim == 3) return 3;
  const auto [zmin, zmax] = std::minmax_element(m.z.begin(), m.z.end());
  double extent = 0;
  for (const auto* c : {&m.x, &m.y, &m.z}) {
    const auto [lo, hi] = std::minmax_element(c->begin(), c->end());
    extent = std::max(extent, *hi - *lo);
  }
  return (*zmax - *zmin) <= 1e-12 * extent ? 2 : 3;
}

void check_duplicates(const RawMesh& m) {
  const index_t n = m.num_elements();
  std::vector<std::array<index_t, max_element_vertices>> keys(n);
  for (index_t e = 0; e < n; ++e) {
    keys[e].fill(-1);
    std::copy(&m.element_vertices[m.element_vertex_begin[e]], &m.element_vertices[m.element_vertex_begin[e + 1]],
              keys[e].begin());
    std::sort(keys[e].begin(), keys[e].begin() + (m.element_vertex_begin[e + 1] - m.element_vertex_begin[e]));
  }
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  parallel_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return keys[a] < keys[b] || (keys[a] == keys[b] && a < b); });
  for (index_t i = 1; i < n; ++i)
    if (keys[order[i]] == keys[order[i - 1]])
      throw MeshError(m.source + ": duplicate elements: " + describe_element(m, order[i - 1]) + " and " +
                      describe_element(m, order[i]) + " have the same vertices");
}

void check_orientation(RawMesh& m, int space_dim, MeshReport& report) {
  const index_t n = m.num_elements();
  std::vector<char> flip(n, 0), zero(n, 0);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < n; ++e) {
    const double measure = signed_measure(m, e, space_dim);
    const double h = element_diameter(m, e);
    if (!(std::abs(measure) > 1e-12 * std::pow(h, m.dim))) zero[e] = 1;
    else if (measure < 0) flip[e] = 1;
  }
  for (index_t e = 0; e < n; ++e) {
    if (zero[e])
      throw MeshError(m.source + ": " + describe_element(m, e) + " has zero " + (m.dim == 2 ? "area" : "volume") +
                      " (degenerate element)");
    if (flip[e]) {
      mirror_element(m, e);
      ++report.flipped_elements;
    }
  }
}

std::vector<FaceEntry> face_entries(const RawMesh& m, std::vector<index_t>& face_begin) {
  const index_t n = m.num_elements();
  face_begin.assign(n + 1, 0);
  for (index_t e = 0; e < n; ++e) face_begin[e + 1] = face_begin[e] + element_info(m.element_type[e]).num_faces;
  std::vector<FaceEntry> entries(face_begin[n]);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < n; ++e) {
    const ElementInfo& info = element_info(m.element_type[e]);
    const index_t* v = &m.element_vertices[m.element_vertex_begin[e]];
    for (int f = 0; f < info.num_faces; ++f) {
      std::array<index_t, 4> fv{};
      for (int i = 0; i < info.faces[f].num_vertices; ++i) fv[i] = v[info.faces[f].vertices[i]];
      entries[face_begin[e] + f] = {make_face_key(fv.data(), info.faces[f].num_vertices), e, static_cast<std::int8_t>(f)};
    }
  }
  parallel_sort(entries.begin(), entries.end(), [](const FaceEntry& a, const FaceEntry& b) {
    if (!(a.key == b.key)) return a.key < b.key;
    return a.element < b.element || (a.element == b.element && a.local < b.local);
  });
  return entries;
}

/// Surfaces in 3D have no "positive" side: orient every connected piece consistently (each interior edge
/// run in opposite directions by its two triangles), flipping the minority so that the input orientation
/// wins. A non-orientable piece (a Moebius strip) is left as read, with a warning.
void orient_surface(RawMesh& m, MeshReport& report) {
  std::vector<index_t> face_begin;
  const std::vector<FaceEntry> entries = face_entries(m, face_begin);
  const index_t n = m.num_elements();
  // Neighbour through each local edge, and whether the two run the edge the same way.
  std::vector<index_t> neighbour(face_begin[n], no_element);
  std::vector<char> same_direction(face_begin[n], 0);
  auto direction = [&](const FaceEntry& en) {
    const ElementInfo& info = element_info(m.element_type[en.element]);
    const index_t* v = &m.element_vertices[m.element_vertex_begin[en.element]];
    return v[info.faces[en.local].vertices[0]] < v[info.faces[en.local].vertices[1]];
  };
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i + 1;
    while (j < entries.size() && entries[j].key == entries[i].key) ++j;
    if (j - i == 2) {  // an edge of two elements (non-manifold edges are reported when the faces are built)
      const FaceEntry &a = entries[i], &b = entries[i + 1];
      const bool same = direction(a) == direction(b);
      neighbour[face_begin[a.element] + a.local] = b.element;
      neighbour[face_begin[b.element] + b.local] = a.element;
      same_direction[face_begin[a.element] + a.local] = same;
      same_direction[face_begin[b.element] + b.local] = same;
    }
    i = j;
  }
  std::vector<signed char> flip(n, -1);
  std::vector<index_t> stack, component;
  index_t non_orientable = 0;
  for (index_t start = 0; start < n; ++start) {
    if (flip[start] >= 0) continue;
    flip[start] = 0;
    stack.assign(1, start);
    component.clear();
    bool orientable = true;
    while (!stack.empty()) {
      const index_t e = stack.back();
      stack.pop_back();
      component.push_back(e);
      for (index_t k = face_begin[e]; k < face_begin[e + 1]; ++k) {
        const index_t nb = neighbour[k];
        if (nb == no_element) continue;
        const signed char want = static_cast<signed char>(flip[e] ^ same_direction[k]);
        if (flip[nb] < 0) {
          flip[nb] = want;
          stack.push_back(nb);
        } else if (flip[nb] != want) {
          orientable = false;
        }
      }
    }
    const auto flips = std::count_if(component.begin(), component.end(), [&](index_t e) { return flip[e] == 1; });
    if (!orientable) {
      non_orientable += static_cast<index_t>(component.size());
      for (index_t e : component) flip[e] = 0;
    } else if (2 * flips > static_cast<std::ptrdiff_t>(component.size())) {
      for (index_t e : component) flip[e] = static_cast<signed char>(1 - flip[e]);
    }
  }
  for (index_t e = 0; e < n; ++e)
    if (flip[e] == 1) {
      mirror_element(m, e);
      ++report.flipped_elements;
    }
  if (non_orientable > 0)
    report.warnings.push_back(std::to_string(non_orientable) +
                              " surface elements belong to non-orientable pieces and keep the orientation they were read with");
}

}  // namespace

void RawMesh::add_element(ElementType type, const index_t* vertices, std::int64_t tag) {
  if (element_vertex_begin.empty()) element_vertex_begin.push_back(0);
  const int nv = element_info(type).num_vertices;
  element_type.push_back(type);
  element_vertices.insert(element_vertices.end(), vertices, vertices + nv);
  element_vertex_begin.push_back(static_cast<index_t>(element_vertices.size()));
  element_tag.push_back(tag);
}

void RawMesh::add_marker(const index_t* vertices, int num_vertices, std::int32_t group, std::int64_t tag) {
  if (marker_vertex_begin.empty()) marker_vertex_begin.push_back(0);
  marker_vertices.insert(marker_vertices.end(), vertices, vertices + num_vertices);
  marker_vertex_begin.push_back(static_cast<index_t>(marker_vertices.size()));
  marker_group.push_back(group);
  marker_tag.push_back(tag);
}

int Mesh::max_faces_per_element() const {
  int most = 0;
  for (index_t e = 0; e < num_elements(); ++e) most = std::max(most, element_num_faces(e));
  return most;
}

index_t Mesh::num_boundary_faces() const {
  return static_cast<index_t>(std::count(face_right.begin(), face_right.end(), no_element));
}

Mesh build_mesh(RawMesh raw) {
  if (raw.num_elements() == 0)
    throw MeshError(raw.source +
                    ": the mesh is empty: it has no triangles, quadrilaterals, tetrahedra, hexahedra, prisms or pyramids");
  if (raw.element_vertex_begin.empty()) raw.element_vertex_begin.push_back(0);
  if (raw.marker_vertex_begin.empty()) raw.marker_vertex_begin.push_back(0);
  check_indices(raw);

  Mesh mesh;
  mesh.source = raw.source;
  mesh.dim = raw.dim;
  mesh.report.warnings = raw.warnings;
  mesh.report.unused_nodes = compact_nodes(raw);
  mesh.space_dim = detect_space_dim(raw);

  check_orientation(raw, mesh.space_dim, mesh.report);
  check_duplicates(raw);
  if (mesh.dim == 2 && mesh.space_dim == 3) orient_surface(raw, mesh.report);

  // Match faces: equal keys are the same face. Group the sorted entries, then number the faces in order of
  // their first entry (element, local face), which is the order a reader would expect.
  std::vector<index_t> entry_begin;
  const std::vector<FaceEntry> entries = face_entries(raw, entry_begin);
  const index_t n = raw.num_elements();
  std::vector<index_t> first_of(entry_begin[n], -1);  // [element local faces] group start in `entries`
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i + 1;
    while (j < entries.size() && entries[j].key == entries[i].key) ++j;
    if (j - i > 2) {
      std::ostringstream s;
      s << raw.source << ": non-manifold face: the face with nodes";
      const ElementInfo& info = element_info(raw.element_type[entries[i].element]);
      const index_t* v = &raw.element_vertices[raw.element_vertex_begin[entries[i].element]];
      for (int k = 0; k < info.faces[entries[i].local].num_vertices; ++k)
        s << " " << raw.node_tag[v[info.faces[entries[i].local].vertices[k]]];
      s << " is shared by " << (j - i) << " elements (";
      for (std::size_t k = i; k < j; ++k) s << (k > i ? ", " : "") << raw.element_tag[entries[k].element];
      s << "); a face may belong to two elements at most";
      throw MeshError(s.str());
    }
    if (j - i == 2 && entries[i].element == entries[i + 1].element)
      throw MeshError(raw.source + ": " + describe_element(raw, entries[i].element) + " uses one face twice");
    first_of[entry_begin[entries[i].element] + entries[i].local] = static_cast<index_t>(i);
    i = j;
  }

  std::vector<index_t> face_of_group(entries.size(), -1);
  index_t num_faces = 0;
  for (index_t k = 0; k < entry_begin[n]; ++k)
    if (first_of[k] >= 0) face_of_group[first_of[k]] = num_faces++;

  mesh.face_left.assign(num_faces, no_element);
  mesh.face_right.assign(num_faces, no_element);
  mesh.face_left_local.assign(num_faces, -1);
  mesh.face_right_local.assign(num_faces, -1);
  mesh.face_num_vertices.assign(num_faces, 0);
  mesh.face_vertices.assign(std::size_t(num_faces) * max_face_vertices, -1);
  mesh.face_boundary.assign(num_faces, no_boundary);
  mesh.element_face_begin = entry_begin;
  mesh.element_faces.assign(entry_begin[n], -1);
  std::vector<FaceKey> face_key(num_faces);
  for (std::size_t i = 0; i < entries.size();) {
    const bool pair = i + 1 < entries.size() && entries[i + 1].key == entries[i].key;
    const index_t f = face_of_group[i];
    const FaceEntry& l = entries[i];
    face_key[f] = l.key;
    mesh.face_left[f] = l.element;
    mesh.face_left_local[f] = l.local;
    mesh.element_faces[entry_begin[l.element] + l.local] = f;
    const FaceDef& fd = element_info(raw.element_type[l.element]).faces[l.local];
    mesh.face_num_vertices[f] = static_cast<std::int8_t>(fd.num_vertices);
    for (int k = 0; k < fd.num_vertices; ++k)
      mesh.face_vertices[std::size_t(f) * max_face_vertices + k] =
          raw.element_vertices[raw.element_vertex_begin[l.element] + fd.vertices[k]];
    if (pair) {
      const FaceEntry& r = entries[i + 1];
      mesh.face_right[f] = r.element;
      mesh.face_right_local[f] = r.local;
      mesh.element_faces[entry_begin[r.element] + r.local] = f;
    }
    i += pair ? 2 : 1;
  }

  // Boundary tags: a marker element tags the boundary face with the same vertices.
  mesh.boundary_names = raw.group_names;
  {
    std::vector<std::pair<FaceKey, index_t>> boundary;
    for (index_t f = 0; f < num_faces; ++f)
      if (mesh.face_right[f] == no_element) boundary.emplace_back(face_key[f], f);
    std::sort(boundary.begin(), boundary.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<FaceKey> interior;
    for (index_t f = 0; f < num_faces; ++f)
      if (mesh.face_right[f] != no_element) interior.push_back(face_key[f]);
    std::sort(interior.begin(), interior.end());
    index_t conflicting = 0;
    const index_t markers = static_cast<index_t>(raw.marker_group.size());
    for (index_t k = 0; k < markers; ++k) {
      const int nv = raw.marker_vertex_begin[k + 1] - raw.marker_vertex_begin[k];
      if (nv > max_face_vertices) {
        ++mesh.report.unmatched_markers;
        continue;
      }
      const FaceKey key = make_face_key(&raw.marker_vertices[raw.marker_vertex_begin[k]], nv);
      auto it = std::lower_bound(boundary.begin(), boundary.end(), key,
                                 [](const auto& a, const FaceKey& b) { return a.first < b; });
      if (it != boundary.end() && it->first == key) {
        std::int32_t& tag = mesh.face_boundary[it->second];
        if (tag != no_boundary && tag != raw.marker_group[k]) ++conflicting;
        if (tag == no_boundary) tag = raw.marker_group[k];
      } else if (std::binary_search(interior.begin(), interior.end(), key)) {
        ++mesh.report.interior_markers;
      } else {
        ++mesh.report.unmatched_markers;
      }
    }
    if (conflicting > 0)
      mesh.report.warnings.push_back(std::to_string(conflicting) +
                                     " boundary faces belong to more than one group; each keeps its first group");
    for (const auto& [key, f] : boundary)
      if (mesh.face_boundary[f] == no_boundary) ++mesh.report.untagged_boundary_faces;
    if (mesh.report.untagged_boundary_faces > 0) {
      const auto unassigned = static_cast<std::int32_t>(mesh.boundary_names.size());
      mesh.boundary_names.emplace_back(unassigned_boundary_name);
      for (const auto& [key, f] : boundary)
        if (mesh.face_boundary[f] == no_boundary) mesh.face_boundary[f] = unassigned;
    }
    if (mesh.report.interior_markers > 0)
      mesh.report.warnings.push_back(std::to_string(mesh.report.interior_markers) +
                                     " boundary-group elements lie on interior faces and are ignored");
    if (mesh.report.unmatched_markers > 0)
      mesh.report.warnings.push_back(std::to_string(mesh.report.unmatched_markers) +
                                     " boundary-group elements are no face of the mesh and are ignored");
    if (mesh.report.untagged_boundary_faces > 0 && !raw.group_names.empty())
      mesh.report.warnings.push_back(std::to_string(mesh.report.untagged_boundary_faces) +
                                     " boundary faces belong to no group; they are tagged '" +
                                     unassigned_boundary_name + "'");
  }

  mesh.x = std::move(raw.x);
  mesh.y = std::move(raw.y);
  mesh.z = std::move(raw.z);
  mesh.node_tag = std::move(raw.node_tag);
  mesh.element_type = std::move(raw.element_type);
  mesh.element_vertex_begin = std::move(raw.element_vertex_begin);
  mesh.element_vertices = std::move(raw.element_vertices);
  mesh.element_tag = std::move(raw.element_tag);
  compute_geometry(mesh);
  return mesh;
}

void compute_geometry(Mesh& m) {
  const index_t ne = m.num_elements(), nf = m.num_faces();
  auto node = [&](index_t i) { return Vec3{m.x[i], m.y[i], m.z[i]}; };
  m.volume.assign(ne, 0);
  m.centroid_x.assign(ne, 0);
  m.centroid_y.assign(ne, 0);
  m.centroid_z.assign(ne, 0);
  // Unit normal of each surface element (only for 2D elements in 3D space).
  std::vector<Vec3> surface_normal(m.dim == 2 && m.space_dim == 3 ? ne : 0);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < ne; ++e) {
    const ElementMoments r = element_moments(m.element_type[e], &m.element_vertices[m.element_vertex_begin[e]],
                                             m.x.data(), m.y.data(), m.z.data(), m.space_dim);
    if (!surface_normal.empty()) surface_normal[e] = (1.0 / geom::norm(r.vector_area)) * r.vector_area;
    m.volume[e] = r.measure;
    m.centroid_x[e] = r.moment.x / r.measure;
    m.centroid_y[e] = r.moment.y / r.measure;
    m.centroid_z[e] = r.moment.z / r.measure;
  }

  m.face_area.assign(nf, 0);
  m.normal_x.assign(nf, 0);
  m.normal_y.assign(nf, 0);
  m.normal_z.assign(nf, 0);
#pragma omp parallel for schedule(static)
  for (index_t f = 0; f < nf; ++f) {
    const index_t* fv = &m.face_vertices[std::size_t(f) * max_face_vertices];
    Vec3 n{};
    double area = 0;
    if (m.dim == 2) {
      const Vec3 t = node(fv[1]) - node(fv[0]);
      area = geom::norm(t);
      // Edges run counter-clockwise, so the outward normal is the tangent turned clockwise (in the element's
      // own plane for surfaces in 3D).
      n = m.space_dim == 2 ? Vec3{t.y, -t.x, 0.0} : geom::cross(t, surface_normal[m.face_left[f]]);
      n = (1.0 / geom::norm(n)) * n;
    } else {
      std::array<Vec3, 4> v;
      for (int i = 0; i < m.face_num_vertices[f]; ++i) v[i] = node(fv[i]);
      const Vec3 s = geom::face_vector_area(v.data(), m.face_num_vertices[f]);
      area = geom::norm(s);
      n = (1.0 / area) * s;
    }
    m.face_area[f] = area;
    m.normal_x[f] = n.x;
    m.normal_y[f] = n.y;
    m.normal_z[f] = n.z;
  }
}

}  // namespace kempe
