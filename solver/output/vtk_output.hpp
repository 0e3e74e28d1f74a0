// VTK output through the VTK library (an adapter: built only where VTK is found; the core does not need it).
// One .vtu per output time (XML, binary, zlib-compressed), linear triangles for p <= 1 and Lagrange triangles
// for p >= 2, and a .pvd collection that lists them with their times, so that ParaView opens the series at once.
// Every file is written under a temporary name and renamed: a failed write leaves the previous file intact.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "adapt/forest.hpp"
#include "solver/output/output.hpp"

namespace kempe::output {

/// Writes `solution` to `path` (.vtu): the point fields named in `fields` (density, velocity, pressure, mach,
/// entropy; all when empty) and the cell fields. Throws std::runtime_error naming the file when the write fails.
void write_vtu(const std::string& path, const SampledSolution& solution, const std::vector<std::string>& fields = {});

/// Writes the mesh's faces to `path` (.vtu) as lines (2D) or polygons (3D) with cell fields `color` (the face
/// color, -1 where the mesh is not colored), `boundary` (the boundary group, -1 inside) and `face` (the face
/// index), so that a coloring can be looked at in ParaView. Same failure behaviour as write_vtu.
void write_face_colors(const std::string& path, const Mesh& mesh);

/// An adapted triangle mesh (adapt/forest.hpp) for ParaView: DIRECTORY/elements.vtu (the leaves, cell arrays
/// `level` and `element`) and DIRECTORY/faces.vtu (faces as line cells, cell arrays `color`, `left`, `right`
/// (-1 on the boundary) and `boundary`). The directory is made if missing; each file is written to a temporary
/// name and renamed.
void write_adapted_mesh(const std::string& directory, const adapt::LeafMesh& mesh);

/// The .pvd collection of a run: each output's time and file (relative to the .pvd's folder).
class PvdCollection {
 public:
  explicit PvdCollection(std::string path) : path_(std::move(path)) {}
  /// Adds a data set and rewrites the collection file (so that it is complete after every output).
  void add(double time, const std::string& file);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;
};

}  // namespace kempe::output
