#include "mesh/gmsh_io.hpp"

#include <gmsh.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <stdexcept>
#include <numbers>
#include <numeric>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "base/threads.hpp"

namespace kempe {
namespace {

/// The options that shape what Gmsh reads, meshes and writes (the numeric Mesh.* and Geometry.* options of Gmsh
/// 4.8 that are not about display or other file formats). A .geo file may set any of them, and so do the
/// generators: each session puts them back to Gmsh's defaults.
// clang-format off
constexpr const char* session_options[] = {
    "Geometry.AutoCoherence", "Geometry.CopyMeshingMethod", "Geometry.ExactExtrusion",
    "Geometry.ExtrudeReturnLateralEntities", "Geometry.ExtrudeSplinePoints", "Geometry.MatchGeomAndMesh",
    "Geometry.MatchMeshScaleFactor", "Geometry.MatchMeshTolerance", "Geometry.OCCAutoFix",
    "Geometry.OCCBooleanPreserveNumbering", "Geometry.OCCBoundsUseStl", "Geometry.OCCDisableStl",
    "Geometry.OCCFixDegenerated", "Geometry.OCCFixSmallEdges", "Geometry.OCCFixSmallFaces",
    "Geometry.OCCMakeSolids", "Geometry.OCCParallel", "Geometry.OCCScaling", "Geometry.OCCSewFaces",
    "Geometry.OCCThruSectionsDegree", "Geometry.OCCUnionUnify", "Geometry.OCCUseGenericClosestPoint",
    "Geometry.OldCircle", "Geometry.OldRuledSurface", "Geometry.OldNewReg", "Geometry.ReparamOnFaceRobust",
    "Geometry.ScalingFactor", "Geometry.Tolerance", "Geometry.ToleranceBoolean", "Mesh.Algorithm",
    "Mesh.Algorithm3D", "Mesh.AlgorithmSwitchOnFailure", "Mesh.AngleSmoothNormals",
    "Mesh.AngleToleranceFacetOverlap", "Mesh.AnisoMax", "Mesh.AllowSwapAngle", "Mesh.Binary",
    "Mesh.BoundaryLayerFanElements", "Mesh.CompoundClassify", "Mesh.CompoundMeshSizeFactor",
    "Mesh.CreateTopologyMsh2", "Mesh.ElementOrder", "Mesh.FirstElementTag", "Mesh.FirstNodeTag",
    "Mesh.FlexibleTransfinite", "Mesh.Format", "Mesh.HighOrderDistCAD", "Mesh.HighOrderIterMax",
    "Mesh.HighOrderNumLayers", "Mesh.HighOrderOptimize", "Mesh.HighOrderPassMax", "Mesh.HighOrderPeriodic",
    "Mesh.HighOrderPoissonRatio", "Mesh.HighOrderSavePeriodic", "Mesh.HighOrderPrimSurfMesh",
    "Mesh.HighOrderThresholdMin", "Mesh.HighOrderThresholdMax", "Mesh.HighOrderFastCurvingNewAlgo",
    "Mesh.HighOrderCurveOuterBL", "Mesh.HighOrderMaxRho", "Mesh.HighOrderMaxAngle", "Mesh.HighOrderMaxInnerAngle",
    "Mesh.IgnoreParametrization", "Mesh.IgnorePeriodicity", "Mesh.LcIntegrationPrecision", "Mesh.MaxIterDelaunay3D",
    "Mesh.MaxNumThreads1D", "Mesh.MaxNumThreads2D", "Mesh.MaxNumThreads3D", "Mesh.MaxRetries", "Mesh.MeshOnlyEmpty",
    "Mesh.MeshSizeExtendFromBoundary", "Mesh.MeshSizeFactor", "Mesh.MeshSizeMin", "Mesh.MeshSizeMax",
    "Mesh.MeshSizeFromCurvature", "Mesh.MeshSizeFromCurvatureIsotropic", "Mesh.MeshSizeFromPoints",
    "Mesh.MeshSizeFromParametricPoints", "Mesh.MinimumCircleNodes", "Mesh.MinimumCurveNodes",
    "Mesh.MinimumElementsPerTwoPi", "Mesh.MshFileVersion", "Mesh.NewtonConvergenceTestXYZ", "Mesh.Optimize",
    "Mesh.OptimizeThreshold", "Mesh.OptimizeNetgen", "Mesh.PreserveNumberingMsh2", "Mesh.RandomFactor",
    "Mesh.RandomFactor3D", "Mesh.RandomSeed", "Mesh.ReadGroupsOfElements", "Mesh.RecombinationAlgorithm",
    "Mesh.RecombineAll", "Mesh.RecombineOptimizeTopology", "Mesh.Recombine3DAll", "Mesh.Recombine3DLevel",
    "Mesh.Recombine3DConformity", "Mesh.RefineSteps", "Mesh.Renumber", "Mesh.ReparamMaxTriangles", "Mesh.SaveAll",
    "Mesh.SaveElementTagType", "Mesh.SaveTopology", "Mesh.SaveParametric", "Mesh.SaveGroupsOfElements",
    "Mesh.SaveGroupsOfNodes", "Mesh.ScalingFactor", "Mesh.SecondOrderIncomplete", "Mesh.SecondOrderLinear",
    "Mesh.Smoothing", "Mesh.SmoothCrossField", "Mesh.CrossFieldClosestPoint", "Mesh.SmoothNormals",
    "Mesh.SmoothRatio", "Mesh.StlAngularDeflection", "Mesh.StlLinearDeflection", "Mesh.StlOneSolidPerSurface",
    "Mesh.StlRemoveDuplicateTriangles", "Mesh.SubdivisionAlgorithm", "Mesh.SwitchElementTags",
    "Mesh.ToleranceEdgeLength", "Mesh.ToleranceInitialDelaunay", "General.NumThreads"};
// clang-format on

/// Gmsh is one global library state. It is initialised once per process and never finalised: in Gmsh 4.8 a
/// finalize/initialize cycle leaves a stale basis cache behind, and the next mesh with pyramids aborts the process
/// (an Eigen assertion in CondNumBasis). Instead every adapter call runs in a session that starts from a clean
/// state -- no models, the options above at their defaults, an empty log -- so that nothing an earlier call set
/// (a generator's sizes, a .geo file's `Mesh.ElementOrder`) changes the result, and that drops its models at
/// the end so that a large mesh is not kept twice in memory. Messages go to Gmsh's logger (the terminal stays
/// quiet) so that errors can be quoted in ours.
class GmshSession {
 public:
  explicit GmshSession(const std::string& model) : cpu_threads_(cpu_threads()) {
    static const std::vector<std::pair<const char*, double>> defaults = [] {
      gmsh::initialize(0, nullptr, false);
      gmsh::option::setNumber("General.Terminal", 0);
      std::vector<std::pair<const char*, double>> values;
      for (const char* name : session_options) {
        double value = 0;
        try {
          gmsh::option::getNumber(name, value);
          values.emplace_back(name, value);
        } catch (...) {  // an option this Gmsh does not know
        }
      }
      double abort_on_error = 2;
      gmsh::option::getNumber("General.AbortOnError", abort_on_error);
      values.emplace_back("General.AbortOnError", abort_on_error);
      return values;
    }();
    gmsh::clear();
    for (const auto& [name, value] : defaults) gmsh::option::setNumber(name, value);
    gmsh::option::setNumber("General.Terminal", 0);
    gmsh::option::setNumber("General.Verbosity", 2);  // errors and warnings only
    gmsh::logger::stop();                             // clears the log
    gmsh::logger::start();
    gmsh::model::add(model);
  }
  ~GmshSession() {
    // Gmsh sets OpenMP's thread count from its General.NumThreads (1 by default) for the whole process: the
    // solver's CPU backend would then run on one core (measured: kempe run used 1 of 2).
    try {
      gmsh::clear();
      gmsh::logger::stop();
    } catch (...) {
    }
    set_cpu_threads(cpu_threads_);
  }
  GmshSession(const GmshSession&) = delete;
  GmshSession& operator=(const GmshSession&) = delete;

 private:
  int cpu_threads_;  // OpenMP's thread count before Gmsh changed it
};

/// Runs a Gmsh call and turns its errors (thrown as strings or only logged) into a MeshError naming `source`;
/// `hint` (may be empty) is appended to errors Gmsh throws.
template <class F>
void gmsh_call(const std::string& source, const std::string& hint, F&& f) {
  std::vector<std::string> before;
  gmsh::logger::get(before);
  auto logged_error = [&]() -> std::string {
    std::vector<std::string> after;
    gmsh::logger::get(after);
    for (std::size_t i = before.size(); i < after.size(); ++i)
      if (after[i].rfind("Error", 0) == 0) {
        const auto text = after[i].find_first_not_of(" :", 5);  // drop the "Error   : " prefix
        return text == std::string::npos ? after[i] : after[i].substr(text);
      }
    return {};
  };
  try {
    f();
  } catch (const std::string& what) {
    // Gmsh quotes the file it was reading; an error it logged before throwing says more than the throw.
    std::string message = what;
    if (const std::string logged = logged_error(); !logged.empty() && logged.find(what) == std::string::npos)
      message = logged + "; " + what;
    throw MeshError(source + ": Gmsh: " + message + (hint.empty() ? "" : " (" + hint + ")"));
  } catch (const std::bad_alloc&) {
    throw;  // a damaged file's count when reading (kempe-gmsh-reader says so), a mesh too large when generating
  } catch (const std::length_error&) {
    throw;
  } catch (const std::exception& e) {
    throw MeshError(source + ": Gmsh: " + e.what());
  }
  if (const std::string logged = logged_error(); !logged.empty())
    throw MeshError(source + ": Gmsh: " + logged + (hint.empty() ? "" : " (" + hint + ")"));
}

constexpr const char* read_hint = "the file is truncated, corrupt or not a Gmsh file";

struct Family {
  std::string_view gmsh_prefix;
  ElementType type;
};
constexpr Family families[] = {{"Triangle", ElementType::triangle},
                               {"Quadrilateral", ElementType::quadrilateral},
                               {"Tetrahedron", ElementType::tetrahedron},
                               {"Hexahedron", ElementType::hexahedron},
                               {"Prism", ElementType::prism},
                               {"Pyramid", ElementType::pyramid}};

/// Converts the current Gmsh model's mesh to a raw mesh: the highest dimension present is the domain, the
/// elements of physical groups one dimension lower are the boundary markers.
RawMesh raw_from_model(const std::string& source) {
  RawMesh raw;
  raw.source = source;
  int highest = -1;  // the highest dimension of any element
  for (int d = 3; d >= 0 && highest < 0; --d) {
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types, d);
    if (!types.empty()) highest = d;
  }
  if (highest < 0)
    throw MeshError(source +
                    ": the mesh is empty: it has no elements (Kempe needs triangles, quadrilaterals, "
                    "tetrahedra, hexahedra, prisms or pyramids)");
  if (highest < 2)
    throw MeshError(source + ": the mesh has only " + std::to_string(highest) + "D elements (" +
                    (highest == 1 ? "lines" : "points") +
                    "); Kempe needs a 2D mesh (triangles, quadrilaterals) or a 3D mesh (tetrahedra, hexahedra, "
                    "prisms, pyramids)");
  raw.dim = highest;

  std::vector<std::size_t> node_tags;
  std::vector<double> coords, params;
  // All nodes, each once (includeBoundary would repeat the nodes on curves and points).
  gmsh::model::mesh::getNodes(node_tags, coords, params, -1, -1, false, false);
  // Nodes in the order of their tags, each once: Gmsh returns them grouped by the entity they are classified on,
  // which for MSH 2 files depends on the elements that use them, not on the file's numbering.
  std::vector<std::size_t> by_tag(node_tags.size());
  std::iota(by_tag.begin(), by_tag.end(), std::size_t{0});
  if (!std::is_sorted(node_tags.begin(), node_tags.end()))
    std::stable_sort(by_tag.begin(), by_tag.end(),
                     [&](std::size_t a, std::size_t b) { return node_tags[a] < node_tags[b]; });
  by_tag.erase(std::unique(by_tag.begin(), by_tag.end(),
                           [&](std::size_t a, std::size_t b) { return node_tags[a] == node_tags[b]; }),
               by_tag.end());
  const std::size_t nn = by_tag.size();
  raw.x.resize(nn);
  raw.y.resize(nn);
  raw.z.resize(nn);
  raw.node_tag.resize(nn);
  std::size_t max_tag = 0;
  {
    std::vector<std::size_t> sorted_tags(nn);
    for (std::size_t i = 0; i < nn; ++i) {
      const std::size_t j = by_tag[i];
      raw.x[i] = coords[3 * j];
      raw.y[i] = coords[3 * j + 1];
      raw.z[i] = coords[3 * j + 2];
      raw.node_tag[i] = static_cast<std::int64_t>(node_tags[j]);
      sorted_tags[i] = node_tags[j];
      max_tag = std::max(max_tag, node_tags[j]);
    }
    node_tags = std::move(sorted_tags);
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
    if (!family || element_info(family->type).num_vertices != num_primary || num_nodes < num_primary)
      throw MeshError(source + ": unsupported element type '" + name + "' (Gmsh type " + std::to_string(types[t]) +
                      ", " + std::to_string(element_tags[t].size()) +
                      " elements); Kempe reads triangles, quadrilaterals, tetrahedra, hexahedra, prisms and pyramids");
    if (order > 1) curved[order] += element_tags[t].size();
    std::array<index_t, max_element_vertices> v{};
    for (std::size_t e = 0; e < element_tags[t].size(); ++e) {
      for (int k = 0; k < num_primary; ++k) v[k] = node_index(element_nodes[t][e * num_nodes + k], element_tags[t][e]);
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
        // A marker is a face: a line, a triangle or a quadrilateral. Anything else cannot tag a face; it is
        // kept with no vertices so that build_mesh counts it as unmatched.
        if (num_primary > max_face_vertices || num_nodes < num_primary) num_primary = 0;
        std::array<index_t, max_element_vertices> v{};
        for (std::size_t e = 0; e < etags[t].size(); ++e) {
          for (int k = 0; k < num_primary; ++k) v[k] = node_index(enodes[t][e * num_nodes + k], etags[t][e]);
          raw.add_marker(v.data(), num_primary, group, static_cast<std::int64_t>(etags[t][e]));
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

int first_byte(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return in.get();
}

/// The element count that the $Elements section of an MSH 2 ASCII file declares, or -1 for other files.
/// Gmsh 4.8 skips the elements of such a file whose type it cannot build (polygons, polyhedra, ...) without
/// a word; comparing the counts turns that silent loss into an error.
std::int64_t declared_msh2_ascii_elements(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line.rfind("$MeshFormat", 0) != 0) return -1;
  if (!std::getline(in, line)) return -1;
  std::istringstream format(line);
  double version = 0;
  int file_type = -1;
  if (!(format >> version >> file_type) || version < 2 || version >= 3 || file_type != 0) return -1;
  while (std::getline(in, line))
    if (line.rfind("$Elements", 0) == 0) {
      // An element of several physical groups is listed once per group under the same number, and Gmsh reads
      // it once: count distinct element numbers, not lines.
      std::int64_t count = -1;
      if (!(in >> count) || count < 0) return -1;
      std::vector<std::int64_t> numbers;
      numbers.reserve(static_cast<std::size_t>(count));
      std::getline(in, line);
      for (std::int64_t i = 0; i < count && std::getline(in, line); ++i) {
        std::int64_t number = 0;
        if (std::istringstream(line) >> number) numbers.push_back(number);
      }
      std::sort(numbers.begin(), numbers.end());
      return static_cast<std::int64_t>(std::unique(numbers.begin(), numbers.end()) - numbers.begin());
    }
  return -1;
}

/// The number of elements of every dimension in the current model, as raw_from_model sees them (entity by
/// entity: Gmsh's by-type queries count elements it cannot hand out, such as "Xfem" ones, as ordinary ones).
std::int64_t model_element_count() {
  std::int64_t count = 0;
  gmsh::vectorpair entities;
  gmsh::model::getEntities(entities);
  for (const auto& [d, tag] : entities) {
    std::vector<int> types;
    std::vector<std::vector<std::size_t>> tags, nodes;
    gmsh::model::mesh::getElements(types, tags, nodes, d, tag);
    for (const auto& t : tags) count += static_cast<std::int64_t>(t.size());
  }
  return count;
}

/// Writes the current Gmsh model to `path` through a temporary name, so a failed write keeps an old file.
void write_model(const std::string& path) {
  const std::filesystem::path p(path);
  std::error_code ec;
  const std::filesystem::path dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  if (!std::filesystem::is_directory(dir, ec))
    throw MeshError(path + ": cannot write: the directory " + dir.string() + " does not exist");
  const std::string tmp = (p.parent_path() / (".tmp." + p.filename().string())).string();
  try {
    gmsh_call(path, "", [&] { gmsh::write(tmp); });
  } catch (const MeshError&) {
    std::filesystem::remove(tmp, ec);
    throw;
  }
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

void start_gmsh() { GmshSession session("start"); }

std::string msh_truncation(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line, open;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '$') continue;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.rfind("$End", 0) == 0) {
      if (line.substr(4) == open) open.clear();
    } else if (open.empty()) {
      open = line.substr(1);
    }
  }
  if (open.empty()) return {};
  return "the file ends inside its $" + open + " section (there is no $End" + open + "): it is truncated";
}

RawMesh read_gmsh_in_this_process(const std::string& path, const GmshReadOptions& options) {
  check_readable(path);
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  const bool geo = extension == ".geo";
  // Gmsh reads a file that starts with '$' as MSH and hands anything else to its .geo parser.
  const bool msh_content = first_byte(path) == '$';
  if (extension == ".msh" && !msh_content)
    throw MeshError(path + ": not a Gmsh mesh file: a .msh file starts with a $MeshFormat section");

  GmshSession session("input");
  if (geo && options.mesh_size > 0) gmsh::option::setNumber("Mesh.MeshSizeMax", options.mesh_size);
  // Gmsh 4.8's .geo parser leaves its lexer holding the rest of the file when an error is thrown out of it, and
  // every later parse in the process then fails: let it report errors to the log (checked by gmsh_call) and
  // finish cleanly instead of throwing. And `merge`, not `open`: `open` sets a "busy" flag that an error thrown
  // while reading leaves set, after which Gmsh ignores every later `open` in the process.
  double abort_on_error = 2;
  gmsh::option::getNumber("General.AbortOnError", abort_on_error);
  if (!msh_content) gmsh::option::setNumber("General.AbortOnError", 0);
  try {
    gmsh_call(path, msh_content ? read_hint : "", [&] { gmsh::merge(path); });
  } catch (const MeshError& e) {
    if (!msh_content) throw;
    // Replace the generic hint with what is known to be wrong.
    std::string message = e.what();
    std::string specific = msh_truncation(path);
    if (specific.empty() &&
        (message.find("Wrong node index") != std::string::npos || message.find("Unknown node") != std::string::npos))
      specific = "an element references a node that the $Nodes section does not define (dangling node reference)";
    if (specific.empty() && message.find("Unknown type of element") != std::string::npos)
      specific =
          "unsupported element type; Kempe reads triangles, quadrilaterals, tetrahedra, hexahedra, prisms and "
          "pyramids";
    if (!specific.empty()) {
      const std::string hint = std::string(" (") + read_hint + ")";
      if (const auto at = message.rfind(hint); at != std::string::npos) message.erase(at, hint.size());
      message += ": " + specific;
    }
    throw MeshError(message);
  }
  gmsh::option::setNumber("General.AbortOnError", abort_on_error);

  if (const std::int64_t declared = declared_msh2_ascii_elements(path); declared >= 0) {
    const std::int64_t read = model_element_count();
    if (read < declared)
      throw MeshError(path + ": unsupported element type: the file lists " + std::to_string(declared) +
                      " elements but Gmsh read only " + std::to_string(read) + "; the other " +
                      std::to_string(declared - read) +
                      " are of types it cannot read (polygons, polyhedra, ...). Kempe reads triangles, "
                      "quadrilaterals, tetrahedra, hexahedra, prisms and pyramids");
  }
  if (geo) {
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types);
    if (types.empty()) {
      const int dim = gmsh::model::getDimension();
      if (dim < 2)
        throw MeshError(path + ": the geometry has no surface or volume to mesh (it defines only " +
                        (dim < 0 ? std::string("nothing") : std::to_string(dim) + "D entities") + ")");
      gmsh_call(path, "", [&] { gmsh::model::mesh::generate(dim); });
    }
  }
  return raw_from_model(path);
}

void write_msh(const Mesh& mesh, const std::string& path, double format_version, bool binary) {
  GmshSession session("kempe");
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
}

std::int64_t rect_preset_elements(char preset) {
  // Giuliani & Krivodonova (2017), Table 1: triangles of Rect A..E.
  switch (preset) {
    case 'A':
      return 14956;
    case 'B':
      return 59012;
    case 'C':
      return 236586;
    case 'D':
      return 946926;
    case 'E':
      return 3794268;
    default:
      throw MeshError("unknown rectangle preset '" + std::string(1, preset) + "'; known: A, B, C, D, E");
  }
}

RawMesh generate_rect(const RectSpec& spec, const std::string& msh_path) {
  if (!(spec.width > 0 && spec.height > 0)) throw MeshError("rect: width and height must be positive");
  if (spec.elements < 2) throw MeshError("rect: the element count must be at least 2");
  GmshSession session("rect");
  namespace geo = gmsh::model::geo;
  const double w = spec.width, h = spec.height;
  const int p1 = geo::addPoint(0, 0, 0), p2 = geo::addPoint(w, 0, 0), p3 = geo::addPoint(w, h, 0),
            p4 = geo::addPoint(0, h, 0);
  const int bottom = geo::addLine(p1, p2), right = geo::addLine(p2, p3), top = geo::addLine(p3, p4),
            left = geo::addLine(p4, p1);
  const int loop = geo::addCurveLoop({bottom, right, top, left});
  const int surface = geo::addPlaneSurface({loop});
  geo::synchronize();
  add_physical(1, {left}, "left");
  add_physical(1, {right}, "right");
  add_physical(1, {bottom}, "bottom");
  add_physical(1, {top}, "top");
  add_physical(2, {surface}, "domain");
  // Element size from the area per element: an equilateral triangle of side s covers sqrt(3)/4 s^2.
  // Quadrilaterals: triangles split into three quadrilaterals each (Mesh.SubdivisionAlgorithm 1), an
  // all-quadrilateral mesh in seconds; Gmsh 4.8's Blossom recombination needs over 15 minutes for 456k quads and
  // its quad-specific algorithm 8 crashes.
  const bool quads = spec.type == RectElements::quadrilaterals;
  const double triangles = static_cast<double>(spec.elements) / (quads ? 3.0 : 1.0);
  const double size = std::sqrt(4.0 * (w * h / triangles) / std::sqrt(3.0));
  gmsh::option::setNumber("Mesh.MeshSizeMin", size);
  gmsh::option::setNumber("Mesh.MeshSizeMax", size);
  gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
  gmsh::option::setNumber("Mesh.RandomSeed", spec.seed);
  gmsh::option::setNumber("Mesh.Algorithm", 6);  // Frontal-Delaunay
  if (quads) gmsh::option::setNumber("Mesh.SubdivisionAlgorithm", 1);
  gmsh_call("rect", "", [] { gmsh::model::mesh::generate(2); });
  RawMesh raw = raw_from_model("rect");
  finish_generated(msh_path);
  return raw;
}

RawMesh generate_box(const BoxSpec& spec, const std::string& msh_path) {
  if (spec.elements < 1) throw MeshError("box: the element count must be at least 1");
  GmshSession session("box");
  namespace geo = gmsh::model::geo;
  const auto n = static_cast<double>(spec.elements);
  gmsh::option::setNumber("Mesh.RandomSeed", spec.seed);
  gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
  // The unit square in the xy plane, extruded along z: hexahedra and prisms come from structured layers.
  auto square = [&](double x0, double x1) {
    const int p1 = geo::addPoint(x0, 0, 0), p2 = geo::addPoint(x1, 0, 0), p3 = geo::addPoint(x1, 1, 0),
              p4 = geo::addPoint(x0, 1, 0);
    const std::vector<int> lines{geo::addLine(p1, p2), geo::addLine(p2, p3), geo::addLine(p3, p4),
                                 geo::addLine(p4, p1)};
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
      // Three blocks side by side along x, each 1/3 wide, glued by a boolean fragment, all with cells of size
      // h = 1/k (k = 3m): [0,1/3] structured hexahedra; [1/3,2/3] Delaunay tetrahedra, with pyramids where
      // they meet the quadrilaterals of the neighbouring blocks at x = 1/3 and x = 2/3; [2/3,1] structured
      // prisms (a transfinite volume whose end faces z = 0, 1 are triangulated and whose sides are
      // quadrilaterals). About 5 k^3 elements: k^3/3 hexahedra, 2k^3/3 prisms, ~4k^3 tetrahedra, 2k^2 pyramids.
      const int m = std::max(1, static_cast<int>(std::lround(std::cbrt(n / 5.0) / 3.0)));
      const int k = 3 * m;
      size = 1.0 / k;
      namespace occ = gmsh::model::occ;
      const int b0 = occ::addBox(0, 0, 0, 1.0 / 3.0, 1, 1);
      const int b1 = occ::addBox(1.0 / 3.0, 0, 0, 1.0 / 3.0, 1, 1);
      const int b2 = occ::addBox(2.0 / 3.0, 0, 0, 1.0 / 3.0, 1, 1);
      gmsh::vectorpair out;
      std::vector<gmsh::vectorpair> map;
      occ::fragment({{3, b0}}, {{3, b1}, {3, b2}}, out, map);
      occ::synchronize();
      // OpenCASCADE pads bounding boxes by its tolerance (~1e-7): compare coordinates with a loose one.
      constexpr double tol = 1e-3;
      struct Box {
        double xmin, ymin, zmin, xmax, ymax, zmax;
      };
      auto bbox = [](int d, int t) {
        Box b{};
        gmsh::model::getBoundingBox(d, t, b.xmin, b.ymin, b.zmin, b.xmax, b.ymax, b.zmax);
        return b;
      };
      auto box_volume = [&](double x0) {
        for (const auto& [d, t] : out)
          if (d == 3 && std::abs(bbox(d, t).xmin - x0) < tol) return t;
        throw MeshError("box: hybrid block construction failed (no block at x = " + std::to_string(x0) + ")");
      };
      const int v_hex = box_volume(0), v_tet = box_volume(1.0 / 3.0), v_pri = box_volume(2.0 / 3.0);
      auto structured = [&](int volume, bool recombine_ends) {
        gmsh::vectorpair faces, curves;
        gmsh::model::getBoundary({{3, volume}}, faces, false, false);
        gmsh::model::getBoundary(faces, curves, false, false);
        for (const auto& [d, c] : curves) {
          const Box b = bbox(1, std::abs(c));
          gmsh::model::mesh::setTransfiniteCurve(std::abs(c), (b.xmax - b.xmin > tol ? m : k) + 1);
        }
        for (const auto& [d, f] : faces) {
          gmsh::model::mesh::setTransfiniteSurface(std::abs(f));
          const Box b = bbox(2, std::abs(f));
          const bool end_face = b.zmax - b.zmin < tol;  // z = 0 or z = 1: triangles for prisms
          if (recombine_ends || !end_face) gmsh::model::mesh::setRecombine(2, std::abs(f));
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
  gmsh_call("box", "", [] { gmsh::model::mesh::generate(3); });
  RawMesh raw = raw_from_model("box");
  finish_generated(msh_path);
  return raw;
}

RawMesh generate_surface(const SurfaceSpec& spec, const std::string& msh_path) {
  if (spec.elements < 4) throw MeshError("surface: the element count must be at least 4");
  GmshSession session("surface");
  const bool sphere = spec.shape == ClosedSurface::sphere;
  constexpr double major = 1.0, minor = 0.4;
  const int volume =
      sphere ? gmsh::model::occ::addSphere(0, 0, 0, 1) : gmsh::model::occ::addTorus(0, 0, 0, major, minor);
  gmsh::model::occ::synchronize();
  gmsh::vectorpair surfaces;
  gmsh::model::getBoundary({{3, volume}}, surfaces, false, false);
  std::vector<int> tags;
  for (const auto& [d, t] : surfaces) tags.push_back(std::abs(t));
  add_physical(2, tags, "surface");
  const double area = sphere ? 4 * std::numbers::pi : 4 * std::numbers::pi * std::numbers::pi * major * minor;
  // Quadrilaterals: triangles split into three quadrilaterals each (Mesh.SubdivisionAlgorithm 1), which gives an
  // all-quadrilateral mesh with every new node on the surface. Recombination leaves a few triangles on these
  // surfaces, and the Frontal-Delaunay-for-quads algorithm (8) crashes on OpenCASCADE spheres in Gmsh 4.8.
  const double triangles = static_cast<double>(spec.elements) / (spec.quadrilaterals ? 3.0 : 1.0);
  const double size = std::sqrt(4.0 * (area / triangles) / std::sqrt(3.0));
  gmsh::option::setNumber("Mesh.MeshSizeMin", size);
  gmsh::option::setNumber("Mesh.MeshSizeMax", size);
  gmsh::option::setNumber("Mesh.MeshSizeFromPoints", 0);
  gmsh::option::setNumber("Mesh.MeshSizeFromCurvature", 0);
  gmsh::option::setNumber("Mesh.RandomSeed", spec.seed);
  gmsh::option::setNumber("Mesh.Algorithm", 6);  // Frontal-Delaunay
  if (spec.quadrilaterals) gmsh::option::setNumber("Mesh.SubdivisionAlgorithm", 1);
  gmsh_call("surface", "", [] { gmsh::model::mesh::generate(2); });
  // Only the surface: drop the volume from the model so that the surface is the domain.
  gmsh::model::removeEntities({{3, volume}});
  RawMesh raw = raw_from_model("surface");
  finish_generated(msh_path);
  return raw;
}

}  // namespace kempe
