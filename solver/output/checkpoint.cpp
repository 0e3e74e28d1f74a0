// Checkpoint files (checkpoint.hpp). Layout, little-endian: magic "KEMPECKP", u32 format, u32 order,
// string precision, u64 mesh fingerprint, i64 elements, f64 time, i64 steps, u64 outputs then (f64 time,
// string file) each, (format 2) u64 tree leaves then (i64 root, i64 path, i8 level) each, u64 coefficients then
// f64 each, and last the FNV-1a hash of every byte before it.
// A string is a u64 length and its bytes.
#include "solver/output/checkpoint.hpp"

#include "base/files.hpp"
#include "solver/output/files.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace kempe::output {
namespace {

constexpr char magic[8] = {'K', 'E', 'M', 'P', 'E', 'C', 'K', 'P'};
constexpr int max_checkpoint_order = 5;  // the orders the solver is built for
constexpr std::uint64_t fnv_offset = 1469598103934665603ull, fnv_prime = 1099511628211ull;

std::uint64_t fnv1a(const char* data, std::size_t size, std::uint64_t hash = fnv_offset) {
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ static_cast<unsigned char>(data[i])) * fnv_prime;
  return hash;
}

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    const char* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_string(const std::string& s) {
    put(std::uint64_t(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Reader {
 public:
  Reader(const std::vector<char>& bytes, std::size_t end, const std::string& path)
      : bytes_(bytes), end_(end), path_(path) {}
  template <class T>
  T get() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string get_string() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::string s(bytes_.data() + at_, bytes_.data() + at_ + size);
    at_ += size;
    return s;
  }
  std::size_t remaining() const { return end_ - at_; }

 private:
  void need(std::uint64_t size) const {
    if (size > end_ - at_) throw std::runtime_error(path_ + ": the checkpoint is truncated");
  }
  const std::vector<char>& bytes_;
  std::size_t end_, at_ = sizeof(magic);
  const std::string& path_;
};

}  // namespace

std::uint64_t mesh_fingerprint(const Mesh& mesh) {
  std::uint64_t hash = fnv_offset;
  auto add = [&](const auto& values) {
    hash = fnv1a(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(values[0]), hash);
  };
  add(mesh.element_tag);
  add(mesh.face_left);
  add(mesh.face_right);
  add(mesh.x);  // the geometry too: the same connectivity with moved nodes is another mesh
  add(mesh.y);
  add(mesh.z);
  return hash;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  Writer w;
  w.bytes().assign(magic, magic + sizeof(magic));
  w.put(checkpoint_format);
  w.put(std::uint32_t(c.order));
  w.put_string(c.precision);
  w.put(c.mesh_fingerprint);
  w.put(std::int64_t(c.num_elements));
  w.put(c.time);
  w.put(c.steps);
  w.put(std::uint64_t(c.outputs.size()));
  for (const auto& [time, file] : c.outputs) {
    w.put(time);
    w.put_string(file);
  }
  w.put(std::uint64_t(c.leaf_root.size()));
  for (std::size_t i = 0; i < c.leaf_root.size(); ++i) {
    w.put(std::int64_t(c.leaf_root[i]));
    w.put(c.leaf_path[i]);
    w.put(c.leaf_level[i]);
  }
  w.put(std::uint64_t(c.solution.size()));
  for (const double v : c.solution) w.put(v);
  w.put(fnv1a(w.bytes().data(), w.bytes().size()));
  write_file_atomically(path, std::string(w.bytes().begin(), w.bytes().end()), "the checkpoint");
}

Checkpoint read_checkpoint(const std::string& path) {
  if (const std::string why = not_an_input_file(path); why != "" && why != "no such file")
    throw std::runtime_error(path + ": cannot read the checkpoint: " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the checkpoint (no such file?)");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(magic) || std::memcmp(bytes.data(), magic, sizeof(magic)) != 0)
    throw std::runtime_error(path + ": not a Kempe checkpoint");
  if (bytes.size() < sizeof(magic) + sizeof(std::uint32_t) + sizeof(std::uint64_t))
    throw std::runtime_error(path + ": the checkpoint is truncated");
  // The checksum first: a damaged format word is damage, not another version.
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body, sizeof(stored));
  if (stored != fnv1a(bytes.data(), body))
    throw std::runtime_error(path + ": the checkpoint's checksum does not match (the file is damaged or truncated)");
  std::uint32_t format = 0;
  std::memcpy(&format, bytes.data() + sizeof(magic), sizeof(format));
  if (format != checkpoint_format && format != 1)
    throw std::runtime_error(path + ": checkpoint format " + std::to_string(format) + ", this Kempe reads format " +
                             std::to_string(checkpoint_format));
  Reader r(bytes, body, path);
  // A valid checksum says the file is as written, not that a writer wrote sense: every field is checked before a
  // run uses it.
  auto refuse = [&path](const std::string& what) -> void {
    throw std::runtime_error(path + ": the checkpoint holds " + what);
  };
  Checkpoint c;
  (void)r.get<std::uint32_t>();  // the format, checked above
  c.order = static_cast<int>(r.get<std::uint32_t>());
  c.precision = r.get_string();
  c.mesh_fingerprint = r.get<std::uint64_t>();
  c.num_elements = static_cast<index_t>(r.get<std::int64_t>());
  c.time = r.get<double>();
  c.steps = r.get<std::int64_t>();
  if (c.order < 0 || c.order > max_checkpoint_order) refuse("order " + std::to_string(c.order) + ", expected 0 to 5");
  if (c.precision != "double" && c.precision != "float") refuse("an unknown precision (expected double or float)");
  if (c.num_elements <= 0) refuse("an element count of " + std::to_string(c.num_elements) + ", expected a positive one");
  if (!std::isfinite(c.time) || c.time < 0) refuse("the time " + std::to_string(c.time) + ", expected a finite time >= 0");
  if (c.steps < 0) refuse("a step count of " + std::to_string(c.steps) + ", expected one >= 0");
  const auto outputs = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < outputs; ++i) {
    const double time = r.get<double>();
    std::string file = r.get_string();
    const std::string which = "output " + std::to_string(i + 1);
    if (!std::isfinite(time) || time < 0 || time > c.time || (i > 0 && time < c.outputs.back().first))
      refuse(which + " at time " + std::to_string(time) + ", expected increasing times from 0 to the checkpoint's");
    // Outputs lie beside the checkpoint in the output folder: a plain file name, never a path out of it.
    auto separator_or_control = [](char ch) { return ch == '/' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20; };
    const bool plain = !file.empty() && file.size() <= 255 && file != "." && file != ".." &&
                       std::none_of(file.begin(), file.end(), separator_or_control);
    if (!plain) refuse(which + " with a file name that is not a plain name in the output folder");
    c.outputs.emplace_back(time, std::move(file));
  }
  if (format >= 2) {
    const auto leaves = r.get<std::uint64_t>();
    constexpr std::size_t leaf_bytes = 2 * sizeof(std::int64_t) + sizeof(std::int8_t);
    if (leaves > r.remaining() / leaf_bytes) throw std::runtime_error(path + ": the checkpoint is truncated");
    if (leaves != 0 && leaves != std::uint64_t(c.num_elements))
      refuse("a refinement tree of " + std::to_string(leaves) + " leaves for " + std::to_string(c.num_elements) + " elements");
    for (std::uint64_t i = 0; i < leaves; ++i) {
      const auto root = r.get<std::int64_t>();
      const auto path_bits = r.get<std::int64_t>();
      const auto level = r.get<std::int8_t>();
      if (root < 0 || root > std::int64_t(std::numeric_limits<index_t>::max()) || level < 0 || level > 30)
        refuse("leaf " + std::to_string(i) + " with root " + std::to_string(root) + " and level " + std::to_string(level) +
               ", expected a root >= 0 and a level 0 to 30");
      c.leaf_root.push_back(static_cast<index_t>(root));
      c.leaf_path.push_back(path_bits);
      c.leaf_level.push_back(level);
    }
  }
  const auto size = r.get<std::uint64_t>();
  if (size > r.remaining() / sizeof(double) || size * sizeof(double) != r.remaining())
    throw std::runtime_error(path + ": the checkpoint is truncated");
  c.solution.resize(size);
  for (double& v : c.solution) v = r.get<double>();
  // Per element a whole number of coefficients: 4 variables x the modes of one order.
  const std::uint64_t modes = std::uint64_t(c.order + 1) * std::uint64_t(c.order + 2) / 2;
  if (size != 4 * modes * std::uint64_t(c.num_elements))
    refuse(std::to_string(size) + " coefficients, expected " + std::to_string(4 * modes * std::uint64_t(c.num_elements)) +
           " (4 variables x " + std::to_string(modes) + " modes x " + std::to_string(c.num_elements) + " elements)");
  return c;
}

}  // namespace kempe::output
