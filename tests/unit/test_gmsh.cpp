// The Gmsh adapter: generators, reading and writing every .msh flavour and .geo files, and the errors that bad
// files must produce. Every mesh is generated or written here into a temporary directory; the checks use
// formulas that do not depend on the builder's own bookkeeping (closure of each element's faces, face-count
// identities, Euler characteristics, exact volumes and areas).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <numbers>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "coloring/coloring.hpp"
#include "mesh/geometry.hpp"
#include "mesh/gmsh_io.hpp"
#include "mesh/mesh.hpp"

namespace {

namespace fs = std::filesystem;
using kempe::BoxElements;
using kempe::ClosedSurface;
using kempe::ElementType;
using kempe::Mesh;
using kempe::MeshError;
using kempe::RawMesh;
using kempe::RectElements;
using kempe::geom::Vec3;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/// A fresh directory under the system temporary directory, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("kempe_gmsh_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd() % 1000000));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = file(name);
    std::ofstream out(p, std::ios::binary);
    out << content;
    return p;
  }

 private:
  fs::path path_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `f`, which must throw MeshError; returns its message after checking that it names `file` and
/// contains `problem` (when not empty).
std::string expect_mesh_error(const std::function<void()>& f, const std::string& file, const std::string& problem) {
  try {
    f();
  } catch (const MeshError& e) {
    const std::string what = e.what();
    if (std::getenv("KEMPE_PRINT_ERRORS")) std::cout << "    message: " << what << "\n";
    EXPECT_THAT(what, HasSubstr(file)) << "the message should name the file";
    if (!problem.empty()) {
      EXPECT_THAT(what, HasSubstr(problem)) << "the message should name the problem";
    }
    return what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected kempe::MeshError, got another exception: " << e.what();
    return {};
  } catch (...) {
    ADD_FAILURE() << "expected kempe::MeshError, got a non-standard exception";
    return {};
  }
  ADD_FAILURE() << "expected kempe::MeshError for " << file << ", nothing was thrown";
  return {};
}

Mesh load(const std::string& path, const kempe::GmshReadOptions& options = {}) {
  return kempe::build_mesh(kempe::read_gmsh(path, options));
}

Vec3 node(const Mesh& m, kempe::index_t i) { return {m.x[i], m.y[i], m.z[i]}; }
Vec3 centroid(const Mesh& m, kempe::index_t e) { return {m.centroid_x[e], m.centroid_y[e], m.centroid_z[e]}; }
Vec3 normal(const Mesh& m, kempe::index_t f) { return {m.normal_x[f], m.normal_y[f], m.normal_z[f]}; }

/// The vertex cycle of local face `local` of element `e`, as the element runs it.
std::vector<kempe::index_t> local_face_cycle(const Mesh& m, kempe::index_t e, int local) {
  const auto& fd = kempe::element_info(m.element_type[e]).faces[local];
  std::vector<kempe::index_t> cycle;
  for (int k = 0; k < fd.num_vertices; ++k)
    cycle.push_back(m.element_vertices[m.element_vertex_begin[e] + fd.vertices[k]]);
  return cycle;
}

/// True when `b` is `a` run backwards (as cycles: any starting point).
bool is_reversed_cycle(const std::vector<kempe::index_t>& a, const std::vector<kempe::index_t>& b) {
  if (a.size() != b.size() || a.empty()) return false;
  std::vector<kempe::index_t> r(a.rbegin(), a.rend());
  for (std::size_t s = 0; s < r.size(); ++s) {
    std::rotate(r.begin(), r.begin() + 1, r.end());
    if (r == b) return true;
  }
  return false;
}

std::map<ElementType, kempe::index_t> type_counts(const Mesh& m) {
  std::map<ElementType, kempe::index_t> c;
  for (ElementType t : m.element_type) ++c[t];
  return c;
}

std::set<ElementType> type_set(const Mesh& m) {
  std::set<ElementType> s;
  for (ElementType t : m.element_type) s.insert(t);
  return s;
}

/// Boundary group names that tag at least one boundary face.
std::set<std::string> used_boundary_names(const Mesh& m) {
  std::set<std::string> s;
  for (kempe::index_t f = 0; f < m.num_faces(); ++f)
    if (m.face_right[f] == kempe::no_element) s.insert(m.boundary_names.at(m.face_boundary[f]));
  return s;
}

double total_volume(const Mesh& m) {
  double v = 0;
  for (double x : m.volume) v += x;
  return v;
}

/// The checks every processed mesh must pass, whatever produced it.
void check_invariants(const Mesh& m) {
  SCOPED_TRACE(m.source);
  const kempe::index_t ne = m.num_elements(), nf = m.num_faces();
  ASSERT_GT(ne, 0);
  ASSERT_EQ(m.element_face_begin.size(), std::size_t(ne) + 1);
  ASSERT_EQ(m.volume.size(), std::size_t(ne));
  ASSERT_EQ(m.face_area.size(), std::size_t(nf));
  const bool surface = m.dim == 2 && m.space_dim == 3;

  // Every element: positive measure, its face count, faces that point back to it.
  kempe::index_t local_faces = 0;
  for (kempe::index_t e = 0; e < ne; ++e) {
    const auto& info = kempe::element_info(m.element_type[e]);
    ASSERT_EQ(info.dim, m.dim);
    ASSERT_GT(m.volume[e], 0) << "element " << e;
    ASSERT_EQ(m.element_num_faces(e), info.num_faces);
    local_faces += info.num_faces;
    for (int l = 0; l < info.num_faces; ++l) {
      const kempe::index_t f = m.element_faces[m.element_face_begin[e] + l];
      ASSERT_GE(f, 0);
      ASSERT_LT(f, nf);
      const bool left = m.face_left[f] == e && m.face_left_local[f] == l;
      const bool right = m.face_right[f] == e && m.face_right_local[f] == l;
      ASSERT_TRUE(left || right) << "element " << e << " local face " << l;
    }
  }

  // Every face: unit normal pointing out of the left element and into the right one, the left element's
  // vertices, the right element running them backwards, boundary tags on boundary faces only.
  kempe::index_t interior = 0, boundary = 0;
  for (kempe::index_t f = 0; f < nf; ++f) {
    const Vec3 n = normal(m, f);
    ASSERT_NEAR(kempe::geom::norm(n), 1.0, 1e-12) << "face " << f;
    ASSERT_GT(m.face_area[f], 0) << "face " << f;
    const kempe::index_t l = m.face_left[f], r = m.face_right[f];
    ASSERT_GE(l, 0);
    const std::vector<kempe::index_t> cycle = local_face_cycle(m, l, m.face_left_local[f]);
    ASSERT_EQ(static_cast<int>(cycle.size()), m.face_num_vertices[f]);
    Vec3 mid{};
    for (std::size_t k = 0; k < cycle.size(); ++k) {
      ASSERT_EQ(m.face_vertices[std::size_t(f) * kempe::max_face_vertices + k], cycle[k]) << "face " << f;
      mid = mid + node(m, cycle[k]);
    }
    mid = (1.0 / static_cast<double>(cycle.size())) * mid;
    EXPECT_GT(kempe::geom::dot(n, mid - centroid(m, l)), 0) << "face " << f << " normal points into its left element";
    if (r == kempe::no_element) {
      ++boundary;
      ASSERT_GE(m.face_boundary[f], 0) << "boundary face " << f << " has no tag";
      ASSERT_LT(m.face_boundary[f], static_cast<std::int32_t>(m.boundary_names.size()));
    } else {
      ++interior;
      EXPECT_LT(l, r) << "the left element is the lower-numbered one";
      EXPECT_EQ(m.face_boundary[f], kempe::no_boundary);
      EXPECT_LT(kempe::geom::dot(n, mid - centroid(m, r)), 0)
          << "face " << f << " normal points out of its right element";
      // Consistent orientation: the two elements run the shared face in opposite directions.
      EXPECT_TRUE(is_reversed_cycle(cycle, local_face_cycle(m, r, m.face_right_local[f])))
          << "face " << f << ": elements " << l << " and " << r << " are not consistently oriented";
    }
  }
  EXPECT_EQ(local_faces, 2 * interior + boundary);
  EXPECT_EQ(boundary, m.num_boundary_faces());

  // Closure: the outward area vectors of an element's faces sum to zero (the divergence theorem for a
  // constant field). On a curved surface the face normal lies in the left element's plane, so the right
  // element sees it tilted by the angle between neighbours: check the part in the element's own plane,
  // against a tolerance of the order of that angle squared.
  for (kempe::index_t e = 0; e < ne; ++e) {
    Vec3 sum{};
    double perimeter = 0;
    for (kempe::index_t k = m.element_face_begin[e]; k < m.element_face_begin[e + 1]; ++k) {
      const kempe::index_t f = m.element_faces[k];
      const double sign = m.face_left[f] == e ? 1.0 : -1.0;
      sum = sum + (sign * m.face_area[f]) * normal(m, f);
      perimeter += m.face_area[f];
    }
    if (surface) {
      const auto* v = &m.element_vertices[m.element_vertex_begin[e]];
      const int nv = kempe::element_info(m.element_type[e]).num_vertices;
      Vec3 en{};
      for (int i = 1; i + 1 < nv; ++i)
        en = en + kempe::geom::cross(node(m, v[i]) - node(m, v[0]), node(m, v[i + 1]) - node(m, v[0]));
      en = (1.0 / kempe::geom::norm(en)) * en;
      sum = sum - kempe::geom::dot(sum, en) * en;
      ASSERT_LT(kempe::geom::norm(sum), 0.05 * perimeter) << "element " << e << " is not closed";
    } else {
      ASSERT_LT(kempe::geom::norm(sum), 1e-12 * perimeter) << "element " << e << " is not closed";
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Generated meshes of every element type

struct GeneratedCase {
  std::string name;
  std::function<RawMesh()> generate;
  std::set<ElementType> types;  ///< exactly the types present
  int max_faces;
  double volume;                         ///< total area/volume of the domain
  double volume_tol;                     ///< relative
  std::set<std::string> boundary_names;  ///< empty for a closed surface
};

void PrintTo(const GeneratedCase& c, std::ostream* os) { *os << c.name; }

std::vector<GeneratedCase> generated_cases() {
  using T = ElementType;
  const double sphere_area = 4 * std::numbers::pi;
  const double torus_area = 4 * std::numbers::pi * std::numbers::pi * 1.0 * 0.4;
  const std::set<std::string> rect_names{"left", "right", "bottom", "top"};
  auto rect = [](RectElements type) {
    return [type] {
      kempe::RectSpec s;
      s.elements = 800;
      s.type = type;
      return kempe::generate_rect(s);
    };
  };
  auto box = [](BoxElements type, std::int64_t elements) {
    return [type, elements] {
      kempe::BoxSpec s;
      s.elements = elements;
      s.type = type;
      return kempe::generate_box(s);
    };
  };
  auto surface = [](ClosedSurface shape, bool quads) {
    return [shape, quads] {
      kempe::SurfaceSpec s;
      s.elements = 900;
      s.shape = shape;
      s.quadrilaterals = quads;
      return kempe::generate_surface(s);
    };
  };
  return {
      {"rect_tri", rect(RectElements::triangles), {T::triangle}, 3, 1.0, 1e-12, rect_names},
      {"rect_quad", rect(RectElements::quadrilaterals), {T::quadrilateral}, 4, 1.0, 1e-12, rect_names},
      {"box_tet", box(BoxElements::tetrahedra, 1500), {T::tetrahedron}, 4, 1.0, 1e-12, {"boundary"}},
      {"box_hex", box(BoxElements::hexahedra, 343), {T::hexahedron}, 6, 1.0, 1e-12, {"boundary"}},
      {"box_prism", box(BoxElements::prisms, 1000), {T::prism}, 5, 1.0, 1e-12, {"boundary"}},
      {"box_hybrid",
       box(BoxElements::hybrid, 1500),
       {T::tetrahedron, T::pyramid, T::prism, T::hexahedron},
       6,
       1.0,
       1e-12,
       {"boundary"}},
      // A polyhedral surface inscribed in the smooth one has a little less area.
      {"sphere_tri", surface(ClosedSurface::sphere, false), {T::triangle}, 3, sphere_area, 0.03, {}},
      {"sphere_quad", surface(ClosedSurface::sphere, true), {T::quadrilateral}, 4, sphere_area, 0.03, {}},
      {"torus_tri", surface(ClosedSurface::torus, false), {T::triangle}, 3, torus_area, 0.03, {}},
      {"torus_quad", surface(ClosedSurface::torus, true), {T::quadrilateral}, 4, torus_area, 0.03, {}},
  };
}

/// Each generated mesh is built once and shared by the tests that look at it.
const Mesh& generated_mesh(const GeneratedCase& c) {
  static std::map<std::string, Mesh> cache;
  auto it = cache.find(c.name);
  if (it == cache.end()) it = cache.emplace(c.name, kempe::build_mesh(c.generate())).first;
  return it->second;
}

class Generated : public ::testing::TestWithParam<GeneratedCase> {};

TEST_P(Generated, ElementTypesAndFaceCounts) {
  const GeneratedCase& c = GetParam();
  const Mesh& m = generated_mesh(c);
  EXPECT_EQ(type_set(m), c.types);
  EXPECT_EQ(m.max_faces_per_element(), c.max_faces);
  EXPECT_EQ(m.report.flipped_elements, 0) << "Gmsh generates positively oriented elements";
  EXPECT_EQ(m.report.unused_nodes, 0);
  EXPECT_TRUE(m.report.warnings.empty()) << m.report.warnings.front();
  EXPECT_GT(m.num_elements(), 100);
}

TEST_P(Generated, GeometryAndConnectivityInvariants) { check_invariants(generated_mesh(GetParam())); }

TEST_P(Generated, TotalVolumeIsTheDomain) {
  const GeneratedCase& c = GetParam();
  const Mesh& m = generated_mesh(c);
  const double v = total_volume(m);
  EXPECT_NEAR(v, c.volume, c.volume_tol * c.volume);
  if (c.volume_tol > 1e-6) {
    EXPECT_LT(v, c.volume) << "an inscribed polyhedral surface is smaller";
  }
}

TEST_P(Generated, BoundaryGroups) {
  const GeneratedCase& c = GetParam();
  const Mesh& m = generated_mesh(c);
  EXPECT_EQ(used_boundary_names(m), c.boundary_names);
  EXPECT_EQ(m.report.untagged_boundary_faces, 0);
  EXPECT_EQ(m.report.unmatched_markers, 0);
  EXPECT_EQ(m.report.interior_markers, 0);
  if (c.boundary_names.empty()) {
    EXPECT_EQ(m.num_boundary_faces(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Gmsh, Generated, ::testing::ValuesIn(generated_cases()),
                         [](const ::testing::TestParamInfo<GeneratedCase>& p) { return p.param.name; });

GeneratedCase find_case(const std::string& name) {
  for (const GeneratedCase& c : generated_cases())
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

TEST(GmshRect, BoundaryFacesLieOnTheirSides) {
  for (const char* name : {"rect_tri", "rect_quad"}) {
    const Mesh& m = generated_mesh(find_case(name));
    SCOPED_TRACE(name);
    EXPECT_EQ(m.dim, 2);
    EXPECT_EQ(m.space_dim, 2);
    // Triangles: 3T = 2 I + B; the boundary is 4 sides of (about) equal subdivision.
    double length[4] = {0, 0, 0, 0};
    for (kempe::index_t f = 0; f < m.num_faces(); ++f) {
      if (m.face_right[f] != kempe::no_element) continue;
      const std::string& side = m.boundary_names[m.face_boundary[f]];
      const Vec3 a = node(m, m.face_vertices[std::size_t(f) * 4]), b = node(m, m.face_vertices[std::size_t(f) * 4 + 1]);
      const Vec3 n = normal(m, f);
      // Each side: the coordinate that is constant on it, its value, and the outward normal's component there.
      struct Side {
        const char* name;
        double Vec3::*coordinate;
        double value, normal;
      };
      static constexpr Side sides[] = {
          {"left", &Vec3::x, 0, -1}, {"right", &Vec3::x, 1, 1}, {"bottom", &Vec3::y, 0, -1}, {"top", &Vec3::y, 1, 1}};
      const Side* match = nullptr;
      for (const Side& candidate : sides)
        if (side == candidate.name) match = &candidate;
      if (!match) {
        ADD_FAILURE() << "unexpected boundary group " << side;
        continue;
      }
      EXPECT_NEAR(a.*match->coordinate, match->value, 1e-12);
      EXPECT_NEAR(b.*match->coordinate, match->value, 1e-12);
      EXPECT_NEAR(n.*match->coordinate, match->normal, 1e-12);
      length[match - sides] += m.face_area[f];
    }
    for (double l : length) EXPECT_NEAR(l, 1.0, 1e-12);
    const kempe::index_t b = m.num_boundary_faces(), interior = m.num_faces() - b;
    EXPECT_EQ(m.max_faces_per_element() * m.num_elements(), 2 * interior + b);
    // A planar disc: V - E + F = 1.
    EXPECT_EQ(m.num_nodes() - m.num_faces() + m.num_elements(), 1);
  }
}

TEST(GmshRect, ElementCountFollowsTheRequest) {
  for (auto type : {RectElements::triangles, RectElements::quadrilaterals}) {
    kempe::RectSpec s;
    s.width = 2;
    s.height = 0.5;
    s.elements = 400;
    s.type = type;
    const Mesh m = kempe::build_mesh(kempe::generate_rect(s));
    EXPECT_NEAR(total_volume(m), 1.0, 1e-12);
    EXPECT_GT(m.num_elements(), 400 / 2);
    EXPECT_LT(m.num_elements(), 400 * 2);
  }
}

TEST(GmshBox, HexahedronCountsFollowTheFormula) {
  for (int k : {3, 5}) {
    kempe::BoxSpec s;
    s.type = BoxElements::hexahedra;
    s.elements = std::int64_t(k) * k * k;
    const Mesh m = kempe::build_mesh(kempe::generate_box(s));
    SCOPED_TRACE(k);
    EXPECT_EQ(m.num_elements(), k * k * k);
    EXPECT_EQ(m.num_faces(), 3 * k * k * (k + 1));
    EXPECT_EQ(m.num_boundary_faces(), 6 * k * k);
    EXPECT_EQ(m.num_nodes(), (k + 1) * (k + 1) * (k + 1));
    for (double v : m.volume) EXPECT_NEAR(v, 1.0 / (k * k * k), 1e-12);
    for (double a : m.face_area) EXPECT_NEAR(a, 1.0 / (k * k), 1e-12);
  }
}

TEST(GmshBox, BoundaryFacesLieOnTheCube) {
  for (const char* name : {"box_tet", "box_hex", "box_prism", "box_hybrid"}) {
    const Mesh& m = generated_mesh(find_case(name));
    SCOPED_TRACE(name);
    EXPECT_EQ(m.dim, 3);
    double area = 0;
    for (kempe::index_t f = 0; f < m.num_faces(); ++f) {
      if (m.face_right[f] != kempe::no_element) continue;
      area += m.face_area[f];
      // On a face of the cube the outward normal is a coordinate direction and the vertices sit on that face.
      const Vec3 n = normal(m, f);
      const double c[3] = {n.x, n.y, n.z};
      int axis = -1;
      for (int d = 0; d < 3; ++d)
        if (std::abs(std::abs(c[d]) - 1) < 1e-9) axis = d;
      ASSERT_GE(axis, 0) << "boundary face " << f << " is not on the cube";
      const double plane = c[axis] > 0 ? 1 : 0;
      for (int k = 0; k < m.face_num_vertices[f]; ++k) {
        const Vec3 p = node(m, m.face_vertices[std::size_t(f) * 4 + k]);
        const double q[3] = {p.x, p.y, p.z};
        EXPECT_NEAR(q[axis], plane, 1e-9);
      }
    }
    EXPECT_NEAR(area, 6.0, 1e-9);
  }
}

TEST(GmshBox, HybridHasPyramidsBetweenTetrahedraAndQuadrilaterals) {
  const Mesh& m = generated_mesh(find_case("box_hybrid"));
  const auto counts = type_counts(m);
  ASSERT_EQ(counts.size(), 4u);
  // Every quadrilateral face is either on the boundary or shared by two of hexahedra, prisms and pyramids:
  // a tetrahedron never touches one, which is what the pyramids are for.
  for (kempe::index_t f = 0; f < m.num_faces(); ++f) {
    if (m.face_num_vertices[f] != 4) continue;
    for (kempe::index_t e : {m.face_left[f], m.face_right[f]})
      if (e != kempe::no_element) {
        EXPECT_NE(m.element_type[e], ElementType::tetrahedron);
      }
  }
  // Pyramid apexes point into the tetrahedral block: each pyramid has a tetrahedron or a pyramid on its triangles.
  for (kempe::index_t e = 0; e < m.num_elements(); ++e) {
    if (m.element_type[e] != ElementType::pyramid) continue;
    for (int l = 1; l < 5; ++l) {
      const kempe::index_t f = m.element_faces[m.element_face_begin[e] + l];
      const kempe::index_t other = m.face_left[f] == e ? m.face_right[f] : m.face_left[f];
      if (other != kempe::no_element) {
        EXPECT_TRUE(m.element_type[other] == ElementType::tetrahedron || m.element_type[other] == ElementType::pyramid);
      }
    }
  }
}

TEST(GmshBox, HybridTwiceInOneProcessIsIdentical) {
  // Also a regression test: with Gmsh 4.8, a second mesh with pyramids in one process aborted (an Eigen assertion)
  // when the adapter finalised and re-initialised Gmsh between calls.
  kempe::BoxSpec s;
  s.type = BoxElements::hybrid;
  s.elements = 200;
  const RawMesh a = kempe::generate_box(s);
  const RawMesh b = kempe::generate_box(s);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.element_type, b.element_type);
  EXPECT_EQ(a.element_vertices, b.element_vertices);
  const Mesh m = kempe::build_mesh(a);
  EXPECT_EQ(type_set(m), (std::set<ElementType>{ElementType::tetrahedron, ElementType::pyramid, ElementType::prism,
                                                ElementType::hexahedron}));
  EXPECT_NEAR(total_volume(m), 1.0, 1e-12);
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Closed surfaces

TEST(GmshSurface, EulerCharacteristicAndFaceCounts) {
  for (const char* name : {"sphere_tri", "sphere_quad", "torus_tri", "torus_quad"}) {
    const GeneratedCase c = find_case(name);
    const Mesh& m = generated_mesh(c);
    SCOPED_TRACE(name);
    EXPECT_EQ(m.dim, 2);
    EXPECT_EQ(m.space_dim, 3);
    EXPECT_EQ(m.num_boundary_faces(), 0);
    const int per_element = c.max_faces;
    // Every edge has two elements: E = 3T/2 (triangles), 2T (quadrilaterals).
    EXPECT_EQ(2 * m.num_faces(), per_element * m.num_elements());
    const std::int64_t chi = std::int64_t(m.num_nodes()) - m.num_faces() + m.num_elements();
    EXPECT_EQ(chi, std::string(name).starts_with("sphere") ? 2 : 0);
    // Every node lies on the smooth surface.
    for (kempe::index_t i = 0; i < m.num_nodes(); ++i) {
      const double r = std::string(name).starts_with("sphere")
                           ? std::sqrt(m.x[i] * m.x[i] + m.y[i] * m.y[i] + m.z[i] * m.z[i]) - 1.0
                           : std::hypot(std::hypot(m.x[i], m.y[i]) - 1.0, m.z[i]) - 0.4;
      ASSERT_NEAR(r, 0, 1e-9) << "node " << i;
    }
    // The orientation is consistent and (as generated by Gmsh) outward: each element's own normal points away
    // from the centre of the sphere (from the core circle of the torus).
    kempe::index_t inward = 0;
    for (kempe::index_t e = 0; e < m.num_elements(); ++e) {
      const auto* v = &m.element_vertices[m.element_vertex_begin[e]];
      const Vec3 en = kempe::geom::cross(node(m, v[1]) - node(m, v[0]), node(m, v[2]) - node(m, v[0]));
      Vec3 out = centroid(m, e);
      if (!std::string(name).starts_with("sphere")) {
        const double rho = std::hypot(out.x, out.y);
        out = out - Vec3{out.x / rho, out.y / rho, 0};
      }
      if (kempe::geom::dot(en, out) < 0) ++inward;
    }
    EXPECT_TRUE(inward == 0 || inward == m.num_elements())
        << inward << " of " << m.num_elements() << " elements face the other way";
  }
}

TEST(GmshSurface, EdgesRunInOppositeDirections) {
  for (const char* name : {"sphere_tri", "sphere_quad", "torus_tri", "torus_quad"}) {
    const Mesh& m = generated_mesh(find_case(name));
    SCOPED_TRACE(name);
    for (kempe::index_t f = 0; f < m.num_faces(); ++f) {
      const auto a = local_face_cycle(m, m.face_left[f], m.face_left_local[f]);
      const auto b = local_face_cycle(m, m.face_right[f], m.face_right_local[f]);
      ASSERT_EQ(a.size(), 2u);
      ASSERT_EQ(a[0], b[1]) << "face " << f;
      ASSERT_EQ(a[1], b[0]) << "face " << f;
    }
  }
}

TEST(GmshSurface, InconsistentlyOrientedInputIsReoriented) {
  // Write the sphere with every other element mirrored; the builder must make the orientation consistent again.
  TempDir dir;
  const Mesh& sphere = generated_mesh(find_case("sphere_tri"));
  std::ostringstream s;
  s.precision(17);
  s << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" << sphere.num_nodes() << "\n";
  for (kempe::index_t i = 0; i < sphere.num_nodes(); ++i)
    s << i + 1 << " " << sphere.x[i] << " " << sphere.y[i] << " " << sphere.z[i] << "\n";
  s << "$EndNodes\n$Elements\n" << sphere.num_elements() << "\n";
  for (kempe::index_t e = 0; e < sphere.num_elements(); ++e) {
    const auto* v = &sphere.element_vertices[sphere.element_vertex_begin[e]];
    s << e + 1 << " 2 2 1 1 " << v[0] + 1 << " " << (e % 2 ? v[2] : v[1]) + 1 << " " << (e % 2 ? v[1] : v[2]) + 1
      << "\n";
  }
  s << "$EndElements\n";
  const Mesh m = load(dir.write("mixed.msh", s.str()));
  EXPECT_EQ(m.report.flipped_elements, sphere.num_elements() / 2);
  check_invariants(m);
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Formats

struct Format {
  double version;
  bool binary;
};

void PrintTo(const Format& f, std::ostream* os) { *os << "MSH " << f.version << (f.binary ? " binary" : " ASCII"); }

class MshFormat : public ::testing::TestWithParam<Format> {};

TEST_P(MshFormat, WriteAndReadBack) {
  const Format fmt = GetParam();
  TempDir dir;
  for (const char* name : {"rect_quad", "box_hybrid", "sphere_tri"}) {
    const Mesh& m = generated_mesh(find_case(name));
    const std::string path = dir.file(std::string(name) + ".msh");
    SCOPED_TRACE(std::string(name) + " version " + std::to_string(fmt.version) + (fmt.binary ? " binary" : " ASCII"));
    kempe::write_msh(m, path, fmt.version, fmt.binary);
    ASSERT_TRUE(fs::exists(path));
    const std::string text = read_text(path);
    ASSERT_TRUE(text.starts_with("$MeshFormat\n"));
    const std::string header = text.substr(12, text.find('\n', 12) - 12);
    EXPECT_THAT(header, HasSubstr(fmt.version < 3 ? "2.2 " : "4.1 "));
    EXPECT_THAT(header, HasSubstr(fmt.binary ? " 1 8" : " 0 8"));
    for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
      EXPECT_FALSE(entry.path().filename().string().starts_with(".tmp.")) << "temporary file left behind";

    const Mesh r = load(path);
    EXPECT_EQ(r.dim, m.dim);
    EXPECT_EQ(r.space_dim, m.space_dim);
    EXPECT_EQ(type_counts(r), type_counts(m));
    ASSERT_EQ(r.num_nodes(), m.num_nodes());
    ASSERT_EQ(r.num_elements(), m.num_elements());
    EXPECT_EQ(r.num_faces(), m.num_faces());
    EXPECT_EQ(r.num_boundary_faces(), m.num_boundary_faces());
    EXPECT_EQ(used_boundary_names(r), used_boundary_names(m));
    EXPECT_EQ(r.report.untagged_boundary_faces, 0);
    EXPECT_EQ(r.report.flipped_elements, 0);
    for (kempe::index_t i = 0; i < m.num_nodes(); ++i) {
      ASSERT_NEAR(r.x[i], m.x[i], 1e-15 * (1 + std::abs(m.x[i]))) << "node " << i;
      ASSERT_NEAR(r.y[i], m.y[i], 1e-15 * (1 + std::abs(m.y[i]))) << "node " << i;
      ASSERT_NEAR(r.z[i], m.z[i], 1e-15 * (1 + std::abs(m.z[i]))) << "node " << i;
    }
    // Elements come back grouped by type, in order within a type, with the same vertices.
    std::map<ElementType, std::vector<kempe::index_t>> by_type_m, by_type_r;
    for (kempe::index_t e = 0; e < m.num_elements(); ++e) by_type_m[m.element_type[e]].push_back(e);
    for (kempe::index_t e = 0; e < r.num_elements(); ++e) by_type_r[r.element_type[e]].push_back(e);
    for (const auto& [type, list] : by_type_m) {
      const auto& other = by_type_r[type];
      ASSERT_EQ(other.size(), list.size());
      for (std::size_t i = 0; i < list.size(); ++i) {
        const kempe::index_t a = list[i], b = other[i];
        ASSERT_TRUE(std::equal(&m.element_vertices[m.element_vertex_begin[a]],
                               &m.element_vertices[m.element_vertex_begin[a + 1]],
                               &r.element_vertices[r.element_vertex_begin[b]]))
            << "element " << a;
        EXPECT_NEAR(r.volume[b], m.volume[a], 1e-12 * m.volume[a]);
      }
    }
    // Boundary face tags survive by position: compare the tagged area of each group.
    std::map<std::string, double> area_m, area_r;
    for (kempe::index_t f = 0; f < m.num_faces(); ++f)
      if (m.face_right[f] == kempe::no_element) area_m[m.boundary_names[m.face_boundary[f]]] += m.face_area[f];
    for (kempe::index_t f = 0; f < r.num_faces(); ++f)
      if (r.face_right[f] == kempe::no_element) area_r[r.boundary_names[r.face_boundary[f]]] += r.face_area[f];
    ASSERT_EQ(area_m.size(), area_r.size());
    for (const auto& [name2, a] : area_m) EXPECT_NEAR(area_r[name2], a, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Gmsh, MshFormat, ::testing::Values(Format{2.2, false}, Format{2.2, true}, Format{4.1, false}, Format{4.1, true}),
    [](const ::testing::TestParamInfo<Format>& p) {
      return std::string(p.param.version < 3 ? "v22" : "v41") + (p.param.binary ? "_binary" : "_ascii");
    });

TEST(GmshWrite, OverwritesAnExistingFileAndFailsCleanlyInAMissingDirectory) {
  TempDir dir;
  const Mesh& m = generated_mesh(find_case("rect_tri"));
  const std::string path = dir.write("old.msh", "old contents");
  kempe::write_msh(m, path);
  EXPECT_EQ(load(path).num_elements(), m.num_elements());
  const std::string missing = dir.file("no_such_dir/out.msh");
  expect_mesh_error([&] { kempe::write_msh(m, missing); }, missing, "does not exist");
  EXPECT_FALSE(fs::exists(missing));
  // A failed write keeps the old file and leaves no temporary behind.
  fs::create_directory(dir.file("readonly"));
  const std::string kept = dir.write("readonly/kept.msh", "old contents");
  fs::permissions(dir.file("readonly"), fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(dir.file("readonly").c_str(), W_OK) != 0) {  // not when running as root
    expect_mesh_error([&] { kempe::write_msh(m, kept); }, kept, "");
    EXPECT_EQ(read_text(kept), "old contents");
  }
  fs::permissions(dir.file("readonly"), fs::perms::owner_all);
  for (const auto& entry : fs::directory_iterator(dir.file("readonly"))) EXPECT_EQ(entry.path().filename(), "kept.msh");
}

const char* square_geo = R"(// A unit square with named boundary groups.
lc = 0.5;
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("wall") = {1, 3};
Physical Curve("inflow") = {4};
Physical Curve("outflow") = {2};
Physical Surface("fluid") = {1};
)";

TEST(GmshGeo, PhysicalNamesBecomeBoundaryGroupsAndSizeControlsTheCount) {
  TempDir dir;
  const std::string path = dir.write("square.geo", square_geo);
  const Mesh coarse = load(path, {0.2});
  const Mesh fine = load(path, {0.05});
  const Mesh own = load(path);  // the file's own size, 0.5
  for (const Mesh* m : {&coarse, &fine, &own}) {
    SCOPED_TRACE(m->num_elements());
    check_invariants(*m);
    EXPECT_EQ(m->source, path);
    EXPECT_EQ(m->dim, 2);
    EXPECT_EQ(type_set(*m), std::set<ElementType>{ElementType::triangle});
    EXPECT_NEAR(total_volume(*m), 1.0, 1e-12);
    EXPECT_EQ(used_boundary_names(*m), (std::set<std::string>{"wall", "inflow", "outflow"}));
    EXPECT_EQ(m->report.untagged_boundary_faces, 0);
    // "wall" is the bottom and top (length 2), the others one side each.
    std::map<std::string, double> length;
    for (kempe::index_t f = 0; f < m->num_faces(); ++f)
      if (m->face_right[f] == kempe::no_element) length[m->boundary_names[m->face_boundary[f]]] += m->face_area[f];
    EXPECT_NEAR(length["wall"], 2.0, 1e-12);
    EXPECT_NEAR(length["inflow"], 1.0, 1e-12);
    EXPECT_NEAR(length["outflow"], 1.0, 1e-12);
    // A boundary edge's length is at most about the requested size.
  }
  EXPECT_GT(fine.num_elements(), 4 * coarse.num_elements());
  EXPECT_GT(coarse.num_elements(), own.num_elements());
  // Boundary edges follow the size: 1/0.2 = 5 and 1/0.05 = 20 per side.
  EXPECT_EQ(coarse.num_boundary_faces(), 4 * 5);
  EXPECT_EQ(fine.num_boundary_faces(), 4 * 20);
  EXPECT_EQ(own.num_boundary_faces(), 4 * 2);
}

TEST(GmshGeo, ReadingDoesNotDependOnEarlierCalls) {
  // Options set by one call (generator sizes, a .geo size, recombination) must not leak into the next.
  TempDir dir;
  const std::string path = dir.write("square.geo", square_geo);
  const Mesh first = load(path, {0.1});
  kempe::RectSpec rect;
  rect.elements = 50;  // a size of about 0.2
  rect.type = RectElements::quadrilaterals;
  kempe::generate_rect(rect);
  const Mesh second = load(path, {0.1});
  EXPECT_EQ(second.num_elements(), first.num_elements());
  EXPECT_EQ(type_set(second), std::set<ElementType>{ElementType::triangle});
  const Mesh own = load(path);
  EXPECT_EQ(own.num_boundary_faces(), 4 * 2) << "a size given to an earlier read leaked into this one";
  // A generator after a read: same result as a generator first.
  kempe::RectSpec tri;
  tri.elements = 200;
  const RawMesh a = kempe::generate_rect(tri);
  load(path, {0.02});
  const RawMesh b = kempe::generate_rect(tri);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.element_vertices, b.element_vertices);
}

TEST(GmshGeo, VariablesDoNotLeakBetweenFiles) {
  TempDir dir;
  const std::string defines = dir.write("defines.geo", std::string("size = 0.1;\n") + square_geo);
  const std::string uses = dir.write("uses.geo", R"(Point(1) = {0, 0, 0, size};
Point(2) = {1, 0, 0, size};
Point(3) = {0, 1, 0, size};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 1};
Curve Loop(1) = {1, 2, 3};
Plane Surface(1) = {1};
)");
  load(defines);
  expect_mesh_error([&] { load(uses); }, uses, "size");
}

TEST(GmshGeo, ThreeDimensionalGeoFile) {
  TempDir dir;
  const std::string path = dir.write("cube.geo", R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 2, 1};
Physical Surface("bottom") = {5};
Physical Surface("rest") = {1, 2, 3, 4, 6};
Physical Volume("air") = {1};
)");
  const Mesh m = load(path, {0.4});
  check_invariants(m);
  EXPECT_EQ(m.dim, 3);
  EXPECT_EQ(type_set(m), std::set<ElementType>{ElementType::tetrahedron});
  EXPECT_NEAR(total_volume(m), 2.0, 1e-12);
  EXPECT_EQ(used_boundary_names(m), (std::set<std::string>{"bottom", "rest"}));
  double bottom = 0;
  for (kempe::index_t f = 0; f < m.num_faces(); ++f)
    if (m.face_right[f] == kempe::no_element && m.boundary_names[m.face_boundary[f]] == "bottom") {
      bottom += m.face_area[f];
      EXPECT_NEAR(m.normal_z[f], -1, 1e-12);
    }
  EXPECT_NEAR(bottom, 2.0, 1e-12);
}

TEST(GmshGeo, SecondOrderGeoIsReadByItsVertices) {
  TempDir dir;
  const std::string path = dir.write("square2.geo", std::string(square_geo) + "Mesh.ElementOrder = 2;\n");
  const Mesh m = load(path, {0.25});
  check_invariants(m);
  EXPECT_NEAR(total_volume(m), 1.0, 1e-12);
  ASSERT_FALSE(m.report.warnings.empty());
  EXPECT_THAT(m.report.warnings.front(), HasSubstr("order 2"));
  EXPECT_GT(m.report.unused_nodes, 0) << "the edge midpoints are not vertices";
  // Later reads are first order again.
  const Mesh again = load(dir.write("square.geo", square_geo), {0.25});
  EXPECT_TRUE(again.report.warnings.empty());
  EXPECT_EQ(again.num_elements(), m.num_elements());
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Bad inputs

/// A small MSH 2.2 ASCII file: nodes given as "tag x y z" lines, elements as full element lines.
std::string msh22(const std::vector<std::string>& nodes, const std::vector<std::string>& elements,
                  const std::string& physical_names = "") {
  std::ostringstream s;
  s << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";
  if (!physical_names.empty()) s << physical_names;
  s << "$Nodes\n" << nodes.size() << "\n";
  for (const auto& n : nodes) s << n << "\n";
  s << "$EndNodes\n$Elements\n" << elements.size() << "\n";
  for (const auto& e : elements) s << e << "\n";
  s << "$EndElements\n";
  return s.str();
}

const std::vector<std::string> square_nodes = {"1 0 0 0", "2 1 0 0", "3 1 1 0", "4 0 1 0", "5 0.5 0.5 0"};

TEST(GmshErrors, MissingFile) {
  TempDir dir;
  const std::string path = dir.file("does_not_exist.msh");
  expect_mesh_error([&] { kempe::read_gmsh(path); }, path, "no such file");
}

TEST(GmshErrors, Directory) {
  TempDir dir;
  const std::string path = dir.file("sub.msh");
  fs::create_directory(path);
  expect_mesh_error([&] { kempe::read_gmsh(path); }, path, "directory");
}

TEST(GmshErrors, EmptyFile) {
  TempDir dir;
  const std::string path = dir.write("empty.msh", "");
  expect_mesh_error([&] { kempe::read_gmsh(path); }, path, "empty");
}

TEST(GmshErrors, TruncatedInElements) {
  TempDir dir;
  const std::string good = dir.file("good.msh");
  for (double version : {2.2, 4.1}) {
    kempe::write_msh(generated_mesh(find_case("rect_tri")), good, version, false);
    const std::string text = read_text(good);
    const auto begin = text.find("$Elements\n"), end = text.find("$EndElements");
    ASSERT_NE(begin, std::string::npos);
    ASSERT_NE(end, std::string::npos);
    const std::string path =
        dir.write("truncated" + std::to_string(int(version)) + ".msh", text.substr(0, (begin + end) / 2));
    expect_mesh_error([&] { load(path); }, path, "ends inside its $Elements section");
    // Cut inside the nodes as well.
    const auto nodes = text.find("$Nodes\n");
    const std::string path2 =
        dir.write("truncated_nodes" + std::to_string(int(version)) + ".msh", text.substr(0, nodes + 40));
    expect_mesh_error([&] { load(path2); }, path2, "ends inside its $Nodes section");
  }
}

TEST(GmshErrors, TruncatedBinary) {
  TempDir dir;
  const std::string good = dir.file("good.msh");
  for (double version : {2.2, 4.1}) {
    kempe::write_msh(generated_mesh(find_case("rect_tri")), good, version, true);
    const std::string text = read_text(good);
    const auto begin = text.find("$Elements\n"), end = text.find("$EndElements");
    ASSERT_NE(end, std::string::npos);
    const std::string path =
        dir.write("truncated_binary" + std::to_string(int(version)) + ".msh", text.substr(0, (begin + end) / 2));
    expect_mesh_error([&] { load(path); }, path, "truncated");
  }
}

TEST(GmshErrors, GarbageBytes) {
  TempDir dir;
  std::mt19937 rng(7);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  bytes[0] = 'x';
  const std::string path = dir.write("garbage.msh", bytes);
  expect_mesh_error([&] { load(path); }, path, "not a Gmsh mesh file");
  // Text that is not a mesh either.
  const std::string text = dir.write("text.msh", "hello, this is not a mesh\n1 2 3\n");
  expect_mesh_error([&] { load(text); }, text, "not a Gmsh mesh file");
  // Garbage after a valid header.
  const std::string header = dir.write("header.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" + bytes);
  expect_mesh_error([&] { load(header); }, header, "");
}

TEST(GmshErrors, OnlyLineElements) {
  TempDir dir;
  const std::string path =
      dir.write("lines.msh", msh22({"1 0 0 0", "2 1 0 0", "3 2 0 0"}, {"1 1 2 1 1 1 2", "2 1 2 1 1 2 3"}));
  expect_mesh_error([&] { load(path); }, path, "1D");
}

TEST(GmshErrors, OnlyPoints) {
  TempDir dir;
  const std::string path = dir.write("points.msh", msh22({"1 0 0 0", "2 1 0 0"}, {"1 15 2 1 1 1", "2 15 2 1 1 2"}));
  expect_mesh_error([&] { load(path); }, path, "0D");
}

TEST(GmshErrors, NoElements) {
  TempDir dir;
  const std::string path = dir.write("no_elements.msh", msh22(square_nodes, {}));
  expect_mesh_error([&] { load(path); }, path, "empty");
}

TEST(GmshErrors, DanglingNode) {
  TempDir dir;
  const std::string path = dir.write("dangling.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5", "2 2 2 1 1 2 3 99"}));
  const std::string what = expect_mesh_error([&] { load(path); }, path, "dangling");
  EXPECT_THAT(what, HasSubstr("99"));
  // The same in MSH 4.1.
  const std::string v41 = dir.write("dangling41.msh", R"($MeshFormat
4.1 0 8
$EndMeshFormat
$Entities
0 0 1 0
1 0 0 0 1 1 0 0 0
$EndEntities
$Nodes
1 4 1 4
2 1 0 4
1
2
3
4
0 0 0
1 0 0
1 1 0
0 1 0
$EndNodes
$Elements
1 2 1 2
2 1 2 2
1 1 2 3
2 1 3 99
$EndElements
)");
  const std::string what41 = expect_mesh_error([&] { load(v41); }, v41, "dangling");
  EXPECT_THAT(what41, HasSubstr("99"));
}

TEST(GmshErrors, DuplicateElements) {
  TempDir dir;
  const std::string path =
      dir.write("duplicate.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5", "2 2 2 1 1 2 3 5", "3 2 2 1 1 2 3 5"}));
  expect_mesh_error([&] { load(path); }, path, "duplicate");
  // The same vertices in another order are the same element.
  const std::string rotated =
      dir.write("duplicate_rotated.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5", "2 2 2 1 1 2 5 1"}));
  expect_mesh_error([&] { load(rotated); }, rotated, "duplicate");
}

TEST(GmshErrors, NonManifoldEdge) {
  TempDir dir;
  // Three triangles on the edge 1-2.
  const std::string path =
      dir.write("nonmanifold.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0.5 1 0", "4 0.5 -1 0", "5 0.5 2 0"},
                                         {"1 2 2 1 1 1 2 3", "2 2 2 1 1 2 1 4", "3 2 2 1 1 1 2 5"}));
  expect_mesh_error([&] { load(path); }, path, "non-manifold");
  // The same in 3D: a fin on a surface.
  const std::string fin = dir.write("fin.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0.5 1 0", "4 0.5 -1 0", "5 0.5 0 1"},
                                                     {"1 2 2 1 1 1 2 3", "2 2 2 1 1 2 1 4", "3 2 2 1 1 1 2 5"}));
  expect_mesh_error([&] { load(fin); }, fin, "non-manifold");
  // Three tetrahedra on one triangle.
  const std::string tets =
      dir.write("nonmanifold_tets.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0 1 0", "4 0 0 1", "5 0 0 -1", "6 0.2 0.2 2"},
                                              {"1 4 2 1 1 1 2 3 4", "2 4 2 1 1 1 3 2 5", "3 4 2 1 1 1 2 3 6"}));
  expect_mesh_error([&] { load(tets); }, tets, "non-manifold");
}

TEST(GmshErrors, ZeroAreaTriangle) {
  TempDir dir;
  const std::string path = dir.write(
      "zero_area.msh", msh22({"1 0 0 0", "2 1 0 0", "3 2 0 0", "4 1 1 0"}, {"1 2 2 1 1 1 2 4", "2 2 2 1 1 1 2 3"}));
  const std::string what = expect_mesh_error([&] { load(path); }, path, "zero area");
  EXPECT_THAT(what, HasSubstr("triangle 2"));
  // A flat tetrahedron.
  const std::string flat =
      dir.write("zero_volume.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0 1 0", "4 1 1 0"}, {"1 4 2 1 1 1 2 3 4"}));
  expect_mesh_error([&] { load(flat); }, flat, "zero volume");
}

TEST(GmshErrors, UnsupportedElementType) {
  TempDir dir;
  // Gmsh 4.8 reads no polygons or polyhedra from .msh files: it drops them from an MSH 2 file without a word,
  // and the reader must notice. Type 34 is a polygon, 136 a vertex-less "Xfem" tetrahedron.
  const std::string polygon = dir.write("polygon.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5", "2 34 2 1 1 2 3 4 5"}));
  const std::string what = expect_mesh_error([&] { load(polygon); }, polygon, "unsupported element type");
  EXPECT_THAT(what, HasSubstr("lists 2 elements"));
  const std::string xfem = dir.write("xfem.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0 1 0", "4 0 0 1", "5 1 1 1"},
                                                       {"1 4 2 1 1 1 2 3 4", "2 136 2 1 1 2 3 4 5"}));
  expect_mesh_error([&] { load(xfem); }, xfem, "unsupported element type");
  // An order-0 triangle (type 85), which Gmsh refuses itself.
  const std::string order0 = dir.write("order0.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5", "2 85 2 1 1 2"}));
  const std::string what0 = expect_mesh_error([&] { load(order0); }, order0, "unsupported element type");
  EXPECT_THAT(what0, HasSubstr("85"));
}

TEST(GmshFormats, ElementListedOncePerPhysicalGroupIsOneElement) {
  // MSH 2 lists an element of two physical groups twice under one number; that is one element, not a loss.
  TempDir dir;
  const std::string path = dir.write(
      "two_groups.msh",
      msh22({"1 0 0 0", "2 1 0 0", "3 1 1 0", "4 0 1 0"},
            {"1 1 2 1 1 1 2", "2 2 2 2 1 1 2 3", "3 2 2 2 1 1 3 4", "2 2 2 3 1 1 2 3", "3 2 2 3 1 1 3 4"},
            "$PhysicalNames\n3\n1 1 \"wall\"\n2 2 \"fluid\"\n2 3 \"all\"\n$EndPhysicalNames\n"));
  const Mesh m = kempe::build_mesh(kempe::read_gmsh(path));
  EXPECT_EQ(m.num_elements(), 2);
  EXPECT_EQ(m.num_faces(), 5);
}

TEST(GmshErrors, MessagesNameTheGeoFile) {
  TempDir dir;
  const std::string bad = dir.write("syntax.geo", "Point(1) = {0, 0, 0;\nthis is not geo\n");
  const std::string what = expect_mesh_error([&] { load(bad); }, bad, "syntax error");
  EXPECT_THAT(what, HasSubstr("line 1"));
  const std::string curves =
      dir.write("curves.geo", "Point(1) = {0, 0, 0};\nPoint(2) = {1, 0, 0};\nLine(1) = {1, 2};\n");
  expect_mesh_error([&] { load(curves); }, curves, "no surface or volume");
  const std::string missing_point = dir.write("missing_point.geo", "Point(1) = {0, 0, 0};\nLine(1) = {1, 2};\n");
  expect_mesh_error([&] { load(missing_point); }, missing_point, "");
}

TEST(GmshErrors, ErrorsDoNotBreakLaterReads) {
  // Gmsh 4.8's .geo parser is left unusable for the rest of the process by some errors; the adapter must keep
  // every later read working.
  TempDir dir;
  const std::string good = dir.write("square.geo", square_geo);
  const kempe::index_t expected = load(good, {0.25}).num_elements();
  std::mt19937 rng(11);
  std::string bytes(2048, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"garbage.geo", bytes},
      {"text.geo", "hello, this is not a mesh\n1 2 3\n"},
      {"dollar.geo", "abc $ def\n"},
      {"garbage.txt", bytes},
      {"garbage.msh", bytes},
      {"dangling.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 99"})},
      {"truncated.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n"},
  };
  for (const auto& [name, content] : bad) {
    SCOPED_TRACE(name);
    const std::string path = dir.write(name, content);
    expect_mesh_error([&] { load(path); }, path, "");
    EXPECT_EQ(load(good, {0.25}).num_elements(), expected);
  }
}

TEST(GmshErrors, PointGroupsBesideTrianglesAreIgnored) {
  TempDir dir;
  const std::string names = "$PhysicalNames\n1\n0 7 \"corner\"\n$EndPhysicalNames\n";
  const Mesh m = load(dir.write("points_and_triangles.msh",
                                msh22(square_nodes, {"1 15 2 7 1 1", "2 2 2 1 1 1 2 5", "3 2 2 1 1 2 3 5"}, names)));
  EXPECT_EQ(m.dim, 2);
  EXPECT_EQ(m.num_elements(), 2);
  EXPECT_EQ(used_boundary_names(m), std::set<std::string>{kempe::unassigned_boundary_name});
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool address_sanitizer = true;
#else
constexpr bool address_sanitizer = false;
#endif

// Gmsh 4.8 reads in a child process (kempe-gmsh-reader): its crashes and its allocations for impossible counts
// end there, and come back as errors naming the file.
TEST(GmshErrors, ACrashInsideGmshIsAnErrorNamingTheFile) {
  TempDir dir;
  // An MSH 2.2 element naming the node one past the last: Gmsh 4.8 dereferences it (SIGSEGV).
  const std::string path = dir.write("past_last.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0 1 0"}, {"1 2 2 0 1 1 2 4"}));
  // SEGV; in a build with AddressSanitizer, its report and exit status 1.
  expect_mesh_error([&] { kempe::read_gmsh(path); }, path, "Gmsh crashed reading it (");
  expect_mesh_error([&] { kempe::read_gmsh(path); }, path,
                    "line 12 ($Elements): element 1 names node 4, which the $Nodes section does not define");
  // The process that asked is unharmed and reads on.
  EXPECT_EQ(load(dir.write("square.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5", "2 2 2 1 1 2 3 5"}))).num_elements(), 2);
}

// What Gmsh 4.8 assumes of an ASCII file and dies of when it does not hold, found by line.
TEST(GmshErrors, TheLineThatKillsGmshIsFound) {
  TempDir dir;
  const std::vector<std::string> nodes = {"1 0 0 0", "2 1 0 0", "3 0 1 0"};
  auto diagnosis = [&](const std::string& name, const std::string& content) {
    return kempe::msh_diagnosis(dir.write(name, content));
  };
  EXPECT_EQ(diagnosis("good.msh", msh22(nodes, {"1 2 2 0 1 1 2 3"})), "");
  EXPECT_EQ(diagnosis("tags.msh", msh22(nodes, {"1 2 4 0 1 2 7 1 2 3"})),
            "line 12 ($Elements): element 1 has 4 tags, which do not fit its partition count");
  EXPECT_EQ(diagnosis("count.msh", msh22(nodes, {"1 2 2 0 1 1 2"})),
            "line 12 ($Elements): element 1 has 2 nodes; its type 2 has 3");
  EXPECT_EQ(diagnosis("tag.msh", msh22({"1 0 0 0", "3000000000 1 0 0", "3 0 1 0"}, {})),
            "line 7 ($Nodes): node tag 3000000000; tags are 1 to 2^31 - 1");
  EXPECT_EQ(diagnosis("names.msh", msh22(nodes, {}, "$PhysicalNames\n1\n7 1 \"x\"\n$EndPhysicalNames\n")),
            "line 6 ($PhysicalNames): a physical group of dimension 7; dimensions are 0 to 3");
  const std::string v41 =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n";
  EXPECT_EQ(diagnosis("block.msh", v41),
            "line 6 ($Nodes): the blocks hold more nodes than the 2 the section's header declares");
  EXPECT_EQ(diagnosis("binary.msh", "$MeshFormat\n4.1 1 8\n"), "") << "binary files are not looked into";
}

TEST(GmshErrors, AnImpossibleCountIsRefusedAtOnce) {
  // A binary MSH 4.1 file whose $Entities section declares about 2^62 entities: refused by the reader's address
  // space bound in well under a second, not after minutes of page faults.
  // With AddressSanitizer the reader sets no bound (ASan has reserved terabytes of shadow memory); its
  // max_allocation_size_mb (tests/CMakeLists.txt) stops the allocation, and the reader dies of it.
  const std::string path = std::string(KEMPE_SOURCE_DIR) + "/fuzz/corpus/gmsh/slow_huge_count_41_binary.msh";
  const auto t0 = std::chrono::steady_clock::now();
  expect_mesh_error([&] { kempe::read_gmsh(path); }, path,
                    address_sanitizer ? "Gmsh crashed reading it" : "a count in the file is larger than the file holds");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST(GmshErrors, AMissingReaderProgramIsNamed) {
  TempDir dir;
  const std::string path = dir.write("square.msh", msh22(square_nodes, {"1 2 2 1 1 1 2 5"}));
  const std::string missing = dir.file("no-such-reader");
  ::setenv("KEMPE_GMSH_READER", missing.c_str(), 1);
  try {
    kempe::read_gmsh(path);
    ADD_FAILURE() << "read without a reader program";
  } catch (const kempe::MeshError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr(missing));
    EXPECT_THAT(e.what(), HasSubstr("KEMPE_GMSH_READER"));
  }
  ::unsetenv("KEMPE_GMSH_READER");
  EXPECT_EQ(kempe::gmsh_reader_program().find(missing), std::string::npos);
}

// ---------------------------------------------------------------------------------------------------------------
// Mixed dimensions and high order

TEST(GmshMixed, TrianglesBesideTetrahedraAreBoundaryMarkers) {
  TempDir dir;
  // Two tetrahedra sharing the face 2-3-4; "bottom" marks the face 1-2-3 (z = 0), "inner" marks the shared face,
  // one more triangle is in no physical group (elementary entity only).
  const std::string names = "$PhysicalNames\n3\n2 1 \"bottom\"\n2 2 \"inner\"\n3 3 \"domain\"\n$EndPhysicalNames\n";
  const std::string path = dir.write("mixed.msh", msh22({"1 0 0 0", "2 1 0 0", "3 0 1 0", "4 0 0 1", "5 1 1 1"},
                                                        {"1 2 2 1 1 1 2 3", "2 2 2 2 2 2 3 4", "3 2 2 0 3 1 2 4",
                                                         "4 4 2 3 4 1 2 3 4", "5 4 2 3 4 2 3 4 5"},
                                                        names));
  const RawMesh raw = kempe::read_gmsh(path);
  EXPECT_EQ(raw.dim, 3);
  EXPECT_EQ(raw.num_elements(), 2);
  const Mesh m = kempe::build_mesh(raw);
  check_invariants(m);
  EXPECT_EQ(type_set(m), std::set<ElementType>{ElementType::tetrahedron});
  EXPECT_NEAR(total_volume(m), 1.0 / 6 + 1.0 / 3, 1e-12);
  EXPECT_EQ(m.num_faces(), 7);
  EXPECT_EQ(m.num_boundary_faces(), 6);
  EXPECT_EQ(m.report.interior_markers, 1);
  EXPECT_EQ(m.report.untagged_boundary_faces, 5);
  kempe::index_t bottom = 0;
  for (kempe::index_t f = 0; f < m.num_faces(); ++f)
    if (m.face_right[f] == kempe::no_element && m.boundary_names[m.face_boundary[f]] == "bottom") {
      ++bottom;
      EXPECT_NEAR(m.normal_z[f], -1, 1e-12);
    }
  EXPECT_EQ(bottom, 1);
  EXPECT_EQ(used_boundary_names(m), (std::set<std::string>{"bottom", kempe::unassigned_boundary_name}));
}

TEST(GmshMixed, UnnamedPhysicalGroupsAreKnownByTheirNumber) {
  TempDir dir;
  const std::string names = "$PhysicalNames\n1\n1 1 \"wall\"\n$EndPhysicalNames\n";
  const std::string path =
      dir.write("groups.msh", msh22(square_nodes,
                                    {"1 1 2 1 1 1 2", "2 1 2 1 2 2 3", "3 1 2 9 3 3 4", "4 1 2 9 4 4 1",
                                     "5 2 2 5 5 1 2 5", "6 2 2 5 5 2 3 5", "7 2 2 5 5 3 4 5", "8 2 2 5 5 4 1 5"},
                                    names));
  const Mesh m = load(path);
  check_invariants(m);
  EXPECT_EQ(used_boundary_names(m), (std::set<std::string>{"wall", "9"}));
  EXPECT_EQ(m.report.untagged_boundary_faces, 0);
}

TEST(GmshHighOrder, SixNodeTrianglesAreReadByTheirVertices) {
  TempDir dir;
  // Two second-order triangles on the unit square: vertices 1-4, edge midpoints 5-9.
  const std::string path = dir.write("quadratic.msh", msh22({"1 0 0 0", "2 1 0 0", "3 1 1 0", "4 0 1 0", "5 0.5 0 0",
                                                             "6 1 0.5 0", "7 0.5 0.5 0", "8 0.5 1 0", "9 0 0.5 0"},
                                                            {"1 9 2 1 1 1 2 3 5 6 7", "2 9 2 1 1 1 3 4 7 8 9"}));
  const Mesh m = load(path);
  check_invariants(m);
  EXPECT_EQ(m.num_elements(), 2);
  EXPECT_EQ(m.num_nodes(), 4);
  EXPECT_EQ(m.report.unused_nodes, 5);
  EXPECT_NEAR(total_volume(m), 1.0, 1e-12);
  ASSERT_EQ(m.report.warnings.size(), 1u);
  EXPECT_THAT(m.report.warnings[0], HasSubstr("order 2"));
  EXPECT_THAT(m.report.warnings[0], HasSubstr("2 elements"));
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Reproducibility

TEST(GmshReproducible, SameSeedSameMesh) {
  kempe::RectSpec s;
  s.elements = 600;
  s.seed = 42;
  const RawMesh a = kempe::generate_rect(s);
  kempe::BoxSpec box;
  box.elements = 300;
  kempe::generate_box(box);  // something else in between
  const RawMesh b = kempe::generate_rect(s);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.z, b.z);
  EXPECT_EQ(a.element_vertices, b.element_vertices);
  EXPECT_EQ(a.marker_vertices, b.marker_vertices);

  kempe::SurfaceSpec sphere;
  sphere.elements = 300;
  sphere.quadrilaterals = true;
  const RawMesh c = kempe::generate_surface(sphere);
  const RawMesh d = kempe::generate_surface(sphere);
  EXPECT_EQ(c.x, d.x);
  EXPECT_EQ(c.element_vertices, d.element_vertices);
}

TEST(GmshGenerate, WritesTheModelWhenAsked) {
  TempDir dir;
  kempe::RectSpec s;
  s.elements = 200;
  const std::string path = dir.file("rect.msh");
  const RawMesh raw = kempe::generate_rect(s, path);
  const Mesh direct = kempe::build_mesh(raw);
  const Mesh read = load(path);
  EXPECT_EQ(read.num_elements(), direct.num_elements());
  EXPECT_EQ(read.num_faces(), direct.num_faces());
  EXPECT_EQ(used_boundary_names(read), used_boundary_names(direct));
}

TEST(GmshGenerate, RejectsImpossibleSpecs) {
  kempe::RectSpec r;
  r.width = -1;
  EXPECT_THROW(kempe::generate_rect(r), MeshError);
  kempe::BoxSpec b;
  b.elements = 0;
  EXPECT_THROW(kempe::generate_box(b), MeshError);
  kempe::SurfaceSpec s;
  s.elements = 1;
  EXPECT_THROW(kempe::generate_surface(s), MeshError);
  EXPECT_EQ(kempe::rect_preset_elements('A'), 14956);
  EXPECT_THROW(kempe::rect_preset_elements('Z'), MeshError);
}

/// Unstructured meshes from Gmsh reach the fewest colors with `kempe`, classes within 1% (the issue's bar for
/// meshes above 10k faces), for several seeds: the element types whose dual graphs have odd cycles everywhere
/// (triangles, quadrilaterals split from triangles, tetrahedra) and closed surfaces (no boundary to absorb
/// parity: a sphere and a torus must still get exactly 3).
TEST(GmshColoring, UnstructuredMeshesGetTheFewestColorsBalanced) {
  struct Named {
    const char* name;
    RawMesh raw;
  };
  std::vector<Named> meshes;
  {
    kempe::RectSpec s;
    s.elements = 12000;
    meshes.push_back({"rect triangles", kempe::generate_rect(s)});
    s.type = RectElements::quadrilaterals;
    meshes.push_back({"rect quadrilaterals", kempe::generate_rect(s)});
  }
  {
    kempe::BoxSpec s;
    s.elements = 8000;
    meshes.push_back({"box tetrahedra", kempe::generate_box(s)});
  }
  for (const ClosedSurface shape : {ClosedSurface::sphere, ClosedSurface::torus}) {
    kempe::SurfaceSpec s;
    s.elements = 12000;
    s.shape = shape;
    meshes.push_back({shape == ClosedSurface::sphere ? "closed sphere" : "closed torus", kempe::generate_surface(s)});
  }
  for (const Named& n : meshes) {
    const Mesh m = kempe::build_mesh(n.raw);
    ASSERT_GT(m.num_faces(), 10000) << n.name;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const kempe::FaceColoring c = kempe::color_faces(m, {"kempe", seed});
      EXPECT_EQ(c.num_colors, m.max_faces_per_element()) << n.name << " seed " << seed;
      EXPECT_EQ(c.status, kempe::ColoringStatus::optimal) << n.name << " seed " << seed;
      const auto per_color = c.faces_per_color();
      const auto [lo, hi] = std::minmax_element(per_color.begin(), per_color.end());
      EXPECT_LE(*hi - *lo, *lo / 100) << n.name << " seed " << seed;
      if (m.num_boundary_faces() == 0) {
        // Gmsh's closed surfaces: tait's collapses and restoration reach 3 colors themselves, no kempe fallback.
        const kempe::FaceColoring t = kempe::color_faces(m, {"tait", seed});
        EXPECT_EQ(t.algorithm, "tait") << n.name << " seed " << seed;
        EXPECT_EQ(t.num_colors, 3) << n.name << " seed " << seed;
        EXPECT_THAT(t.faces_per_color(), ::testing::Each(m.num_faces() / 3)) << n.name << " seed " << seed;
      }
    }
  }
}

}  // namespace
