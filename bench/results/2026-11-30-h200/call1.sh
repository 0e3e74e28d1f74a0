#!/usr/bin/env bash
# One call on the GPU machine with build-gpu/carry_tests.tar.xz: the GPU tests and the sanitizers.
set -uo pipefail
out=${1:?}
tar -C build-gpu -xJf build-gpu/carry_tests.tar.xz
t=build-gpu/bin/kempe_gpu_tests
{ date -u; nvidia-smi; nvcc --version; } > "$out/machine.txt" 2>&1
timeout 200 $t > "$out/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|largest" "$out/gpu_tests.log" | head -30
f='GpuDgKernels.*:GpuLimiters.*:GpuBackend.*:GpuSolver.EveryRaceStrategyMatchesCpu:GpuSolver.ColoredIs*:GpuSolver.ColoredFusion*'
f+=':GpuAdapt.SolverTablesAsOnTheCpu:GpuSolver.BoundedSubcellBlendingMatchesCpu:GpuSolver.SubcellBlendingMatchesCpu'
for tool in memcheck initcheck; do
  echo "== $tool" >> "$out/sanitizers.log"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $t --gtest_filter="$f" >> "$out/sanitizers.log" 2>&1
  echo "$tool rc=$?"
done
echo "== racecheck" >> "$out/sanitizers.log"
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $t --gtest_filter='GpuDgKernels.*:GpuBackend.*' \
  >> "$out/sanitizers.log" 2>&1
echo "racecheck rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|tests ran" "$out/sanitizers.log"
