#!/usr/bin/python3
"""Where test 3's contact lies across a run's channel: for each of ten bands of y, the first node from the left
(x in [0.7, 0.77]) whose density exceeds 3.29 (halfway across the contact), at the run's last output.
Usage: contact_bands.py RUN.pvd"""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader

pvd = sys.argv[1]
last = ET.parse(pvd).getroot().find("Collection").findall("DataSet")[-1].get("file")
reader = vtkXMLUnstructuredGridReader()
reader.SetFileName(os.path.join(os.path.dirname(pvd), last))
reader.Update()
points = vtk_to_numpy(reader.GetOutput().GetPoints().GetData())
rho = vtk_to_numpy(reader.GetOutput().GetPointData().GetArray("density"))
x, y = points[:, 0], points[:, 1]
height, bands = y.max(), 10
for k in range(bands):
    m = (y >= k * height / bands) & (y <= (k + 1) * height / bands) & (x > 0.7) & (x < 0.77)
    order = np.argsort(x[m])
    xs, rs = x[m][order], rho[m][order]
    print("y %.3f-%.3f: %.4f" % (k * height / bands, (k + 1) * height / bands, xs[int(np.argmax(rs > 3.29))]))
