// The native .kmesh format: bit-exact round trip, and clear failures for every kind of bad file.
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

#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "mesh/generators.hpp"
#include "mesh/kmesh.hpp"
#include "mesh/load.hpp"
#include "mesh/periodic.hpp"
#include "mesh_fixtures.hpp"

namespace kempe {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class KmeshTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kempe_kmesh_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static Mesh sample() {
    RawMesh raw = test::mixed_3d_raw();
    test::mark(raw, "bottom", {0, 3, 2, 1});
    raw.warnings.push_back("a warning to keep");
    return build_mesh(raw);
  }

  static std::vector<char> slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static void spit(const std::string& p, const std::vector<char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string read_error(const std::string& p) {
    try {
      read_kmesh(p);
    } catch (const MeshError& e) {
      return e.what();
    }
    return "no error";
  }
  /// The read error of `good` changed by change(mesh) and written as it is.
  template <class Change>
  std::string error_after(const Mesh& good, Change change) {
    Mesh m = good;
    change(m);
    write_kmesh(m, path("bad.kmesh"));
    return read_error(path("bad.kmesh"));
  }

  fs::path dir_;
};

template <class T>
void expect_bitwise_equal(const std::vector<T>& a, const std::vector<T>& b, const char* name) {
  ASSERT_EQ(a.size(), b.size()) << name;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0) << name;
}

TEST_F(KmeshTest, RoundTripIsBitExact) {
  const Mesh m = sample();
  write_kmesh(m, path("a.kmesh"));
  const Mesh r = read_kmesh(path("a.kmesh"));
  EXPECT_EQ(r.dim, m.dim);
  EXPECT_EQ(r.space_dim, m.space_dim);
  EXPECT_EQ(r.source, path("a.kmesh"));  // messages name the file read
  EXPECT_EQ(r.origin, m.source);         // the file keeps the name it was converted from
#define KEMPE_SAME(field) expect_bitwise_equal(r.field, m.field, #field)
  KEMPE_SAME(x);
  KEMPE_SAME(y);
  KEMPE_SAME(z);
  KEMPE_SAME(node_tag);
  KEMPE_SAME(element_type);
  KEMPE_SAME(element_vertex_begin);
  KEMPE_SAME(element_vertices);
  KEMPE_SAME(element_face_begin);
  KEMPE_SAME(element_faces);
  KEMPE_SAME(element_tag);
  KEMPE_SAME(volume);
  KEMPE_SAME(centroid_x);
  KEMPE_SAME(centroid_y);
  KEMPE_SAME(centroid_z);
  KEMPE_SAME(face_left);
  KEMPE_SAME(face_right);
  KEMPE_SAME(face_left_local);
  KEMPE_SAME(face_right_local);
  KEMPE_SAME(face_num_vertices);
  KEMPE_SAME(face_vertices);
  KEMPE_SAME(face_area);
  KEMPE_SAME(normal_x);
  KEMPE_SAME(normal_y);
  KEMPE_SAME(normal_z);
  KEMPE_SAME(face_boundary);
#undef KEMPE_SAME
  EXPECT_EQ(r.boundary_names, m.boundary_names);
  EXPECT_EQ(r.report.warnings, m.report.warnings);
  EXPECT_EQ(r.report.flipped_elements, m.report.flipped_elements);
  // Writing what was read gives the same bytes.
  write_kmesh(r, path("b.kmesh"));
  EXPECT_EQ(slurp(path("a.kmesh")), slurp(path("b.kmesh")));
  // load_mesh dispatches on the extension.
  EXPECT_EQ(load_mesh(path("a.kmesh")).num_faces(), m.num_faces());
  fs::copy_file(path("a.kmesh"), path("UPPER.KMESH"));
  EXPECT_EQ(load_mesh(path("UPPER.KMESH")).num_faces(), m.num_faces());  // extensions in any case
}

TEST_F(KmeshTest, MessagesNameTheFileReadAndTheFileKeepsItsOrigin) {
  Mesh m = sample();
  ASSERT_FALSE(m.source.empty());
  write_kmesh(m, path("named.kmesh"));
  Mesh r = read_kmesh(path("named.kmesh"));
  EXPECT_THAT([&] { make_periodic(r, "no_such_group", "left", {1, 0, 0}); },
              ::testing::ThrowsMessage<MeshError>(
                  HasSubstr(path("named.kmesh") + ": no boundary group 'no_such_group'")));
  // Saved again elsewhere and read back: still the name it was first built from.
  write_kmesh(r, path("copy.kmesh"));
  const Mesh c = read_kmesh(path("copy.kmesh"));
  EXPECT_EQ(c.source, path("copy.kmesh"));
  EXPECT_EQ(c.origin, m.source);
}

TEST_F(KmeshTest, ColorsAndInputNumberingRoundTrip) {
  Mesh m = sample();
  FaceColoring coloring = color_faces(m, {"kempe", 1});
  apply_ordering(m, coloring, find_ordering("rcm").compute(m, coloring));
  ASSERT_FALSE(m.face_color.empty());
  ASSERT_FALSE(m.element_input.empty());
  write_kmesh(m, path("o.kmesh"));
  const Mesh r = read_kmesh(path("o.kmesh"));
  EXPECT_EQ(r.face_color, m.face_color);
  EXPECT_EQ(r.color_begin, m.color_begin);
  EXPECT_EQ(r.element_input, m.element_input);
  EXPECT_EQ(r.face_input, m.face_input);
  EXPECT_EQ(r.face_left, m.face_left);
  EXPECT_EQ(r.element_faces, m.element_faces);
  write_kmesh(r, path("o2.kmesh"));
  EXPECT_EQ(slurp(path("o.kmesh")), slurp(path("o2.kmesh")));

  // A mesh without them writes none of the optional sections (the file is as before) and reads back empty.
  const Mesh plain = sample();
  write_kmesh(plain, path("plain.kmesh"));
  const auto bytes = slurp(path("plain.kmesh"));
  for (const char* name : {"face_color", "color_begin", "element_input", "face_input"})
    EXPECT_EQ(std::search(bytes.begin(), bytes.end(), name, name + std::strlen(name)), bytes.end()) << name;
  const Mesh q = read_kmesh(path("plain.kmesh"));
  EXPECT_TRUE(q.face_color.empty() && q.color_begin.empty() && q.element_input.empty() && q.face_input.empty());

  // Colors alone (colored, not reordered) are fine too.
  Mesh colored = sample();
  colored.face_color = color_faces(colored, {"kempe", 1}).color;
  write_kmesh(colored, path("colored.kmesh"));
  EXPECT_EQ(read_kmesh(path("colored.kmesh")).face_color, colored.face_color);
}

/// A file whose checksum is right but whose tables are not (written by another tool, edited by hand, or by a
/// bug) is refused naming the section and entry, before the coloring, the ordering or the solver index with it.
TEST_F(KmeshTest, TablesThatDisagreeAreRefusedByName) {
  const Mesh good = build_mesh(square_grid(3, true));
  auto error_with = [&](const char* what, auto change) {
    SCOPED_TRACE(what);
    return error_after(good, change);
  };
  EXPECT_EQ(error_with("nothing", [](Mesh&) {}), "no error");
  EXPECT_THAT(error_with("offset", [](Mesh& m) { m.element_face_begin[1] = 2; }),
              AllOf(HasSubstr("bad.kmesh: corrupt .kmesh file"), HasSubstr("section 'element_face_begin' entry 1")));
  EXPECT_THAT(error_with("vertex", [](Mesh& m) { m.element_vertices[4] = m.num_nodes(); }),
              HasSubstr("section 'element_vertices' entry 4: vertex out of range"));
  EXPECT_THAT(
      error_with("two faces of an element swapped", [](Mesh& m) { std::swap(m.element_faces[0], m.element_faces[1]); }),
      HasSubstr("not the left element's slot of this face"));
  EXPECT_THAT(error_with("face of another element", [](Mesh& m) { m.element_faces[0] = m.element_faces[3]; }),
              HasSubstr("section 'face_left_local'"));
  EXPECT_THAT(error_with("left element", [](Mesh& m) { m.face_left[2] = m.num_elements(); }),
              HasSubstr("section 'face_left' entry 2: element out of range"));
  EXPECT_THAT(error_with("local face", [](Mesh& m) { m.face_left_local[0] = 7; }),
              HasSubstr("section 'face_left_local' entry 0"));
  EXPECT_THAT(error_with("face vertex", [](Mesh& m) { m.face_vertices[1] = -5; }),
              HasSubstr("section 'face_vertices' entry 1"));
  EXPECT_THAT(error_with("element type", [](Mesh& m) { m.element_type[0] = ElementType::tetrahedron; }),
              HasSubstr("an element of another dimension than the mesh"));
  EXPECT_THAT(error_with("coordinate", [](Mesh& m) { m.y[3] = std::nan(""); }),
              HasSubstr("section 'y' entry 3: a number that is not finite"));
  EXPECT_THAT(error_with("volume", [](Mesh& m) { m.volume[5] = 0; }), HasSubstr("section 'volume' entry 5"));
  EXPECT_THAT(error_with("normal", [](Mesh& m) { m.normal_y[4] = HUGE_VAL; }),
              HasSubstr("section 'normal_y' entry 4: a number that is not finite"));
  // Geometry that the coordinates do not give: a moved node, a centroid, a normal that is unit but wrong.
  EXPECT_THAT(error_with("moved node", [](Mesh& m) { m.x[5] += 0.1; }),
              AllOf(HasSubstr("is not what the coordinates give"), HasSubstr("the geometry and the coordinates disagree")));
  EXPECT_THAT(error_with("centroid", [](Mesh& m) { m.centroid_y[2] += 1e-3; }), HasSubstr("section 'centroid_y' entry 2"));
  EXPECT_THAT(error_with("normal", [](Mesh& m) { std::swap(m.normal_x[0], m.normal_y[0]); }),
              HasSubstr("section 'normal_x' entry 0"));
  EXPECT_THAT(error_with("length", [](Mesh& m) { m.face_area.pop_back(); }),
              HasSubstr("section 'face_area' has " + std::to_string(good.num_faces() - 1) + " entries, expected " +
                        std::to_string(good.num_faces())));
  EXPECT_THAT(
      error_with("two faces of one color at an element", [](Mesh& m) { m.face_color.assign(m.num_faces(), 0); }),
      HasSubstr("section 'face_color' entry 1: the color of another face of element"));

  // The leaves of an adapted mesh (kempe adapt --save): lengths that differ, a root, a level or a path out of range.
  auto leaves = [](Mesh& m) {
    m.leaf_root = {0, 1, 2};
    m.leaf_path = {0, 0, 3};
    m.leaf_level = {0, 0, 1};
  };
  EXPECT_THAT(error_with("leaves", [&](Mesh& m) { leaves(m); }), HasSubstr("no error"));
  EXPECT_THAT(error_with("leaf lengths", [&](Mesh& m) { leaves(m), m.leaf_level.pop_back(); }),
              HasSubstr("sections 'leaf_root', 'leaf_path' and 'leaf_level' differ in length"));
  EXPECT_THAT(error_with("leaf root", [&](Mesh& m) { leaves(m), m.leaf_root[1] = m.num_elements(); }),
              HasSubstr("section 'leaf_root' entry 1: not an element of the mesh"));
  EXPECT_THAT(error_with("leaf level", [&](Mesh& m) { leaves(m), m.leaf_level[2] = 31; }),
              HasSubstr("section 'leaf_level' entry 2: a level outside 0..30"));
  EXPECT_THAT(error_with("negative leaf level", [&](Mesh& m) { leaves(m), m.leaf_level[1] = -7; }),
              HasSubstr("section 'leaf_level' entry 1: a level outside 0..30"));
  EXPECT_THAT(error_with("leaf path", [&](Mesh& m) { leaves(m), m.leaf_path[2] = 4; }),
              HasSubstr("section 'leaf_path' entry 2: a path longer than its level"));

  // A section count whose byte size wraps around 2^64 is refused, not allocated.
  write_kmesh(good, path("wrap.kmesh"));
  std::vector<char> bytes = slurp(path("wrap.kmesh"));
  const char name[32] = {'n', 'o', 'r', 'm', 'a', 'l', '_', 'x'};
  const auto at = std::search(bytes.begin(), bytes.end(), name, name + 32);
  ASSERT_NE(at, bytes.end());
  const std::size_t count_at = std::size_t(at - bytes.begin()) + 32 + 8;
  std::uint64_t count = 0;
  std::memcpy(&count, bytes.data() + count_at, 8);
  count += std::uint64_t(1) << 61;  // count * 8 is the same number of bytes modulo 2^64
  std::memcpy(bytes.data() + count_at, &count, 8);
  const std::uint64_t sum = fnv1a64(bytes.data() + 32, bytes.size() - 32);
  std::memcpy(bytes.data() + 24, &sum, 8);
  spit(path("wrap.kmesh"), bytes);
  EXPECT_THAT(read_error(path("wrap.kmesh")), HasSubstr("section 'normal_x' has the wrong type or size"));
}

TEST_F(KmeshTest, BadOptionalSections) {
  Mesh good = sample();
  FaceColoring coloring = color_faces(good, {"kempe", 1});
  apply_ordering(good, coloring, find_ordering("hilbert").compute(good, coloring));
  auto error_with = [&](const char* what, auto change) {
    SCOPED_TRACE(what);
    return error_after(good, change);
  };
  EXPECT_THAT(error_with("short colors", [](Mesh& m) { m.face_color.pop_back(); }),
              AllOf(HasSubstr("bad.kmesh"), HasSubstr("face_color")));
  EXPECT_THAT(error_with("negative color", [](Mesh& m) { m.face_color[0] = -1; }), HasSubstr("face color out of range"));
  EXPECT_THAT(error_with("colors out of their ranges",
                         [](Mesh& m) { std::swap(m.face_color.front(), m.face_color.back()); }),
              HasSubstr("color_begin"));
  EXPECT_THAT(error_with("ranges short", [](Mesh& m) { --m.color_begin.back(); }), HasSubstr("color_begin"));
  EXPECT_THAT(error_with("range past the end", [](Mesh& m) { m.color_begin[1] = m.num_faces() + 100; }),
              HasSubstr("runs past the faces"));
  EXPECT_THAT(error_with("ranges without colors", [](Mesh& m) { m.face_color.clear(); }),
              HasSubstr("without section 'face_color'"));
  EXPECT_THAT(error_with("element repeated", [](Mesh& m) { m.element_input[0] = m.element_input[1]; }),
              HasSubstr("element_input"));
  EXPECT_THAT(error_with("element out of range", [](Mesh& m) { m.element_input[0] = m.num_elements(); }),
              HasSubstr("element_input"));
  EXPECT_THAT(error_with("face list short", [](Mesh& m) { m.face_input.pop_back(); }), HasSubstr("face_input"));
  EXPECT_THAT(error_with("face negative", [](Mesh& m) { m.face_input[2] = -1; }), HasSubstr("face_input"));
  EXPECT_EQ(error_with("nothing", [](Mesh&) {}), "no error");
}

TEST_F(KmeshTest, MissingFile) {
  EXPECT_THAT(read_error(path("nope.kmesh")), AllOf(HasSubstr("nope.kmesh"), HasSubstr("cannot open")));
}

TEST_F(KmeshTest, NotAKmeshFile) {
  spit(path("text.kmesh"), {'h', 'e', 'l', 'l', 'o'});
  EXPECT_THAT(read_error(path("text.kmesh")), AllOf(HasSubstr("text.kmesh"), HasSubstr("not a .kmesh")));
}

TEST_F(KmeshTest, OtherVersion) {
  write_kmesh(sample(), path("v.kmesh"));
  auto bytes = slurp(path("v.kmesh"));
  const std::uint32_t version = kmesh_version + 1;
  std::memcpy(bytes.data() + 8, &version, 4);
  spit(path("v.kmesh"), bytes);
  EXPECT_THAT(read_error(path("v.kmesh")),
              AllOf(HasSubstr("v.kmesh"), HasSubstr("version " + std::to_string(kmesh_version + 1)),
                    HasSubstr("reads version " + std::to_string(kmesh_version))));
}

TEST_F(KmeshTest, BadChecksum) {
  write_kmesh(sample(), path("c.kmesh"));
  auto bytes = slurp(path("c.kmesh"));
  bytes[bytes.size() / 2] ^= 0x10;
  spit(path("c.kmesh"), bytes);
  EXPECT_THAT(read_error(path("c.kmesh")), AllOf(HasSubstr("c.kmesh"), HasSubstr("checksum")));
}

TEST_F(KmeshTest, Truncated) {
  write_kmesh(sample(), path("t.kmesh"));
  auto bytes = slurp(path("t.kmesh"));
  for (std::size_t keep : {std::size_t{3}, std::size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
    spit(path("t.kmesh"), std::vector<char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep)));
    EXPECT_THAT(read_error(path("t.kmesh")), HasSubstr("t.kmesh")) << "kept " << keep << " bytes";
  }
  spit(path("t.kmesh"), std::vector<char>(bytes.begin(), bytes.end() - 8));
  EXPECT_THAT(read_error(path("t.kmesh")), HasSubstr("truncated"));
}

TEST_F(KmeshTest, FailedWriteNamesTheFileAndKeepsTheOldOne) {
  const Mesh m = sample();
  try {
    write_kmesh(m, path("missing_dir/x.kmesh"));
    FAIL() << "expected an error";
  } catch (const MeshError& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing_dir/x.kmesh"));
  }
  // A directory in the way of the final name: the write fails and the directory (the "old file") survives.
  fs::create_directories(path("taken.kmesh/inner"));
  EXPECT_THROW(write_kmesh(m, path("taken.kmesh")), MeshError);
  EXPECT_TRUE(fs::exists(path("taken.kmesh/inner")));
  EXPECT_FALSE(fs::exists(path("taken.kmesh.tmp")));
}

TEST_F(KmeshTest, UnknownExtension) {
  try {
    load_mesh(path("mesh.stl"));
    FAIL() << "expected an error";
  } catch (const MeshError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("mesh.stl"), HasSubstr(".kmesh")));
  }
}

/// A FIFO (or a device) named as a mesh would block the reader forever: it is refused before anything opens it.
TEST_F(KmeshTest, AFifoIsNoMeshFile) {
  for (const char* name : {"pipe.kmesh", "pipe.msh"}) {
    ASSERT_EQ(mkfifo(path(name).c_str(), 0600), 0);
    try {
      load_mesh(path(name));
      ADD_FAILURE() << "expected an error for " << name;
    } catch (const MeshError& e) {
      EXPECT_EQ(std::string(e.what()), path(name) + ": not a regular file (a FIFO, socket or device)");
    }
  }
  EXPECT_EQ(read_error(dir_.string()), dir_.string() + ": a directory, not a file");
}

}  // namespace
}  // namespace kempe
