// read_gmsh: asks kempe-gmsh-reader (mesh/gmsh_reader_main.cpp), started once per process, to read the file in a
// child of its own, and takes the raw mesh from it: a crash inside the Gmsh library on a damaged file is then a
// message, not the end of Kempe.
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/files.hpp"
#include "mesh/gmsh_io.hpp"
#include "mesh/gmsh_reader_protocol.hpp"
#include "mesh/raw_mesh_stream.hpp"

extern char** environ;

namespace kempe {
namespace {

using namespace gmsh_reader;

struct ChildOutput {
  int status = 0;
  std::string result, diagnostics;
};

/// The running kempe-gmsh-reader: one Unix socket to it; it exits when the socket closes.
class ReaderServer {
 public:
  ReaderServer(const std::string& source, const std::string& program) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw MeshError(source + ": cannot start the Gmsh reader: " + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);  // not into --json
    std::vector<char*> argv{const_cast<char*>(program.c_str()), const_cast<char*>("--serve"), nullptr};
    const int spawned = ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(sv[1]);
    if (spawned != 0) {
      ::close(sv[0]);
      throw MeshError(source + ": cannot start the Gmsh reader " + program + ": " + std::strerror(spawned));
    }
    socket_ = sv[0];
  }
  ~ReaderServer() {
    ::close(socket_);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ReaderServer(const ReaderServer&) = delete;
  ReaderServer& operator=(const ReaderServer&) = delete;

  /// False when the server is gone (killed, or it could not fork).
  bool read(const std::string& path, double mesh_size, ChildOutput& out) {
    if (!send_string(socket_, path) || !send_all(socket_, &mesh_size, sizeof mesh_size)) return false;
    std::int32_t status = 0;
    return read_all(socket_, &status, sizeof status) && (out.status = status, true) &&
           read_string(socket_, out.result, ~std::uint64_t{0}) &&
           read_string(socket_, out.diagnostics, diagnostics_cap);
  }

 private:
  pid_t pid_ = -1;
  int socket_ = -1;
};

/// Reads through the server, starting it (again) when needed: a server that died (a signal meant for the whole
/// process group, say) is replaced once.
ChildOutput read_through_server(const std::string& path, double mesh_size) {
  static std::mutex mutex;
  static std::unique_ptr<ReaderServer> server;
  static std::string server_program;
  static pid_t server_owner = 0;
  const std::lock_guard<std::mutex> lock(mutex);
  const std::string program = gmsh_reader_program();
  // A new server when $KEMPE_GMSH_READER changed, or in a forked child of the process that started it (two
  // processes on one socket would read each other's answers; closing the child's copy leaves the parent's open).
  if (program != server_program || server_owner != ::getpid()) server.reset();
  server_program = program;
  server_owner = ::getpid();
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!server) {
      if (::access(program.c_str(), X_OK) != 0)
        throw MeshError(path + ": cannot read .msh/.geo files: the Gmsh reader program " + program +
                        " is missing (build the target kempe-gmsh-reader, or set KEMPE_GMSH_READER to it)");
      server = std::make_unique<ReaderServer>(path, program);
    }
    ChildOutput out;
    if (server->read(path, mesh_size, out)) return out;
    server.reset();
  }
  throw MeshError(path + ": the Gmsh reader " + program + " stopped before it answered");
}

/// What the reader said as it died, shortened: a sanitizer's summary line, else its last non-empty line (the C++
/// runtime's "terminate called after ...").
std::string last_words(std::string text) {
  if (const auto summary = text.find("SUMMARY: "); summary != std::string::npos) {
    text.erase(0, summary);
    text.erase(std::min(text.find('\n'), text.size()));
  }
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
  const ChildOutput out = read_through_server(path, options.mesh_size);

  if (WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0 && !out.result.empty()) {
    const std::string_view body = std::string_view(out.result).substr(1);
    if (out.result[0] == 'M') return parse_raw_mesh(body, path);
    if (out.result[0] == 'E') throw MeshError(std::string(body));
  }
  // A signal, or (in a build with AddressSanitizer, whose handlers report a fault and exit) an exit status with
  // no answer.
  std::string how;
  if (WIFSIGNALED(out.status)) {
    const int signal = WTERMSIG(out.status);
    how = std::string("Gmsh crashed reading it (") + ::sigabbrev_np(signal) + ", " + ::sigdescr_np(signal) + ")";
    if (signal == SIGKILL) how += "; it may have run out of memory";
  } else {
    how = "Gmsh crashed reading it (exit status " + std::to_string(WEXITSTATUS(out.status)) + ")";
  }
  if (const std::string said = last_words(out.diagnostics); !said.empty()) how += ": " + said;
  std::string why = msh_diagnosis(path);
  if (why.empty()) why = msh_truncation(path);
  if (why.empty()) why = "the file is damaged or uses something Gmsh 4.8 cannot read";
  throw MeshError(path + ": " + how + "; " + why);
}

}  // namespace kempe
