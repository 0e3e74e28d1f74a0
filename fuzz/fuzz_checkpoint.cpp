// Fuzz target: checkpoints. The trailing checksum is set to fit the mutated bytes, so that the field checks
// (order, precision, time, steps, outputs, coefficient count) are what is exercised.
#include <cstring>

#include "fuzz/fuzz_support.hpp"
#include "mesh/kmesh.hpp"
#include "solver/output/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 8) {
    // FNV-1a from the checkpoint format's starting value (solver/output/checkpoint.cpp).
    const std::uint64_t sum = kempe::fnv1a64(bytes.data(), bytes.size() - 8, 1469598103934665603ull);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  const std::string path =
      kempe::fuzz::input_file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), ".checkpoint");
  kempe::output::Checkpoint c;
  if (!kempe::fuzz::accepted(path, [&] { c = kempe::output::read_checkpoint(path); })) return 0;
  kempe::output::write_checkpoint(path, c);
  (void)kempe::output::read_checkpoint(path);
  return 0;
}
