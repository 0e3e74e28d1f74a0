// kempe-gmsh-reader --serve: reads .msh and .geo files with the Gmsh library for read_gmsh (mesh/gmsh_reader.cpp),
// which starts it once per Kempe process and sends it requests on file descriptor 0, a Unix socket
// (mesh/gmsh_reader_protocol.hpp). Each request is read in a child forked from here, so that a crash inside Gmsh
// on a damaged file ends that child and not Kempe, and so that Gmsh's libraries are loaded and initialised once,
// not per file (a fresh process takes 0.15 s to start, a fork about a millisecond). Not meant to be run by hand.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "mesh/gmsh_io.hpp"
#include "mesh/gmsh_reader_protocol.hpp"
#include "mesh/raw_mesh_stream.hpp"

namespace {

using namespace kempe::gmsh_reader;

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

/// Reads the file and writes the result ('M' and the raw mesh, or 'E' and the message) to `fd`.
int read_into(int fd, const std::string& path, double mesh_size) {
  auto report = [&](const std::string& message) { return write_all(fd, "E" + message) ? 0 : 3; };
  kempe::GmshReadOptions options;
  options.mesh_size = mesh_size;
  try {
    std::string bytes = "M";
    kempe::append_raw_mesh(kempe::read_gmsh_in_this_process(path, options), bytes);
    return write_all(fd, bytes) ? 0 : 3;
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

/// One request: a child reads the file; its result, diagnostics and wait status go back on `channel`.
bool answer(int channel, const std::string& path, double mesh_size) {
  int result[2], diagnostics[2];
  if (::pipe2(result, O_CLOEXEC) != 0) return false;
  if (::pipe2(diagnostics, O_CLOEXEC) != 0) {
    ::close(result[0]);
    ::close(result[1]);
    return false;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(channel);
    ::dup2(diagnostics[1], STDOUT_FILENO);
    ::dup2(diagnostics[1], STDERR_FILENO);
    limit_memory(path);
    // _exit: Gmsh's global state is not torn down (the server's copy lives on, and a damaged one may crash).
    ::_exit(read_into(result[1], path, mesh_size));
  }
  ::close(result[1]);
  ::close(diagnostics[1]);
  std::string out, said;
  std::int32_t status = 0;
  if (pid > 0) {
    drain(result[0], diagnostics[0], out, said);
    int s = 0;
    while (::waitpid(pid, &s, 0) < 0 && errno == EINTR) {
    }
    status = s;
  } else {
    status = 3 << 8;  // exit status 3: the fork failed
    said = std::string("cannot fork: ") + std::strerror(errno);
  }
  ::close(result[0]);
  ::close(diagnostics[0]);
  return send_all(channel, &status, sizeof status) && send_string(channel, out) && send_string(channel, said);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) != "--serve") {
    std::fprintf(stderr, "kempe-gmsh-reader: started by kempe to read .msh and .geo files; not run by hand\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  constexpr int channel = STDIN_FILENO;
  kempe::start_gmsh();
  for (;;) {
    std::string path;
    double mesh_size = 0;
    if (!read_string(channel, path, 1 << 20) || !read_all(channel, &mesh_size, sizeof mesh_size)) return 0;
    if (!answer(channel, path, mesh_size)) return 0;  // Kempe has gone
  }
}
