// The one place that knows whether we are compiled by nvcc (after MFEM's forall.hpp and AMReX_GpuLaunch.H).
// Physics and DG kernels are KEMPE_HD point functions; forall runs them over an index range on the CPU
// (OpenMP) or on the GPU (grid-stride CUDA kernel). No other file may test __CUDACC__.
#pragma once

#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(__CUDACC__)
#define KEMPE_HD __host__ __device__ __forceinline__
#define KEMPE_DEVICE_COMPILE 1
#else
#define KEMPE_HD inline __attribute__((always_inline))
#define KEMPE_DEVICE_COMPILE 0
#endif

// OpenMP loops go through this macro so that translation units compiled without OpenMP (nvcc's host pass)
// see no unknown pragma.
#if defined(_OPENMP)
#define KEMPE_OMP_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#define KEMPE_OMP_ATOMIC _Pragma("omp atomic")
#else
#define KEMPE_OMP_PARALLEL_FOR
#define KEMPE_OMP_ATOMIC
#endif

namespace kempe {

/// Index type for nodes, elements and faces: 32 bits hold the largest meshes a single GPU can store
/// (Rect E has 5.7M faces) and halve connectivity traffic compared to 64-bit indices.
using index_t = std::int32_t;

enum class Backend { cpu, cuda };

/// Number of CUDA devices usable by this process; 0 when the build has no CUDA backend or when the
/// runtime answers with any error (a machine without a driver reports an error, not zero devices).
int cuda_device_count();

/// Threads of the CPU backend (1 without OpenMP), and setting them (ignored without OpenMP).
inline int cpu_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}
inline void set_cpu_threads(int n) {
#if defined(_OPENMP)
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/// *p += v as one indivisible update: atomicAdd on the GPU, an OpenMP atomic on the CPU (the `atomic` race
/// strategy; the `colored` one needs none).
template <class Real>
KEMPE_HD void atomic_add(Real* p, Real v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, v);
#else
  KEMPE_OMP_ATOMIC
  *p += v;
#endif
}

/// Asks the CPU to start loading the cache line at p (a hint; no-op on the GPU, whose warps hide memory
/// latency by switching). For gathers whose addresses are known ahead, like a face's right element.
KEMPE_HD void prefetch(const void* p) {
#if defined(__CUDA_ARCH__)
  (void)p;
#else
  __builtin_prefetch(p);
#endif
}

/// Runs f(i) for i in [0, n) on the CPU with OpenMP; f must be safe to run concurrently for distinct i.
template <class F>
void forall_cpu(index_t n, F&& f) {
  KEMPE_OMP_PARALLEL_FOR
  for (index_t i = 0; i < n; ++i) f(i);
}

#if defined(__CUDACC__)
namespace detail {
template <class F>
__global__ void forall_kernel(index_t n, F f) {
  for (index_t i = static_cast<index_t>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<index_t>(blockDim.x * gridDim.x))
    f(i);
}
}  // namespace detail

/// Threads per block for forall launches: a multiple of the warp size that keeps register pressure moderate.
inline constexpr int forall_block_size = 256;

/// Launches f(i), i in [0, n), on the current CUDA stream 0 (asynchronous); checks the launch itself.
template <class F>
void forall_cuda(index_t n, F f) {
  if (n <= 0) return;
  const int blocks = static_cast<int>((n + forall_block_size - 1) / forall_block_size);
  detail::forall_kernel<<<blocks, forall_block_size>>>(n, f);
}
#endif

/// forall(backend, n, f): the only loop primitive of the kernels. On a host-only translation unit the CUDA
/// backend is not reachable (it is compiled in .cu files), so asking for it there is a programming error.
template <class F>
void forall(Backend backend, index_t n, F&& f) {
#if defined(__CUDACC__)
  if (backend == Backend::cuda) {
    forall_cuda(n, f);
    return;
  }
#else
  (void)backend;
#endif
  forall_cpu(n, static_cast<F&&>(f));
}

}  // namespace kempe
