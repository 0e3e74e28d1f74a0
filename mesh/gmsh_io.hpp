// The Gmsh SDK adapter: reading .msh (2.2 and 4.x, ASCII and binary) and .geo files, writing .msh, and
// generating benchmark meshes. Only this adapter includes gmsh.h; the core builds without it.
// Every function starts from a clean Gmsh state (no models, meshing options at their defaults) and drops its
// models before returning, so no option or model of one call affects the next: results depend only on the
// arguments and the file. Gmsh is one global state: these functions must not run concurrently.
#pragma once

#include <cstdint>
#include <string>

#include "mesh/mesh.hpp"

namespace kempe {

struct GmshReadOptions {
  /// For .geo files: largest element size (Mesh.MeshSizeMax); 0 keeps the sizes the file sets.
  double mesh_size = 0;
};

/// Reads a .msh or .geo file (meshing a .geo on the fly) into a raw mesh. Throws MeshError naming the file for
/// a missing, truncated or corrupt file, an unsupported element type or a mesh with no 2D/3D elements.
/// Nodes come in the order of their tags. Elements of order > 1 are read by their vertices, with a warning.
///
/// Gmsh reads the file in a child process of kempe-gmsh-reader (mesh/gmsh_reader_main.cpp), a helper program
/// started at the first call: Gmsh 4.8 crashes on some damaged files (a node past the last in MSH 2, a $Nodes
/// block longer than its header, an odd tag count, an exception escaping its OpenMP regions), and a crash there
/// becomes a MeshError here that names the file and the signal. A child reading an .msh file may use 512 MB plus
/// 32 times the file's size of address space, a .geo file the physical memory: an impossible count fails at once.
/// Calls from several threads take turns.
RawMesh read_gmsh(const std::string& path, const GmshReadOptions& options = {});

/// What read_gmsh does, in this process: for kempe-gmsh-reader only (a damaged file can crash the process).
RawMesh read_gmsh_in_this_process(const std::string& path, const GmshReadOptions& options = {});

/// Loads and initialises Gmsh (once per process): kempe-gmsh-reader does it before it forks its readers.
void start_gmsh();

/// For an MSH file: the section it ends in, when it ends inside one ("the file ends inside its $Nodes section
/// (there is no $EndNodes): it is truncated"), or an empty string. Sections are "$Name" ... "$EndName" lines;
/// binary data between them is skipped line by line.
std::string msh_truncation(const std::string& path);

/// For an ASCII .msh file that Gmsh died on: the first line that breaks what Gmsh 4.8 assumes ("line 14
/// ($Elements): element 1 names node 4, which the $Nodes section does not define"): node tags out of range, a
/// $Nodes block beyond its header's count, an element's tag or node count wrong for its type, a node reference to
/// no node, a physical group dimension outside 0..3. An empty string when it finds none (or for binary files).
std::string msh_diagnosis(const std::string& path);

/// Where read_gmsh finds kempe-gmsh-reader: $KEMPE_GMSH_READER when set, else next to the running program, else
/// where the build put it.
std::string gmsh_reader_program();

/// Writes a mesh as .msh (format 4.1 or 2.2, ASCII or binary) with its boundary groups as physical groups.
void write_msh(const Mesh& mesh, const std::string& path, double format_version = 4.1, bool binary = false);

enum class RectElements { triangles, quadrilaterals };

/// An unstructured mesh of the rectangle [0, width] x [0, height] with about `elements` triangles (or
/// quadrilaterals, by recombination) and boundary groups left, right, bottom, top. Reproducible for a seed.
struct RectSpec {
  double width = 1, height = 1;
  std::int64_t elements = 10000;
  RectElements type = RectElements::triangles;
  int seed = 1;
};

/// Sizes of the coloring paper's rectangle meshes Rect A..E (triangles), for `--preset`.
std::int64_t rect_preset_elements(char preset);

enum class BoxElements { tetrahedra, hexahedra, prisms, hybrid };

/// A mesh of the box [0,1]^3 with about `elements` elements of the given kind, boundary group "boundary".
/// `hexahedra` gives k^3 cubes for k = round(cbrt(elements)). `hybrid` joins a hexahedral block, a tetrahedral
/// block and a prism block side by side along x (with pyramids where tetrahedra meet quadrilateral faces):
/// all four 3D types, in a granularity of about 5 k^3 elements for k = 3, 6, 9, ...
struct BoxSpec {
  std::int64_t elements = 10000;
  BoxElements type = BoxElements::tetrahedra;
  int seed = 1;
};

enum class ClosedSurface { sphere, torus };

/// A closed triangle (or quadrilateral) surface mesh in 3D: the unit sphere (genus 0) or a torus (genus 1) of
/// radii 1 and 0.4, about `elements` elements, every node on the smooth surface. Quadrilateral meshes are
/// triangle meshes split into three quadrilaterals per triangle (all quadrilaterals, none left over).
struct SurfaceSpec {
  std::int64_t elements = 10000;
  ClosedSurface shape = ClosedSurface::sphere;
  bool quadrilaterals = false;
  int seed = 1;
};

/// Generators: each builds a Gmsh model and returns the raw mesh; when `msh_path` is not empty the Gmsh
/// model is also written there.
RawMesh generate_rect(const RectSpec& spec, const std::string& msh_path = "");
RawMesh generate_box(const BoxSpec& spec, const std::string& msh_path = "");
RawMesh generate_surface(const SurfaceSpec& spec, const std::string& msh_path = "");

}  // namespace kempe
