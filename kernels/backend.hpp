// The one place that knows whether we are compiled by nvcc (after MFEM's forall.hpp and AMReX_GpuLaunch.H).
// Physics and DG kernels are KEMPE_HD point functions; forall runs them over an index range on the CPU
// (OpenMP) or on the GPU (grid-stride CUDA kernel). No other file may test __CUDACC__.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

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

/// The smallest f(i) over i in [0, n) on the CPU (OpenMP min-reduction); +huge for n = 0. A NaN from f is
/// kept, so that a reduction over a broken state is not silently finite.
template <class F>
double reduce_min_cpu(index_t n, F&& f) {
  double result = 1e300;
  bool nan = false;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) reduction(min : result) reduction(|| : nan)
#endif
  for (index_t i = 0; i < n; ++i) {
    const double v = f(i);
    if (v != v) nan = true;
    result = v < result ? v : result;
  }
  return nan ? 0.0 / 0.0 : result;
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

namespace detail {
/// Block minima of f over a grid-stride range: out[block] = min over the block's items (NaN wins).
template <class F>
__global__ void reduce_min_kernel(index_t n, F f, double* out) {
  __shared__ double partial[256];
  double v = 1e300;
  for (index_t i = static_cast<index_t>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<index_t>(blockDim.x * gridDim.x)) {
    const double x = f(i);
    v = (x != x || x < v) ? x : v;
  }
  partial[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const double x = partial[threadIdx.x + half];
      if (x != x || x < partial[threadIdx.x]) partial[threadIdx.x] = x;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
}  // namespace detail

/// The smallest f(i) over i in [0, n) on the GPU: block minima on the device, the last few hundred on the
/// host (one small copy, which synchronizes). Throws std::runtime_error naming the CUDA call that failed.
template <class F>
double reduce_min_cuda(index_t n, F f) {
  if (n <= 0) return 1e300;
  constexpr int blocks = 256;  // a fixed grid: grid-stride loops cover any n
  double* partial = nullptr;
  auto check = [](cudaError_t status, const char* call) {
    if (status != cudaSuccess)
      throw std::runtime_error(std::string(call) + " in reduce_min: " + cudaGetErrorString(status));
  };
  check(cudaMalloc(&partial, blocks * sizeof(double)), "cudaMalloc");
  detail::reduce_min_kernel<<<blocks, 256>>>(n, f, partial);
  double host[blocks];
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t copied = cudaMemcpy(host, partial, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(partial);
  check(launched, "reduce_min_kernel launch");
  check(copied, "cudaMemcpy");
  double result = 1e300;
  for (const double x : host)
    if (x != x || x < result) result = x;
  return result;
}

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

/// reduce_min(backend, n, f): the smallest f(i) (a double) over [0, n), NaN if any f(i) is NaN; the only
/// reduction primitive of the kernels (the time step).
template <class F>
double reduce_min(Backend backend, index_t n, F&& f) {
#if defined(__CUDACC__)
  if (backend == Backend::cuda) return reduce_min_cuda(n, f);
#else
  (void)backend;
#endif
  return reduce_min_cpu(n, static_cast<F&&>(f));
}

}  // namespace kempe
