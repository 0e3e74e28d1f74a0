#!/usr/bin/env bash
# After strip_orientation.sh (same OUTDIR): test 3 on the strip with every row alike (column.msh), walls against
# periodic top and bottom, with the DG scheme alone (positivity only), the blend without bounds and the vertex
# limiter, all at p = 2; and a smooth density pulse carried once around the strip (periodic ends) at p = 2,
# walls (the tests' strip) against periodic top and bottom (column.msh): mean and largest nodal density error
# against the initial state, and the largest transverse velocity.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-/tmp/kempe_strip_orientation}"
kempe="${KEMPE:-build/bin/kempe}"
sed "s|$out/tests.msh|$out/column.msh|" "$out/tests_toro3.yaml" > "$out/column_walls_toro3.yaml"
for mesh in column_walls periodic; do
  for config in "dg|--set solver.shock_capturing=none" "blend|--set solver.subcell_bounds=false" \
                "vertex|--set solver.shock_capturing=none --set solver.limiter=vertex"; do
    tag=${config%%|*} sets=${config#*|}
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$kempe" run "$out/${mesh}_toro3.yaml" --set time.cfl=0.5 $sets --output "$out/x_${mesh}_$tag" > "$out/x_${mesh}_$tag.log" 2>&1
    echo "test 3, p = 2, $mesh, $tag: L1 $(grep "density error" "$out/x_${mesh}_$tag.log" | tail -1 | sed 's/.*L1 \([^,]*\),.*/\1/')"
  done
done
for mesh in tests column; do
  if [[ $mesh == tests ]]; then pair="  bottom:\n    condition: wall\n  top:\n    condition: wall\n"
  else pair="  bottom:\n    condition: periodic\n    partner: top\n  top:\n    condition: periodic\n    partner: bottom\n"; fi
  printf "mesh:\n  file: $out/$mesh.msh\ninitial:\n  function: expression\n  density: \"1 + 0.5 * exp(-((x - 0.5) / 0.05)^2)\"\n  velocity_x: \"1\"\n  velocity_y: \"0\"\n  pressure: \"1\"\nboundaries:\n  left:\n    condition: periodic\n    partner: right\n  right:\n    condition: periodic\n    partner: left\n${pair}solver:\n  order: 2\n  flux: hll\n  positivity: 0\ntime:\n  end: 1\n  cfl: 0.5\noutput:\n  interval: 1\n" > "$out/pulse_$mesh.yaml"
  OMP_NUM_THREADS=1 "$kempe" run "$out/pulse_$mesh.yaml" --output "$out/pulse_$mesh" > "$out/pulse_$mesh.log" 2>&1
  python3 - "$out/pulse_$mesh/pulse_$mesh.pvd" "$mesh" <<'PY'
import os, sys
import xml.etree.ElementTree as ET
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
pvd = sys.argv[1]
last = ET.parse(pvd).getroot().find("Collection").findall("DataSet")[-1].get("file")
r = vtkXMLUnstructuredGridReader(); r.SetFileName(os.path.join(os.path.dirname(pvd), last)); r.Update()
x = vtk_to_numpy(r.GetOutput().GetPoints().GetData())[:, 0]
rho = vtk_to_numpy(r.GetOutput().GetPointData().GetArray("density"))
v = vtk_to_numpy(r.GetOutput().GetPointData().GetArray("velocity"))[:, 1]
error = np.abs(rho - (1 + 0.5 * np.exp(-((x - 0.5) / 0.05) ** 2)))
print("pulse, p = 2, %s strip: mean %.3e, largest %.3e, largest |v| %.1e" % (sys.argv[2], error.mean(), error.max(), np.abs(v).max()))
PY
done
