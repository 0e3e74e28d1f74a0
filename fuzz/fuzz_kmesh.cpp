// Fuzz target: .kmesh files. The header's size and checksum are set to fit the mutated payload (else almost every
// input would stop at the checksum), so the content checks are what is exercised: a file that reads must then
// summarize, color, reorder and write back without a fault.
#include <cstring>

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
  kempe::FaceColoring coloring = kempe::color_faces(mesh);  // checks its result: an invalid coloring aborts
  const kempe::Permutation p = kempe::find_ordering("color_renumber").compute(mesh, coloring);
  kempe::apply_ordering(mesh, coloring, p);
  kempe::write_kmesh(mesh, path);
  (void)kempe::read_kmesh(path);
  return 0;
}
