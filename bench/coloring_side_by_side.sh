#!/usr/bin/env bash
# kempe beside misra-gries (or any algorithms) on the coloring benchmark's meshes, run alternately so that both
# see the same machine load: the coloring time (mesh reading excluded) as min / median over RUNS runs each.
# The meshes must exist (bench/coloring.sh generates them). Prints Markdown rows.
# Usage: bench/coloring_side_by_side.sh [WORKDIR] [RUNS] [MESHES] [ALGORITHMS]
set -euo pipefail
kempe=${KEMPE:-build/bin/kempe}
work=${1:-/tmp/kempe-bench}
runs=${2:-5}
meshes=${3:-"hexB hybridB prism tetC quadD"}
algorithms=${4:-"kempe misra-gries"}

echo "| mesh | algorithm | colors | runs | coloring (s) min / median |"
echo "|---|---|---|---|---|"
for name in $meshes; do
  mesh="$work/$name.kmesh"
  [[ -f $mesh ]] || { echo "no $mesh: run bench/coloring.sh $work first" >&2; exit 1; }
  declare -A times=() colors=()
  for ((i = 0; i < runs; ++i)); do
    for algorithm in $algorithms; do
      json=$("$kempe" color "$mesh" --algorithm "$algorithm" --json)
      times[$algorithm]+="$(grep -oE '"seconds": [0-9.e+-]+' <<<"$json" | awk '{print $2}') "
      colors[$algorithm]=$(grep -oE '"colors": [0-9]+' <<<"$json" | awk '{print $2}')
    done
  done
  for algorithm in $algorithms; do
    read -r min median < <(tr ' ' '\n' <<<"${times[$algorithm]}" | grep . | sort -g |
      awk '{t[NR] = $1} END {printf "%.4f %.4f\n", t[1], t[int((NR + 1) / 2)]}')
    echo "| $name | $algorithm | ${colors[$algorithm]} | $runs | $min / $median |"
  done
  unset times colors
done
