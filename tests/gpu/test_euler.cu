// The numerical fluxes on the GPU against the CPU, from the same source (kernels/euler.hpp).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/boundary_K.hpp"
#include "kernels/euler.hpp"
#include "skip.hpp"

namespace {

using kempe::euler::num_vars;

/// Face i: the flux between states i and i + 1 of `states` ([n + 1][num_vars]) through a normal at angle i.
struct FaceFluxes {
  kempe::euler::Flux flux;
  const double* states;
  double* out;  // [n][num_vars]
  KEMPE_HD void operator()(kempe::index_t i) const {
    const double angle = 0.37 * i;
    kempe::euler::numerical_flux(flux, states + num_vars * i, states + num_vars * (i + 1), std::cos(angle),
                                 std::sin(angle), 1.4, out + num_vars * i);
  }
};

TEST(GpuEuler, FluxesMatchCpu) {
  SKIP_WITHOUT_GPU();
  const kempe::index_t n = 1 << 16;
  std::vector<double> states(std::size_t(n + 1) * num_vars);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> log_scale(-1.5, 1.5), speed(-3, 3);
  for (kempe::index_t i = 0; i <= n; ++i)
    kempe::euler::conserved(std::pow(10.0, log_scale(rng)), speed(rng), speed(rng), std::pow(10.0, log_scale(rng)), 1.4,
                            &states[std::size_t(i) * num_vars]);
  double *d_states = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_states, states.size() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, std::size_t(n) * num_vars * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_states, states.data(), states.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  for (const auto& info : kempe::euler::fluxes) {
    std::vector<double> cpu(std::size_t(n) * num_vars), gpu(cpu.size());
    kempe::forall(kempe::Backend::cpu, n, FaceFluxes{info.value, states.data(), cpu.data()});
    kempe::forall(kempe::Backend::cuda, n, FaceFluxes{info.value, d_states, d_out});
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(gpu.data(), d_out, gpu.size() * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    // Not bitwise: nvcc contracts a * b + c into fused multiply-adds, the host compiler need not.
    for (std::size_t k = 0; k < cpu.size(); ++k)
      ASSERT_NEAR(gpu[k], cpu[k], 1e-12 * (1 + std::abs(cpu[k]))) << info.name << " at " << k;
  }
  cudaFree(d_states);
  cudaFree(d_out);
}

/// Point i: the state of function f at a point of [0, 10]^2 and time 0.01 i / n.
struct FunctionStates {
  kempe::bc::StateFunction f;
  kempe::index_t n;
  double* out;  // [n][num_vars]
  KEMPE_HD void operator()(kempe::index_t i) const {
    const double x = 10.0 * (i % 97) / 97, y = 10.0 * (i % 89) / 89;
    kempe::bc::function_state(f, x, y, 0.01 * i / n, 1.4, out + num_vars * i);
  }
};

TEST(GpuEuler, StateFunctionsMatchCpu) {
  SKIP_WITHOUT_GPU();
  const kempe::index_t n = 1 << 14;
  double* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, std::size_t(n) * num_vars * sizeof(double)), cudaSuccess);
  for (const auto& info : kempe::bc::state_functions) {
    std::vector<double> cpu(std::size_t(n) * num_vars), gpu(cpu.size());
    kempe::forall(kempe::Backend::cpu, n, FunctionStates{info.value, n, cpu.data()});
    kempe::forall(kempe::Backend::cuda, n, FunctionStates{info.value, n, d_out});
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(gpu.data(), d_out, gpu.size() * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::size_t k = 0; k < cpu.size(); ++k)
      ASSERT_NEAR(gpu[k], cpu[k], 1e-13 * (1 + std::abs(cpu[k]))) << info.name << " at " << k;
  }
  cudaFree(d_out);
}

}  // namespace
