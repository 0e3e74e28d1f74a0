#!/usr/bin/env bash
# Times the mesh pipeline on the coloring paper's rectangle meshes (Rect A..E sizes): Gmsh generation, reading a
# .msh and building connectivity and geometry, writing and reading .kmesh. Prints a Markdown table.
# Usage: bench/mesh_pipeline.sh [PRESETS] [WORKDIR]      e.g. bench/mesh_pipeline.sh "A B C D" /tmp/kempe-bench
set -euo pipefail
kempe=${KEMPE:-build/bin/kempe}
presets=${1:-A B C D}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
field() { grep -oE "\"$2\": [0-9.e+-]+" <<<"$1" | head -1 | awk '{print $2}'; }
now() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" -v c="${3:-0}" 'BEGIN { print a - b - c }'; }
echo "| mesh | triangles | faces | generate (s) | read .msh (s) | connectivity + geometry (s) | write .kmesh (s) | read .kmesh (s) |"
echo "|---|---|---|---|---|---|---|---|"
for p in $presets; do
  t0=$(now)
  "$kempe" mesh generate rect --preset "$p" --out "$work/rect$p.msh" >/dev/null
  t1=$(now)
  json=$("$kempe" mesh info "$work/rect$p.msh" --json)
  t2=$(now)
  "$kempe" mesh convert "$work/rect$p.msh" "$work/rect$p.kmesh" >/dev/null
  t3=$(now)
  jk=$("$kempe" mesh info "$work/rect$p.kmesh" --json)
  convert=$(minus "$t3" "$t2")
  read_msh=$(field "$json" read_seconds)
  build=$(field "$json" build_seconds)
  # convert = read .msh + build + write .kmesh (+ process start); subtract what info measured.
  write=$(minus "$convert" "$read_msh" "$build")
  printf "| Rect %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n" "$p" "$(field "$json" elements)" \
    "$(field "$json" faces)" "$(minus "$t1" "$t0")" "$read_msh" "$build" "$write" "$(field "$jk" read_seconds)"
done
