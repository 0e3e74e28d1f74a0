#!/usr/bin/env bash
# The five Riemann problems of ../shared/reference/cases.md as a user runs them (cases/sod.yaml, toro2-5.yaml: the
# Gmsh channel [0, 1] x [0, 0.1], exact states at the ends, HLL, positivity limiter), at one mesh size, with the
# vertex limiter at p = 1, the entropy filter at p = 2 and subcell shock capturing at p = 1..4. Prints one table
# row per case: the L1 density error against the exact solution at the end time (the case's `output.exact`),
# each configuration's ratio to the vertex limiter's p = 1 and, in square brackets, the largest over- and
# undershoots of the point values of density, velocity and pressure beyond the exact solution's range, in % of it
# (scripts/riemann_overshoot.py; the Debian packages python3-vtk9 and python3-numpy).
# Usage: bench/shock_tubes.sh [SIZE] [OUTDIR]   (defaults 0.01, about 100 elements along the channel, and
#   /tmp/kempe_shock_tubes; the cases' own size is 0.005). CONFIGS="order:limiter:shock_capturing[:subcell_order[:bounds]] ..."
#   overrides the columns (subcell_order 1 and solver.subcell_bounds false unless given; bounds `true` or `false`).
set -euo pipefail
size="${1:-0.01}"
out="${2:-/tmp/kempe_shock_tubes}"
kempe="${KEMPE:-build/bin/kempe}"
configs=(${CONFIGS:-1:vertex:none 2:entropy_filter:none 1:none:subcell 2:none:subcell 3:none:subcell 4:none:subcell})
mkdir -p "$out"
header="| case |"
rule="|---|"
for config in "${configs[@]}"; do
  IFS=: read -r order limiter capturing subcells bounds <<< "$config"
  [[ $capturing == none ]] && header+=" $limiter p = $order |" || header+=" $capturing p = $order |"
  [[ ${subcells:-1} == 2 ]] && header="${header% |}, second-order subcells |"
  [[ ${bounds:-false} == true ]] && header="${header% |}, bounds |"
  rule+="---|"
done
echo "$header"
echo "$rule"
for case in sod toro2 toro3 toro4 toro5; do
  row="| $case |"
  base=""
  for config in "${configs[@]}"; do
    IFS=: read -r order limiter capturing subcells bounds <<< "$config"
    log="$out/${case}_p${order}_${limiter}_${capturing}_${subcells:-1}_${bounds:-false}.txt"
    "$kempe" run "cases/$case.yaml" --set mesh.size="$size" --set solver.order="$order" --set solver.limiter="$limiter" \
      --set solver.shock_capturing="$capturing" --set solver.subcell_order="${subcells:-1}" \
      --set solver.subcell_bounds="${bounds:-false}" --output "$out/$case" > "$log" 2>&1
    error=$(grep "density error" "$log" | tail -1 | sed 's/.*L1 \([^,]*\),.*/\1/')
    [[ -z $base ]] && base=$error
    spill=$(scripts/riemann_overshoot.py "$out/$case/$case.pvd" | awk '{print $2 "/" $4 "/" $6}')
    row+=" $(python3 -c "print('%.3e (%.2f)' % ($error, $error / $base))") [$spill %] |"
  done
  echo "$row"
done
