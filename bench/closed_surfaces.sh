#!/usr/bin/env bash
# Closed surfaces over many seeds: kempe (through a vertex 4-coloring, coloring/surface.cpp) against
# misra-gries. Prints one Markdown row per mesh and algorithm: runs, how many reached the fewest colors,
# how many went through the vertices, and the coloring time (min / median / max, mesh reading excluded).
# Usage: bench/closed_surfaces.sh [WORKDIR] [SEEDS]   (meshes generated once into WORKDIR, as bench/coloring.sh)
set -euo pipefail
kempe=${KEMPE:-build/bin/kempe}
work=${1:-/tmp/kempe-bench}
seeds=${2:-30}
mkdir -p "$work"
meshes=("sphereC|sphere -n 754960" "torus|torus -n 654666")
echo "| mesh | elements / faces | algorithm | runs | 3 colors | through vertices | coloring (s) min / median / max |"
echo "|---|---|---|---|---|---|---|"
for entry in "${meshes[@]}"; do
  IFS='|' read -r name gen <<<"$entry"
  mesh="$work/$name.kmesh"
  # shellcheck disable=SC2086
  [[ -f $mesh ]] || "$kempe" mesh generate $gen --out "$mesh" >/dev/null
  for algorithm in kempe misra-gries; do
    for seed in $(seq 1 "$seeds"); do
      "$kempe" color "$mesh" --algorithm "$algorithm" --order as_read --seed "$seed" --json | tr -d '\n '
      echo
    done | python3 -c '
import json, sys
rows = [json.loads(line) for line in sys.stdin if line.strip()]
t = sorted(r["seconds"] for r in rows)
print("| %s | %d / %d | %s | %d | %d | %d | %.3f / %.3f / %.3f |" % (sys.argv[1], rows[0]["elements"], rows[0]["faces"],
      sys.argv[2], len(rows), sum(r["colors"] == 3 for r in rows), sum(r.get("by_vertices", False) for r in rows),
      t[0], t[len(t) // 2], t[-1]))' "$name" "$algorithm"
  done
done
