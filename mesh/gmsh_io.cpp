#include "mesh/gmsh_io.hpp"

#include <gmsh.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <numeric>
#include <string_view>
#include <unordered_map>

namespace kempe {
namespace {

/// Gmsh is one global library state: initialise it once for the process, quiet, with its messages kept in
/// its logger so that errors can be quoted in ours.
void gmsh_begin(const std::string& model) {
  static bool initialised = false;
  if (!initialised) {
    gmsh::initialize(0, nullptr, false);
    gmsh::option::setNumber("General.Terminal", 0);
    gmsh::option::setNumber("General.Verbosity", 2);  // errors and warnings only
    gmsh::logger::start();
    initialised = true;
  }
  gmsh::clear();
  gmsh::model::add(model);
}

/// Runs a Gmsh call and turns its errors (thrown as strings or logged) into a MeshError naming `source`.
template <class F>
void gmsh_call(const std::string& source, F&& f) {
  std::vector<std::string> before;
  gmsh::logger::get(before);
  try {
    f();
  } catch (const std::string& what) {
    throw MeshError(source + ": " + what + " (the file is truncated, corrupt or not a Gmsh file)");
  } catch (const std::exception& e) {
    throw MeshError(source + ": " + e.what());
  }
  std::vector<std::string> after;
  gmsh::logger::get(after);
  for (std::size_t i = before.size(); i < after.size(); ++i)
    if (after[i].rfind("Error", 0) == 0) throw MeshError(source + ": Gmsh: " + after[i]);
}

struct Family {
  std::string_view gmsh_prefix;
  ElementType type;
};
constexpr Family families[] = {{"Triangle", ElementType::triangle},     {"Quadrilateral", ElementType::quadrilateral},
                               {"Tetrahedron", ElementType::tetrahedron}, {"Hexahedron", ElementType::hexahedron},
                               {"Prism", ElementType::prism},             {"Pyramid", ElementType::pyramid}};

/// Converts the current Gmsh model's mesh to a raw mesh: the highest dimension present is the domain, the
/// elements of physical groups one dimension lower are the boundary markers.
RawMesh raw_from_model(const std::string& source) {
  RawMesh raw;
  raw.source = source;
  for (int d = 3; d >= 0 && raw.dim == 0; --d) {
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types, d);
    if (!types.empty()) raw.dim = d;
  }
  if (raw.dim == 0)
    throw MeshError(source + ": the mesh is empty: it has no triangles, quadrilaterals, tetrahedra, hexahedra, prisms or pyramids");
  if (raw.dim < 2)
    throw MeshError(source + ": the mesh has only " + std::to_string(raw.dim) +
                    "D elements; Kempe needs a 2D (triangles, quadrilaterals) or 3D mesh");

  std::vector<std::size_t> node_tags;
  std::vector<double> coords, params;
  gmsh::model::mesh::getNodes(node_tags, coords, params, -1, -1, true, false);
  const std::size_t nn = node_tags.size();
  raw.x.resize(nn);
  raw.y.resize(nn);
  raw.z.resize(nn);
  raw.node_tag.resize(nn);
  std::size_t max_tag = 0;
  for (std::size_t i = 0; i < nn; ++i) {
    raw.x[i] = coords[3 * i];
    raw.y[i] = coords[3 * i + 1];
    raw.z[i] = coords[3 * i + 2];
    raw.node_tag[i] = static_cast<std::int64_t>(node_tags[i]);
    max_tag = std::max(max_tag, node_tags[i]);
  }
  // Node tags are usually dense: index them with a flat array, falling back to a hash for sparse numberings.
  std::vector<index_t> dense;
  std::unordered_map<std::size_t, index_t> sparse;
  const bool use_dense = max_tag <= 4 * nn + 1024;
  if (use_dense) {
    dense.assign(max_tag + 1, -1);
    for (std::size_t i = 0; i < nn; ++i) dense[node_tags[i]] = static_cast<index_t>(i);
  } else {
    for (std::size_t i = 0; i < nn; ++i) sparse.emplace(node_tags[i], static_cast<index_t>(i));
  }
  auto node_index = [&](std::size_t tag, std::size_t element_tag) -> index_t {
    index_t i = -1;
    if (use_dense) {
      if (tag < dense.size()) i = dense[tag];
    } else if (auto it = sparse.find(tag); it != sparse.end()) {
      i = it->second;
    }
    if (i < 0)
      throw MeshError(source + ": element " + std::to_string(element_tag) + " references node " + std::to_string(tag) +
                      ", which does not exist (dangling node reference)");
    return i;
  };

  auto properties = [](int type, std::string& name, int& order, int& num_nodes, int& num_primary) {
    int dim = 0;
    std::vector<double> local;
    gmsh::model::mesh::getElementProperties(type, name, dim, order, num_nodes, local, num_primary);
  };

  std::vector<int> types;
  std::vector<std::vector<std::size_t>> element_tags, element_nodes;
  gmsh::model::mesh::getElements(types, element_tags, element_nodes, raw.dim, -1);
  std::map<int, std::size_t> curved;  // order -> count
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::string name;
    int order = 0, num_nodes = 0, num_primary = 0;
    properties(types[t], name, order, num_nodes, num_primary);
    const Family* family = nullptr;
    for (const Family& f : families)
      if (name.rfind(f.gmsh_prefix, 0) == 0) family = &f;
    if (!family || element_info(family->type).num_vertices != num_primary)
      throw MeshError(source + ": unsupported element type '" + name + "' (Gmsh type " + std::to_string(types[t]) +
                      ", " + std::to_string(element_tags[t].size()) +
                      " elements); Kempe reads triangles, quadrilaterals, tetrahedra, hexahedra, prisms and pyramids");
    if (order > 1) curved[order] += element_tags[t].size();
    std::array<index_t, max_element_vertices> v{};
    for (std::size_t e = 0; e < element_tags[t].size(); ++e) {
      for (int k = 0; k < num_primary; ++k)
        v[k] = node_index(element_nodes[t][e * num_nodes + k], element_tags[t][e]);
      raw.add_element(family->type, v.data(), static_cast<std::int64_t>(element_tags[t][e]));
    }
  }
  for (const auto& [order, count] : curved)
    raw.warnings.push_back(std::to_string(count) + " elements of order " + std::to_string(order) +
                           " are read by their vertices only: Kempe treats them as straight-sided (affine) for now");

  gmsh::vectorpair groups;
  gmsh::model::getPhysicalGroups(groups, raw.dim - 1);
  for (const auto& [d, group_tag] : groups) {
    std::string name;
    gmsh::model::getPhysicalName(d, group_tag, name);
    if (name.empty()) name = std::to_string(group_tag);
    const auto group = static_cast<std::int32_t>(raw.group_names.size());
    raw.group_names.push_back(name);
    std::vector<int> entities;
    gmsh::model::getEntitiesForPhysicalGroup(d, group_tag, entities);
    for (int entity : entities) {
      std::vector<int> etypes;
      std::vector<std::vector<std::size_t>> etags, enodes;
      gmsh::model::mesh::getElements(etypes, etags, enodes, d, entity);
      for (std::size_t t = 0; t < etypes.size(); ++t) {
        std::string ename;
        int order = 0, num_nodes = 0, num_primary = 0;
        properties(etypes[t], ename, order, num_nodes, num_primary);
        std::array<index_t, max_element_vertices> v{};
        for (std::size_t e = 0; e < etags[t].size(); ++e) {
          for (int k = 0; k < num_primary && k < max_element_vertices; ++k)
            v[k] = node_index(enodes[t][e * num_nodes + k], etags[t][e]);
          raw.add_marker(v.data(), std::min(num_primary, max_element_vertices), group,
                         static_cast<std::int64_t>(etags[t][e]));
        }
      }
    }
  }
  return raw;
}

void check_readable(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw MeshError(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw MeshError(path + ": is a directory, not a mesh file");
  std::ifstream in(path);
  if (!in) throw MeshError(path + ": cannot open for reading");
  if (std::filesystem::file_size(path, ec) == 0) throw MeshError(path + ": the file is empty");
}

/// Writes the current Gmsh model to `path` through a temporary name, so a failed write keeps an old file.
void write_model(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string tmp = (p.parent_path() / (".tmp." + p.filename().string())).string();
  gmsh_call(path, [&] { gmsh::write(tmp); });
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw MeshError(path + ": cannot write (" + ec.message() + ")");
  }
}

void finish_generated(const std::string& msh_path) {
  if (!msh_path.empty()) write_model(msh_path);
}

int add_physical(int dim, const std::vector<int>& tags, const std::string& name) {
  const int g = gmsh::model::addPhysicalGroup(dim, tags);
  gmsh::model::setPhysicalName(dim, g, name);
  return g;
}

}  // namespace

RawMesh read_gmsh(const std::string& path, const GmshReadOptions& options) {
  check_readable(path);
  gmsh_begin("input");
  const bool geo = std::filesystem::path(path).extension() == ".geo";
  if (geo && options.mesh_size > 0) gmsh::option::setNumber("Mesh.MeshSizeMax", options.mesh_size);
  gmsh_call(path, [&] { gmsh::open(path); });
  if (geo) {
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types);
    if (types.empty()) {
      const int dim = gmsh::model::getDimension();
      if (dim < 2) throw MeshError(path + ": the geometry has no surface or volume to mesh");
      gmsh_call(path, [&] { gmsh::model::mesh::generate(dim); });
    }
    gmsh::option::setNumber("Mesh.MeshSizeMax", 1e22);
  }
  return raw_from_model(path);
}

void write_msh(const Mesh& mesh, const std::string& path, double format_version, bool binary) {
  gmsh_begin("kempe");
  const int domain = gmsh::model::addDiscreteEntity(mesh.dim);
  std::vector<std::size_t> node_tags(mesh.num_nodes());
  std::iota(node_tags.begin(), node_tags.end(), std::size_t{1});
  std::vector<double> coords(3 * node_tags.size());
  for (index_t i = 0; i < mesh.num_nodes(); ++i) {
    coords[3 * i] = mesh.x[i];
    coords[3 * i + 1] = mesh.y[i];
    coords[3 * i + 2] = mesh.z[i];
  }
  gmsh::model::mesh::addNodes(mesh.dim, domain, node_tags, coords);
  std::size_t next_element = 1;
  for (int t = 0; t < num_element_types; ++t) {
    const auto type = static_cast<ElementType>(t);
    std::vector<std::size_t> tags, nodes;
    for (index_t e = 0; e < mesh.num_elements(); ++e)
      if (mesh.element_type[e] == type) {
        tags.push_back(next_element++);
        for (index_t k = mesh.element_vertex_begin[e]; k < mesh.element_vertex_begin[e + 1]; ++k)
          nodes.push_back(static_cast<std::size_t>(mesh.element_vertices[k]) + 1);
      }
    if (!tags.empty()) gmsh::model::mesh::addElementsByType(domain, element_info(type).gmsh_type, tags, nodes);
  }
  add_physical(mesh.dim, {domain}, "domain");
  for (std::size_t b = 0; b < mesh.boundary_names.size(); ++b) {
    const int entity = gmsh::model::addDiscreteEntity(mesh.dim - 1);
    std::map<int, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> by_type;  // gmsh type -> tags, nodes
    for (index_t f = 0; f < mesh.num_faces(); ++f) {
      if (mesh.face_boundary[f] != static_cast<std::int32_t>(b)) continue;
      const int nv = mesh.face_num_vertices[f];
      auto& [tags, nodes] = by_type[nv == 2 ? 1 : nv == 3 ? 2 : 3];
      tags.push_back(next_element++);
      for (int k = 0; k < nv; ++k)
        nodes.push_back(static_cast<std::size_t>(mesh.face_vertices[std::size_t(f) * max_face_vertices + k]) + 1);
    }
    for (const auto& [gtype, tn] : by_type) gmsh::model::mesh::addElementsByType(entity, gtype, tn.first, tn.second);
    add_physical(mesh.dim - 1, {entity}, mesh.boundary_names[b]);
  }
  gmsh::option::setNumber("Mesh.MshFileVersion", format_version);
  gmsh::option::setNumber("Mesh.Binary", binary ? 1 : 0);
  write_model(path);
  gmsh::option::setNumber("Mesh.Binary", 0);
  gmsh::option::setNumber("Mesh.MshFileVersion", 4.1);
}

std::int64_t rect_preset_elements(char preset) {
  // Giuliani & Krivodonova (2017), Table 1: triangles of Rect A..E.
  switch (preset) {
    case 'A': return 14956;
    case 'B': return 59012;
    case 'C': return 236586;
    case 'D': return 946926;
    case 'E': return 3794268;
    default: throw MeshError("unknown rectangle preset '" + std::string(1, preset) + "'; known: A, B, C, D, E");
  }
}

RawMesh generate_rect(const RectSpec& spec, const std::string& msh_path) {
  if (!(spec.width > 0 && spec.height > 0)) throw MeshError("rect: width and height must be positive");
  if (spec.elements < 2) throw MeshError("rect: the element count must be at least 2");
  gmsh_begin("rect");
  namespace geo = gmsh::model::geo;
  const double w = spec.width, h = spec.height;
  const int p1 = geo::addPoint(0, 0, 0), p2 = geo::addPoint(w, 0, 0), p3 = geo::addPoint(w, h, 0), p4 = geo::addPoint(0, h, 0);
  const int bottom = geo::addLine(p1, p2), right = geo::addLine(p2, p3), top = geo::addLine(p3, p4), left = geo::addLine(p4, p1);
  const int loop = geo::addCurveLoop({bottom, right, top, left});
  const int surface = geo::addPlaneSurface({loop});
  geo::synchronize();
  add_physical(1, {left}, "left");
  add_physical(1, {right}, "right");
  add_physical(1, {bottom}, "bottom");
  add_physical(1, {top}, "top");
  add_physical(2, {surface}, "domain");
  // Element size from the area per element: an equilateral triangle of side s covers sqrt(3)/4 s^2, a square s^2.
  const double area_per_element = w * h / static_cast<double>(spec.elements);
  const bool quads = spec.type == RectElements::quadrilaterals;
  const double size = quads ? std::sqrt(area_per_element) : std::sqrt(4.0 * area_per_element / std::sqrt(3.0));
  gmsh::option::setNumber("Mesh.MeshSizeMin", size);
  gmsh::option::setNumber("Mesh.MeshSizeMax", size);
  gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
  gmsh::option::setNumber("Mesh.RandomSeed", spec.seed);
  // Frontal-Delaunay, then Blossom recombination for quads (Gmsh 4.8.4 crashes in its quad-specific algorithm 8).
  gmsh::option::setNumber("Mesh.Algorithm", 6);
  gmsh::option::setNumber("Mesh.RecombineAll", quads ? 1 : 0);
  gmsh_call("rect", [] { gmsh::model::mesh::generate(2); });
  gmsh::option::setNumber("Mesh.RecombineAll", 0);
  RawMesh raw = raw_from_model("rect");
  finish_generated(msh_path);
  return raw;
}

RawMesh generate_box(const BoxSpec& spec, const std::string& msh_path) {
  if (spec.elements < 1) throw MeshError("box: the element count must be at least 1");
  gmsh_begin("box");
  namespace geo = gmsh::model::geo;
  const auto n = static_cast<double>(spec.elements);
  gmsh::option::setNumber("Mesh.RandomSeed", spec.seed);
  gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
  // The unit square in the xy plane, extruded along z: hexahedra and prisms come from structured layers.
  auto square = [&](double x0, double x1) {
    const int p1 = geo::addPoint(x0, 0, 0), p2 = geo::addPoint(x1, 0, 0), p3 = geo::addPoint(x1, 1, 0), p4 = geo::addPoint(x0, 1, 0);
    const std::vector<int> lines{geo::addLine(p1, p2), geo::addLine(p2, p3), geo::addLine(p3, p4), geo::addLine(p4, p1)};
    return std::pair{geo::addPlaneSurface({geo::addCurveLoop(lines)}), lines};
  };
  auto extrude = [&](int surface, int layers, bool recombine) {
    gmsh::vectorpair out;
    geo::extrude({{2, surface}}, 0, 0, 1, out, {layers}, {}, recombine);
    for (const auto& [d, t] : out)
      if (d == 3) return t;
    return -1;
  };
  std::vector<int> volumes;
  double size = 0;
  switch (spec.type) {
    case BoxElements::tetrahedra: {
      // A Delaunay tetrahedral mesh has about 6 tetrahedra per size^3 of volume.
      size = std::cbrt(6.0 / n);
      const int v = gmsh::model::occ::addBox(0, 0, 0, 1, 1, 1);
      gmsh::model::occ::synchronize();
      volumes = {v};
      break;
    }
    case BoxElements::hexahedra:
    case BoxElements::prisms: {
      const bool hex = spec.type == BoxElements::hexahedra;
      // k^3 hexahedra, or k layers of about 2 k^2 triangles (prisms).
      const int k = std::max(1, static_cast<int>(std::lround(std::cbrt(hex ? n : n / 2.0))));
      auto [s, lines] = square(0, 1);
      if (hex) {
        for (int l : lines) geo::mesh::setTransfiniteCurve(l, k + 1);
        geo::mesh::setTransfiniteSurface(s);
        geo::mesh::setRecombine(2, s);
      } else {
        size = std::sqrt(4.0 / (std::sqrt(3.0) * 2.0 * k * k));
      }
      volumes = {extrude(s, k, true)};
      geo::synchronize();
      break;
    }
    case BoxElements::hybrid: {
      // Three boxes glued by a boolean fragment: x in [0,1/3] structured hexahedra, [1/3,2/3] Delaunay
      // tetrahedra (Gmsh puts pyramids where they meet the quadrilaterals of the hexahedral block),
      // [2/3,1] structured prisms (a transfinite volume between triangulated end faces).
      const int k = std::max(1, static_cast<int>(std::lround(std::cbrt(n / 6.0))));
      size = 1.0 / (3.0 * k);
      namespace occ = gmsh::model::occ;
      const int b0 = occ::addBox(0, 0, 0, 1.0 / 3.0, 1, 1);
      const int b1 = occ::addBox(1.0 / 3.0, 0, 0, 1.0 / 3.0, 1, 1);
      const int b2 = occ::addBox(2.0 / 3.0, 0, 0, 1.0 / 3.0, 1, 1);
      gmsh::vectorpair out;
      std::vector<gmsh::vectorpair> map;
      occ::fragment({{3, b0}}, {{3, b1}, {3, b2}}, out, map);
      occ::synchronize();
      auto box_volume = [&](double x0) {
        for (const auto& [d, t] : out) {
          double xmin, ymin, zmin, xmax, ymax, zmax;
          gmsh::model::getBoundingBox(d, t, xmin, ymin, zmin, xmax, ymax, zmax);
          if (std::abs(xmin - x0) < 1e-6) return t;
        }
        throw MeshError("box: hybrid block construction failed");
      };
      const int v_hex = box_volume(0), v_tet = box_volume(1.0 / 3.0), v_pri = box_volume(2.0 / 3.0);
      auto structured = [&](int volume, bool recombine_all) {
        gmsh::vectorpair faces, curves;
        gmsh::model::getBoundary({{3, volume}}, faces, false, false);
        gmsh::model::getBoundary(faces, curves, false, false);
        for (const auto& [d, c] : curves) gmsh::model::mesh::setTransfiniteCurve(std::abs(c), k + 1);
        for (const auto& [d, f] : faces) {
          gmsh::model::mesh::setTransfiniteSurface(std::abs(f));
          double xmin, ymin, zmin, xmax, ymax, zmax;
          gmsh::model::getBoundingBox(2, std::abs(f), xmin, ymin, zmin, xmax, ymax, zmax);
          const bool end_face = std::abs(zmax - zmin) < 1e-9;  // z = 0 or z = 1: triangles for prisms
          if (recombine_all || !end_face) gmsh::model::mesh::setRecombine(2, std::abs(f));
        }
        gmsh::model::mesh::setTransfiniteVolume(volume);
      };
      structured(v_hex, true);
      structured(v_pri, false);
      volumes = {v_hex, v_tet, v_pri};
      break;
    }
  }
  if (size > 0) {
    gmsh::option::setNumber("Mesh.MeshSizeMin", size);
    gmsh::option::setNumber("Mesh.MeshSizeMax", size);
  }
  gmsh::vectorpair boundary;
  std::vector<std::pair<int, int>> vols;
  for (int v : volumes) vols.emplace_back(3, v);
  gmsh::model::getBoundary(vols, boundary, true, false);
  std::vector<int> faces;
  for (const auto& [d, t] : boundary) faces.push_back(std::abs(t));
  add_physical(2, faces, "boundary");
  add_physical(3, volumes, "domain");
  gmsh_call("box", [] { gmsh::model::mesh::generate(3); });
  RawMesh raw = raw_from_model("box");
  finish_generated(msh_path);
  return raw;
}

RawMesh generate_surface(const SurfaceSpec& spec, const std::string& msh_path) {
  if (spec.elements < 4) throw MeshError("surface: the element count must be at least 4");
  gmsh_begin("surface");
  const bool sphere = spec.shape == ClosedSurface::sphere;
  constexpr double major = 1.0, minor = 0.4;
  const int volume = sphere ? gmsh::model::occ::addSphere(0, 0, 0, 1) : gmsh::model::occ::addTorus(0, 0, 0, major, minor);
  gmsh::model::occ::synchronize();
  gmsh::vectorpair surfaces;
  gmsh::model::getBoundary({{3, volume}}, surfaces, false, false);
  std::vector<int> tags;
  for (const auto& [d, t] : surfaces) tags.push_back(std::abs(t));
  add_physical(2, tags, "surface");
  const double area = sphere ? 4 * std::numbers::pi : 4 * std::numbers::pi * std::numbers::pi * major * minor;
  const double per_element = area / static_cast<double>(spec.elements);
  const double size = spec.quadrilaterals ? std::sqrt(per_element) : std::sqrt(4.0 * per_element / std::sqrt(3.0));
  gmsh::option::setNumber("Mesh.MeshSizeMin", size);
  gmsh::option::setNumber("Mesh.MeshSizeMax", size);
  gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
  gmsh::option::setNumber("Mesh.MeshSizeFromCurvature", 0);
  gmsh::option::setNumber("Mesh.RandomSeed", spec.seed);
  gmsh::option::setNumber("Mesh.Algorithm", 6);
  gmsh::option::setNumber("Mesh.RecombineAll", spec.quadrilaterals ? 1 : 0);
  gmsh_call("surface", [] { gmsh::model::mesh::generate(2); });
  gmsh::option::setNumber("Mesh.RecombineAll", 0);
  // Only the surface: drop the volume from the model so that the surface is the domain.
  gmsh::model::removeEntities({{3, volume}});
  RawMesh raw = raw_from_model("surface");
  finish_generated(msh_path);
  return raw;
}

}  // namespace kempe
