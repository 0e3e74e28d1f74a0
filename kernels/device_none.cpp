// CPU-only builds: there is no CUDA runtime to ask.
#include "kernels/backend.hpp"

namespace kempe {
int cuda_device_count() { return 0; }
}  // namespace kempe
