#!/usr/bin/env bash
# Runs each case of a list with two kempe binaries and compares every VTU file the runs write, byte for byte:
# what a change that must keep the results bit for bit is checked with.
# Usage: bench/compare_vtu.sh BEFORE AFTER WORKDIR RUNS
#   RUNS: a file of lines THREADS|KEMPE RUN ARGUMENTS, e.g. `1|cases/toro5.yaml --set solver.order=2`.
# Prints, per run, the number of VTU files and how many differ; a run that fails is named.
set -uo pipefail
before=${1:?usage: bench/compare_vtu.sh BEFORE AFTER WORKDIR RUNS} after=${2:?} work=${3:?} list=${4:?}
i=0
while IFS= read -r run; do
  [[ -z $run || $run == \#* ]] && continue
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
done < "$list"
