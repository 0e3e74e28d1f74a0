// The CUDA runtime behind backend.hpp's host functions: device count, memory, copies, synchronization,
// graphs and error messages. Every call is checked; a failure names the call, its purpose and CUDA's error.
#include <cuda_runtime.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

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

void throw_cuda_error(int code, const char* call, const char* what) {
  // Kernels are named by their functor's type: demangle it (kempe::dg::EvalVolume<1, double>).
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(what, nullptr, nullptr, &status), std::free);
  const cudaError_t error = static_cast<cudaError_t>(code);
  throw std::runtime_error(std::string(call) + " failed for " + (status == 0 && demangled ? demangled.get() : what) +
                           ": " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ")");
}

namespace {
void check(cudaError_t status, const char* call, const char* what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // clear it, so that the next launch check does not report it again
  throw_cuda_error(status, call, what);
}
}  // namespace

void* device_allocate(std::size_t bytes, const char* what) {
  void* p = nullptr;
  if (bytes == 0) return nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free_bytes = 0, total = 0;
    (void)cudaMemGetInfo(&free_bytes, &total);
    throw std::runtime_error("cudaMalloc of " + std::to_string(bytes >> 20) + " MiB for " + what + " failed: " +
                             cudaGetErrorString(status) + " (" + std::to_string(free_bytes >> 20) + " MiB free of " +
                             std::to_string(total >> 20) + ")");
  }
  return p;
}

void device_free(void* p) noexcept { (void)cudaFree(p); }

namespace {
struct ScratchBlock {
  std::mutex mutex;
  void* block = nullptr;
  std::size_t bytes = 0;
  bool taken = false;
};
// Never destroyed: freeing device memory after the CUDA runtime has shut down at exit would fail.
ScratchBlock& scratch_block() {
  static ScratchBlock* block = new ScratchBlock;
  return *block;
}
}  // namespace

void* scratch_acquire(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  ScratchBlock& s = scratch_block();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.taken) return device_allocate(bytes, "library scratch");
  if (s.bytes < bytes) {
    device_free(s.block);
    s.block = nullptr, s.bytes = 0;
    // Room for the next, slightly larger call; the exact size when that much does not fit.
    std::size_t grown = bytes + bytes / 2;
    try {
      s.block = device_allocate(grown, "library scratch");
    } catch (const std::runtime_error&) {
      grown = bytes;
      s.block = device_allocate(grown, "library scratch");
    }
    s.bytes = grown;
  }
  s.taken = true;
  return s.block;
}

void scratch_release(void* p) noexcept {
  if (p == nullptr) return;
  ScratchBlock& s = scratch_block();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (p == s.block)
    s.taken = false;
  else
    device_free(p);
}

void copy_to_device(void* device, const void* host, std::size_t bytes, const char* what) {
  if (bytes) check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device", what);
}
void copy_to_host(void* host, const void* device, std::size_t bytes, const char* what) {
  if (bytes) check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host", what);
}
void copy_on_device(void* to, const void* from, std::size_t bytes, const char* what) {
  if (bytes) check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, launch_stream()), "cudaMemcpyAsync on the device", what);
}
void device_synchronize(const char* what) { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after", what); }

DeviceMemory device_memory() {
  DeviceMemory m;
  check(cudaMemGetInfo(&m.free_bytes, &m.total_bytes), "cudaMemGetInfo", "the memory report");
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice", "the memory report");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties", "the memory report");
  m.name = prop.name;
  return m;
}

DeviceGraph::~DeviceGraph() { release(); }

void DeviceGraph::release() noexcept {
  if (exec_) (void)cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
  if (graph_) (void)cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
  if (stream_) (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  exec_ = graph_ = stream_ = nullptr;
}

void DeviceGraph::begin_capture() {
  if (!stream_) {
    cudaStream_t stream = nullptr;
    // A blocking stream: plain cudaMemcpy on the legacy stream waits for the graph's work.
    check(cudaStreamCreate(&stream), "cudaStreamCreate", "a graph capture");
    stream_ = stream;
  }
  check(cudaStreamBeginCapture(static_cast<cudaStream_t>(stream_), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture",
        "a graph");
  launch_stream() = static_cast<cudaStream_t>(stream_);
}

void DeviceGraph::end_capture() {
  launch_stream() = nullptr;
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(static_cast<cudaStream_t>(stream_), &graph), "cudaStreamEndCapture", "a graph");
  if (graph_) (void)cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
  graph_ = graph;
  if (exec_) {
    // The same launches with new arguments update the executable in place; anything else (another number of
    // launches, another kernel) is refused, and the executable is instantiated anew.
    cudaGraphExecUpdateResultInfo info{};
    if (cudaGraphExecUpdate(static_cast<cudaGraphExec_t>(exec_), graph, &info) == cudaSuccess) {
      stale_ = false;
      return;
    }
    (void)cudaGetLastError();
    (void)cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
    exec_ = nullptr;
  }
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate", "a graph");
  exec_ = exec;
  stale_ = false;
}

void DeviceGraph::abandon_capture() noexcept {
  launch_stream() = nullptr;
  cudaGraph_t graph = nullptr;
  (void)cudaStreamEndCapture(static_cast<cudaStream_t>(stream_), &graph);
  if (graph) (void)cudaGraphDestroy(graph);
  (void)cudaGetLastError();
  release();
}

void DeviceGraph::launch() {
  if (empty()) throw std::logic_error("DeviceGraph::launch before a capture, or after clear() without one");
  check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), static_cast<cudaStream_t>(stream_)), "cudaGraphLaunch", "a recorded step");
}
}  // namespace kempe
