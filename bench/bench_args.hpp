// The benchmarks' command lines: whole numbers checked against their range, `-h`/`--help`, and one place that
// turns a bad argument or a failed run into a message on stderr and an exit status instead of an abort.
// Hand-written rather than CLI11: the benchmarks also build on the GPU machine, which has CUDA alone.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

namespace kempe::bench {

/// A bad command-line argument: main prints it with the usage and exits with status 2.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// `text` as a whole decimal number in [least, most]; otherwise a UsageError naming `what` and the range.
inline long integer_argument(const char* text, const char* what, long least, long most) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || value < least || value > most)
    throw UsageError(std::string(what) + " must be a whole number from " + std::to_string(least) + " to " +
                     std::to_string(most) + ", not '" + text + "'");
  return value;
}

/// `text` as a finite number in (above, most]; otherwise a UsageError naming `what`.
inline double number_argument(const char* text, const char* what, double above, double most) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !(value > above) || !(value <= most)) {
    char range[96];
    std::snprintf(range, sizeof range, " must be a number above %g and at most %g, not '", above, most);
    throw UsageError(std::string(what) + range + text + "'");
  }
  return value;
}

/// Runs body(), which returns main's status. With `-h` or `--help` among the arguments it prints `usage` and
/// returns 0; a std::invalid_argument (a UsageError, or a name the library did not know: a backend, strategy,
/// limiter) prints "PROGRAM: message" and the usage on stderr and returns 2; any other exception prints
/// "PROGRAM: message" and returns 1.
template <class Body>
int run_main(const char* program, const char* usage, int argc, char** argv, Body&& body) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help") {
      std::printf("%s", usage);
      return 0;
    }
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n%s", program, e.what(), usage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace kempe::bench
