#!/usr/bin/env bash
# A fifth call, with build-gpu/carry_call5.tar.xz (kempe_bench_gpu and the libraries): the colored stage's
# throughput at p = 1..5 in double and float on 100k, 1M and 4M triangles, and the elementwise pass's launch shapes.
set -uo pipefail
out=${1:?}
tar -C build-gpu -xJf build-gpu/carry_call5.tar.xz
{ date -u; nvidia-smi -L; } > "$out/machine_call5.txt" 2>&1
timeout 150 build-gpu/bin/kempe_bench_gpu throughput > "$out/throughput.md" 2>&1; echo "throughput rc=$?"
timeout 90 build-gpu/bin/kempe_bench_gpu occupancy > "$out/occupancy.md" 2>&1; echo "occupancy rc=$?"
grep -E "^\| 4.00M" "$out/throughput.md"; grep -E "^\| [1-5] \|" "$out/occupancy.md" | head -10
