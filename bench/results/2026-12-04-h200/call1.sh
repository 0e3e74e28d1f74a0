#!/usr/bin/env bash
# One call on the GPU machine with build-gpu/carry_tests.tar.xz (scripts/gpu-prebuild): the GPU tests, then
# compute-sanitizer's memcheck, initcheck and racecheck on the kernel, limiter, backend, strategy and adaptation
# tests.
set -uo pipefail
out=${1:?}
tar -C build-gpu -xJf build-gpu/carry_tests.tar.xz
t=build-gpu/bin/kempe_gpu_tests
{ date -u; nvidia-smi; nvcc --version; } > "$out/machine.txt" 2>&1
timeout 150 $t > "$out/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|largest" "$out/gpu_tests.log" | head -30
f='GpuDgKernels.*:GpuLimiters.*:GpuBackend.*:GpuSolver.EveryRaceStrategyMatchesCpu:GpuSolver.ColoredIs*'
f+=':GpuAdapt.SolverTablesAsOnTheCpu:GpuAdapt.TheSubcellBlendAcrossHangingFacesAsOnTheCpu:GpuSolver.BoundedSubcellBlendingMatchesCpu'
for tool in memcheck initcheck; do
  echo "== $tool" >> "$out/sanitizers.log"
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $t --gtest_filter="$f" >> "$out/sanitizers.log" 2>&1
  echo "$tool rc=$?"
done
echo "== racecheck" >> "$out/sanitizers.log"
timeout 40 compute-sanitizer --tool racecheck --error-exitcode 3 $t --gtest_filter='GpuDgKernels.*:GpuBackend.*' \
  >> "$out/sanitizers.log" 2>&1
echo "racecheck rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|tests ran" "$out/sanitizers.log"
