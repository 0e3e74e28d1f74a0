#!/usr/bin/env bash
# How the tait algorithm (Gulicheva & Rybakov's reduction and restoration) scales on closed spheres of growing size, beside
# kempe. Prints Markdown rows; meshes are generated once into WORKDIR.
# Usage: bench/tait.sh [WORKDIR]
set -euo pipefail
kempe=${KEMPE:-build/bin/kempe}
work=${1:-/tmp/kempe-bench}
mkdir -p "$work"
field() { grep -oE "\"$2\": [0-9.e+-]+" <<<"$1" | head -1 | awk '{print $2}'; }

echo "| mesh | elements / faces | algorithm | colors | status | result by | coloring (s) |"
echo "|---|---|---|---|---|---|---|"
for n in 10000 40000 160000 754960; do
  mesh="$work/sphere$n.kmesh"
  [[ $n == 754960 ]] && mesh="$work/sphereC.kmesh"  # the coloring benchmark's Sphere C
  [[ -f $mesh ]] || "$kempe" mesh generate sphere -n "$n" --out "$mesh" >/dev/null
  for algorithm in tait kempe; do
    json=$("$kempe" color "$mesh" --algorithm "$algorithm" --json)
    printf "| sphere -n %s | %s / %s | %s | %s | %s | %s | %.3f |\n" "$n" "$(field "$json" elements)" \
      "$(field "$json" faces)" "$algorithm" "$(field "$json" colors)" \
      "$(grep -oE '"status": "[a-z]+"' <<<"$json" | cut -d'"' -f4)" \
      "$(grep -oE '"algorithm": "[^"]+"' <<<"$json" | cut -d'"' -f4)" "$(field "$json" seconds)"
  done
done
