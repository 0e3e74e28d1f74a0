// The host's OpenMP thread count, read and set where OpenMP is compiled in (1 and ignored otherwise).
#pragma once

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace kempe {

/// Threads of the CPU backend and of the host passes (1 without OpenMP).
inline int cpu_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}
/// Sets them (ignored without OpenMP).
inline void set_cpu_threads(int n) {
#if defined(_OPENMP)
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

}  // namespace kempe
