#include "mesh/kmesh.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <type_traits>
#include <vector>

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
    if (s.kind != kind_of<T>() || s.bytes != s.count * sizeof(T)) fail("section '" + name + "' has the wrong type or size");
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
  w.add("source", std::vector<std::string>{m.source});
  w.add("warnings", m.report.warnings);
  w.add("x", m.x);
  w.add("y", m.y);
  w.add("z", m.z);
  w.add("node_tag", m.node_tag);
  w.add("element_type", m.element_type);
  w.add("element_vertex_begin", m.element_vertex_begin);
  w.add("element_vertices", m.element_vertices);
  w.add("element_face_begin", m.element_face_begin);
  w.add("element_faces", m.element_faces);
  w.add("element_tag", m.element_tag);
  w.add("volume", m.volume);
  w.add("centroid_x", m.centroid_x);
  w.add("centroid_y", m.centroid_y);
  w.add("centroid_z", m.centroid_z);
  w.add("face_left", m.face_left);
  w.add("face_right", m.face_right);
  w.add("face_left_local", m.face_left_local);
  w.add("face_right_local", m.face_right_local);
  w.add("face_num_vertices", m.face_num_vertices);
  w.add("face_vertices", m.face_vertices);
  w.add("face_area", m.face_area);
  w.add("normal_x", m.normal_x);
  w.add("normal_y", m.normal_y);
  w.add("normal_z", m.normal_z);
  w.add("face_boundary", m.face_boundary);
  w.add("boundary_names", m.boundary_names);
  // Optional sections, written only once a coloring and an ordering have been applied; files without them (and
  // files written before they existed) read back with the fields empty.
  if (!m.face_color.empty()) w.add("face_color", m.face_color);
  if (!m.color_begin.empty()) w.add("color_begin", m.color_begin);
  if (!m.element_input.empty()) w.add("element_input", m.element_input);
  if (!m.face_input.empty()) w.add("face_input", m.face_input);
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
  const auto source = r.get_strings("source");
  m.source = source.empty() ? path : source[0];
  m.report.warnings = r.get_strings("warnings");
  m.x = r.get<double>("x");
  m.y = r.get<double>("y");
  m.z = r.get<double>("z");
  m.node_tag = r.get<std::int64_t>("node_tag");
  m.element_type = r.get<ElementType>("element_type");
  m.element_vertex_begin = r.get<index_t>("element_vertex_begin");
  m.element_vertices = r.get<index_t>("element_vertices");
  m.element_face_begin = r.get<index_t>("element_face_begin");
  m.element_faces = r.get<index_t>("element_faces");
  m.element_tag = r.get<std::int64_t>("element_tag");
  m.volume = r.get<double>("volume");
  m.centroid_x = r.get<double>("centroid_x");
  m.centroid_y = r.get<double>("centroid_y");
  m.centroid_z = r.get<double>("centroid_z");
  m.face_left = r.get<index_t>("face_left");
  m.face_right = r.get<index_t>("face_right");
  m.face_left_local = r.get<std::int8_t>("face_left_local");
  m.face_right_local = r.get<std::int8_t>("face_right_local");
  m.face_num_vertices = r.get<std::int8_t>("face_num_vertices");
  m.face_vertices = r.get<index_t>("face_vertices");
  m.face_area = r.get<double>("face_area");
  m.normal_x = r.get<double>("normal_x");
  m.normal_y = r.get<double>("normal_y");
  m.normal_z = r.get<double>("normal_z");
  m.face_boundary = r.get<std::int32_t>("face_boundary");
  m.boundary_names = r.get_strings("boundary_names");
  m.face_color = r.get_optional<std::int8_t>("face_color");
  m.color_begin = r.get_optional<index_t>("color_begin");
  m.element_input = r.get_optional<index_t>("element_input");
  m.face_input = r.get_optional<index_t>("face_input");

  // A checksum catches accidents, not a writer bug: check that the arrays fit together before anyone indexes them.
  const std::size_t nn = m.x.size(), ne = m.element_type.size(), nf = m.face_left.size();
  auto require = [&](bool ok, const char* what) {
    if (!ok) r.fail(what);
  };
  require((m.dim == 2 || m.dim == 3) && (m.space_dim == 2 || m.space_dim == 3), "bad dimensions");
  require(m.y.size() == nn && m.z.size() == nn && m.node_tag.size() == nn, "node arrays differ in length");
  require(m.element_vertex_begin.size() == ne + 1 && m.element_face_begin.size() == ne + 1 &&
              m.element_tag.size() == ne && m.volume.size() == ne && m.centroid_x.size() == ne &&
              m.centroid_y.size() == ne && m.centroid_z.size() == ne,
          "element arrays differ in length");
  for (ElementType t : m.element_type) require(static_cast<int>(t) < num_element_types, "unknown element type");
  require(m.element_vertex_begin.back() == static_cast<index_t>(m.element_vertices.size()) &&
              m.element_face_begin.back() == static_cast<index_t>(m.element_faces.size()),
          "element offsets do not match");
  for (index_t v : m.element_vertices) require(v >= 0 && std::size_t(v) < nn, "element vertex out of range");
  for (index_t f : m.element_faces) require(f >= 0 && std::size_t(f) < nf, "element face out of range");
  require(m.face_right.size() == nf && m.face_left_local.size() == nf && m.face_right_local.size() == nf &&
              m.face_num_vertices.size() == nf && m.face_vertices.size() == nf * max_face_vertices &&
              m.face_area.size() == nf && m.normal_x.size() == nf && m.normal_y.size() == nf &&
              m.normal_z.size() == nf && m.face_boundary.size() == nf,
          "face arrays differ in length");
  for (std::size_t f = 0; f < nf; ++f) {
    require(m.face_left[f] >= 0 && std::size_t(m.face_left[f]) < ne, "face left element out of range");
    require(m.face_right[f] == no_element || (m.face_right[f] >= 0 && std::size_t(m.face_right[f]) < ne),
            "face right element out of range");
    require(m.face_boundary[f] == no_boundary ||
                (m.face_boundary[f] >= 0 && std::size_t(m.face_boundary[f]) < m.boundary_names.size()),
            "boundary tag out of range");
  }
  // Colors: face_color alone (a coloring), or with color_begin (faces reordered into contiguous color ranges).
  if (!m.face_color.empty()) {
    require(m.face_color.size() == nf, "section 'face_color' does not have one entry per face");
    for (std::int8_t c : m.face_color) require(c >= 0, "face color out of range");
  }
  if (!m.color_begin.empty()) {
    require(!m.face_color.empty(), "section 'color_begin' without section 'face_color'");
    require(m.color_begin.size() >= 2 && m.color_begin.front() == 0 &&
                m.color_begin.back() == static_cast<index_t>(nf),
            "section 'color_begin' does not cover the faces");
    const std::size_t colors = m.color_begin.size() - 1;
    for (std::size_t c = 0; c < colors; ++c) {
      require(m.color_begin[c] <= m.color_begin[c + 1] && m.color_begin[c + 1] <= static_cast<index_t>(nf),
              "section 'color_begin' decreases or runs past the faces");
      for (index_t f = m.color_begin[c]; f < m.color_begin[c + 1]; ++f)
        require(std::size_t(m.face_color[f]) == c, "face colors do not match section 'color_begin'");
    }
  }
  // Input numberings: permutations of the elements and of the faces.
  auto require_permutation = [&](const std::vector<index_t>& p, std::size_t n, const char* size_message,
                                 const char* bijection_message) {
    if (p.empty()) return;
    require(p.size() == n, size_message);
    std::vector<char> seen(n, 0);
    for (index_t k : p) {
      require(k >= 0 && std::size_t(k) < n && !seen[k], bijection_message);
      seen[k] = 1;
    }
  };
  require_permutation(m.element_input, ne, "section 'element_input' does not have one entry per element",
                      "section 'element_input' is not a permutation of the elements");
  require_permutation(m.face_input, nf, "section 'face_input' does not have one entry per face",
                      "section 'face_input' is not a permutation of the faces");
  return m;
}

}  // namespace kempe
