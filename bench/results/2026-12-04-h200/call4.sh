#!/usr/bin/env bash
# A fourth call, with build-gpu/carry_call4.tar.xz (the GPU tests with switch_floor and the totals in
# expect_gpu_matches_cpu): the bounded blend's test and the rest of GpuSolver.
set -uo pipefail
out=${1:?}
tar -C build-gpu -xJf build-gpu/carry_call4.tar.xz
timeout 150 build-gpu/bin/kempe_gpu_tests --gtest_filter='GpuSolver.*' > "$out/gpu_solver_tests.log" 2>&1
echo "GpuSolver tests rc=$?"; grep -E "bounded subcells|Failure|Expected|^\[  (PASSED|FAILED) |tests ran" "$out/gpu_solver_tests.log"
