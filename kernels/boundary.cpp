// The boundary-condition registry's name lookup (see boundary_K.hpp).
#include <stdexcept>
#include <vector>

#include "kernels/boundary_K.hpp"
#include "kernels/registry.hpp"

namespace kempe::bc {

Kind kind_from_name(std::string_view name) {
  std::vector<std::string_view> known;
  for (const KindInfo& info : kinds) {
    if (info.name == name) return info.kind;
    known.push_back(info.name);
  }
  throw std::invalid_argument(unknown_name_message("boundary condition", name, known));
}

}  // namespace kempe::bc
