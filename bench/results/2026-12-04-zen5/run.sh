#!/usr/bin/env bash
# The CPU machine's figures on its AMD EPYC Zen 5 (2 vCPUs, AVX-512), nothing else running: the DG stage on one
# and two threads, settled adaptations with the DG tables, the adaptive double Mach run at 0.0304 (Table 10's scheme).
set -uo pipefail
out=${1:?}
b=build-cpu/bin
{ date -u; lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200; } > "$out/machine.txt"
OMP_NUM_THREADS=1 OMP_PROC_BIND=close $b/kempe_bench_dg 300 9 strategies > "$out/dg_1thread.md" 2>&1
OMP_NUM_THREADS=2 OMP_PROC_BIND=close $b/kempe_bench_dg 300 9 strategies > "$out/dg_2threads.md" 2>&1
OMP_NUM_THREADS=2 $b/kempe_bench_adapt cpu settled 10 40 90 > "$out/adapt_settled_2threads.md" 2>&1
OMP_NUM_THREADS=1 $b/kempe_bench_adapt cpu settled 10 40 90 > "$out/adapt_settled_1thread.md" 2>&1
OMP_NUM_THREADS=2 $b/kempe run cases/double_mach_amr.yaml --set mesh.size=0.0304 --set solver.order=1 \
  --set solver.limiter=vertex --set solver.shock_capturing=none --set output.interval=0 --output /tmp/dmr0304 \
  > "$out/dmr_amr_0.0304_2threads.txt" 2>&1
date -u >> "$out/machine.txt"
