#!/usr/bin/env bash
# Two kempe binaries side by side: each run of a list with the binary before and after a change, alternately,
# ROUNDS times, one OpenMP thread (noise only adds time, so compare the least times). Prints each run's steps,
# solve time and DOF rate, and the run's own time per call of its limiters.
# Usage: bench/side_by_side.sh BEFORE AFTER ROUNDS RUNS
#   RUNS: a file of lines NAME|KEMPE RUN ARGUMENTS, e.g. `p2|cases/double_mach.yaml --set solver.order=2`.
set -uo pipefail
before=${1:?usage: bench/side_by_side.sh BEFORE AFTER ROUNDS RUNS} after=${2:?} rounds=${3:?} list=${4:?}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t runs < <(grep -v '^\s*\(#\|$\)' "$list")
for round in $(seq 1 "$rounds"); do
  for run in "${runs[@]}"; do
    name=${run%%|*} args=${run#*|}
    for which in before after; do
      bin=$before; [[ $which == after ]] && bin=$after
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=1 "$bin" run $args --set output.interval=0 --output "$out/r" > "$out/log" 2>&1
      done_line=$(grep "^# done" "$out/log" | sed 's/^# done: //; s/, total [0-9.ms]*;/;/')
      limiters=$(grep -o "limiters [0-9.e+-]* ms" "$out/log")
      echo "$round $name $which: $done_line; $limiters"
    done
  done
done
