// Helpers of the GPU tests: device copies of host vectors and comparisons with the CPU result.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <vector>

namespace kempe::test {

/// A device copy of a host vector, freed with the object.
template <class T>
struct DeviceCopy {
  T* data = nullptr;
  std::size_t size = 0;
  explicit DeviceCopy(const std::vector<T>& host) : size(host.size()) {
    if (cudaMalloc(&data, size * sizeof(T)) != cudaSuccess ||
        cudaMemcpy(data, host.data(), size * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
      ADD_FAILURE() << "cudaMalloc or cudaMemcpy failed";
  }
  ~DeviceCopy() { cudaFree(data); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
};

template <class T>
std::vector<T> to_host(const DeviceCopy<T>& device) {
  std::vector<T> host(device.size);
  EXPECT_EQ(cudaMemcpy(host.data(), device.data, device.size * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

inline void expect_close(const std::vector<double>& gpu, const std::vector<double>& cpu, const char* what,
                         double tolerance = 1e-12) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i)
    ASSERT_NEAR(gpu[i], cpu[i], tolerance * (1 + std::abs(cpu[i]))) << what << " at " << i;
}

}  // namespace kempe::test
