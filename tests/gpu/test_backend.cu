// GPU tests compare the GPU result with the CPU result of the same source; they skip without a device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "kernels/backend.hpp"
#include "skip.hpp"

namespace {

struct Axpy {
  double a;
  const double* x;
  double* y;
  KEMPE_HD void operator()(kempe::index_t i) const { y[i] = a * x[i] + y[i]; }
};

TEST(GpuBackend, ForallMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const kempe::index_t n = 1 << 20;
  std::vector<double> x(n), y(n);
  for (kempe::index_t i = 0; i < n; ++i) {
    x[i] = 0.5 * i;
    y[i] = 1.0 / (1 + i);
  }
  std::vector<double> y_cpu = y;
  kempe::forall(kempe::Backend::cpu, n, Axpy{3.0, x.data(), y_cpu.data()});

  double *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, n * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, n * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dy, y.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  kempe::forall(kempe::Backend::cuda, n, Axpy{3.0, dx, dy});
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<double> y_gpu(n);
  ASSERT_EQ(cudaMemcpy(y_gpu.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dx);
  cudaFree(dy);
  for (kempe::index_t i = 0; i < n; ++i) ASSERT_EQ(y_gpu[i], y_cpu[i]) << "at " << i;
}

TEST(GpuBackend, DeviceCountIsNeverNegative) { EXPECT_GE(kempe::cuda_device_count(), 0); }

}  // namespace
