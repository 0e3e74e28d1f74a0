#!/usr/bin/env bash
# One call on the GPU machine with build-gpu/carry_programs.tar.xz (scripts/gpu-prebuild): the step's kernels
# one by one (Nsight Compute), every strategy at 4M triangles, Table 10, shock capturing's cost, adaptive DMR.
set -uo pipefail
out=${1:?}
tar -C build-gpu -xJf build-gpu/carry_programs.tar.xz
b=build-gpu/bin
{ date -u; nvidia-smi; } > "$out/machine.txt" 2>&1
# Registers and spills of the face, volume, element and stage kernels (the p = 1 and 2 double Mach ones).
cuobjdump --dump-resource-usage $b/kempe_bench_gpu 2>&1 | grep -A1 -E "Function .*(EvalSurface|EvalVolume|EvalElement|CombineStage)" \
  | $(command -v c++filt || command -v cu++filt || echo cat) > "$out/resources.txt"
KEMPE_BENCH_GPU=$b/kempe_bench_gpu timeout 200 bench/gpu_step_profile.sh 10 color_renumber:colored \
  color_renumber:colored:apart hilbert:colored hilbert:elementwise > "$out/profile.md" 2>&1
grep -E "^##|launches in|per step \(" "$out/profile.md"
timeout 90 ncu --profile-from-start off --clock-control none --cache-control none --section SpeedOfLight \
  --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --launch-count 45 \
  $b/kempe_bench_gpu profile color_renumber colored 1 > "$out/ncu_sections.txt" 2>&1
echo "ncu sections rc=$?"
{ timeout 150 $b/kempe_bench_gpu strategies; timeout 150 $b/kempe_bench_gpu dmr; } > "$out/bench.md" 2>&1
echo "bench rc=$?"; grep -E "^\| (1|2) \|" "$out/bench.md" | head -8
{ KEMPE=$b/kempe timeout 150 bench/capturing_cost.sh 2 table10 --backend cuda \
    --set mesh.file="$PWD/build-gpu/meshes/double_mach_amr.kmesh" --set solver.order=2 --set time.end=0.01; } \
  > "$out/capturing.log" 2>&1
echo "capturing rc=$?"; tail -6 "$out/capturing.log"
{ KEMPE=$b/kempe KEMPE_DMR_BACKEND=cuda KEMPE_DMR_MESH=build-gpu/meshes/double_mach_amr.kmesh \
    timeout 150 bench/dmr_amr.sh 0.0152 /tmp/amr 10 5; } > "$out/dmr_amr.log" 2>&1
echo "dmr_amr rc=$?"; tail -6 "$out/dmr_amr.log"
