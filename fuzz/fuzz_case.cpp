// Fuzz target: YAML case files, checked as `kempe case check --no-mesh` does (schema, initial state expressions,
// output times) and printed back resolved.
#include "fuzz/fuzz_support.hpp"
#include "solver/case/case_file.hpp"
#include "solver/case/case_setup.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kempe::fuzz::input_file(data, size, ".yaml");
  kempe::fuzz::accepted(path, [&] {
    const kempe::cases::CaseFile c = kempe::cases::CaseFile::load(path);
    (void)kempe::cases::initial_state(c);
    (void)kempe::cases::output_times(c);
    (void)c.resolved_yaml();
  });
  return 0;
}
