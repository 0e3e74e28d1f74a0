// Atomic file writes (files.hpp).
#include "solver/output/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace kempe::output {

void sync_to_disk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;  // nothing to sync (the write itself was checked)
  (void)::fsync(fd);
  ::close(fd);
}

void fail_write(const std::string& temporary, const std::string& path, const std::string& what) {
  std::error_code error;
  std::filesystem::remove(temporary, error);
  throw std::runtime_error(path + ": cannot write " + what + " (is the folder writable, is the disk full?)");
}

void commit_file(const std::string& temporary, const std::string& path, const std::string& what) {
  sync_to_disk(temporary);
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) fail_write(temporary, path, what);
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  sync_to_disk(folder.empty() ? "." : folder.string());
}

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) fail_write(temporary, path, what);
  }
  commit_file(temporary, path, what);
}

}  // namespace kempe::output
