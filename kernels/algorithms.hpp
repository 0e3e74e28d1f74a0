// Scans, reductions and sorts over index ranges, on either backend, from Thrust (CUDA's CCCL): on the GPU its
// CUDA system on launch_stream(), on the CPU its OpenMP system (its C++ system without OpenMP). The passes of an
// adaptation (adapt/) count, compact and regroup with these (faces are placed by a scan, not a sort); nothing
// here is written by hand (on the CPU a scan is split among the threads, each part scanned by Thrust).
//
// Only counts and totals come back to the host; arrays stay in the backend's memory. On the GPU each value the
// host reads waits for every kernel before it, and on small meshes those waits, not the work, are what a pass
// costs: so the scan and the reductions can leave their totals in the backend's memory (a slot) without
// waiting, and read_totals() brings many such slots to the host in one copy. sum() and maximum() that return
// their value wait for it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/cpp/execution_policy.h>
#include <thrust/transform_reduce.h>
#if defined(_OPENMP)
#include <omp.h>
#include <thrust/system/omp/execution_policy.h>
#endif

#include "kernels/backend.hpp"
#include "kernels/buffer.hpp"

#if KEMPE_DEVICE_COMPILE
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#endif

namespace kempe {

#if KEMPE_DEVICE_COMPILE
/// Thrust's temporary storage from the kept scratch block (scratch_acquire): without it every scan would
/// cudaMalloc and cudaFree, and cudaFree waits for the device. Every call runs on launch_stream(): Thrust may
/// release the block while its kernels still run, and only the stream's order keeps the next user behind them.
struct ThrustScratch {
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) { return static_cast<char*>(scratch_acquire(std::size_t(bytes))); }
  void deallocate(char* p, std::size_t) noexcept { scratch_release(p); }
};
#endif

/// Thrust's temporary storage on the CPU (a sort's buffers) from host_allocate: large blocks are kept for reuse
/// there, so that a sort at every adaptation maps no fresh memory (which a virtual machine makes costly).
struct HostScratch {
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) { return static_cast<char*>(host_allocate(std::size_t(bytes), "Thrust's temporary storage")); }
  void deallocate(char* p, std::size_t) noexcept { host_release(p); }
};

/// run(policy) with Thrust's execution policy for `backend`; the CUDA backend only in nvcc-compiled units. On
/// the GPU it is par_nosync: a scan or a sort returns once its kernels are launched (Thrust's `par` would wait
/// for them), and what follows on launch_stream() runs after them; a reduction that returns its value waits
/// for it all the same.
template <class Run>
decltype(auto) with_thrust_policy(Backend backend, Run&& run) {
#if KEMPE_DEVICE_COMPILE
  if (backend == Backend::cuda) {
    ThrustScratch scratch;
    return run(thrust::cuda::par_nosync(scratch).on(launch_stream()));
  }
#else
  if (backend == Backend::cuda) throw_host_only_translation_unit();
#endif
  HostScratch scratch;
#if defined(_OPENMP)
  return run(thrust::omp::par(scratch));
#else
  return run(thrust::cpp::par(scratch));
#endif
}

namespace detail {
/// Ranges shorter than this are scanned by one thread: splitting them costs more than it saves.
inline constexpr index_t parallel_scan_minimum = index_t(1) << 16;

/// Thrust's OpenMP system scans on one thread (it takes its C++ system's scan). With more threads the range is
/// split into one part per thread: each thread sums its part (Thrust), the part sums give each part's start,
/// and each thread scans its part from there (Thrust). The input is read twice, but by every thread at once.
template <class T>
void exclusive_scan_cpu(const T* in, index_t n, T* out) {
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
  if (threads > 1 && n >= parallel_scan_minimum) {
    std::vector<T> start(std::size_t(threads) + 1, T{});
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), parts = omp_get_num_threads();
      const index_t begin = index_t(std::int64_t(n) * t / parts), end = index_t(std::int64_t(n) * (t + 1) / parts);
      start[std::size_t(t) + 1] = thrust::reduce(thrust::seq, in + begin, in + end, T{});
#pragma omp barrier
#pragma omp single
      for (int k = 0; k < parts; ++k) start[std::size_t(k) + 1] = static_cast<T>(start[std::size_t(k) + 1] + start[std::size_t(k)]);
      thrust::exclusive_scan(thrust::seq, in + begin, in + end, out + begin, start[std::size_t(t)]);
    }
    return;
  }
#endif
  thrust::exclusive_scan(thrust::seq, in, in + n, out);
}
}  // namespace detail

namespace detail {
/// *slot = *from (+ *slot when adding), or *slot = value, as one work item on the GPU.
template <class T>
struct TakeTotal {
  const T* from;
  std::int64_t* slot;
  bool add;
  KEMPE_HD void operator()(index_t) const { *slot = (add ? *slot : 0) + static_cast<std::int64_t>(*from); }
};
template <class T>
struct StoreValue {
  T* slot;
  T value;
  KEMPE_HD void operator()(index_t) const { *slot = value; }
};
/// *slot = value, a slot in the backend's memory (on the CPU the host's, written here).
inline void store_total(Backend backend, std::int64_t* slot, std::int64_t value) {
  if (backend == Backend::cpu)
    *slot = value;
  else
    forall(backend, 1, StoreValue<std::int64_t>{slot, value});
}
}  // namespace detail

/// out[i] = in[0] + ... + in[i-1] for i in [0, n) (in and out may be the same array), and the total
/// in[0] + ... + in[n-1] left in *total, a slot in the backend's memory: on the GPU nothing waits for the device
/// (in[n-1] is kept before the scan, for the in-place case). With total == nullptr no total is formed (a caller
/// that scans into separate arrays may form several at once from in[n-1] + out[n-1]).
template <class T>
void exclusive_scan(Backend backend, const T* in, index_t n, T* out, std::int64_t* total) {
  if (n <= 0) {
    if (total != nullptr) detail::store_total(backend, total, 0);
    return;
  }
  if (backend == Backend::cpu) {
    const std::int64_t last_in = in[n - 1];
    detail::exclusive_scan_cpu(in, n, out);
    if (total != nullptr) *total = last_in + static_cast<std::int64_t>(out[n - 1]);
    return;
  }
  if (total != nullptr) forall(backend, 1, detail::TakeTotal<T>{in + n - 1, total, false});
  with_thrust_policy(backend, [&](auto&& policy) { thrust::exclusive_scan(policy, in, in + n, out); return 0; });
  if (total != nullptr) forall(backend, 1, detail::TakeTotal<T>{out + n - 1, total, true});
}

namespace detail {
/// f(i) as a 64-bit integer, for transform_reduce over a counting iterator.
template <class F>
struct AsCount {
  F f;
  KEMPE_HD std::int64_t operator()(index_t i) const { return static_cast<std::int64_t>(f(i)); }
};
struct Plus64 {
  KEMPE_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a + b; }
};
struct Max64 {
  KEMPE_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a < b ? b : a; }
};
}  // namespace detail

/// The sum of f(i) (an integer: 0/1 for a count) over i in [0, n).
template <class F>
std::int64_t sum(Backend backend, index_t n, F f) {
  if (n <= 0) return 0;
  return with_thrust_policy(backend, [&](auto&& policy) {
    return thrust::transform_reduce(policy, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(n),
                                    detail::AsCount<F>{f}, std::int64_t{0}, detail::Plus64{});
  });
}

/// The largest f(i) (an integer) over i in [0, n); `empty` for n = 0.
template <class F>
std::int64_t maximum(Backend backend, index_t n, F f, std::int64_t empty) {
  if (n <= 0) return empty;
  return with_thrust_policy(backend, [&](auto&& policy) {
    return thrust::transform_reduce(policy, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(n),
                                    detail::AsCount<F>{f}, std::numeric_limits<std::int64_t>::min(), detail::Max64{});
  });
}

/// *result = op-reduction of init and f(i) for i in [0, n), a value of type T (several totals at once: a struct)
/// left in the backend's memory without waiting: CUB's device reduction on launch_stream() on the GPU (its
/// temporary storage from the kept scratch block), Thrust on the CPU. op must be associative and commutative.
template <class T, class F, class Op>
void reduce(Backend backend, index_t n, F f, Op op, T init, T* result) {
  if (backend == Backend::cpu) {
    *result = n <= 0 ? init : with_thrust_policy(backend, [&](auto&& policy) {
      return thrust::transform_reduce(policy, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(n), f,
                                      init, op);
    });
    return;
  }
  if (n <= 0) {
    forall(backend, 1, detail::StoreValue<T>{result, init});
    return;
  }
#if KEMPE_DEVICE_COMPILE
  const auto values = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), f);
  std::size_t bytes = 0;
  cudaError_t status = cub::DeviceReduce::Reduce(nullptr, bytes, values, result, n, op, init, launch_stream());
  if (status != cudaSuccess) throw_cuda_error(status, "cub::DeviceReduce::Reduce", "a total on the device");
  void* temporary = scratch_acquire(bytes);
  status = cub::DeviceReduce::Reduce(temporary, bytes, values, result, n, op, init, launch_stream());
  scratch_release(temporary);  // the stream orders its next user after this reduction
  if (status != cudaSuccess) throw_cuda_error(status, "cub::DeviceReduce::Reduce", "a total on the device");
#else
  throw_host_only_translation_unit();
#endif
}

/// The bytes of temporary storage that select_if needs on `backend` for n items and this predicate type (0 on
/// the CPU): asked for before a step is recorded, so that the recorded selection allocates nothing.
template <class Pred>
std::size_t select_scratch_bytes(Backend backend, index_t n, Pred pred) {
  if (backend == Backend::cpu || n <= 0) return 0;
#if KEMPE_DEVICE_COMPILE
  std::size_t bytes = 0;
  const cudaError_t status = cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<index_t>(0), static_cast<index_t*>(nullptr),
                                                   static_cast<index_t*>(nullptr), n, pred, launch_stream());
  if (status != cudaSuccess) throw_cuda_error(status, "cub::DeviceSelect::If", "the size of a selection's storage");
  return bytes;
#else
  (void)pred;
  throw_host_only_translation_unit();
#endif
}

/// list = the i in [0, n) with pred(i), ascending, and *count = their number, a slot in the backend's memory:
/// CUB's DeviceSelect on launch_stream() on the GPU, in the caller's temporary storage (scratch, at least
/// select_scratch_bytes), so that nothing is allocated and nothing waits (it may be part of a recorded step);
/// Thrust's copy_if (sequential) on the CPU. list holds n values.
template <class Pred>
void select_if(Backend backend, index_t n, Pred pred, index_t* list, index_t* count, void* scratch, std::size_t scratch_bytes) {
  if (backend == Backend::cpu) {
    if (n <= 0) {
      *count = 0;
      return;
    }
    // Thrust's sequential system: its OpenMP system's copy_if binds a reference to a null policy pointer
    // (thrust/detail/reference.h), which the sanitizer build reports; one test per item costs little anyway.
    index_t* end = thrust::copy_if(thrust::seq, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(n), list, pred);
    *count = index_t(end - list);
    return;
  }
#if KEMPE_DEVICE_COMPILE
  if (n <= 0) {
    forall(backend, 1, detail::StoreValue<index_t>{count, 0});
    return;
  }
  const cudaError_t status =
      cub::DeviceSelect::If(scratch, scratch_bytes, thrust::counting_iterator<index_t>(0), list, count, n, pred, launch_stream());
  if (status != cudaSuccess) throw_cuda_error(status, "cub::DeviceSelect::If", "a selection of work items");
#else
  (void)scratch, (void)scratch_bytes;
  throw_host_only_translation_unit();
#endif
}

/// f(list[i]) for i < *count: the work items select_if kept. Launched over a range of at least *count items: on
/// the GPU the list's capacity, so that a recorded step serves every count (the items beyond it return at once,
/// whole warps of them), on the CPU the count itself.
template <class F>
struct OverList {
  const index_t* list;
  const index_t* count;
  F f;
  KEMPE_HD void operator()(index_t i) const {
    if (i < *count) f(list[i]);
  }
  /// On the CPU, the listed items in lanes where f runs them so (CpuListLanes, kernels/backend.hpp).
  static constexpr int cpu_lanes = CpuListLanes<F>::value;
  void lanes(index_t first, int width) const {
    const index_t n = *count;
    if (first < n) f.lanes_of(list + first, n - first < width ? int(n - first) : width);
  }
};

/// sum(backend, n, f) left in *result, a slot in the backend's memory; on the GPU nothing waits for the device.
template <class F>
void sum(Backend backend, index_t n, F f, std::int64_t* result) {
  reduce(backend, n, detail::AsCount<F>{f}, detail::Plus64{}, std::int64_t{0}, result);
}

/// The slots [0, n) of a backend's array of totals, on the host: one copy (on the GPU it waits for the kernels
/// that fill them).
inline std::vector<std::int64_t> read_totals(Backend backend, const std::int64_t* slots, std::size_t n) {
  std::vector<std::int64_t> values(n);
  if (n == 0) return values;
  if (backend == Backend::cpu)
    std::copy(slots, slots + n, values.begin());
  else
    copy_to_host(values.data(), slots, n * sizeof(std::int64_t), "totals");
  return values;
}

/// Marks on a backend's work, timed where the work runs (an adaptation's phases): on the GPU CUDA events
/// recorded on launch_stream(), so that a mark waits for nothing and the times are read once, after the last
/// mark; on the CPU the host's clock, since the work is done when its call returns. Only in nvcc-compiled units
/// for the CUDA backend.
class WorkMarks {
 public:
  explicit WorkMarks(Backend backend) : backend_(backend) {}
  WorkMarks(const WorkMarks&) = delete;
  WorkMarks& operator=(const WorkMarks&) = delete;
  ~WorkMarks() {
#if KEMPE_DEVICE_COMPILE
    for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
#endif
  }

  /// A mark after everything launched so far.
  void mark() {
    if (backend_ == Backend::cpu) {
      host_.push_back(std::chrono::steady_clock::now());
      return;
    }
#if KEMPE_DEVICE_COMPILE
    cudaEvent_t e = nullptr;
    cudaError_t status = cudaEventCreate(&e);
    if (status == cudaSuccess) {
      events_.push_back(e);
      status = cudaEventRecord(e, launch_stream());
    }
    if (status != cudaSuccess) throw_cuda_error(status, "cudaEventRecord", "a phase mark");
#else
    throw_host_only_translation_unit();
#endif
  }

  /// Seconds from each mark to the next; waits for the last mark.
  std::vector<double> seconds() {
    std::vector<double> s;
    if (backend_ == Backend::cpu) {
      for (std::size_t k = 1; k < host_.size(); ++k) s.push_back(std::chrono::duration<double>(host_[k] - host_[k - 1]).count());
      return s;
    }
#if KEMPE_DEVICE_COMPILE
    if (events_.empty()) return s;
    cudaError_t status = cudaEventSynchronize(events_.back());
    for (std::size_t k = 1; k < events_.size() && status == cudaSuccess; ++k) {
      float ms = 0;
      status = cudaEventElapsedTime(&ms, events_[k - 1], events_[k]);
      s.push_back(1e-3 * double(ms));
    }
    if (status != cudaSuccess) throw_cuda_error(status, "cudaEventElapsedTime", "the phase marks");
#endif
    return s;
  }

 private:
  Backend backend_;
  std::vector<std::chrono::steady_clock::time_point> host_;
#if KEMPE_DEVICE_COMPILE
  std::vector<cudaEvent_t> events_;
#endif
};

/// Sorts keys[0, n) ascending and values[0, n) with them, keeping the order of equal keys (a radix sort of
/// integer keys on either backend).
template <class K, class V>
void stable_sort_by_key(Backend backend, K* keys, V* values, index_t n) {
  if (n <= 1) return;
  with_thrust_policy(backend, [&](auto&& policy) { thrust::stable_sort_by_key(policy, keys, keys + n, values); return 0; });
}

}  // namespace kempe
