// What every fuzz target shares: its input as a file (the readers take paths, as they do for users) and the one
// rule all of them check, that an input either works or is refused with a clean error naming the file.
//
// A target is `extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)`. Built with clang and
// -DKEMPE_FUZZ=ON it links libFuzzer (coverage-guided, with ASan and UBSan; scripts/fuzz); otherwise it links
// fuzz/smoke_driver.cpp, which replays the corpus and mutates it for a bounded time (the smoke run of make test).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/text.hpp"

namespace kempe::fuzz {

/// Writes the input to a file of this process (in $TMPDIR or /tmp) with the given extension and returns its path.
inline std::string input_file(const std::uint8_t* data, std::size_t size, const char* extension) {
  static const std::string base = [] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp") + "/kempe-fuzz-" + std::to_string(::getpid());
  }();
  const std::string path = base + extension;
  // Removed at exit (a crash leaves it, next to the input the driver saved).
  static struct Cleanup {
    std::vector<std::string> paths;
    ~Cleanup() {
      for (const std::string& p : paths) std::remove(p.c_str());
    }
  } cleanup;
  if (std::find(cleanup.paths.begin(), cleanup.paths.end(), path) == cleanup.paths.end()) cleanup.paths.push_back(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", shown_message(what).c_str());
  std::abort();
}

/// Runs `use` on the input file at `path`. Returns true when it succeeded, false when it was refused with an error
/// that names the file; anything else is a finding and aborts: an allocation failure or a length error (a count
/// believed before it was checked), an index out of range, an error that does not say which file, or an
/// exception that is not a std::exception.
template <class Use>
bool accepted(const std::string& path, Use&& use) {
  const std::string name = std::filesystem::path(path).filename().string();
  try {
    use();
    return true;
  } catch (const std::bad_alloc&) {
    fail(path + ": an allocation failed (a count in the file was used before it was checked)");
  } catch (const std::length_error& e) {
    fail(path + ": length error (a count in the file was used before it was checked): " + e.what());
  } catch (const std::out_of_range& e) {
    fail(path + ": index out of range: " + e.what());
  } catch (const std::exception& e) {
    if (std::string_view(e.what()).find(name) == std::string_view::npos)
      fail(std::string("an error that does not name the file ") + name + ": " + e.what());
    return false;
  } catch (...) {
    fail(path + ": an exception that is not a std::exception");
  }
}

}  // namespace kempe::fuzz
