#!/usr/bin/env bash
# The shock tubes of cases/sod.yaml, toro2-5.yaml (HLL, their solver sections: the bounded subcell blend at
# p = 2, test 5 with the repair) on the strip of 96 x 2 squares in three forms (strip_msh.py) and on a Gmsh strip
# of as many triangles, at time.cfl 0.5 as the strip tests run: the vertex limiter's p = 1, the cases' scheme at
# p = 2 and 3. Prints per run the L1 density error, the output's density / velocity / pressure beyond the exact
# range (%, scripts/riemann_overshoot.py) and where test 3's contact crosses density 3.29 at each lattice row.
# Usage (from the repository root): bench/results/2026-12-02-strip-orientation/strip_orientation.sh [OUTDIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-/tmp/kempe_strip_orientation}"
kempe="${KEMPE:-build/bin/kempe}"
mkdir -p "$out"
python3 "$here/strip_msh.py" 96 "$out/tests.msh" tests
python3 "$here/strip_msh.py" 96 "$out/column.msh" column
python3 "$here/strip_msh.py" 96 "$out/mirrored.msh" mirrored
for c in sod toro2 toro3 toro4 toro5; do
  python3 - "$c" "$out" <<'PY'
import sys
c, out = sys.argv[1], sys.argv[2]
s = open("cases/%s.yaml" % c).read()
walls = "  walls:\n    condition: wall\n"
assert "  file: riemann_channel.geo\n  size: 0.005\n" in s and walls in s
def write(name, mesh, bottom_top):
    open("%s/%s_%s.yaml" % (out, name, c), "w").write(
        s.replace("  file: riemann_channel.geo\n  size: 0.005\n", mesh).replace(walls, bottom_top))
wall_pair = "  bottom:\n    condition: wall\n  top:\n    condition: wall\n"
periodic_pair = ("  bottom:\n    condition: periodic\n    partner: top\n"
                 "  top:\n    condition: periodic\n    partner: bottom\n")
write("tests", "  file: %s/tests.msh\n" % out, wall_pair)
write("periodic", "  file: %s/column.msh\n" % out, periodic_pair)
write("mirrored", "  file: %s/mirrored.msh\n" % out, wall_pair)
write("gmsh", "  generator: rectangle\n  width: 1\n  height: 0.0208333333333333333\n  elements: 384\n", wall_pair)
PY
done
run() {  # mesh: every case, three configurations
  local mesh=$1
  for c in sod toro2 toro3 toro4 toro5; do
    for config in "v1|--set solver.order=1 --set solver.limiter=vertex --set solver.shock_capturing=none" "s2|" "s3|--set solver.order=3"; do
      local tag=${config%%|*} sets=${config#*|}
      local dir="$out/${mesh}_${c}_$tag"
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=1 "$kempe" run "$out/${mesh}_$c.yaml" --set time.cfl=0.5 $sets --output "$dir" > "$dir.log" 2>&1
      local error spill
      error=$(grep "density error" "$dir.log" | tail -1 | sed 's/.*L1 \([^,]*\),.*/\1/')
      spill=$(scripts/riemann_overshoot.py "$dir/${mesh}_$c.pvd" | awk '{print $2 "/" $4 "/" $6}')
      echo "$mesh $c $tag L1 $error [$spill %]"
    done
  done
}
(run tests; run periodic) > "$out/a.txt" &
(run mirrored; run gmsh) > "$out/b.txt"
wait
cat "$out/a.txt" "$out/b.txt"
echo
echo "Test 3's contact (exact: x = 0.7352): first x of each node row (y) where density exceeds 3.29, left to right"
for dir in "$out"/*_toro3_*/; do
  python3 - "$dir" <<'PY'
import os, sys, glob
import xml.etree.ElementTree as ET
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
d = sys.argv[1]
pvd = glob.glob(os.path.join(d, "*.pvd"))[0]
last = ET.parse(pvd).getroot().find("Collection").findall("DataSet")[-1].get("file")
r = vtkXMLUnstructuredGridReader(); r.SetFileName(os.path.join(d, last)); r.Update()
p = vtk_to_numpy(r.GetOutput().GetPoints().GetData()); rho = vtk_to_numpy(r.GetOutput().GetPointData().GetArray("density"))
x, y = p[:, 0], p[:, 1]
cells = []
for level in np.linspace(0, y.max(), 5):
    m = (np.abs(y - level) < 1e-4) & (x > 0.6) & (x < 0.77)
    if not m.any():
        continue
    order = np.argsort(x[m]); xs, rs = x[m][order], rho[m][order]
    k = int(np.argmax(rs > 3.29))
    cells.append("y %.4f: %.4f" % (level, xs[k]))
print(os.path.basename(os.path.normpath(d)), " | ".join(cells))
PY
done
