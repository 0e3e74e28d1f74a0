// Fuzz target: .kmesh files. The header's size and checksum are set to fit the mutated payload (else almost every
// input would stop at the checksum), so the content checks are what is exercised: a file that reads must then
// summarize, color, reorder and write back without a fault. A triangle mesh saved by `kempe adapt --save` (its
// start mesh with the refinement tree of its leaves) is instead rebuilt as `kempe adapt` rebuilds it: the tree is
// refused by name or gives a mesh that passes the full check, and one cycle of seeded random refinement and
// coarsening on it passes the full check too.
#include <algorithm>
#include <cstring>

#include "adapt/forest.hpp"
#include "coloring/coloring.hpp"
#include "coloring/reorder.hpp"
#include "fuzz/fuzz_support.hpp"
#include "mesh/kmesh.hpp"
#include "mesh/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t header_bytes = 32;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= header_bytes) {
    const std::uint64_t payload = bytes.size() - header_bytes;
    const std::uint64_t sum = kempe::fnv1a64(bytes.data() + header_bytes, payload);
    std::memcpy(bytes.data() + 16, &payload, 8);
    std::memcpy(bytes.data() + 24, &sum, 8);
  }
  const std::string path =
      kempe::fuzz::input_file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), ".kmesh");
  kempe::Mesh mesh;
  if (!kempe::fuzz::accepted(path, [&] { mesh = kempe::read_kmesh(path); })) return 0;
  (void)kempe::summarize(mesh);
  if (mesh.leaf_root.empty()) {
    kempe::FaceColoring coloring = kempe::color_faces(mesh);  // checks its result: an invalid coloring aborts
    const kempe::Permutation p = kempe::find_ordering("color_renumber").compute(mesh, coloring);
    kempe::apply_ordering(mesh, coloring, p);
  } else {
    // As `kempe adapt` rebuilds a saved mesh: its start mesh as stored (colored and ordered), then the leaves.
    // (Other commands refuse it: an ordering would separate the leaves from their start triangles.)
    int deepest = 0;
    for (const std::int8_t l : mesh.leaf_level) deepest = std::max(deepest, int(l));
    const int max_level = std::min(deepest + 1, 4);
    if (!kempe::fuzz::accepted(path, [&] {
          kempe::adapt::TriangleForest forest(mesh, kempe::Backend::cpu, max_level);
          forest.refine_to(mesh.leaf_root, mesh.leaf_path, mesh.leaf_level, path);
          if (!forest.check(kempe::adapt::Check::full).valid())
            kempe::fuzz::fail(path + ": a rebuilt adapted mesh fails the full check");
          forest.flag_random(0.3, 0.3, 1, 0);
          if (!forest.adapt(kempe::adapt::Check::full).valid())
            kempe::fuzz::fail(path + ": an adaptation of a rebuilt mesh fails the full check");
        }))
      return 0;
  }
  kempe::write_kmesh(mesh, path);
  (void)kempe::read_kmesh(path);
  return 0;
}
