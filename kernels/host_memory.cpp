// Host memory of RawArray (kernels/buffer.hpp): large blocks in transparent huge pages, kept for reuse.
//
// Why: an adaptation writes every mesh array anew, and a growing mesh outgrows them. Each fresh 4 KiB page costs
// a fault in the kernel, and on virtual machines a fault costs about 10 us: 1 GiB of fresh pages took 3.1-3.9 s
// on the CPU machine of docs/benchmarks.md, against 62-67 ms in 2 MiB pages, and random reads over it ran 1.5x
// faster in 2 MiB pages (fewer TLB misses). So blocks of 2 MiB and more are mapped 2 MiB-aligned and advised
// MADV_HUGEPAGE (the kernel's "madvise" mode, Debian's default, uses huge pages only where asked), and a released
// block is kept in a cache from which a later request of at most its size (and more than half of it) is served
// without touching the kernel. The cache holds at most as many bytes as are in use (and at least
// cache_floor), so it cannot more than double what the arrays hold; beyond that the smallest blocks go back.
// Buffer's std::vector storage cannot come from here, so advise_huge_pages advises the whole huge pages within it.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "kernels/buffer.hpp"

namespace kempe {

namespace {

constexpr std::size_t huge_page = std::size_t(2) << 20;
constexpr std::size_t large_block = huge_page;                 // smaller requests go to operator new
constexpr std::size_t cache_floor = std::size_t(256) << 20;    // the cache may hold this much even when little is used

std::size_t round_up(std::size_t bytes) { return (bytes + huge_page - 1) / huge_page * huge_page; }

class BlockCache {
 public:
  void* take(std::size_t bytes, const char* what) {
    const std::size_t size = round_up(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // The smallest kept block that holds the request and is not more than twice its size.
      const auto it = free_.lower_bound(size);
      if (it != free_.end() && it->first <= 2 * size) {
        void* p = it->second;
        cached_ -= it->first;
        live_[p] = it->first;
        used_ += it->first;
        free_.erase(it);
        return p;
      }
    }
    void* p = map(size, what);
    std::lock_guard<std::mutex> lock(mutex_);
    live_[p] = size;
    used_ += size;
    trim();
    return p;
  }

  /// Keeps block p for reuse; false when p is not one of ours (then it came from operator new).
  bool give(void* p) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = live_.find(p);
    if (it == live_.end()) return false;
    const std::size_t size = it->second;
    live_.erase(it);
    used_ -= size;
    try {
      free_.emplace(size, p);
      cached_ += size;
    } catch (...) {
      ::munmap(p, size);
    }
    trim();
    return true;
  }

 private:
  /// A fresh block of `size` bytes (a multiple of huge_page), huge_page-aligned so that it can be huge pages.
  static void* map(std::size_t size, const char* what) {
    const std::size_t span = size + huge_page;
    void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
      throw std::runtime_error(std::string(what) + " needs " + std::to_string(size >> 20) +
                               " MiB of host memory, which the system refused (mmap)");
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + huge_page - 1) / huge_page * huge_page;
    if (aligned > start) ::munmap(raw, aligned - start);
    const std::uintptr_t end = start + span, aligned_end = aligned + size;
    if (end > aligned_end) ::munmap(reinterpret_cast<void*>(aligned_end), end - aligned_end);
    void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
    ::madvise(p, size, MADV_HUGEPAGE);  // advice only: without huge pages the block works all the same
#endif
    return p;
  }

  /// Gives the smallest kept blocks back while the cache holds more than it may.
  void trim() noexcept {
    const std::size_t limit = used_ > cache_floor ? used_ : cache_floor;
    while (cached_ > limit && !free_.empty()) {
      const auto it = free_.begin();
      ::munmap(it->second, it->first);
      cached_ -= it->first;
      free_.erase(it);
    }
  }

  std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;  // kept blocks by size
  std::map<void*, std::size_t> live_;       // blocks in use and their sizes
  std::size_t used_ = 0, cached_ = 0;
};

BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;  // never destroyed: arrays may be released during static destruction
  return *cache;
}

}  // namespace

// Under AddressSanitizer every array comes from operator new, where the sanitizer guards its bounds (it does not
// watch mapped blocks).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool keep_large_blocks = false;
#else
constexpr bool keep_large_blocks = true;
#endif

void* host_allocate(std::size_t bytes, const char* what) {
  if (keep_large_blocks && bytes >= large_block) return block_cache().take(bytes, what);
  try {
    return ::operator new(bytes, std::align_val_t(64));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(std::string(what) + " needs " + std::to_string(bytes) + " bytes of host memory, which the system refused");
  }
}

void host_release(void* p) noexcept {
  if (p == nullptr) return;
  // The cache's records say whether p is a mapped block; anything else came from operator new.
  if (keep_large_blocks && block_cache().give(p)) return;
  ::operator delete(p, std::align_val_t(64));
}

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t from = (start + huge_page - 1) / huge_page * huge_page, to = (start + bytes) / huge_page * huge_page;
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

}  // namespace kempe
