#!/usr/bin/env bash
# The full isentropic-vortex convergence study: see bench/vortex_convergence.cpp.
# Usage: bench/vortex_convergence.sh [LIMITER]   (vertex or moment: the study with that slope limiter on)
#        bench/vortex_convergence.sh adapted      (the study on randomly refined 1-irregular meshes, p = 1..4)
set -euo pipefail
"${KEMPE_BENCH_VORTEX:-build/bin/kempe_bench_vortex}" "$@"
