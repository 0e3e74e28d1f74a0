#include "mesh/raw_mesh_stream.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kempe {
namespace {

constexpr std::string_view magic = "kempe raw mesh 1\n";

template <class T>
void put(std::string& bytes, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <class T>
void put_array(std::string& bytes, const std::vector<T>& values) {
  put(bytes, static_cast<std::uint64_t>(values.size()));
  if (!values.empty()) bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

void put_string(std::string& bytes, const std::string& s) {
  put(bytes, static_cast<std::uint64_t>(s.size()));
  bytes += s;
}

void put_strings(std::string& bytes, const std::vector<std::string>& list) {
  put(bytes, static_cast<std::uint64_t>(list.size()));
  for (const std::string& s : list) put_string(bytes, s);
}

/// Reads the stream front to back; every read is checked against what is left.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& source) : rest_(bytes), source_(source) {}

  template <class T>
  T value(const char* what) {
    T v;
    take(&v, sizeof(T), what);
    return v;
  }
  template <class T>
  std::vector<T> array(const char* what) {
    const std::uint64_t n = count(sizeof(T), what);
    std::vector<T> values(n);
    if (n) take(values.data(), n * sizeof(T), what);
    return values;
  }
  std::string string(const char* what) {
    const std::uint64_t n = count(1, what);
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }
  std::vector<std::string> strings(const char* what) {
    const std::uint64_t n = count(sizeof(std::uint64_t), what);
    std::vector<std::string> list(n);
    for (std::string& s : list) s = string(what);
    return list;
  }
  void skip(std::size_t size) { rest_.remove_prefix(std::min(size, rest_.size())); }
  bool at_end() const { return rest_.empty(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw MeshError(source_ + ": the Gmsh reader's output is damaged: " + what);
  }

 private:
  /// A count followed by at least count * item_size bytes.
  std::uint64_t count(std::size_t item_size, const char* what) {
    const auto n = value<std::uint64_t>(what);
    if (n > rest_.size() / item_size) fail(std::string(what) + " is cut short");
    return n;
  }
  void take(void* to, std::size_t size, const char* what) {
    if (rest_.size() < size) fail(std::string(what) + " is cut short");
    std::memcpy(to, rest_.data(), size);
    rest_.remove_prefix(size);
  }

  std::string_view rest_;
  const std::string& source_;
};

/// CSR offsets: begin at 0, never decrease, end at the list's length.
bool valid_offsets(const std::vector<index_t>& begin, std::size_t rows, std::size_t list_size) {
  if (begin.size() != rows + 1 || begin[0] != 0 || static_cast<std::size_t>(begin[rows]) != list_size) return false;
  for (std::size_t i = 0; i < rows; ++i)
    if (begin[i + 1] < begin[i]) return false;
  return true;
}

}  // namespace

void append_raw_mesh(const RawMesh& raw, std::string& bytes) {
  bytes += magic;
  put_string(bytes, raw.source);
  put(bytes, static_cast<std::int32_t>(raw.dim));
  put_array(bytes, raw.x);
  put_array(bytes, raw.y);
  put_array(bytes, raw.z);
  put_array(bytes, raw.node_tag);
  put_array(bytes, raw.element_type);
  put_array(bytes, raw.element_vertex_begin);
  put_array(bytes, raw.element_vertices);
  put_array(bytes, raw.element_tag);
  put_array(bytes, raw.marker_vertex_begin);
  put_array(bytes, raw.marker_vertices);
  put_array(bytes, raw.marker_group);
  put_array(bytes, raw.marker_tag);
  put_strings(bytes, raw.group_names);
  put_strings(bytes, raw.warnings);
}

RawMesh parse_raw_mesh(std::string_view bytes, const std::string& source) {
  Reader in(bytes, source);
  if (bytes.substr(0, magic.size()) != magic) in.fail("it does not start with its magic line");
  in.skip(magic.size());
  RawMesh raw;
  raw.source = in.string("the source name");
  raw.dim = in.value<std::int32_t>("the dimension");
  raw.x = in.array<double>("x");
  raw.y = in.array<double>("y");
  raw.z = in.array<double>("z");
  raw.node_tag = in.array<std::int64_t>("the node tags");
  raw.element_type = in.array<ElementType>("the element types");
  raw.element_vertex_begin = in.array<index_t>("the element offsets");
  raw.element_vertices = in.array<index_t>("the element vertices");
  raw.element_tag = in.array<std::int64_t>("the element tags");
  raw.marker_vertex_begin = in.array<index_t>("the marker offsets");
  raw.marker_vertices = in.array<index_t>("the marker vertices");
  raw.marker_group = in.array<std::int32_t>("the marker groups");
  raw.marker_tag = in.array<std::int64_t>("the marker tags");
  raw.group_names = in.strings("the group names");
  raw.warnings = in.strings("the warnings");
  if (!in.at_end()) in.fail("bytes follow its end");

  // Lengths and ranges; build_mesh checks the vertex indices of elements and markers.
  const std::size_t nodes = raw.x.size(), elements = raw.element_type.size(), markers = raw.marker_group.size();
  if (raw.dim != 2 && raw.dim != 3) in.fail("the dimension is " + std::to_string(raw.dim));
  if (raw.y.size() != nodes || raw.z.size() != nodes || raw.node_tag.size() != nodes)
    in.fail("the node arrays differ in length");
  for (ElementType t : raw.element_type)
    if (static_cast<int>(t) >= num_element_types) in.fail("an element type is out of range");
  if (raw.element_tag.size() != elements ||
      (elements > 0 && !valid_offsets(raw.element_vertex_begin, elements, raw.element_vertices.size())))
    in.fail("the element arrays disagree");
  if (raw.marker_tag.size() != markers ||
      (markers > 0 && !valid_offsets(raw.marker_vertex_begin, markers, raw.marker_vertices.size())))
    in.fail("the marker arrays disagree");
  for (std::int32_t g : raw.marker_group)
    if (g < 0 || static_cast<std::size_t>(g) >= raw.group_names.size()) in.fail("a marker group is out of range");
  return raw;
}

}  // namespace kempe
