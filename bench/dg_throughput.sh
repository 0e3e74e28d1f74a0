#!/usr/bin/env bash
# DG throughput (DOF updates per second per RK stage, per kernel and in total) on 1 and 2 threads, for every
# race strategy, then for every ordering: see bench/dg_throughput.cpp.
# Usage: bench/dg_throughput.sh [N] [STAGES]   (N x N squares, 2 N^2 triangles; default 700)
set -euo pipefail
bench=${KEMPE_BENCH_DG:-build/bin/kempe_bench_dg}
for threads in 1 2; do
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=close "$bench" "${1:-700}" "${2:-9}"
  echo
done
