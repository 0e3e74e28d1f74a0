// The sanitizers' default options for every program built with KEMPE_SANITIZE (CMakeLists.txt adds this file to
// each executable); the environment (ASAN_OPTIONS, ...) still overrides them. Defaults compiled in reach every
// process, the Gmsh reader and the tests alike, without an environment to pass along.

/// No test needs a single allocation above 1 GB: a larger one is a count used before it was checked, and is
/// reported at once instead of being filled for a minute.
extern "C" const char* __asan_default_options() { return "max_allocation_size_mb=1024"; }

extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }

/// Leaks inside the Gmsh library (third-party code that Kempe cannot fix) are not ours to report.
extern "C" const char* __lsan_default_options() { return "suppressions=" KEMPE_LSAN_SUPPRESSIONS; }
