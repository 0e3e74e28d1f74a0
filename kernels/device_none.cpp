// CPU-only builds: there is no CUDA runtime to ask; every device function says so.
#include <stdexcept>
#include <string>

#include "kernels/backend.hpp"

namespace kempe {
namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw std::runtime_error(std::string("the CUDA backend is not built (configure with -DKEMPE_CUDA=ON): ") + what);
}
}  // namespace

int cuda_device_count() { return 0; }
void throw_cuda_error(int, const char* call, const char*) { no_cuda(call); }
void* device_allocate(std::size_t, const char* what) { no_cuda(what); }
void device_free(void*) noexcept {}
void* scratch_acquire(std::size_t) { no_cuda("library scratch"); }
void scratch_release(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t, const char* what) { no_cuda(what); }
void copy_to_host(void*, const void*, std::size_t, const char* what) { no_cuda(what); }
void copy_on_device(void*, const void*, std::size_t, const char* what) { no_cuda(what); }
void device_synchronize(const char* what) { no_cuda(what); }
DeviceMemory device_memory() { no_cuda("the memory report"); }
DeviceGraph::~DeviceGraph() = default;
void DeviceGraph::release() noexcept {}
void DeviceGraph::begin_capture() { no_cuda("a graph capture"); }
void DeviceGraph::end_capture() { no_cuda("a graph capture"); }
void DeviceGraph::abandon_capture() noexcept {}
void DeviceGraph::launch() { no_cuda("a graph launch"); }
}  // namespace kempe
