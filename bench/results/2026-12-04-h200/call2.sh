#!/usr/bin/env bash
# One call on the GPU machine with build-gpu/carry_programs.tar.xz (scripts/gpu-prebuild), the steps in order of
# what the open issues need, each under its own limit and all under BUDGET seconds (default 420): Table 10 and
# the strategies x orderings (kempe_bench_gpu dmr), where each microsecond of a Table 10 step goes (Nsight
# Compute), adaptation cycles, the adaptive double Mach run against the uniform mesh, shock capturing's cost,
# each color's face pass in 1-4 blocks per multiprocessor and every strategy at 4M triangles (faces.md).
set -uo pipefail
out=${1:?}
budget=${BUDGET:-420}
start=$SECONDS
tar -C build-gpu -xJf build-gpu/carry_programs.tar.xz
b=build-gpu/bin
m=$PWD/build-gpu/meshes
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
step 150 bench.md $b/kempe_bench_gpu dmr
grep -E "^\| (greedy|kempe|colored|elementwise|atomic|buffered) " "$out/bench.md" | head -12
step 130 profile.md env KEMPE_BENCH_GPU=$b/kempe_bench_gpu bench/gpu_step_profile.sh 10 color_renumber:colored hilbert:elementwise
grep -E "^##|launches in|per step" "$out/profile.md"
step 90 adapt.md $b/kempe_bench_adapt cuda 90 180 360 720
step 60 adapt.md $b/kempe_bench_adapt cuda settled 10 40 90 180
step 120 dmr_amr.log env KEMPE=$b/kempe KEMPE_DMR_BACKEND=cuda KEMPE_DMR_MESH=$m/double_mach_amr.kmesh bench/dmr_amr.sh 0.0152 /tmp/amr 10
tail -4 "$out/dmr_amr.log"
step 80 capturing.log env KEMPE=$b/kempe bench/capturing_cost.sh 1 table10 --backend cuda --set mesh.file=$m/double_mach_amr.kmesh --set solver.order=2 --set time.end=0.01
tail -8 "$out/capturing.log"
step 60 faces.md $b/kempe_bench_gpu faces
step 100 faces.md $b/kempe_bench_gpu strategies
echo "call2 done in $((SECONDS - start)) s"
