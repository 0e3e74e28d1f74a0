// Input files are looked at before they are opened: opening a FIFO or a device for reading can block forever.
#pragma once

#include <filesystem>
#include <string>

namespace kempe {

/// Why `path` cannot be read as an input file ("no such file", "a directory", "not a regular file (a FIFO,
/// socket or device)"), or an empty string when it is a regular file. Looks at the file's type only: no open().
inline std::string not_an_input_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return "no such file";
  if (std::filesystem::is_directory(status)) return "a directory, not a file";
  if (!std::filesystem::is_regular_file(status)) return "not a regular file (a FIFO, socket or device)";
  return {};
}

}  // namespace kempe
