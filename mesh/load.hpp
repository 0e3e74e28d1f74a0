// Reading and writing meshes by file name: .kmesh natively, .msh and .geo through the Gmsh adapter when this
// build has it.
#pragma once

#include <string>

#include "mesh/mesh.hpp"

namespace kempe {

struct LoadOptions {
  double mesh_size = 0;  ///< element size for .geo files (0: the file's own sizes)
};

/// The extension of a mesh file name in lower case (MESH.MSH is a .msh file).
std::string mesh_extension(const std::string& path);

/// True when this build reads .msh/.geo files (the Gmsh SDK was found at configure time).
bool have_gmsh();

/// Loads and processes a mesh: .kmesh, .msh or .geo. Throws MeshError naming the file for anything wrong.
Mesh load_mesh(const std::string& path, const LoadOptions& options = {});

/// Saves a processed mesh as .kmesh or .msh (chosen by the extension).
void save_mesh(const Mesh& mesh, const std::string& path);

}  // namespace kempe
