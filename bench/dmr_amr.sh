#!/usr/bin/env bash
# The double Mach reflection on an adaptive mesh against the uniform mesh its finest level equals: the same
# start mesh (cases/double_mach.geo at SIZE) refined two levels where the density jumps (cases/double_mach_amr.yaml,
# adapting every INTERVAL steps) or everywhere (a box indicator over the whole domain, never adapting again).
# Prints each run's summary, the Mach stem and triple point at t = 0.2 (kempe_dmr_fronts, bands one finest cell
# high), and per adaptive run: the fronts' distance from the uniform run's in finest cells, the ratio of
# element-steps and of solve times, and the share of the solve spent adapting.
# Usage: bench/dmr_amr.sh [SIZE] [OUTDIR] [INTERVAL...]
#   (defaults 0.06, /tmp/kempe_dmr_amr and the case's interval; the finest cells are SIZE / 4)
# Environment: KEMPE_DMR_SCHEME (table10, the default: p = 1 with the vertex limiter; or case: the case file's
# scheme), KEMPE_DMR_BACKEND (cpu or cuda; default the case's), KEMPE_DMR_MESH (a start mesh as .kmesh, made
# at SIZE by `kempe mesh convert`, for machines without Gmsh). A kempe built without VTK writes no outputs: the
# fronts are then not measured, and the table gives times and element-steps only.
set -euo pipefail
size="${1:-0.06}"
out="${2:-/tmp/kempe_dmr_amr}"
shift $(( $# < 2 ? $# : 2 ))
intervals=("$@")
[[ ${#intervals[@]} -eq 0 ]] && intervals=(case)
kempe="${KEMPE:-build/bin/kempe}"
# Table 10's scheme (p = 1, vertex limiter), not the case's p = 2: the figures of docs/benchmarks.md and the
# coloring paper's runs. KEMPE_DMR_SCHEME=case runs the case's own.
common=(--set output.interval=0)
case ${KEMPE_DMR_SCHEME:-table10} in
  table10) common+=(--set solver.order=1 --set solver.limiter=vertex --set solver.shock_capturing=none) ;;
  case) ;;
  *) echo "bench/dmr_amr.sh: KEMPE_DMR_SCHEME must be table10 or case, not '$KEMPE_DMR_SCHEME'" >&2; exit 2 ;;
esac
if [[ -n ${KEMPE_DMR_MESH:-} ]]; then common+=(--set mesh.file="$(realpath "$KEMPE_DMR_MESH")"); else common+=(--set mesh.size="$size"); fi
[[ -n ${KEMPE_DMR_BACKEND:-} ]] && common+=(--backend "$KEMPE_DMR_BACKEND")
fronts="${KEMPE_DMR_FRONTS:-build/bin/kempe_dmr_fronts}"
mkdir -p "$out"
uniform="$out/double_mach_uniform.yaml"
bench/table10_case.sh "$uniform"
band=$(python3 -c "print($size / 4)")
runs=(uniform)
for interval in "${intervals[@]}"; do runs+=("adaptive_$interval"); done
for run in "${runs[@]}"; do
  case_file=cases/double_mach_amr.yaml
  extra=()
  [[ $run == uniform ]] && case_file="$uniform"
  [[ $run == adaptive_* && $run != adaptive_case ]] && extra=(--set adapt.interval="${run#adaptive_}")
  echo "== $run (start mesh size $size, finest cells $band)"
  "$kempe" run "$case_file" "${common[@]}" "${extra[@]}" --output "$out/$run" \
    | tee "$out/$run.log" | grep -E "^# (solver|done|adaptive mesh: [0-9])"
  last=$(ls "$out/$run"/*.vtu 2>/dev/null | sort | tail -1 || true)
  if [[ -n $last && -x $fronts ]]; then
    "$fronts" "$last" "$band" > "$out/$run.fronts" || echo "fronts not found in $last" > "$out/$run.fronts"
    cat "$out/$run.fronts"
  else
    echo "no .vtu output or no $fronts: fronts not measured" | tee "$out/$run.fronts"
  fi
done
python3 - "$out" "$band" "${runs[@]}" <<'PY'
import re, sys
out, band, runs = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
def summary(run):
    log = open(f"{out}/{run}.log").read()
    m = re.search(r"solve (?:(\d+)h)?(?:(\d+)m)?([\d.]+)s", log)
    solve = int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3))
    steps = float(re.search(r"([\d.e+]+) element-steps", log).group(1))
    share = re.search(r"([\d.]+)% of the solve time", log)
    words = open(f"{out}/{run}.fronts").read().split()
    fronts = {words[i]: float(words[i + 1]) for i in range(0, len(words) - 1, 2)} if words[0] == "t" else None
    return solve, steps, float(share.group(1)) if share else 0.0, fronts
keys = ("mach_stem_x", "triple_point_x", "triple_point_y")
def where(f):
    return f"{f['mach_stem_x']:.4f} | ({f['triple_point_x']:.4f}, {f['triple_point_y']:.4f})" if f else "not measured | not measured"
su, eu, _, fu = summary("uniform")
print(f"\nuniform: solve {su:.1f} s, {eu:.4g} element-steps; Mach stem x | triple point: {where(fu)}")
print("| run | solve (s) | element-steps | fewer element-steps | speed-up | adapting | Mach stem x | triple point | "
      "largest front shift (finest cells) |")
print("|---|---|---|---|---|---|---|---|---|")
for run in runs[1:]:
    s, e, share, f = summary(run)
    shift = f"{max(abs(f[k] - fu[k]) for k in keys) / band:.2f}" if f and fu else "not measured"
    print(f"| {run} | {s:.1f} | {e:.4g} | {eu / e:.1f}x | {su / s:.1f}x | {share:.1f} % | {where(f)} | {shift} |")
PY
