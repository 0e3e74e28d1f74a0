#!/usr/bin/env bash
# A third call, with build-gpu/carry_call3.tar.xz (the GPU tests rebuilt with sixteen perturbed CPU runs at p = 1
# in GpuSolver.BoundedSubcellBlendingMatchesCpu, kempe and the adaptive double Mach case's start mesh): that test,
# then the adaptive double Mach case with its own scheme (p = 2, bounded subcell blend) on the GPU.
set -uo pipefail
out=${1:?}
tar -C build-gpu -xJf build-gpu/carry_call3.tar.xz
b=build-gpu/bin
{ date -u; nvidia-smi; } > "$out/machine.txt" 2>&1
timeout 90 $b/kempe_gpu_tests --gtest_filter=GpuSolver.BoundedSubcellBlendingMatchesCpu > "$out/bounded_blend.log" 2>&1
echo "bounded blend test rc=$?"; grep -E "bounded subcells|Failure|OK|FAILED" "$out/bounded_blend.log"
timeout 150 $b/kempe run cases/double_mach_amr.yaml --backend cuda --set mesh.file="$PWD/build-gpu/meshes/double_mach_amr.kmesh" \
  --set output.interval=0 --output /tmp/dmr_case > "$out/dmr_amr_case.log" 2>&1
echo "dmr_amr case rc=$?"; grep -E "^# (solver|done|adaptive)" "$out/dmr_amr_case.log"
