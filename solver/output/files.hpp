// Writing output files so that a failure never leaves a half-written file under a real name: everything is
// written to PATH.tmp, flushed to the disk and renamed (checkpoints, .vtu, .pvd, the resolved configuration).
#pragma once

#include <string>

namespace kempe::output {

/// Flushes a written file (or a folder's entries) to the disk (fsync); silent when it cannot be opened.
void sync_to_disk(const std::string& path);

/// Makes the finished file `temporary` the file `path`: flushed, renamed, the folder flushed, so that after a
/// crash `path` is the old file or the new one. On failure removes `temporary` and throws std::runtime_error
/// naming `path` and `what` it is.
void commit_file(const std::string& temporary, const std::string& path, const std::string& what);

/// Removes `temporary` after a failed write and throws std::runtime_error naming `path` and `what` it is.
[[noreturn]] void fail_write(const std::string& temporary, const std::string& path, const std::string& what);

/// Writes `bytes` to `path` through PATH.tmp and commit_file.
void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what);

}  // namespace kempe::output
