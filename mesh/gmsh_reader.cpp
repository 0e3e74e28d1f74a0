// read_gmsh: runs kempe-gmsh-reader (mesh/gmsh_reader_main.cpp) in a child process and takes the raw mesh from
// it, so that a crash inside the Gmsh library on a damaged file is a message, not the end of Kempe.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/files.hpp"
#include "mesh/gmsh_io.hpp"
#include "mesh/raw_mesh_stream.hpp"

extern char** environ;

namespace kempe {
namespace {

/// The reader's output channels, as its file descriptors: the result (a tag byte, then a raw mesh or a message)
/// and everything Gmsh or the C++ runtime print (kept for the message when the reader dies).
constexpr int result_fd = 3;
constexpr std::size_t diagnostics_cap = 4096;

struct ChildOutput {
  int status = 0;
  std::string result, diagnostics;
};

/// A pipe whose ends are closed with the object.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw MeshError(std::string("cannot create a pipe: ") + std::strerror(errno));
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

ChildOutput run_reader(const std::string& source, const std::vector<std::string>& args) {
  Pipe result, diagnostics;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, diagnostics.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, diagnostics.write, STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, result.write, result_fd);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw MeshError(source + ": cannot start the Gmsh reader " + args[0] + ": " + std::strerror(spawned));
  result.close_write();
  diagnostics.close_write();

  ChildOutput out;
  std::array<char, 1 << 16> buffer;
  std::array<pollfd, 2> fds{{{result.read, POLLIN, 0}, {diagnostics.read, POLLIN, 0}}};
  for (int open = 2; open > 0;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open;
      } else if (i == 0) {
        out.result.append(buffer.data(), static_cast<std::size_t>(n));
      } else if (out.diagnostics.size() < diagnostics_cap) {
        out.diagnostics.append(buffer.data(), std::min<std::size_t>(static_cast<std::size_t>(n), diagnostics_cap));
      }
    }
  }
  while (::waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
  }
  return out;
}

/// The last non-empty line the reader printed (the C++ runtime's "terminate called after ..."), shortened.
std::string last_line(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (const auto newline = text.rfind('\n'); newline != std::string::npos) text.erase(0, newline + 1);
  std::string printable;
  for (char c : text) printable += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  constexpr std::size_t most = 160;
  if (printable.size() > most) printable = printable.substr(0, most) + "...";
  return printable;
}

}  // namespace

std::string gmsh_reader_program() {
  if (const char* set = std::getenv("KEMPE_GMSH_READER"); set && *set) return set;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path beside = self.parent_path() / "kempe-gmsh-reader";
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  return KEMPE_GMSH_READER_BUILT;
}

RawMesh read_gmsh(const std::string& path, const GmshReadOptions& options) {
  if (const std::string why = not_an_input_file(path); !why.empty()) throw MeshError(path + ": " + why);
  const std::string program = gmsh_reader_program();
  if (::access(program.c_str(), X_OK) != 0)
    throw MeshError(path + ": cannot read .msh/.geo files: the Gmsh reader program " + program +
                    " is missing (build the target kempe-gmsh-reader, or set KEMPE_GMSH_READER to it)");
  char size[32];
  std::snprintf(size, sizeof size, "%.17g", options.mesh_size);
  const ChildOutput out = run_reader(path, {program, path, size});

  if (WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0 && !out.result.empty()) {
    const std::string_view body = std::string_view(out.result).substr(1);
    if (out.result[0] == 'M') return parse_raw_mesh(body, path);
    if (out.result[0] == 'E') throw MeshError(std::string(body));
  }
  std::string how;
  if (WIFSIGNALED(out.status)) {
    const int signal = WTERMSIG(out.status);
    how = std::string("Gmsh crashed reading it (") + ::sigabbrev_np(signal) + ", " + ::sigdescr_np(signal) + ")";
    if (signal == SIGKILL) how += "; it may have run out of memory";
  } else {
    how = "the Gmsh reader stopped with exit status " + std::to_string(WEXITSTATUS(out.status));
  }
  if (const std::string said = last_line(out.diagnostics); !said.empty()) how += ": " + said;
  const std::string truncation = msh_truncation(path);
  throw MeshError(path + ": " + how + "; " +
                  (truncation.empty() ? std::string("the file is damaged or uses something Gmsh 4.8 cannot read")
                                      : truncation));
}

}  // namespace kempe
