#include "mesh/load.hpp"

#include <cctype>
#include <chrono>
#include <filesystem>

#include "base/files.hpp"
#include "mesh/kmesh.hpp"
#if KEMPE_HAVE_GMSH
#include "mesh/gmsh_io.hpp"
#endif

namespace kempe {
namespace {
[[noreturn, maybe_unused]] void no_gmsh(const std::string& path) {
  throw MeshError(path + ": this kempe was built without the Gmsh SDK and reads .kmesh files only; convert the mesh "
                         "with `kempe mesh convert MESH OUT.kmesh` on a machine with Gmsh");
}
}  // namespace

std::string mesh_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool have_gmsh() { return KEMPE_HAVE_GMSH != 0; }

Mesh load_mesh(const std::string& path, const LoadOptions& options) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const std::string ext = mesh_extension(path);
  if (ext == ".kmesh" || ext == ".msh" || ext == ".geo")
    if (const std::string why = not_an_input_file(path); !why.empty()) throw MeshError(path + ": " + why);
  if (ext == ".kmesh") {
    Mesh mesh = read_kmesh(path);
    mesh.report.read_seconds = std::chrono::duration<double>(clock::now() - t0).count();
    return mesh;
  }
  if (ext == ".msh" || ext == ".geo") {
#if KEMPE_HAVE_GMSH
    GmshReadOptions gmsh_options;
    gmsh_options.mesh_size = options.mesh_size;
    RawMesh raw = read_gmsh(path, gmsh_options);
    const auto t1 = clock::now();
    Mesh mesh = build_mesh(std::move(raw));
    mesh.report.read_seconds = std::chrono::duration<double>(t1 - t0).count();
    mesh.report.build_seconds = std::chrono::duration<double>(clock::now() - t1).count();
    return mesh;
#else
    (void)options;
    no_gmsh(path);
#endif
  }
  throw MeshError(path + ": unknown mesh format '" + ext + "'; expected .msh, .geo or .kmesh");
}

void save_mesh(const Mesh& mesh, const std::string& path) {
  const std::string ext = mesh_extension(path);
  if (ext == ".kmesh") return write_kmesh(mesh, path);
  if (ext == ".msh") {
#if KEMPE_HAVE_GMSH
    return write_msh(mesh, path);
#else
    no_gmsh(path);
#endif
  }
  throw MeshError(path + ": cannot write meshes of format '" + ext + "'; use .kmesh or .msh");
}

}  // namespace kempe
