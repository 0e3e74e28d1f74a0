// The one place that knows whether we are compiled by nvcc (after MFEM's forall.hpp and AMReX_GpuLaunch.H).
// Physics and DG kernels are KEMPE_HD point functions; forall runs them over an index range on the CPU
// (OpenMP) or on the GPU (grid-stride CUDA kernel). No other file may test __CUDACC__.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>

#include "base/threads.hpp"
#include "base/types.hpp"

#if defined(__CUDACC__)
#define KEMPE_HD __host__ __device__ __forceinline__
#define KEMPE_DEVICE_COMPILE 1
#else
#define KEMPE_HD inline __attribute__((always_inline))
#define KEMPE_DEVICE_COMPILE 0
#endif

// KEMPE_HD for a function whose result must be the same bits in several CPU kernels: on the host one compiled
// copy that each kernel calls, never inlined (inlined, GCC vectorizes and contracts it together with what
// surrounds it, which differs from kernel to kernel); on the GPU inlined as KEMPE_HD. Also for a long function
// on a path few items take (a boundary face's ghost state): one host copy instead of one in every face point
// of every kernel, which the host compiler would otherwise optimize each time. The GPU still inlines it: a call
// there changes the register allocation of the whole kernel (ptxas: the elementwise pass at p = 1 spilled 40
// bytes with the named state functions called, none inlined).
#if defined(__CUDA_ARCH__)
#define KEMPE_HD_ONE_HOST_COPY __host__ __device__ __forceinline__
#elif defined(__CUDACC__)
#define KEMPE_HD_ONE_HOST_COPY __host__ __device__ __attribute__((noinline))
#else
#define KEMPE_HD_ONE_HOST_COPY __attribute__((noinline))
#endif

// OpenMP loops go through this macro so that translation units compiled without OpenMP (nvcc's host pass)
// see no unknown pragma.
#if defined(_OPENMP)
#define KEMPE_OMP_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#define KEMPE_OMP_PARALLEL_FOR_SIMD _Pragma("omp parallel for simd schedule(simd : static)")
#define KEMPE_OMP_ATOMIC _Pragma("omp atomic")
#define KEMPE_OMP_SIMD _Pragma("omp simd")
#else
#define KEMPE_OMP_PARALLEL_FOR
#define KEMPE_OMP_PARALLEL_FOR_SIMD
#define KEMPE_OMP_ATOMIC
#define KEMPE_OMP_SIMD
#endif

// A host loop over SIMD lanes that GCC would otherwise unroll completely before vectorizing it, after which it
// does not vectorize the unrolled copies (FaceIntegrals::lanes' numerical fluxes). nvcc passes the pragma on to
// the host compiler and would warn that it does not know it.
#if defined(__CUDACC__)
#define KEMPE_NO_UNROLL _Pragma("nv_diag_suppress 1675") _Pragma("GCC unroll 1")
#else
#define KEMPE_NO_UNROLL _Pragma("GCC unroll 1")
#endif

namespace kempe {

enum class Backend { cpu, cuda };

/// Number of CUDA devices usable by this process; 0 when the build has no CUDA backend or when the
/// runtime answers with any error (a machine without a driver reports an error, not zero devices).
int cuda_device_count();

/// The backend called `name`: "cpu", "cuda", or "auto" (cuda when a device is present, else cpu).
/// std::invalid_argument for another name, and for "cuda" on a machine or build without a CUDA device.
Backend backend_from_name(std::string_view name);

/// a b + c, rounded once where the hardware has a fused multiply-add (the GPU; a CPU with FMA), else twice. GCC
/// contracts `a * b + c` into an FMA or not depending on the context it inlines and vectorizes it in, so code
/// that must give the same bits in several forms (SIMD lanes, blocks or one item at a time; a pass fused with the
/// next or apart) states its multiply-adds here instead of leaving them to the compiler.
template <class Real>
KEMPE_HD Real multiply_add(Real a, Real b, Real c) {
#if defined(__CUDA_ARCH__) || defined(__FMA__)
  return std::fma(a, b, c);
#else
  return a * b + c;
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

/// The number of set bits of x.
KEMPE_HD int popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);  // GCC and Clang; CUDA files are C++17, without std::popcount
#endif
}

/// *p = v where other threads may store the same value to *p in the same pass (a flag several items set): a
/// relaxed atomic store on the CPU, which C++ asks of stores that can meet (a plain store on x86; what an OpenMP
/// `atomic write` gives, which Clang refuses on a template's dependent type), and a plain store on the GPU.
template <class T>
KEMPE_HD void store_shared(T* p, T v) {
#if defined(__CUDA_ARCH__)
  *p = v;
#else
  __atomic_store_n(p, v, __ATOMIC_RELAXED);  // GCC and Clang
#endif
}

/// *p += v where no other thread touches *p during the launch (the colored strategy). On the GPU this is
/// still atomicAdd: with its result unused it compiles to a reduction (RED) that the L2 cache performs, so the
/// thread neither waits for *p to come in nor writes it back (docs/benchmarks.md: the colored surface pass
/// before and after, on an H100). Uncontended, it adds in the same order as a plain update, so the
/// result stays bitwise reproducible. On the CPU a plain add.
template <class Real>
KEMPE_HD void exclusive_add(Real* p, Real v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, v);
#else
  *p += v;
#endif
}

/// Whether the code is compiled for the GPU (nvcc's device pass). Work a kernel does on the CPU only goes under
/// `if constexpr (!on_device())`, so that it takes no registers on the GPU.
KEMPE_HD constexpr bool on_device() {
#if defined(__CUDA_ARCH__)
  return true;
#else
  return false;
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

/// prefetch into the outer caches only (prefetcht1): for many lines at once, which would fill the core's
/// first-level miss buffers and stall the prefetches themselves.
KEMPE_HD void prefetch_outer(const void* p) {
#if defined(__CUDA_ARCH__)
  (void)p;
#else
  __builtin_prefetch(p, 0, 2);
#endif
}

// ---- Device memory, synchronization and graphs: plain host functions (kernels/device_cuda.cu; in a build
// without CUDA, kernels/device_none.cpp, where each throws), so that host-only translation units can own
// device buffers. Every failure throws std::runtime_error naming the call, what it was for and CUDA's error.

/// Allocates `bytes` of device memory (cudaMalloc) for `what` (a name for messages).
void* device_allocate(std::size_t bytes, const char* what);
void device_free(void* p) noexcept;
/// Temporary device storage for library calls (Thrust's scans, reductions and sorts, kernels/algorithms.hpp):
/// one block kept from call to call and grown when a call needs more, so that a call costs no cudaMalloc and
/// no cudaFree (which waits for the whole device). Calls on one stream may share it: the stream orders them. A
/// second request while the block is taken gets memory of its own, freed on release.
void* scratch_acquire(std::size_t bytes);
void scratch_release(void* p) noexcept;
void copy_to_device(void* device, const void* host, std::size_t bytes, const char* what);
void copy_to_host(void* host, const void* device, std::size_t bytes, const char* what);
void copy_on_device(void* to, const void* from, std::size_t bytes, const char* what);
/// Waits for every launch so far; a kernel's failure during execution is reported here, naming `what`.
void device_synchronize(const char* what);
/// Free and total memory of the current device (cudaMemGetInfo) and its name.
struct DeviceMemory {
  std::size_t free_bytes = 0, total_bytes = 0;
  std::string name;
};
DeviceMemory device_memory();
/// Throws std::runtime_error: "<call> failed for <what>: <CUDA error string> (<error name>)". `what` may be a
/// mangled type name (a kernel's functor), which is demangled.
[[noreturn]] void throw_cuda_error(int code, const char* call, const char* what);

/// A CUDA graph of launches recorded once and replayed (the many per-color launches of Giuliani & Krivodonova
/// 2017 then cost one graph launch). capture(record) runs record() with every forall launch going to the capture stream.
class DeviceGraph {
 public:
  DeviceGraph() = default;
  ~DeviceGraph();
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;
  template <class Record>
  void capture(Record&& record) {
    begin_capture();
    try {
      record();
    } catch (...) {
      abandon_capture();
      throw;
    }
    end_capture();
  }
  /// Launches the recorded graph (asynchronous).
  void launch();
  /// Whether no recording is ready to launch (none made, or cleared since).
  bool empty() const { return exec_ == nullptr || stale_; }
  /// Forgets the recording: the next capture records anew. The executable graph is kept, and that capture updates
  /// it in place when its launches are the same kernels with new arguments (cudaGraphExecUpdate, far cheaper
  /// than instantiating anew: a mesh adaptation changes sizes and pointers only), else instantiates it again.
  void clear() { stale_ = true; }

 private:
  void begin_capture();
  void end_capture();
  void abandon_capture() noexcept;
  void release() noexcept;  // destroys the graph, its executable and the capture stream
  void* stream_ = nullptr;  // cudaStream_t, kept from one capture to the next
  void* graph_ = nullptr;   // cudaGraph_t
  void* exec_ = nullptr;    // cudaGraphExec_t
  bool stale_ = false;      // cleared since the last capture
};

/// Blocks of the reduction's first pass (a fixed grid: grid-stride loops cover any n); the scratch a
/// reduction needs holds this many doubles. 256 blocks of 256 threads filled half a wave of an H200 (132
/// multiprocessors of 2048 threads): the stable-step reduction of a 627k-triangle mesh took 65 us at 22 % of the
/// DRAM bandwidth (Nsight Compute, docs/benchmarks.md). At its 54 registers a thread four such blocks fit on a
/// multiprocessor, so 1024 blocks make about two waves. A minimum is the same in any order.
inline constexpr int reduce_blocks = 1024;

/// Trait<F>::value: F's static constant `member` where F declares one, else `fallback` (the options a kernel's
/// functor may state: CPU vectorization, launch shape).
#define KEMPE_FUNCTOR_CONSTANT(Trait, member, Type, fallback) \
  template <class F, class = void>                              \
  struct Trait {                                                \
    static constexpr Type value = fallback;                     \
  };                                                            \
  template <class F>                                            \
  struct Trait<F, std::void_t<decltype(F::member)>> {           \
    static constexpr Type value = F::member;                    \
  };

/// Whether a functor asks the CPU backend to vectorize its work items: `static constexpr bool cpu_simd = true`
/// makes forall_cpu an `omp simd` loop, each SIMD lane one work item (consecutive items, so with the layout
/// [var][mode][element] one vector load per coefficient). Only for functors whose items share no writes and
/// whose inner loops the compiler unrolls completely: GCC vectorizes an outer loop only then.
KEMPE_FUNCTOR_CONSTANT(CpuSimd, cpu_simd, bool, false)

/// Whether a functor offers the CPU backend blocks of consecutive work items: `static constexpr int cpu_block =
/// W` (W > 1) and a host member `block(first)` that runs items first .. first + W - 1 with W-wide innermost
/// loops, which GCC vectorizes without unrolling the loops around them (what CpuSimd's outer loop needs).
/// forall_cpu runs whole blocks through it and the last n mod W items through operator(); the GPU never calls
/// it. block(first) must give what W calls of operator() give, bit for bit (the same operations in the same
/// order, the multiply-adds written with multiply_add rather than left to the compiler).
KEMPE_FUNCTOR_CONSTANT(CpuBlock, cpu_block, int, 0)

/// Whether a functor runs on the CPU in lanes of work items: `static constexpr int cpu_lanes = W` (W > 1) and a
/// host member `lanes(first, count)` that runs items first .. first + count - 1 (1 <= count <= W) with W-wide
/// innermost loops. forall_cpu then runs every item through it, the last block with fewer lanes, so the CPU's
/// result is the lanes' whatever the thread count; it may differ in rounding from operator()'s (the GPU's), so
/// only for kernels whose results are compared with a tolerance (the race strategies of the surface term).
KEMPE_FUNCTOR_CONSTANT(CpuLanes, cpu_lanes, int, 0)

/// The same for a functor run over a work list (OverList, kernels/algorithms.hpp): `static constexpr int
/// cpu_list_lanes = W` (W > 1) and a host member `lanes_of(items, count)` that runs the count (1 <= count <= W)
/// listed items items[0 .. count - 1] with W-wide innermost loops. OverList then offers forall_cpu its lanes.
KEMPE_FUNCTOR_CONSTANT(CpuListLanes, cpu_list_lanes, int, 0)

/// Whether the CPU backend hands a functor's work items out in shrinking chunks (`static constexpr bool
/// cpu_balanced = true`: OpenMP's guided schedule, chunks of at least cpu_balanced_chunk items) rather than one
/// equal range per thread, so that no thread waits at the end for the other: for passes whose items do different
/// work by what they find (an adaptation's kept, refined and coarsened leaves), and where the threads themselves
/// may run at unequal speeds (a virtual machine's CPUs, which the host slows one at a time; docs/benchmarks.md).
/// The results are the same, each item being independent of the others.
KEMPE_FUNCTOR_CONSTANT(CpuBalanced, cpu_balanced, bool, false)
inline constexpr int cpu_balanced_chunk = 1024;

/// Whether a functor's costly items gather in a few ranges of the numbering (`static constexpr bool cpu_spread =
/// true`): a limiter's work sits at a shock's elements, which the mesh's ordering keeps together, so one equal
/// range per thread leaves the other thread waiting, and guided chunks hand the first thread half the range at
/// once. The CPU backend then deals out chunks of cpu_spread_chunk items (OpenMP's dynamic schedule; for
/// blocks and lanes, as many of them as hold that many items). The results are the same, each item being
/// independent of the others.
KEMPE_FUNCTOR_CONSTANT(CpuSpread, cpu_spread, bool, false)
inline constexpr int cpu_spread_chunk = 256;

/// body(local, i) for i in [0, n) on the CPU's threads, `local` each thread's own copy of f: a store of the loop
/// can then alias none of the functor's members, so they stay in registers instead of being read again after every
/// store through the functor's pointers (1-14 % on the DG kernels on one thread,
/// bench/results/2026-11-27-functor-copy). `nowait`: the region's end is the one barrier, as with `omp parallel for`.
/// `items_per_unit`: the work items one i stands for (a block's or a lane group's width), for cpu_spread's chunks.
template <class Functor, class Body>
void for_each_with_own_copy(const Functor& f, index_t n, Body&& body, index_t items_per_unit = 1) {
  [[maybe_unused]] const index_t spread_chunk = cpu_spread_chunk > items_per_unit ? cpu_spread_chunk / items_per_unit : 1;
#if defined(_OPENMP)
#pragma omp parallel
#endif
  {
    const Functor local = f;
    if constexpr (CpuSpread<Functor>::value) {
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, spread_chunk) nowait
#endif
      for (index_t i = 0; i < n; ++i) body(local, i);
    } else if constexpr (CpuBalanced<Functor>::value) {
#if defined(_OPENMP)
#pragma omp for schedule(guided, cpu_balanced_chunk) nowait
#endif
      for (index_t i = 0; i < n; ++i) body(local, i);
    } else {
#if defined(_OPENMP)
#pragma omp for schedule(static) nowait
#endif
      for (index_t i = 0; i < n; ++i) body(local, i);
    }
  }
}

/// Runs f(i) for i in [0, n) on the CPU with OpenMP; f must be safe to run concurrently for distinct i.
template <class F>
void forall_cpu(index_t n, F&& f) {
  using Functor = std::decay_t<F>;
  if constexpr (CpuSimd<Functor>::value) {
    KEMPE_OMP_PARALLEL_FOR_SIMD
    for (index_t i = 0; i < n; ++i) f(i);
  } else if constexpr (CpuLanes<Functor>::value > 1) {
    constexpr index_t width = CpuLanes<Functor>::value;
    const index_t blocks = (n + width - 1) / width;
    for_each_with_own_copy(
        f, blocks,
        [n](const Functor& local, index_t b) {
          const index_t first = b * width;
          local.lanes(first, int(n - first < width ? n - first : width));
        },
        width);
  } else if constexpr (CpuBlock<Functor>::value > 1) {
    constexpr index_t width = CpuBlock<Functor>::value;
    const index_t blocks = n / width;
    for_each_with_own_copy(f, blocks, [](const Functor& local, index_t b) { local.block(b * width); }, width);
    for (index_t i = blocks * width; i < n; ++i) f(i);
  } else {
    for_each_with_own_copy(f, n, [](const Functor& local, index_t i) { local(i); });
  }
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

/// Threads per block for forall launches unless the functor asks for another (LaunchShape). Small blocks waste
/// fewer registers: a multiprocessor holds 65536, so a kernel at 146 registers per thread fits one block of
/// 256 (8 warps) but three of 128 (12 warps), and the DG kernels are latency-bound.
inline constexpr int forall_block_size = 128;

/// Launch shape of a functor's forall kernel. A functor may declare `static constexpr int block_size` (threads
/// per block, a multiple of 32; default forall_block_size) and `static constexpr int min_blocks_per_sm`
/// (default 1): its kernel is then compiled to fit that many blocks on a multiprocessor, at most
/// 65536 / (block_size x min_blocks_per_sm) registers per thread (what does not fit spills to local memory).
/// The DG kernels are latency-bound: more resident warps hide the neighbours' scattered loads.
KEMPE_FUNCTOR_CONSTANT(BlockSizeOf, block_size, int, forall_block_size)
KEMPE_FUNCTOR_CONSTANT(MinBlocksPerSm, min_blocks_per_sm, int, 1)

/// Whether F's launch shape can be launched: whole warps, at most 1024 threads per block, at least one block.
template <class F>
inline constexpr bool valid_launch_shape = BlockSizeOf<F>::value % 32 == 0 && BlockSizeOf<F>::value >= 32 &&
                                           BlockSizeOf<F>::value <= 1024 && MinBlocksPerSm<F>::value >= 1;

/// f launched with `Threads` per block and room for `Blocks` of them per multiprocessor instead of its own
/// shape (for benchmarks that compare shapes; forall checks it with valid_launch_shape).
template <class F, int Threads, int Blocks>
struct WithLaunchShape : F {
  static constexpr int block_size = Threads;
  static constexpr int min_blocks_per_sm = Blocks;
};

#if defined(__CUDACC__)
/// The stream every forall launch goes to: the legacy default stream, except while a DeviceGraph records.
inline cudaStream_t& launch_stream() {
  static cudaStream_t stream = nullptr;
  return stream;
}

/// Checks the launch just made of the kernel running F (bad configuration, too many resources...).
template <class F>
void check_launch() {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw_cuda_error(status, "kernel launch", typeid(F).name());
}

namespace detail {
template <class F>
__global__ void __launch_bounds__(BlockSizeOf<F>::value, MinBlocksPerSm<F>::value) forall_kernel(index_t n, F f) {
  for (index_t i = static_cast<index_t>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<index_t>(blockDim.x * gridDim.x))
    f(i);
}
}  // namespace detail

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

/// The values of an array, as a function of the index (the reduction's second pass reads block minima).
struct ArrayValues {
  const double* values;
  KEMPE_HD double operator()(index_t i) const { return values[i]; }
};
}  // namespace detail

/// *out = the smallest f(i) over i in [0, n) (NaN if any is NaN), all on the device: block minima into
/// scratch[reduce_blocks], then one block over those. No host synchronization, so it can be recorded in a graph.
template <class F>
void reduce_min_into_cuda(index_t n, F f, double* scratch, double* out) {
  detail::reduce_min_kernel<<<reduce_blocks, 256, 0, launch_stream()>>>(n, f, scratch);
  check_launch<F>();
  detail::reduce_min_kernel<<<1, 256, 0, launch_stream()>>>(reduce_blocks, detail::ArrayValues{scratch}, out);
  check_launch<detail::ArrayValues>();
}

/// The smallest f(i) over i in [0, n) on the GPU, returned to the host (a temporary scratch and one copy,
/// which synchronizes): for tests and set-up, not for the time loop.
template <class F>
double reduce_min_cuda(index_t n, F f) {
  if (n <= 0) return 1e300;
  double* scratch = static_cast<double*>(device_allocate((reduce_blocks + 1) * sizeof(double), "reduce_min scratch"));
  double result = 0;
  try {
    reduce_min_into_cuda(n, f, scratch, scratch + reduce_blocks);
    copy_to_host(&result, scratch + reduce_blocks, sizeof result, "reduce_min result");
  } catch (...) {
    device_free(scratch);
    throw;
  }
  device_free(scratch);
  return result;
}

/// Launches f(i), i in [0, n), on launch_stream() (asynchronous); checks the launch itself.
template <class F>
void forall_cuda(index_t n, F f) {
  if (n <= 0) return;
  constexpr int block_size = BlockSizeOf<F>::value;
  const int blocks = static_cast<int>((n + block_size - 1) / block_size);
  detail::forall_kernel<<<blocks, block_size, 0, launch_stream()>>>(n, f);
  check_launch<F>();
}
#endif

/// A CUDA launch asked for from a translation unit that g++ compiled (solvers on the CUDA backend are
/// instantiated in .cu files): a programming error, reported as such rather than run on the CPU.
[[noreturn]] inline void throw_host_only_translation_unit() {
  throw std::logic_error("the CUDA backend was asked for in a translation unit compiled without nvcc");
}

/// forall(backend, n, f): the only loop primitive of the kernels. On a host-only translation unit the CUDA
/// backend is not reachable (it is compiled in .cu files), so asking for it there is a programming error.
template <class F>
void forall(Backend backend, index_t n, F&& f) {
  static_assert(valid_launch_shape<std::decay_t<F>>, "block_size must be whole warps, at most 1024 threads");
#if defined(__CUDACC__)
  if (backend == Backend::cuda) {
    forall_cuda(n, f);
    return;
  }
#else
  if (backend == Backend::cuda) throw_host_only_translation_unit();
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
  if (backend == Backend::cuda) throw_host_only_translation_unit();
#endif
  return reduce_min_cpu(n, static_cast<F&&>(f));
}

/// *out = reduce_min(backend, n, f), where out is in the backend's memory and scratch holds reduce_blocks
/// doubles there (unused on the CPU): on the GPU no host synchronization, so a graph can record it.
template <class F>
void reduce_min_into(Backend backend, index_t n, F&& f, double* scratch, double* out) {
#if defined(__CUDACC__)
  if (backend == Backend::cuda) {
    reduce_min_into_cuda(n, f, scratch, out);
    return;
  }
#else
  if (backend == Backend::cuda) throw_host_only_translation_unit();
#endif
  (void)scratch;
  *out = reduce_min_cpu(n, static_cast<F&&>(f));
}

}  // namespace kempe
