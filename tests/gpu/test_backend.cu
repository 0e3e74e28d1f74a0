// GPU tests compare the GPU result with the CPU result of the same source; they skip without a device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "tests/unit/algorithm_totals.hpp"
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

// The scans' and reductions' totals left in device memory without waiting (kernels/algorithms.hpp: CUB and
// Thrust's par_nosync on the GPU) equal the CPU's, in place too, CUB's selection keeps the CPU's items, and the
// phase marks time the device's work.
TEST(GpuBackend, AlgorithmTotalsMatchCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937 random(11);
  for (const kempe::index_t n : {0, 1, 1000, 1 << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<kempe::index_t> values(n);
    for (kempe::index_t& v : values) v = static_cast<kempe::index_t>(random() % 5);
    const kempe::test::AlgorithmTotals cpu = kempe::test::algorithm_totals(kempe::Backend::cpu, values);
    const kempe::test::AlgorithmTotals gpu = kempe::test::algorithm_totals(kempe::Backend::cuda, values);
    EXPECT_EQ(gpu.scanned, cpu.scanned);
    EXPECT_EQ(gpu.scanned_in_place, cpu.scanned_in_place);
    EXPECT_EQ(gpu.slots, cpu.slots);
    EXPECT_EQ(gpu.selected, cpu.selected);
  }
  kempe::WorkMarks marks(kempe::Backend::cuda);
  marks.mark();
  std::vector<double> x(1 << 20, 1.0), y(1 << 20, 2.0);
  kempe::RawArray<double> dx(kempe::Backend::cuda, x, "x"), dy(kempe::Backend::cuda, y, "y");
  marks.mark();
  kempe::forall(kempe::Backend::cuda, 1 << 20, Axpy{3.0, dx.data(), dy.data()});
  marks.mark();
  const std::vector<double> s = marks.seconds();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_GE(s[0], 0.0);
  EXPECT_GT(s[1], 0.0);
  EXPECT_EQ(dy.to_host(1)[0], 5.0);
}

TEST(GpuBackend, DeviceCountIsNeverNegative) { EXPECT_GE(kempe::cuda_device_count(), 0); }

}  // namespace
