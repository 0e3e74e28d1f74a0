#!/usr/bin/python3
"""Where a Riemann run's nodal density overshoots the exact range (.pvd or .vtu written with output.exact).

    where.py RUN.pvd                     the 15 largest overshoots (% of the exact range) and where they sit
    where.py RUN.pvd Y DY XA XB          the nodes with |y - Y| < DY and XA < x < XB, by x: density, exact, u, p
"""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader

path = sys.argv[1]
if path.endswith(".pvd"):
    sets = ET.parse(path).getroot().find("Collection").findall("DataSet")
    path = os.path.join(os.path.dirname(path), sets[-1].get("file"))
reader = vtkXMLUnstructuredGridReader()
reader.SetFileName(path)
reader.Update()
grid = reader.GetOutput()
data = grid.GetPointData()
x = vtk_to_numpy(grid.GetPoints().GetData())
rho, exact = vtk_to_numpy(data.GetArray("density")), vtk_to_numpy(data.GetArray("exact_density"))
if len(sys.argv) == 6:
    y0, dy, xa, xb = map(float, sys.argv[2:])
    u, p = vtk_to_numpy(data.GetArray("velocity"))[:, 0], vtk_to_numpy(data.GetArray("pressure"))
    rows = np.where((np.abs(x[:, 1] - y0) < dy) & (x[:, 0] > xa) & (x[:, 0] < xb))[0]
    for i in rows[np.argsort(x[rows, 0])]:
        print(f"x={x[i,0]:.4f} y={x[i,1]:.4f} rho={rho[i]:8.3f} exact={exact[i]:8.3f} u={u[i]:7.3f} p={p[i]:9.2f}")
    sys.exit()
low, high = exact.min(), exact.max()
over = (rho - high) / (high - low) * 100
for i in np.argsort(-over)[:15]:
    print(f"{over[i]:6.2f}%  x={x[i,0]:.4f} y={x[i,1]:.4f} rho={rho[i]:.3f}")
ys = x[:, 1]
wall = (np.abs(ys - ys.min()) < 1e-9) | (np.abs(ys - ys.max()) < 1e-9)
print("max at wall nodes %.2f%%, interior nodes %.2f%%" % (over[wall].max(), over[~wall].max()))
