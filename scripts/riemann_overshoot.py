#!/usr/bin/python3
"""Over- and undershoots of a Riemann-problem run's point values (.pvd or .vtu), beyond the exact solution.

For density, x-velocity and pressure: how far the run's point values (the VTU's nodes, where ParaView draws the
solution) reach above the exact solution's largest value or below its smallest, in % of the exact solution's
range at that time. The exact solution is the one the run wrote beside its own (`output.exact`). Values beyond
the exact range are new extrema of the scheme: an over- or undershoot at a shock or contact shows here, and a
smooth run gives 0. Overshoots that stay inside the exact range (between two plateaus) do not show, so this is
a lower bound on the largest overshoot.

    scripts/riemann_overshoot.py output/toro5/toro5.pvd
    density 39.7 velocity 325.6 pressure 148.4   (percent)
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

try:
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
except ImportError as error:  # VTK's Python module, and NumPy, which its numpy_support needs
    sys.exit(f"scripts/riemann_overshoot.py: needs the Debian packages python3-vtk9 and python3-numpy ({error})")


def last_data_set(path):
    if not path.endswith(".pvd"):
        return path
    sets = ET.parse(path).getroot().find("Collection").findall("DataSet")
    return os.path.join(os.path.dirname(path), sets[-1].get("file"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help=".pvd (its last output) or .vtu written by kempe run")
    args = parser.parse_args()
    path = last_data_set(args.input)
    reader = vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput().GetPointData()
    if data.GetArray("exact_density") is None:
        sys.exit(f"{path} holds no exact solution: run the case with output.exact (e.g. --set output.exact=sod)")
    out = []
    for name in ("density", "velocity", "pressure"):
        run, exact = vtk_to_numpy(data.GetArray(name)), vtk_to_numpy(data.GetArray("exact_" + name))
        if run.ndim > 1:
            run, exact = run[:, 0], exact[:, 0]
        low, high = float(exact.min()), float(exact.max())
        beyond = max(0.0, float(run.max()) - high, low - float(run.min()))
        out.append(f"{name} {100 * beyond / (high - low):.1f}" if high > low else f"{name} -")
    print(" ".join(out))


if __name__ == "__main__":
    main()
