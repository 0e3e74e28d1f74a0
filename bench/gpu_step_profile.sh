#!/usr/bin/env bash
# Where each microsecond of a GPU step goes: Table 10's double Mach case (p = 1, 627,200 triangles, vertex and
# positivity limiters, kempe colors) run by `kempe_bench_gpu profile` under Nsight Compute, which times every
# kernel of STEPS steps (gpu__time_duration; clocks and caches left as they are, so that each kernel sees the L2
# its predecessor left). Prints, for each ORDERING:STRATEGY, the launches of one step in order with their mean
# time over the steps, then the same by kernel, and the sum against the step's time without the profiler.
# Usage: bench/gpu_step_profile.sh STEPS ORDERING:STRATEGY...   e.g. bench/gpu_step_profile.sh 10
#   color_renumber:colored hilbert:elementwise
# Environment: KEMPE_BENCH_GPU (default build-gpu/bin/kempe_bench_gpu), NCU (default ncu).
set -euo pipefail
steps=${1:?usage: bench/gpu_step_profile.sh STEPS ORDERING:STRATEGY...}
shift
bench=${KEMPE_BENCH_GPU:-build-gpu/bin/kempe_bench_gpu}
ncu=${NCU:-ncu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for run in "$@"; do
  IFS=: read -r ordering strategy <<< "$run"
  echo "## $ordering, $strategy: $bench profile $ordering $strategy $steps"
  "$bench" profile "$ordering" "$strategy" "$steps"
  "$ncu" --profile-from-start off --clock-control none --cache-control none --metrics gpu__time_duration.sum \
    --print-kernel-base demangled --print-units base --csv --page raw "$bench" profile "$ordering" "$strategy" "$steps" \
    > "$work/raw.csv"
  python3 "$(dirname "$0")/step_profile.py" "$work/raw.csv" "$steps"
  echo
done
