#!/usr/bin/env bash
# Writes OUT.yaml: cases/double_mach_amr.yaml refined everywhere to its finest level once, before the first step,
# and never adapted again (a box indicator over the whole domain, no buffer): at the case's start mesh size 0.0152
# the 641,632-triangle uniform mesh of Table 10 of Giuliani & Krivodonova, "Face coloring in unstructured CFD
# codes", Parallel Computing 2017. Copies cases/double_mach.geo beside it.
# Usage: bench/table10_case.sh OUT.yaml
set -euo pipefail
out=${1:?usage: bench/table10_case.sh OUT.yaml}
root="$(dirname "$0")/.."
sed -e 's/^  indicator: density_jump/  indicator: box\n  boxes: [-1, -1, 5, 2]/' -e '/^  refine_above:/d' -e '/^  coarsen_below:/d' \
    -e '/^adapt:/,/^[a-z]/ s/^  interval: [0-9]*$/  interval: 1000000000/' -e 's/^  buffer: [0-9]*/  buffer: 0/' \
    "$root/cases/double_mach_amr.yaml" > "$out"
cp "$root/cases/double_mach.geo" "$(dirname "$out")/"
