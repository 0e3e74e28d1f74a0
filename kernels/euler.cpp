// The flux registry's name lookup (see euler.hpp).
#include "kernels/euler.hpp"

#include <stdexcept>
#include <vector>

#include "kernels/registry.hpp"

namespace kempe::euler {

Flux flux_from_name(std::string_view name) {
  std::vector<std::string_view> known;
  for (const FluxInfo& info : fluxes) {
    if (info.name == name) return info.flux;
    known.push_back(info.name);
  }
  throw std::invalid_argument(unknown_name_message("flux", name, known));
}

}  // namespace kempe::euler
