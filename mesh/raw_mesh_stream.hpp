// A raw mesh as bytes, for handing it from the Gmsh reader process (mesh/gmsh_reader_main.cpp) to Kempe. Both
// ends are the same build on the same machine: the format is the host's own layout, a magic line first.
#pragma once

#include <string>
#include <string_view>

#include "mesh/mesh.hpp"

namespace kempe {

/// Appends `raw` to `bytes`.
void append_raw_mesh(const RawMesh& raw, std::string& bytes);

/// The raw mesh in `bytes` (as append_raw_mesh wrote it). Every length, CSR offset, element type and group index
/// is checked, so that a cut or damaged stream gives a MeshError naming `source`, never a bad read.
RawMesh parse_raw_mesh(std::string_view bytes, const std::string& source);

}  // namespace kempe
