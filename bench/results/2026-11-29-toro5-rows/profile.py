#!/usr/bin/python3
import sys, os, xml.etree.ElementTree as ET
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
p = sys.argv[1]; y0 = float(sys.argv[2]); dy = float(sys.argv[3]); xa, xb = float(sys.argv[4]), float(sys.argv[5])
if p.endswith(".pvd"):
    s = ET.parse(p).getroot().find("Collection").findall("DataSet")
    p = os.path.join(os.path.dirname(p), s[-1].get("file"))
r = vtkXMLUnstructuredGridReader(); r.SetFileName(p); r.Update()
o = r.GetOutput(); d = o.GetPointData()
x = vtk_to_numpy(o.GetPoints().GetData())
names = [d.GetArrayName(i) for i in range(d.GetNumberOfArrays())]
rho = vtk_to_numpy(d.GetArray("density")); pr = vtk_to_numpy(d.GetArray("pressure")); u = vtk_to_numpy(d.GetArray("velocity"))[:,0]
ex = vtk_to_numpy(d.GetArray("exact_density"))
sel = (np.abs(x[:,1]-y0) < dy) & (x[:,0] > xa) & (x[:,0] < xb)
idx = np.where(sel)[0]; idx = idx[np.argsort(x[idx,0])]
for i in idx: print(f"x={x[i,0]:.4f} y={x[i,1]:.4f} rho={rho[i]:8.3f} exact={ex[i]:8.3f} u={u[i]:7.3f} p={pr[i]:9.2f}")
