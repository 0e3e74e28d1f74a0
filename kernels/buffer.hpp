// An array in one backend's memory: a std::vector for the CPU backend, device memory (RAII, cudaMalloc'd)
// for the CUDA backend. Kernels take its data() pointer; the host sees device contents only through
// to_host() and upload(), at output and set-up times.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/backend.hpp"

namespace kempe {

/// Headroom left free on the device beyond what a solver counts (the CUDA context, graphs, rounding).
inline constexpr std::size_t device_headroom = std::size_t(64) << 20;

/// Throws std::runtime_error, before anything is allocated, when `needed` bytes for `what` do not fit in the
/// device's free memory with device_headroom to spare; the message names the sizes and the device.
inline void check_fits(std::size_t needed, const DeviceMemory& device, const std::string& what) {
  if (needed + device_headroom <= device.free_bytes) return;
  throw std::runtime_error(what + " needs " + std::to_string(needed >> 20) + " MiB of device memory, but " + device.name +
                           " has " + std::to_string(device.free_bytes >> 20) + " MiB free of " +
                           std::to_string(device.total_bytes >> 20) + " MiB");
}

/// Advises transparent huge pages (MADV_HUGEPAGE) for the whole 2 MiB pages within [p, p + bytes); advice
/// only. Buffer asks it for its host storage before the first touch: the colored face loops read and add at
/// each face's right element in every (variable, mode) plane of the solution and the right-hand side, a page
/// each in 4 KiB pages, and the TLB's misses then cost a tenth of a stage at p = 1 (docs/benchmarks.md).
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

template <class T>
class Buffer {
 public:
  Buffer() = default;
  /// n elements for `what` (named in error messages); zero on the CPU, unset on the device.
  Buffer(Backend backend, std::size_t n, const char* what) : backend_(backend), size_(n), capacity_(n), what_(what) {
    if (backend_ == Backend::cpu) {
      host_.reserve(n);
      advise_huge_pages(host_.data(), n * sizeof(T));
      host_.assign(n, T{});
    } else
      device_ = static_cast<T*>(device_allocate(n * sizeof(T), what));
  }
  /// A copy of `host` for `what`.
  Buffer(Backend backend, const std::vector<T>& host, const char* what) : Buffer(backend, host.size(), what) { upload(host); }
  ~Buffer() {
    if (device_) device_free(device_);  // no CUDA call (and no CUDA context) for CPU buffers
  }
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer(std::move(o)).swap(*this);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() { return backend_ == Backend::cpu ? host_.data() : device_; }
  const T* data() const { return backend_ == Backend::cpu ? host_.data() : device_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  Backend backend() const { return backend_; }
  /// The bytes held in the backend's memory (at least bytes(): see resize).
  std::size_t held_bytes() const { return (backend_ == Backend::cpu ? host_.capacity() : capacity_) * sizeof(T); }

  /// n values: the first min(n, size()) kept, the rest zero on the CPU and unset on the device. The storage
  /// grows by half again when outgrown and never shrinks, so that arrays that follow an adapting mesh up and
  /// down are rarely reallocated (on the device a cudaFree waits for every launch before it).
  void resize(std::size_t n) {
    if (backend_ == Backend::cpu) {
      if (n > host_.capacity()) {
        host_.reserve(n + n / 2);
        advise_huge_pages(host_.data(), host_.capacity() * sizeof(T));
      }
      host_.resize(n);
    } else if (n > capacity_) {
      const std::size_t grown = n + n / 2;
      T* fresh = static_cast<T*>(device_allocate(grown * sizeof(T), what_));
      if (device_ != nullptr && size_ > 0) copy_on_device(fresh, device_, (size_ < n ? size_ : n) * sizeof(T), what_);
      if (device_ != nullptr) device_free(device_);
      device_ = fresh;
      capacity_ = grown;
    }
    size_ = n;
  }

  /// Replaces the contents with `host` (same size).
  void upload(const std::vector<T>& host) {
    check_size(host.size());
    if (backend_ == Backend::cpu)
      host_ = host;
    else
      copy_to_device(device_, host.data(), bytes(), what_);
  }
  /// The contents, copied to the host.
  std::vector<T> to_host() const {
    if (backend_ == Backend::cpu) return host_;
    std::vector<T> out(size_);
    copy_to_host(out.data(), device_, bytes(), what_);
    return out;
  }
  /// The CPU backend's storage itself (std::logic_error on the device: use to_host / upload there).
  std::vector<T>& host() {
    if (backend_ != Backend::cpu) throw std::logic_error(std::string(what_) + " lives on the device: use to_host() or upload()");
    return host_;
  }
  const std::vector<T>& host() const { return const_cast<Buffer*>(this)->host(); }
  /// Copies other's contents (same size and backend) into this buffer, on the backend.
  void copy_from(const Buffer& other) {
    check_size(other.size_);
    if (other.backend_ != backend_)
      throw std::logic_error(std::string(what_) + ": copy_from a buffer of the other backend (use to_host or upload)");
    if (backend_ == Backend::cpu)
      host_ = other.host_;
    else
      copy_on_device(device_, other.device_, bytes(), what_);
  }

 private:
  void check_size(std::size_t n) const {
    if (n != size_)
      throw std::logic_error(std::string(what_) + ": " + std::to_string(n) + " values for a buffer of " + std::to_string(size_));
  }
  void swap(Buffer& o) noexcept {
    std::swap(backend_, o.backend_);
    std::swap(host_, o.host_);
    std::swap(device_, o.device_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    std::swap(what_, o.what_);
  }

  Backend backend_ = Backend::cpu;
  std::vector<T> host_;
  T* device_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;  // on the device
  const char* what_ = "a buffer";
};

/// Host memory for RawArray (kernels/host_memory.cpp): blocks of 2 MiB and more in transparent huge pages, and
/// released blocks kept for reuse, so that arrays renewed at every adaptation cost no fresh pages. Throws
/// std::runtime_error naming `what` when the system refuses. host_release frees what host_allocate gave (null
/// does nothing); it knows each block's size itself.
void* host_allocate(std::size_t bytes, const char* what);
void host_release(void* p) noexcept;

/// An array in one backend's memory that starts uninitialized (host_allocate on the CPU, cudaMalloc on the GPU),
/// for arrays that a kernel writes before anything reads them: zeroing them first (what Buffer does on the CPU)
/// would be one more pass over fresh pages, which is what the adaptation passes (adapt/) spend most time on
/// otherwise.
template <class T>
class RawArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "RawArray holds plain values, written by kernels before they are read");

 public:
  RawArray() = default;
  RawArray(Backend backend, std::size_t n, const char* what) : backend_(backend), size_(n), what_(what) {
    if (n == 0) return;
    if (backend_ == Backend::cpu)
      host_ = static_cast<T*>(host_allocate(n * sizeof(T), what));
    else
      device_ = static_cast<T*>(device_allocate(n * sizeof(T), what));
  }
  /// A copy of `host` for `what`.
  RawArray(Backend backend, const std::vector<T>& host, const char* what) : RawArray(backend, host.size(), what) { upload(host); }
  ~RawArray() {
    if (host_) host_release(host_);
    if (device_) device_free(device_);
  }
  RawArray(RawArray&& o) noexcept { swap(o); }
  RawArray& operator=(RawArray&& o) noexcept {
    RawArray(std::move(o)).swap(*this);
    return *this;
  }
  RawArray(const RawArray&) = delete;
  RawArray& operator=(const RawArray&) = delete;

  T* data() { return backend_ == Backend::cpu ? host_ : device_; }
  const T* data() const { return backend_ == Backend::cpu ? host_ : device_; }
  std::size_t size() const { return size_; }
  Backend backend() const { return backend_; }
  /// Replaces the first host.size() values (at most size()) with `host`.
  void upload(const std::vector<T>& host) {
    if (host.size() > size_)
      throw std::logic_error(std::string(what_) + ": " + std::to_string(host.size()) + " values for " + std::to_string(size_));
    if (host.empty()) return;
    if (backend_ == Backend::cpu)
      std::copy(host.begin(), host.end(), host_);
    else
      copy_to_device(device_, host.data(), host.size() * sizeof(T), what_);
  }
  /// The first n values (n <= size()), copied to the host.
  std::vector<T> to_host(std::size_t n) const {
    if (n > size_) throw std::logic_error(std::string(what_) + ": " + std::to_string(n) + " values asked of " + std::to_string(size_));
    std::vector<T> out(n);
    if (n == 0) return out;
    if (backend_ == Backend::cpu)
      std::copy(host_, host_ + n, out.begin());
    else
      copy_to_host(out.data(), device_, n * sizeof(T), what_);
    return out;
  }

 private:
  void swap(RawArray& o) noexcept {
    std::swap(backend_, o.backend_);
    std::swap(host_, o.host_);
    std::swap(device_, o.device_);
    std::swap(size_, o.size_);
    std::swap(what_, o.what_);
  }
  Backend backend_ = Backend::cpu;
  T* host_ = nullptr;
  T* device_ = nullptr;
  std::size_t size_ = 0;
  const char* what_ = "an array";
};

/// Read-only arrays placed on one backend for the kernels: on the CPU the host vectors themselves (which must
/// outlive the pointers), on the GPU device copies owned here until clear() or destruction.
class PlacedArrays {
 public:
  /// Where the kernels read `host` on `backend`.
  template <class T>
  const T* place(Backend backend, const std::vector<T>& host, const char* what) {
    if (backend == Backend::cpu) return host.data();
    auto held = std::make_unique<Held<Buffer<T>>>(Buffer<T>(backend, host, what));
    const T* placed = held->buffer.data();
    held_.push_back(std::move(held));
    return placed;
  }
  void clear() { held_.clear(); }

 private:
  struct Base {
    virtual ~Base() = default;
  };
  template <class Array>
  struct Held : Base {
    explicit Held(Array b) : buffer(std::move(b)) {}
    Array buffer;
  };
  std::vector<std::unique_ptr<Base>> held_;
};

}  // namespace kempe
