#!/usr/bin/env bash
# The binary before and after the whole-element test of the positivity limiter, alternately ROUNDS times on the
# double Mach reflection (cases/double_mach.yaml, its mesh, one thread): positivity alone and the case's bounded
# subcell blend at p = 2 to t = 0.02; then the bounded blend at p = 3 and the vertex limiter at p = 1.
# Prints each run's steps, solve time, DOF rate and the run's own time per call of its limiters.
# Usage: side_by_side.sh BEFORE AFTER ROUNDS
set -uo pipefail
before=$1 after=$2 rounds=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A runs=(
  [p2_positivity]="--set solver.order=2 --set time.end=0.02 --set solver.limiter=none --set solver.shock_capturing=none"
  [p2_bounded]="--set solver.order=2 --set time.end=0.02 --set solver.limiter=none"
  [p3_bounded]="--set solver.order=3 --set time.end=0.005 --set solver.limiter=none"
  [p1_vertex]="--set solver.order=1 --set time.end=0.02 --set solver.limiter=vertex --set solver.shock_capturing=none"
)
for round in $(seq 1 "$rounds"); do
  for run in p2_positivity p2_bounded p3_bounded p1_vertex; do
    for which in before after; do
      bin=$before; [[ $which == after ]] && bin=$after
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=1 "$bin" run cases/double_mach.yaml ${runs[$run]} --set output.interval=0 --output "$out/r" > "$out/log" 2>&1
      done_line=$(grep "^# done" "$out/log" | sed 's/^# done: //; s/, total [0-9.ms]*;/;/')
      limiters=$(grep -o "limiters [0-9.e+-]* ms" "$out/log")
      echo "$round $run $which: $done_line; $limiters"
    done
  done
done
