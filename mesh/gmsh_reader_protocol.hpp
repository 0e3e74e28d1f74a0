// How read_gmsh (mesh/gmsh_reader.cpp) and kempe-gmsh-reader (mesh/gmsh_reader_main.cpp) talk, over one Unix
// socket: Kempe sends a request (u64 path length, the path, f64 mesh size); the reader forks a child that reads
// the file with Gmsh and answers (i32 wait status of the child, u64 length + result, u64 length + diagnostics).
// The result is 'M' and a raw mesh (mesh/raw_mesh_stream.hpp) or 'E' and an error message; the diagnostics are
// what the child printed (the C++ runtime's last words when it died).
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kempe::gmsh_reader {

/// Repeats io(pointer, bytes left), a read or a write that returns how many bytes it moved, until all `size`
/// bytes have moved; false at the end of the stream or on an error.
template <class Io>
bool move_all(char* p, std::size_t size, Io&& io) {
  while (size > 0) {
    const ssize_t n = io(p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// Writes to a socket; false when the other end is gone (never SIGPIPE, which would end Kempe).
inline bool send_all(int fd, const void* data, std::size_t size) {
  return move_all(static_cast<char*>(const_cast<void*>(data)), size,
                  [fd](char* p, std::size_t n) { return ::send(fd, p, n, MSG_NOSIGNAL); });
}

/// Writes to a pipe (the reader child's result); the server ignores SIGPIPE, so a gone reader is EPIPE.
inline bool write_all(int fd, const std::string& bytes) {
  return move_all(const_cast<char*>(bytes.data()), bytes.size(),
                  [fd](char* p, std::size_t n) { return ::write(fd, p, n); });
}

/// Reads exactly `size` bytes; false at the end of the stream or on an error.
inline bool read_all(int fd, void* data, std::size_t size) {
  return move_all(static_cast<char*>(data), size, [fd](char* p, std::size_t n) { return ::read(fd, p, n); });
}

inline bool send_string(int fd, const std::string& s) {
  const std::uint64_t n = s.size();
  return send_all(fd, &n, sizeof n) && send_all(fd, s.data(), s.size());
}

/// A length-prefixed string of at most `most` bytes.
inline bool read_string(int fd, std::string& s, std::uint64_t most) {
  std::uint64_t n = 0;
  if (!read_all(fd, &n, sizeof n) || n > most) return false;
  s.resize(n);
  return read_all(fd, s.data(), n);
}

/// The diagnostics kept of a child: its last words fit, a flood does not.
inline constexpr std::size_t diagnostics_cap = 4096;

/// Reads two pipes to their ends at once (the child may fill either first): all of `result`, the first
/// diagnostics_cap bytes of `diagnostics`.
inline void drain(int result_fd, int diagnostics_fd, std::string& result, std::string& diagnostics) {
  std::array<char, 1 << 16> buffer;
  std::array<pollfd, 2> fds{{{result_fd, POLLIN, 0}, {diagnostics_fd, POLLIN, 0}}};
  for (int open = 2; open > 0;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open;
      } else if (i == 0) {
        result.append(buffer.data(), static_cast<std::size_t>(n));
      } else if (diagnostics.size() < diagnostics_cap) {
        diagnostics.append(buffer.data(),
                           std::min(static_cast<std::size_t>(n), diagnostics_cap - diagnostics.size()));
      }
    }
  }
}

}  // namespace kempe::gmsh_reader
