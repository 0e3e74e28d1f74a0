#!/usr/bin/env bash
# Reproduces the coloring paper's Tables 1-6 and 11 (Giuliani & Krivodonova 2017) on meshes of the same sizes:
# coloring time of greedy, kempe and misra-gries (mesh reading excluded), colors and class sizes, and the
# time of color_renumber (Alg. 5). Prints Markdown rows; meshes are generated once into WORKDIR.
# Usage: bench/coloring.sh [WORKDIR] [MESHES]   MESHES: names from the table below (default: all)
set -euo pipefail
kempe=${KEMPE:-build/bin/kempe}
work=${1:-/tmp/kempe-bench}
only=${2:-}
mkdir -p "$work"

# name | generate arguments | paper: elements / faces | paper coloring time (s) | paper reorder time (s)
meshes=(
  "rectA|rect --preset A|14,956 / 22,614|0.71|0.06"
  "rectB|rect --preset B|59,012 / 88,878|3.22|0.28"
  "rectC|rect --preset C|236,586 / 355,599|16.61|1.21"
  "rectD|rect --preset D|946,926 / 1,421,829|79.83|5.10"
  "rectE|rect --preset E|3,794,268 / 5,694,282|394.71|24.28"
  "quadD|rect --type quad -n 456327|456,327 / 914,097|62.79|"
  "tetC|box --type tet -n 900000|900,575 / 1,835,248|65.05|"
  "hexB|box --type hex -n 355914|355,914 / 1,076,868|29.49|"
  "prism|box --type prism -n 1105955|1,105,955 / 3,038,451|35.07|"
  "hybridB|box --type hybrid -n 469680 --seed 2|469,680 / 1,269,246|14.05|"
  "sphereC|sphere -n 754960|754,960 / 1,132,440|123.15|"
  "torus|torus -n 654666|654,666 / 981,999 (hand)|2,868.63|"
)
field() { grep -oE "\"$2\": [0-9.e+-]+" <<<"$1" | head -1 | awk '{print $2}'; }
classes() { tr -d '\n ' <<<"$1" | grep -oE '"faces_per_color":\[[0-9,]*\]' | sed 's/.*\[//; s/\]//; s/,/ /g'; }

echo "| mesh | elements / faces | paper elements / faces | algorithm | colors | status | faces per color | coloring (s) | paper (s) | color_renumber (s) | paper (s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for entry in "${meshes[@]}"; do
  IFS='|' read -r name gen paper_size paper_time paper_reorder <<<"$entry"
  [[ -n $only && " $only " != *" $name "* ]] && continue
  mesh="$work/$name.kmesh"
  # shellcheck disable=SC2086
  [[ -f $mesh ]] || "$kempe" mesh generate $gen --out "$mesh" >/dev/null
  for algorithm in greedy kempe misra-gries; do
    json=$("$kempe" color "$mesh" --algorithm "$algorithm" --order color_renumber --json)
    printf "| %s | %s / %s | %s | %s | %s | %s | %s | %.3f | %s | %.3f | %s |\n" "$name" "$(field "$json" elements)" \
      "$(field "$json" faces)" "$paper_size" "$algorithm" "$(field "$json" colors)" \
      "$(grep -oE '"status": "[a-z]+"' <<<"$json" | cut -d'"' -f4)" "$(classes "$json")" "$(field "$json" seconds)" \
      "$([[ $algorithm == kempe ]] && echo "$paper_time" || echo "")" "$(field "$json" reorder_seconds)" \
      "$([[ $algorithm == kempe ]] && echo "$paper_reorder" || echo "")"
  done
done
