#!/usr/bin/env bash
# What shock capturing costs a step: one case run with positivity alone, the subcell blend, the blend with
# bounds on the subcell averages, those bounds with the repair of their overshoots (reach auto) and the vertex
# limiter, the five alternately ROUNDS times (noise only adds time, so each scheme's least time a step counts).
# Prints each run's summary line and a table: steps, least time a step, and the share of that step beyond
# positivity alone's.
# Usage: bench/capturing_cost.sh ROUNDS CASE [kempe run options...]
#   CASE a case file, or `table10`: the double Mach start mesh at 0.0152 refined twice everywhere (641,632
#   triangles, the mesh of Table 10 of Giuliani & Krivodonova 2017; the uniform run of bench/dmr_amr.sh).
# Environment: KEMPE (default build/bin/kempe).
# Examples: on the CPU machine, one thread:
#   OMP_NUM_THREADS=1 bench/capturing_cost.sh 5 cases/double_mach.yaml --set mesh.size=0.04 \
#     --set solver.order=2 --set time.end=0.04
# on the GPU machine (scripts/gpu-check, KEMPE_CAPTURING=1):
#   KEMPE=build-gpu/bin/kempe bench/capturing_cost.sh 2 table10 --backend cuda \
#     --set mesh.file=build-gpu/meshes/double_mach_amr.kmesh --set solver.order=2 --set time.end=0.01
set -euo pipefail
rounds=${1:?usage: bench/capturing_cost.sh ROUNDS CASE [kempe run options...]}
case_file=${2:?usage: bench/capturing_cost.sh ROUNDS CASE [kempe run options...]}
shift 2
kempe=${KEMPE:-build/bin/kempe}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $case_file == table10 ]]; then
  bench/table10_case.sh "$work/double_mach_uniform.yaml"
  case_file="$work/double_mach_uniform.yaml"
fi
declare -A schemes=(
  [positivity]="--set solver.limiter=none --set solver.shock_capturing=none"
  [subcell]="--set solver.limiter=none --set solver.shock_capturing=subcell --set solver.subcell_bounds=false"
  [bounded]="--set solver.limiter=none --set solver.shock_capturing=subcell --set solver.subcell_bounds=true --set solver.subcell_repair=false"
  [repaired]="--set solver.limiter=none --set solver.shock_capturing=subcell --set solver.subcell_bounds=true --set solver.subcell_repair=true --set solver.subcell_repair_reach=auto"
  [vertex]="--set solver.limiter=vertex --set solver.shock_capturing=none"
)
order=(positivity subcell bounded repaired vertex)
for round in $(seq 1 "$rounds"); do
  for scheme in "${order[@]}"; do
    # shellcheck disable=SC2086
    "$kempe" run "$case_file" "$@" ${schemes[$scheme]} --set output.interval=0 --output "$work/$scheme" \
      | grep -E "^# (solver|done)" | sed "s/^/[$round $scheme] /" | tee -a "$work/log"
  done
done
python3 - "$work/log" "${order[@]}" << 'PY'
import re, sys
log, order = open(sys.argv[1]).read(), sys.argv[2:]
# The shares come from the DOF rates (three digits; every scheme runs the same DOF and stages), the times a
# step from the solve times (a tenth of a second).
best = {}
for scheme, steps, minutes, seconds, rate in re.findall(
        r"\[\d+ (\w+)\] # done: t = \S+ after (\d+) steps; solve (?:(\d+)m)?([\d.]+)s, .*; ([\d.e+-]+) DOF updates", log):
    ms = 1000 * (60 * int(minutes or 0) + float(seconds)) / int(steps)
    old = best.get(scheme, (0, ms, 0.0))
    best[scheme] = (int(steps), min(ms, old[1]), max(float(rate), old[2]))
print("\n| scheme | steps | least ms a step | most DOF updates per second (per stage) | share of the step beyond positivity alone |")
print("|---|---|---|---|---|")
base = best["positivity"][2]
for scheme in order:
    steps, ms, rate = best[scheme]
    share = "" if scheme == "positivity" else f"{100 * (1 - rate / base):.1f} %"
    print(f"| {scheme} | {steps} | {ms:.3f} | {rate:.3g} | {share} |")
PY
