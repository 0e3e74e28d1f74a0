// Checkpoints: everything a run needs to continue bit for bit, in one binary file with a format version and a
// checksum. The solution is kept as doubles (a float solution converts there and back exactly), with the time,
// the step count, the outputs written so far, and a fingerprint of the mesh as numbered for the solver, so that a
// checkpoint is refused on another mesh, order or precision instead of producing nonsense.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mesh/mesh.hpp"

namespace kempe::output {

/// The format written; format 1 (no refinement tree) is read too.
inline constexpr std::uint32_t checkpoint_format = 2;

struct Checkpoint {
  int order = 0;
  std::string precision;          ///< "double" or "float"
  std::uint64_t mesh_fingerprint = 0;
  index_t num_elements = 0;
  double time = 0;
  std::int64_t steps = 0;
  std::vector<std::pair<double, std::string>> outputs;  ///< time and file of every output written so far
  /// The refinement tree of an adapted mesh, one entry per leaf (empty for a fixed mesh): the start triangle each
  /// leaf lies in, its path and its level (Mesh::leaf_root, leaf_path, leaf_level; adapt::TriangleForest::refine_to).
  std::vector<index_t> leaf_root;
  std::vector<std::int64_t> leaf_path;
  std::vector<std::int8_t> leaf_level;
  std::vector<double> solution;                         ///< c[var][mode][element]
};

/// A hash of the mesh as the solver numbers it (element numbers in the file, face connectivity): the same case
/// on the same mesh file gives the same fingerprint, any other mesh or numbering almost surely not.
std::uint64_t mesh_fingerprint(const Mesh& mesh);

/// Writes through a temporary file and a rename (files.hpp); std::runtime_error naming the file when that fails.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

/// Reads and verifies (magic, format version, sizes, checksum, then every field: order 0-5, precision, a finite
/// time >= 0, output times in order up to it with plain file names, a tree of one entry per element or none, levels
/// 0-30, one order's coefficients per element).
/// std::runtime_error naming the file and what is wrong: missing, not a checkpoint, another format version,
/// truncated, checksum mismatch, or the field that makes no sense.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace kempe::output
