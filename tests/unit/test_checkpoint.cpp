// Checkpoint files: a round trip keeps every bit, and every kind of bad file is refused with its name and why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "solver/output/checkpoint.hpp"
#include "mesh/generators.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;

std::string message_of(const std::string& path) {
  try {
    output::read_checkpoint(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(Checkpoint, RoundTripKeepsEveryBit) {
  const std::string folder = (std::filesystem::temp_directory_path() / "kempe_checkpoint_test").string();
  std::filesystem::create_directories(folder);
  output::Checkpoint k;
  k.order = 3;
  k.precision = "float";
  k.mesh_fingerprint = 0x0123456789abcdefull;
  k.num_elements = 2;
  k.time = 0.1 + 0.2;  // not a short decimal
  k.steps = 1234567;
  k.outputs = {{0.0, "a_0000.vtu"}, {0.05, "a_0001.vtu"}};
  k.solution.assign(4 * 10 * 2, 0.5);  // 4 variables x 10 modes (order 3) x 2 elements
  const double awkward[] = {1.0, -0.0, std::numeric_limits<double>::denorm_min(), 1e300, std::nextafter(1.0, 2.0)};
  std::copy(std::begin(awkward), std::end(awkward), k.solution.begin());
  const std::string path = folder + "/a.kcheck";
  output::write_checkpoint(path, k);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const output::Checkpoint r = output::read_checkpoint(path);
  EXPECT_EQ(r.order, 3);
  EXPECT_EQ(r.precision, "float");
  EXPECT_EQ(r.mesh_fingerprint, k.mesh_fingerprint);
  EXPECT_EQ(r.num_elements, 2);
  EXPECT_EQ(std::memcmp(&r.time, &k.time, sizeof(double)), 0);
  EXPECT_EQ(r.steps, k.steps);
  EXPECT_EQ(r.outputs, k.outputs);
  ASSERT_EQ(r.solution.size(), k.solution.size());
  EXPECT_EQ(std::memcmp(r.solution.data(), k.solution.data(), k.solution.size() * sizeof(double)), 0);
  EXPECT_TRUE(r.leaf_root.empty()) << "a fixed mesh has no tree";
  // An adapted mesh's tree travels with it.
  k.leaf_root = {0, 7};
  k.leaf_path = {std::int64_t(1) << 62, 3};
  k.leaf_level = {30, 1};
  output::write_checkpoint(path, k);
  const output::Checkpoint tree = output::read_checkpoint(path);
  EXPECT_EQ(tree.leaf_root, k.leaf_root);
  EXPECT_EQ(tree.leaf_path, k.leaf_path);
  EXPECT_EQ(tree.leaf_level, k.leaf_level);
  k.leaf_root.clear(), k.leaf_path.clear(), k.leaf_level.clear();
  output::write_checkpoint(path, k);

  // Bad files: each refused with the file's name and what is wrong.
  EXPECT_THAT(message_of(folder + "/none.kcheck"), HasSubstr("none.kcheck: cannot open the checkpoint"));
  write_bytes(folder + "/text.kcheck", {'h', 'e', 'l', 'l', 'o'});
  EXPECT_THAT(message_of(folder + "/text.kcheck"), HasSubstr("text.kcheck: not a Kempe checkpoint"));
  std::vector<char> bytes = bytes_of(path);
  std::vector<char> flipped = bytes;
  flipped[flipped.size() / 2] ^= 1;
  write_bytes(folder + "/flipped.kcheck", flipped);
  EXPECT_THAT(message_of(folder + "/flipped.kcheck"), HasSubstr("flipped.kcheck: the checkpoint's checksum does not match"));
  std::vector<char> newer = bytes;
  newer[8] = 9;  // the format version follows the 8-byte magic; the checksum (FNV-1a, the last 8 bytes) is redone
  std::uint64_t hash = 1469598103934665603ull;
  for (std::size_t i = 0; i + 8 < newer.size(); ++i) hash = (hash ^ static_cast<unsigned char>(newer[i])) * 1099511628211ull;
  std::memcpy(newer.data() + newer.size() - 8, &hash, 8);
  write_bytes(folder + "/newer.kcheck", newer);
  std::vector<char> damaged_format = bytes;
  damaged_format[8] = 9;  // without a new checksum: damage, not another version
  write_bytes(folder + "/damaged.kcheck", damaged_format);
  EXPECT_THAT(message_of(folder + "/damaged.kcheck"), HasSubstr("damaged.kcheck: the checkpoint's checksum does not match"));
  EXPECT_THAT(message_of(folder + "/newer.kcheck"), HasSubstr("newer.kcheck: checkpoint format 9, this Kempe reads format 2"));
  write_bytes(folder + "/short.kcheck", std::vector<char>(bytes.begin(), bytes.begin() + 10));
  EXPECT_THAT(message_of(folder + "/short.kcheck"), HasSubstr("short.kcheck: the checkpoint is truncated"));
  EXPECT_THROW(output::write_checkpoint(folder + "/no/such/folder/a.kcheck", k), std::runtime_error);
  // A FIFO would block the reader forever: refused before it is opened.
  std::filesystem::remove(folder + "/pipe.kcheck");
  ASSERT_EQ(mkfifo((folder + "/pipe.kcheck").c_str(), 0600), 0);
  EXPECT_THAT(message_of(folder + "/pipe.kcheck"), HasSubstr("pipe.kcheck: cannot read the checkpoint: not a regular file"));
}

/// A checkpoint whose checksum is right but whose content is not (written by hand, by another tool, or by a
/// bug) is refused naming the field, before a run uses it.
TEST(Checkpoint, ContentThatMakesNoSenseIsRefused) {
  const std::string folder = (std::filesystem::temp_directory_path() / "kempe_checkpoint_content").string();
  std::filesystem::create_directories(folder);
  output::Checkpoint good;
  good.order = 1;
  good.precision = "double";
  good.num_elements = 3;
  good.time = 0.5;
  good.steps = 10;
  good.outputs = {{0.0, "a_0000.vtu"}, {0.25, "a_0001.vtu"}};
  good.solution.assign(4 * 3 * 3, 1.0);
  auto message = [&](const output::Checkpoint& k) {
    const std::string path = folder + "/k.kcheck";
    output::write_checkpoint(path, k);
    return message_of(path);
  };
  EXPECT_EQ(message(good), "no error");
  output::Checkpoint k = good;
  k.time = -1e308;
  EXPECT_THAT(message(k), HasSubstr("k.kcheck: the checkpoint holds the time"));
  k.time = std::nan("");
  EXPECT_THAT(message(k), HasSubstr("expected a finite time >= 0"));
  k = good;
  k.outputs[1].second = "../../x.vtu";
  EXPECT_THAT(message(k), HasSubstr("output 2 with a file name that is not a plain name in the output folder"));
  k.outputs[1].second = "";
  EXPECT_THAT(message(k), HasSubstr("output 2 with a file name"));
  k = good;
  k.outputs[1].first = 0.75;  // after the checkpoint's own time
  EXPECT_THAT(message(k), HasSubstr("output 2 at time 0.75"));
  k = good;
  k.solution.pop_back();
  EXPECT_THAT(message(k), HasSubstr("35 coefficients, expected 36 (4 variables x 3 modes x 3 elements)"));
  k = good;
  k.order = 9;
  EXPECT_THAT(message(k), HasSubstr("order 9, expected 0 to 5"));
  k = good;
  k.precision = "half";
  EXPECT_THAT(message(k), HasSubstr("unknown precision"));
  k = good;
  k.steps = -1;
  EXPECT_THAT(message(k), HasSubstr("a step count of -1"));
  k = good;
  k.num_elements = 0;
  EXPECT_THAT(message(k), HasSubstr("an element count of 0"));
  k = good;
  k.leaf_root = {0, 1}, k.leaf_path = {0, 0}, k.leaf_level = {0, 0};
  EXPECT_THAT(message(k), HasSubstr("a refinement tree of 2 leaves for 3 elements"));
  k.leaf_root = {0, 1, 2}, k.leaf_path = {0, 0, 0}, k.leaf_level = {0, 31, 0};
  EXPECT_THAT(message(k), HasSubstr("leaf 1 with root 1 and level 31"));
  k.leaf_root = {0, -4, 2}, k.leaf_level = {0, 0, 0};
  EXPECT_THAT(message(k), HasSubstr("leaf 1 with root -4"));

  // A coefficient count whose size in bytes wraps around 2^64 is truncation, not an allocation.
  output::write_checkpoint(folder + "/k.kcheck", good);
  std::vector<char> bytes = bytes_of(folder + "/k.kcheck");
  const std::size_t count_at = bytes.size() - 8 - 36 * 8 - 8;
  const std::uint64_t huge = (std::uint64_t(1) << 61) + 36;
  std::memcpy(bytes.data() + count_at, &huge, 8);
  std::uint64_t hash = 1469598103934665603ull;
  for (std::size_t i = 0; i + 8 < bytes.size(); ++i) hash = (hash ^ static_cast<unsigned char>(bytes[i])) * 1099511628211ull;
  std::memcpy(bytes.data() + bytes.size() - 8, &hash, 8);
  write_bytes(folder + "/huge.kcheck", bytes);
  EXPECT_THAT(message_of(folder + "/huge.kcheck"), HasSubstr("huge.kcheck: the checkpoint is truncated"));
}

TEST(Checkpoint, FingerprintTellsMeshesApart) {
  const Mesh a = build_mesh(square_grid(4, true));
  const Mesh b = build_mesh(square_grid(5, true));
  EXPECT_EQ(output::mesh_fingerprint(a), output::mesh_fingerprint(build_mesh(square_grid(4, true))));
  EXPECT_NE(output::mesh_fingerprint(a), output::mesh_fingerprint(b));
  Mesh moved = build_mesh(square_grid(4, true));
  moved.x[3] += 1e-3;  // same connectivity, another geometry
  EXPECT_NE(output::mesh_fingerprint(a), output::mesh_fingerprint(moved));
}

}  // namespace
}  // namespace kempe
