// kempe-gmsh-reader PATH MESH_SIZE: reads a .msh or .geo file with the Gmsh library and writes the raw mesh (or
// the error) to file descriptor 3, for read_gmsh (mesh/gmsh_reader.cpp), which runs this program so that a crash
// inside Gmsh on a damaged file ends this process and not Kempe. Not meant to be run by hand.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "mesh/gmsh_io.hpp"
#include "mesh/raw_mesh_stream.hpp"

namespace {

constexpr int result_fd = 3;

bool write_all(const std::string& bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(result_fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

int report(const std::string& message) { return write_all("E" + message) ? 0 : 3; }

/// A count in a damaged file can ask for more memory than reading it can need; with overcommit that is granted,
/// and filling it takes minutes of page faults (or ends in the kernel's out-of-memory killer). Bounding the
/// address space makes such an allocation fail at once, as std::bad_alloc. Gmsh holds a mesh file in about 9 times
/// its size (measured: 103 MB for the 11.5 MB Rect C, ASCII or binary), so an .msh file gets 512 MB plus 32
/// times its size; a .geo file, whose mesh can be any size, gets the physical memory.
void limit_memory(const std::string& path) {
#if defined(__SANITIZE_ADDRESS__)
  return;  // AddressSanitizer has reserved terabytes of shadow memory: it bounds allocations itself
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return;
#endif
#endif
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return;
  rlim_t bound = static_cast<rlim_t>(pages) * static_cast<rlim_t>(page_size);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file && std::fgetc(file) == '$' && std::fseek(file, 0, SEEK_END) == 0) {  // MSH content, as Gmsh decides
    constexpr rlim_t base = rlim_t{512} << 20, per_byte = 32;
    if (const long size = std::ftell(file); size >= 0) bound = std::min(bound, base + per_byte * static_cast<rlim_t>(size));
  }
  if (file) std::fclose(file);
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0) return;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < bound) bound = limit.rlim_max;
  limit.rlim_cur = bound;
  ::setrlimit(RLIMIT_AS, &limit);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "kempe-gmsh-reader: run by kempe (usage: kempe-gmsh-reader PATH MESH_SIZE)\n");
    return 2;
  }
  const std::string path = argv[1];
  kempe::GmshReadOptions options;
  char* end = nullptr;
  options.mesh_size = std::strtod(argv[2], &end);
  if (end == argv[2] || *end != '\0') return report(path + ": bad mesh size '" + argv[2] + "' (reader bug)");
  limit_memory(path);
  try {
    std::string bytes = "M";
    kempe::append_raw_mesh(kempe::read_gmsh_in_this_process(path, options), bytes);
    return write_all(bytes) ? 0 : 3;
  } catch (const kempe::MeshError& e) {
    return report(e.what());
  } catch (const std::bad_alloc&) {
    return report(path + ": Gmsh ran out of memory reading it: a count in the file is larger than the file holds " +
                  "(the file is damaged)");
  } catch (const std::length_error&) {
    return report(path + ": a count in the file is impossibly large (the file is damaged)");
  } catch (const std::exception& e) {
    return report(path + ": Gmsh failed reading it (" + e.what() + "); the file is damaged");
  } catch (const std::string& what) {
    return report(path + ": Gmsh: " + what);
  } catch (...) {
    return report(path + ": Gmsh failed reading it; the file is damaged");
  }
}
