#!/usr/bin/env bash
# One call on the GPU machine with build-gpu/carry.tar.xz (scripts/gpu-prebuild) and build-gpu/variants.tar.xz
# (shape_variant.sh): the GPU tests; the colored face passes and the elementwise pass by launch shape, now with 5,
# 6 and 8 blocks of 128 threads per multiprocessor; Table 10's run alone and every strategy at 4M triangles with
# the present shapes and with the builds whose face passes (and elementwise pass at p = 1) fit 5 and 6 blocks;
# where each microsecond of a step goes in each build. All under BUDGET seconds (default 480).
set -uo pipefail
out=${1:?}
budget=${BUDGET:-480}
start=$SECONDS
tar -C build-gpu -xJf build-gpu/carry.tar.xz
tar -C build-gpu -xJf build-gpu/variants.tar.xz
b=build-gpu/bin
{ date -u; nvidia-smi; } > "$out/machine.txt" 2>&1
# step LIMIT FILE COMMAND...: runs COMMAND into FILE under min(LIMIT, what is left of the budget)
step() {
  local limit=$1 file=$2; shift 2
  local left=$((budget - (SECONDS - start)))
  ((left < 20)) && { echo "skipped (budget): $*" | tee -a "$out/$file"; return; }
  ((limit > left)) && limit=$left
  local t0=$SECONDS
  { echo "# $* (limit ${limit} s)"; timeout "$limit" "$@"; echo "# rc=$? in $((SECONDS - t0)) s"; } >> "$out/$file" 2>&1
  tail -1 "$out/$file"
}
step 120 gpu_tests.log $b/kempe_gpu_tests
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" "$out/gpu_tests.log" | head -12
step 30 shapes.md $b/kempe_bench_gpu faces
grep -E "^\| (color_renumber|hilbert) " "$out/shapes.md"
step 60 shapes.md $b/kempe_bench_gpu occupancy
grep -E "^\| [1-3] \| double" "$out/shapes.md"
for v in "" _v5 _v6; do step 40 table10.md $b/kempe_bench_gpu$v table10; done
grep -E "^\| (colored|elementwise) |^# " "$out/table10.md"
for v in _v5 _v6 ""; do
  step 30 profile$v.md env KEMPE_BENCH_GPU=$b/kempe_bench_gpu$v bench/gpu_step_profile.sh 10 hilbert:colored hilbert:elementwise
  grep -E "^profile:|launches in|^\| (EvalSurface|EvalElementStage|EvalVolume) " "$out/profile$v.md"
done
for v in _v5 _v6 ""; do step 70 strategies.md $b/kempe_bench_gpu$v strategies; done
grep -E "^\| 4.00M \| [12] \| double \| (colored|elementwise) |^# " "$out/strategies.md"
echo "call done in $((SECONDS - start)) s"
