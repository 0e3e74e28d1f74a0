#!/usr/bin/python3
import sys, os, xml.etree.ElementTree as ET
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
p = sys.argv[1]
if p.endswith(".pvd"):
    s = ET.parse(p).getroot().find("Collection").findall("DataSet")
    p = os.path.join(os.path.dirname(p), s[-1].get("file"))
r = vtkXMLUnstructuredGridReader(); r.SetFileName(p); r.Update()
o = r.GetOutput(); d = o.GetPointData()
x = vtk_to_numpy(o.GetPoints().GetData())
rho = vtk_to_numpy(d.GetArray("density")); ex = vtk_to_numpy(d.GetArray("exact_density"))
lo, hi = ex.min(), ex.max()
over = (rho - hi) / (hi - lo) * 100
idx = np.argsort(-over)[:15]
for i in idx: print(f"{over[i]:6.2f}%  x={x[i,0]:.4f} y={x[i,1]:.4f} rho={rho[i]:.3f}")
ys = x[:,1]; ymin, ymax = ys.min(), ys.max()
wall = (np.abs(ys - ymin) < 1e-9) | (np.abs(ys - ymax) < 1e-9)
print("max at wall nodes %.2f%%, interior nodes %.2f%%" % (over[wall].max(), over[~wall].max()))
