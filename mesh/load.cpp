#include "mesh/load.hpp"

#include <filesystem>

#include "mesh/kmesh.hpp"
#if KEMPE_HAVE_GMSH
#include "mesh/gmsh_io.hpp"
#endif

namespace kempe {
namespace {
std::string extension(const std::string& path) { return std::filesystem::path(path).extension().string(); }

[[noreturn, maybe_unused]] void no_gmsh(const std::string& path) {
  throw MeshError(path + ": this kempe was built without the Gmsh SDK and reads .kmesh files only; convert the mesh "
                         "with `kempe mesh convert MESH OUT.kmesh` on a machine with Gmsh");
}
}  // namespace

bool have_gmsh() { return KEMPE_HAVE_GMSH != 0; }

Mesh load_mesh(const std::string& path, const LoadOptions& options) {
  const std::string ext = extension(path);
  if (ext == ".kmesh") return read_kmesh(path);
  if (ext == ".msh" || ext == ".geo") {
#if KEMPE_HAVE_GMSH
    GmshReadOptions gmsh_options;
    gmsh_options.mesh_size = options.mesh_size;
    return build_mesh(read_gmsh(path, gmsh_options));
#else
    (void)options;
    no_gmsh(path);
#endif
  }
  throw MeshError(path + ": unknown mesh format '" + ext + "'; expected .msh, .geo or .kmesh");
}

void save_mesh(const Mesh& mesh, const std::string& path) {
  const std::string ext = extension(path);
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
