#!/usr/bin/env bash
# Adaptation cycles against mesh size (bench/adapt_cycles.cpp): on the CPU with 1 and 2 threads, and on the GPU
# when there is one. Usage: bench/adapt_cycles.sh [N...]   (N x N squares, 2 N^2 start triangles)
#   bench/adapt_cycles.sh settled [N...]: adaptations on a settled mesh, with the DG tables (kempe_bench_adapt)
set -euo pipefail
bench=${KEMPE_BENCH_ADAPT:-build/bin/kempe_bench_adapt}
for threads in 1 2; do
  echo "CPU, $threads thread(s)"
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=close "$bench" cpu "$@"
  echo
done
echo "GPU"
"$bench" cuda "$@"
