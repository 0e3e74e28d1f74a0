// Choosing the backend by name (see backend.hpp).
#include "kernels/backend.hpp"

#include "base/registry.hpp"

namespace kempe {

Backend backend_from_name(std::string_view name) {
  const bool have_gpu = cuda_device_count() > 0;
  if (name == "cpu") return Backend::cpu;
  if (name == "auto") return have_gpu ? Backend::cuda : Backend::cpu;
  if (name == "cuda") {
    if (!have_gpu)
      throw std::invalid_argument("backend 'cuda': no CUDA device found (this build or machine has none); use 'cpu' or 'auto'");
    return Backend::cuda;
  }
  throw std::invalid_argument(unknown_name_message("backend", name, {"cpu", "cuda", "auto"}));
}

}  // namespace kempe
