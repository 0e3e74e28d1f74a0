#include "mesh/kmesh.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/files.hpp"

namespace kempe {
namespace {

constexpr char magic[8] = {'K', 'E', 'M', 'P', 'E', 'M', 'S', 'H'};
constexpr std::uint32_t byte_order_mark = 0x01020304u;
constexpr std::size_t header_bytes = 8 + 4 + 4 + 8 + 8;
constexpr std::size_t section_name_bytes = 32;

enum class Kind : std::uint64_t { i8 = 1, u8, i32, i64, f64, strings };

template <class T>
constexpr Kind kind_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return Kind::i8;
  else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, ElementType>) return Kind::u8;
  else if constexpr (std::is_same_v<T, std::int32_t>) return Kind::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return Kind::i64;
  else return Kind::f64;
}

class Writer {
 public:
  template <class T>
  void add(std::string_view name, const std::vector<T>& v) {
    section(name, kind_of<T>(), v.size(), v.data(), v.size() * sizeof(T));
  }
  void add(std::string_view name, const std::vector<std::string>& v) {
    std::string joined;
    for (const auto& s : v) joined.append(s).push_back('\0');
    section(name, Kind::strings, v.size(), joined.data(), joined.size());
  }
  std::vector<char> finish() {
    std::vector<char> payload(8);
    const std::uint64_t n = count_;
    std::memcpy(payload.data(), &n, 8);
    payload.insert(payload.end(), body_.begin(), body_.end());
    return payload;
  }

 private:
  void section(std::string_view name, Kind kind, std::uint64_t count, const void* data, std::uint64_t bytes) {
    char header[section_name_bytes + 24] = {};
    std::memcpy(header, name.data(), std::min(name.size(), section_name_bytes - 1));
    const auto k = static_cast<std::uint64_t>(kind);
    std::memcpy(header + section_name_bytes, &k, 8);
    std::memcpy(header + section_name_bytes + 8, &count, 8);
    std::memcpy(header + section_name_bytes + 16, &bytes, 8);
    body_.insert(body_.end(), header, header + sizeof header);
    const char* p = static_cast<const char*>(data);
    body_.insert(body_.end(), p, p + bytes);
    body_.resize(body_.size() + (8 - bytes % 8) % 8, '\0');
    ++count_;
  }
  std::vector<char> body_;
  std::uint64_t count_ = 0;
};

struct Section {
  Kind kind;
  std::uint64_t count;
  const char* data;
  std::uint64_t bytes;
};

class Reader {
 public:
  Reader(std::string path, const std::vector<char>& payload) : path_(std::move(path)) {
    std::uint64_t n = 0;
    if (payload.size() < 8) fail("has no section table");
    std::memcpy(&n, payload.data(), 8);
    std::size_t pos = 8;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (pos + section_name_bytes + 24 > payload.size()) fail("section table runs past the end of the file");
      const std::string name(payload.data() + pos, strnlen(payload.data() + pos, section_name_bytes));
      Section s{};
      std::uint64_t kind = 0;
      std::memcpy(&kind, payload.data() + pos + section_name_bytes, 8);
      std::memcpy(&s.count, payload.data() + pos + section_name_bytes + 8, 8);
      std::memcpy(&s.bytes, payload.data() + pos + section_name_bytes + 16, 8);
      s.kind = static_cast<Kind>(kind);
      pos += section_name_bytes + 24;
      if (s.bytes > payload.size() - pos) fail("section '" + name + "' runs past the end of the file");
      s.data = payload.data() + pos;
      pos += s.bytes + (8 - s.bytes % 8) % 8;
      sections_[name] = s;
    }
  }

  template <class T>
  std::vector<T> get(const std::string& name) {
    const Section& s = find(name);
    if (s.kind != kind_of<T>() || s.count > s.bytes / sizeof(T) || s.bytes != s.count * sizeof(T))
      fail("section '" + name + "' has the wrong type or size");
    std::vector<T> v(s.count);
    if (s.bytes) std::memcpy(v.data(), s.data, s.bytes);
    return v;
  }
  /// An optional section (added after the first files were written): empty when the file has none.
  template <class T>
  std::vector<T> get_optional(const std::string& name) {
    return sections_.count(name) ? get<T>(name) : std::vector<T>{};
  }
  std::vector<std::string> get_strings(const std::string& name) {
    const Section& s = find(name);
    if (s.kind != Kind::strings) fail("section '" + name + "' has the wrong type");
    std::vector<std::string> v;
    const char* p = s.data;
    const char* end = s.data + s.bytes;
    while (p < end) {
      const char* z = static_cast<const char*>(std::memchr(p, '\0', static_cast<std::size_t>(end - p)));
      if (!z) fail("section '" + name + "' has an unterminated string");
      v.emplace_back(p, z);
      p = z + 1;
    }
    if (v.size() != s.count) fail("section '" + name + "' has the wrong number of strings");
    return v;
  }
  [[noreturn]] void fail(const std::string& what) const { throw MeshError(path_ + ": corrupt .kmesh file: " + what); }

 private:
  const Section& find(const std::string& name) {
    auto it = sections_.find(name);
    if (it == sections_.end()) fail("required section '" + name + "' is missing");
    return it->second;
  }
  std::string path_;
  std::map<std::string, Section> sections_;
};

}  // namespace

std::uint64_t fnv1a64(const void* data, std::size_t bytes, std::uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void write_kmesh(const Mesh& m, const std::string& path) {
  Writer w;
  w.add("info", std::vector<std::int64_t>{m.dim, m.space_dim, m.report.flipped_elements,
                                          m.report.untagged_boundary_faces, m.report.interior_markers,
                                          m.report.unmatched_markers, m.report.unused_nodes});
  w.add("source", std::vector<std::string>{m.origin.empty() ? m.source : m.origin});
  w.add("warnings", m.report.warnings);
  // Optional sections are written only once a coloring and an ordering have been applied; files without them
  // read back with the fields empty.
  m.for_each_array([&w](const MeshArray& a, const auto& v) {
    if (a.kind != MeshArrayKind::optional || !v.empty()) w.add(a.name, v);
  });
  const std::vector<char> payload = w.finish();

  char header[header_bytes];
  std::memcpy(header, magic, 8);
  std::memcpy(header + 8, &kmesh_version, 4);
  std::memcpy(header + 12, &byte_order_mark, 4);
  const std::uint64_t size = payload.size(), sum = fnv1a64(payload.data(), payload.size());
  std::memcpy(header + 16, &size, 8);
  std::memcpy(header + 24, &sum, 8);

  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw MeshError(path + ": cannot write (" + std::strerror(errno) + ")");
    out.write(header, sizeof header);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw MeshError(path + ": write failed (disk full?); the previous file, if any, is unchanged");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw MeshError(path + ": cannot replace the file (" + ec.message() + ")");
  }
}

Mesh read_kmesh(const std::string& path) {
  if (const std::string why = not_an_input_file(path); why != "" && why != "no such file") throw MeshError(path + ": " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MeshError(path + ": cannot open (" + std::strerror(errno) + ")");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  char header[header_bytes] = {};
  in.read(header, sizeof header);
  if (!in || std::memcmp(header, magic, 8) != 0)
    throw MeshError(path + ": not a .kmesh file (bad magic number)");
  std::uint32_t version = 0, order = 0;
  std::uint64_t size = 0, sum = 0;
  std::memcpy(&version, header + 8, 4);
  std::memcpy(&order, header + 12, 4);
  std::memcpy(&size, header + 16, 8);
  std::memcpy(&sum, header + 24, 8);
  if (order != byte_order_mark) throw MeshError(path + ": .kmesh file of the other byte order");
  if (version != kmesh_version)
    throw MeshError(path + ": .kmesh version " + std::to_string(version) + ", but this kempe reads version " +
                    std::to_string(kmesh_version) + "; convert the original mesh again with `kempe mesh convert`");
  if (file_size - header_bytes != size)
    throw MeshError(path + ": truncated or padded .kmesh file: the header promises " + std::to_string(size) +
                    " bytes of data, the file holds " + std::to_string(file_size - header_bytes));
  std::vector<char> payload(size);
  in.read(payload.data(), static_cast<std::streamsize>(size));
  if (!in) throw MeshError(path + ": read failed");
  const std::uint64_t actual = fnv1a64(payload.data(), payload.size());
  if (actual != sum) throw MeshError(path + ": checksum mismatch: the .kmesh file is corrupt");

  Reader r(path, payload);
  Mesh m;
  const auto info = r.get<std::int64_t>("info");
  if (info.size() < 7) r.fail("section 'info' is too short");
  m.dim = static_cast<int>(info[0]);
  m.space_dim = static_cast<int>(info[1]);
  m.report.flipped_elements = static_cast<index_t>(info[2]);
  m.report.untagged_boundary_faces = static_cast<index_t>(info[3]);
  m.report.interior_markers = static_cast<index_t>(info[4]);
  m.report.unmatched_markers = static_cast<index_t>(info[5]);
  m.report.unused_nodes = static_cast<index_t>(info[6]);
  // Messages about the mesh name the file read; the name it was converted from stays with the file.
  const auto origin = r.get_strings("source");
  m.source = path;
  if (!origin.empty() && origin[0] != path) m.origin = origin[0];
  m.report.warnings = r.get_strings("warnings");
  m.for_each_array([&r](const MeshArray& a, auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if constexpr (std::is_same_v<T, std::string>)
      v = r.get_strings(a.name);
    else
      v = a.kind == MeshArrayKind::optional ? r.get_optional<T>(a.name) : r.get<T>(a.name);
  });

  // A checksum catches accidents, not a writer bug: check that the arrays fit together before anyone indexes them.
  const std::size_t nn = m.x.size(), ne = m.element_type.size(), nf = m.face_left.size();
  auto require = [&](bool ok, const char* what) {
    if (!ok) r.fail(what);
  };
  require((m.dim == 2 || m.dim == 3) && (m.space_dim == 2 || m.space_dim == 3), "bad dimensions");
  require(m.element_vertex_begin.size() == ne + 1 && m.element_face_begin.size() == ne + 1,
          "element offsets differ in length from the elements");
  // Every array of nodes, elements or faces has one row per node, element or face (optional ones may be absent).
  m.for_each_array([&](const MeshArray& a, const auto& v) {
    if (a.rows == MeshRows::other || (a.kind == MeshArrayKind::optional && v.empty())) return;
    const std::size_t rows = a.rows == MeshRows::nodes ? nn : a.rows == MeshRows::elements ? ne : nf;
    if (v.size() != rows * std::size_t(a.width))
      r.fail("section '" + std::string(a.name) + "' has " + std::to_string(v.size()) + " entries, expected " +
             std::to_string(rows * std::size_t(a.width)) + " (" + (a.width > 1 ? std::to_string(a.width) + " " : "") +
             "per " + (a.rows == MeshRows::nodes ? "node" : a.rows == MeshRows::elements ? "element" : "face") + ")");
  });
  // Where a check names an index, the message says which array and which entry.
  auto at = [](const char* array, std::size_t index, const std::string& what) {
    return "section '" + std::string(array) + "' entry " + std::to_string(index) + ": " + what;
  };
  // Every real number finite: coordinates, volumes, centroids, areas, normals.
  m.for_each_array([&](const MeshArray& a, const auto& v) {
    if constexpr (std::is_same_v<typename std::decay_t<decltype(v)>::value_type, double>)
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i])) r.fail(at(a.name, i, "a number that is not finite"));
  });
  for (std::size_t e = 0; e < ne; ++e) {
    const int type = static_cast<int>(m.element_type[e]);
    if (!(type >= 0 && type < num_element_types)) r.fail(at("element_type", e, "unknown element type"));
    if (!(element_infos[type].dim == m.dim))
      r.fail(at("element_type", e, "an element of another dimension than the mesh"));
  }
  // The element-to-vertex and element-to-face tables: offsets from 0, each element with its type's counts.
  require(ne == 0 || (m.element_vertex_begin[0] == 0 && m.element_face_begin[0] == 0),
          "element offsets do not start at 0");
  for (std::size_t e = 0; e < ne; ++e) {
    const ElementInfo& type = element_info(m.element_type[e]);
    if (!(std::int64_t(m.element_vertex_begin[e + 1]) - m.element_vertex_begin[e] == type.num_vertices))
      r.fail(at("element_vertex_begin", e + 1, "not the element's vertex count past the one before"));
    if (!(std::int64_t(m.element_face_begin[e + 1]) - m.element_face_begin[e] == type.num_faces))
      r.fail(at("element_face_begin", e + 1, "not the element's face count past the one before"));
  }
  require(m.element_vertex_begin.back() == static_cast<index_t>(m.element_vertices.size()) &&
              m.element_face_begin.back() == static_cast<index_t>(m.element_faces.size()),
          "element offsets do not match");
  for (std::size_t k = 0; k < m.element_vertices.size(); ++k)
    if (!(m.element_vertices[k] >= 0 && std::size_t(m.element_vertices[k]) < nn))
      r.fail(at("element_vertices", k, "vertex out of range"));
  for (std::size_t k = 0; k < m.element_faces.size(); ++k)
    if (!(m.element_faces[k] >= 0 && std::size_t(m.element_faces[k]) < nf))
      r.fail(at("element_faces", k, "face out of range"));
  // Each side of a face is the slot of its element that names the face, and each slot is a side of its face:
  // the face and element tables describe one mesh.
  auto side_is_slot = [&](index_t e, std::int8_t local, std::size_t f) {
    return local >= 0 && local < element_info(m.element_type[e]).num_faces &&
           std::size_t(m.element_faces[m.element_face_begin[e] + local]) == f;
  };
  for (std::size_t f = 0; f < nf; ++f) {
    const index_t l = m.face_left[f], r_ = m.face_right[f];
    if (!(l >= 0 && std::size_t(l) < ne)) r.fail(at("face_left", f, "element out of range"));
    if (!(r_ == no_element || (r_ >= 0 && std::size_t(r_) < ne))) r.fail(at("face_right", f, "element out of range"));
    if (!(side_is_slot(l, m.face_left_local[f], f)))
      r.fail(at("face_left_local", f, "not the left element's slot of this face"));
    if (!(r_ == no_element ? m.face_right_local[f] == -1 : side_is_slot(r_, m.face_right_local[f], f)))
      r.fail(at("face_right_local", f, "not the right element's slot of this face"));
    if (!(m.face_boundary[f] == no_boundary ||
          (m.face_boundary[f] >= 0 && std::size_t(m.face_boundary[f]) < m.boundary_names.size())))
      r.fail(at("face_boundary", f, "boundary tag out of range"));
    const FaceDef& def = element_info(m.element_type[l]).faces[m.face_left_local[f]];
    if (!(m.face_num_vertices[f] == def.num_vertices))
      r.fail(at("face_num_vertices", f, "not the left element's face size"));
    for (int k = 0; k < max_face_vertices; ++k) {
      const index_t v = m.face_vertices[f * max_face_vertices + k];
      if (!(k < def.num_vertices ? v >= 0 && std::size_t(v) < nn : v == -1))
        r.fail(at("face_vertices", f * max_face_vertices + k, "vertex out of range"));
    }
    if (!(m.face_area[f] > 0)) r.fail(at("face_area", f, "not a positive number"));
  }
  for (std::size_t e = 0; e < ne; ++e)
    for (index_t k = m.element_face_begin[e]; k < m.element_face_begin[e + 1]; ++k) {
      const std::size_t f = std::size_t(m.element_faces[k]);
      const auto local = static_cast<std::int8_t>(k - m.element_face_begin[e]);
      if (!((std::size_t(m.face_left[f]) == e && m.face_left_local[f] == local) ||
            (std::size_t(m.face_right[f]) == e && m.face_right_local[f] == local)))
        r.fail(at("element_faces", std::size_t(k), "a face that does not have this element on that side"));
    }
  for (std::size_t e = 0; e < ne; ++e)
    if (!(m.volume[e] > 0)) r.fail(at("volume", e, "not a positive volume"));
  // The stored geometry is what the coordinates give (the writer stored compute_geometry's results; an ordering
  // may have negated normals and reversed faces, which changes the last bits): a file whose coordinates were
  // changed after its geometry was computed would give the solver one mesh and the ordering another.
  {
    enum Scale { of_size, of_extent, of_unit };
    struct Field {
      const char* name;
      std::vector<double>* values;
      Scale scale;
      std::vector<double> stored;
    };
    Field fields[] = {{"volume", &m.volume, of_size, {}},         {"centroid_x", &m.centroid_x, of_extent, {}},
                      {"centroid_y", &m.centroid_y, of_extent, {}}, {"centroid_z", &m.centroid_z, of_extent, {}},
                      {"face_area", &m.face_area, of_size, {}},     {"normal_x", &m.normal_x, of_unit, {}},
                      {"normal_y", &m.normal_y, of_unit, {}},       {"normal_z", &m.normal_z, of_unit, {}}};
    for (Field& field : fields) field.stored = std::move(*field.values);
    compute_geometry(m);
    double extent = 0;
    for (const auto* c : {&m.x, &m.y, &m.z})
      for (double v : *c) extent = std::max(extent, std::abs(v));
    constexpr double relative = 1e-9;
    for (Field& field : fields) {
      const std::vector<double>& computed = *field.values;
      for (std::size_t i = 0; i < computed.size(); ++i) {
        const double tolerance = relative * (field.scale == of_size     ? std::abs(computed[i])
                                             : field.scale == of_extent ? 1 + extent
                                                                        : 1.0);
        if (!(std::abs(field.stored[i] - computed[i]) <= tolerance))
          r.fail(at(field.name, i,
                    std::to_string(field.stored[i]) + " is not what the coordinates give (" +
                        std::to_string(computed[i]) + "): the geometry and the coordinates disagree"));
      }
      *field.values = std::move(field.stored);  // the stored values, bit for bit
    }
  }
  // Colors: face_color alone (a coloring), or with color_begin (faces reordered into contiguous color ranges).
  for (std::int8_t c : m.face_color) require(c >= 0 && c < 64, "face color out of range");
  if (!m.color_begin.empty()) {
    require(!m.face_color.empty(), "section 'color_begin' without section 'face_color'");
    require(m.color_begin.size() >= 2 && m.color_begin.front() == 0 && m.color_begin.back() == static_cast<index_t>(nf),
            "section 'color_begin' does not cover the faces");
    const std::size_t colors = m.color_begin.size() - 1;
    for (std::size_t c = 0; c < colors; ++c) {
      require(m.color_begin[c] <= m.color_begin[c + 1] && m.color_begin[c + 1] <= static_cast<index_t>(nf),
              "section 'color_begin' decreases or runs past the faces");
      for (index_t f = m.color_begin[c]; f < m.color_begin[c + 1]; ++f)
        require(std::size_t(m.face_color[f]) == c, "face colors do not match section 'color_begin'");
    }
  }
  if (!m.face_color.empty()) {  // colors keep every launch race-free: no element has two faces of one color
    std::vector<std::uint64_t> seen(ne, 0);
    for (std::size_t f = 0; f < nf; ++f)
      for (const index_t e : {m.face_left[f], m.face_right[f]}) {
        if (e == no_element) continue;
        const std::uint64_t bit = std::uint64_t(1) << m.face_color[f];
        if (seen[e] & bit) r.fail(at("face_color", f, "the color of another face of element " + std::to_string(e)));
        seen[e] |= bit;
      }
  }
  // Input numberings: permutations of the elements and of the faces.
  auto require_permutation = [&](const std::vector<index_t>& p, std::size_t n, const char* bijection_message) {
    if (p.empty()) return;
    std::vector<char> seen(n, 0);
    for (index_t k : p) {
      require(k >= 0 && std::size_t(k) < n && !seen[k], bijection_message);
      seen[k] = 1;
    }
  };
  require_permutation(m.element_input, ne, "section 'element_input' is not a permutation of the elements");
  require_permutation(m.face_input, nf, "section 'face_input' is not a permutation of the faces");
  // The leaves of an adapted mesh (their tree is checked when kempe adapt rebuilds it).
  require(m.leaf_path.size() == m.leaf_root.size() && m.leaf_level.size() == m.leaf_root.size(),
          "sections 'leaf_root', 'leaf_path' and 'leaf_level' differ in length");
  for (std::size_t i = 0; i < m.leaf_root.size(); ++i) {
    if (m.leaf_root[i] < 0 || std::size_t(m.leaf_root[i]) >= ne) r.fail(at("leaf_root", i, "not an element of the mesh"));
    if (m.leaf_level[i] < 0 || m.leaf_level[i] > 30) r.fail(at("leaf_level", i, "a level outside 0..30"));
    if (m.leaf_path[i] < 0 || (m.leaf_level[i] < 30 && (m.leaf_path[i] >> (2 * m.leaf_level[i])) != 0))
      r.fail(at("leaf_path", i, "a path longer than its level"));
  }
  if (!m.leaf_root.empty())
    m.report.warnings.push_back("holds an adapted mesh of " + std::to_string(m.leaf_root.size()) +
                                " triangles over these; kempe adapt and kempe run of an adaptive case read it, other commands refuse it");
  return m;
}

}  // namespace kempe
