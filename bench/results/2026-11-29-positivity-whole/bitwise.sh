#!/usr/bin/env bash
# Runs each case with two kempe binaries (BEFORE, AFTER) and compares every VTU file byte for byte.
# Usage: bitwise.sh BEFORE AFTER WORKDIR
set -uo pipefail
before=$1 after=$2 work=$3
runs=(
  "1|cases/double_mach.yaml --set solver.order=2 --set time.end=0.02"
  "1|cases/double_mach.yaml --set solver.order=3 --set mesh.size=0.04 --set time.end=0.03"
  "1|cases/double_mach.yaml --set solver.order=1 --set time.end=0.02"
  "1|cases/toro5.yaml --set solver.order=2 --set mesh.size=0.01"
  "1|cases/toro3.yaml --set solver.order=2 --set mesh.size=0.01"
  "1|cases/toro2.yaml --set solver.order=3 --set mesh.size=0.01"
  "1|cases/sod_amr.yaml"
  "2|cases/toro5.yaml --set solver.order=2 --set mesh.size=0.01 --set solver.strategy=elementwise"
  "2|cases/toro5.yaml --set solver.order=2 --set mesh.size=0.01 --set solver.precision=float"
  "1|cases/double_mach.yaml --set solver.order=4 --set mesh.size=0.04 --set time.end=0.01 --set solver.precision=float"
)
i=0
for run in "${runs[@]}"; do
  threads=${run%%|*} args=${run#*|}
  i=$((i + 1))
  mkdir -p "$work/$i"
  for which in before after; do
    bin=$before; [[ $which == after ]] && bin=$after
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=$threads "$bin" run $args --output "$work/$i/$which" > "$work/$i/$which.log" 2>&1 || echo "run $i $which failed"
  done
  n=0 differ=0
  for f in "$work/$i"/before/*.vtu; do
    n=$((n + 1))
    cmp -s "$f" "$work/$i/after/$(basename "$f")" || differ=$((differ + 1))
  done
  echo "$threads thread(s): $args: $n VTU files, $differ differ"
done
