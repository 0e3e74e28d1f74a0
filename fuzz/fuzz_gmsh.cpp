// Fuzz target: .msh files, read as Kempe reads them (the Gmsh library in the kempe-gmsh-reader child process)
// and built into a mesh. Gmsh's own crashes on damaged files are not findings: they must come back as errors
// naming the file, which is what accepted() checks.
#include <cstdlib>

#include "fuzz/fuzz_support.hpp"
#include "mesh/gmsh_io.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // scripts/fuzz points KEMPE_GMSH_READER at a reader without sanitizers. Where the reader is built with them
  // (run by hand from build-fuzz), leaks inside Gmsh are not ours to report, and the address-space bound that a
  // reader without AddressSanitizer sets (mesh/gmsh_reader_main.cpp) is ASan's to set here.
  ::setenv("ASAN_OPTIONS", "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=1024", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kempe::fuzz::input_file(data, size, ".msh");
  kempe::fuzz::accepted(path, [&] { (void)kempe::build_mesh(kempe::read_gmsh(path)); });
  return 0;
}
