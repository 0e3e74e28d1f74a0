// CUDA builds: ask the runtime how many devices there are. A driverless machine answers with an error
// (cudaErrorNoDevice or cudaErrorInsufficientDriver), which we treat as "no GPU".
#include <cuda_runtime.h>

#include "kernels/backend.hpp"

namespace kempe {
int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky error so later calls start clean
    return 0;
  }
  return count;
}
}  // namespace kempe
