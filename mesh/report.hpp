// A summary of a processed mesh: what `kempe mesh info` prints.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace kempe {

struct MeshSummary {
  std::string source;
  std::string origin;  ///< what the mesh was first built from, where a .kmesh names it (Mesh::origin)
  int dim = 0, space_dim = 0;
  index_t elements = 0, nodes = 0, faces = 0, interior_faces = 0, boundary_faces = 0;
  std::vector<std::pair<std::string, index_t>> element_types;    ///< name -> count, types present only
  std::vector<std::pair<std::string, index_t>> boundary_by_tag;  ///< boundary name -> face count
  int max_faces_per_element = 0;
  bool surface = false;           ///< 2D elements (a planar mesh or a surface in 3D)
  std::int64_t euler_characteristic = 0;  ///< V - E + F for 2D element meshes
  double min_volume = 0, max_volume = 0, total_volume = 0;
  MeshReport report;
};

MeshSummary summarize(const Mesh& mesh);

}  // namespace kempe
