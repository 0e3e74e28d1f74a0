#!/usr/bin/python3
"""Plots density, velocity and pressure of a Riemann-problem run (.pvd or .vtu) against the exact solution.

Reads our own VTK output (Debian's python3-vtk9) and draws with matplotlib (python3-matplotlib). The exact
solution is the one the run wrote beside its own (exact_density, exact_velocity, exact_pressure: a case with
`output.exact`, kernels/riemann_K.hpp), so there is one exact Riemann solver in the project. Every point of the
output is drawn (the channel's solution does not depend on y), and the L1 density error (the average over the
points of |rho - rho_exact|) is printed and written in the title.

    scripts/plot_riemann.py output/sod/sod.pvd docs/cases/sod.png
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader  # noqa: E402


def last_data_set(path):
    if not path.endswith(".pvd"):
        return path, None
    sets = ET.parse(path).getroot().find("Collection").findall("DataSet")
    return os.path.join(os.path.dirname(path), sets[-1].get("file")), float(sets[-1].get("timestep"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help=".pvd or .vtu written by kempe run")
    parser.add_argument("png")
    parser.add_argument("--time", type=float, help="the output's time (read from the .pvd when not given)")
    parser.add_argument("--title", default="")
    args = parser.parse_args()

    path, time = last_data_set(args.input)
    time = args.time if args.time is not None else time
    if time is None:
        sys.exit("give --time for a single .vtu")
    reader = vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    x = vtk_to_numpy(grid.GetPoints().GetData())[:, 0]
    data = grid.GetPointData()
    if data.GetArray("exact_density") is None:
        sys.exit(f"{path} holds no exact solution: run the case with output.exact (e.g. --set output.exact=sod)")
    fields, exact = {}, {}
    for name in ("density", "velocity", "pressure"):
        fields[name] = vtk_to_numpy(data.GetArray(name))
        exact[name] = vtk_to_numpy(data.GetArray("exact_" + name))
    fields["velocity"], exact["velocity"] = fields["velocity"][:, 0], exact["velocity"][:, 0]
    l1 = sum(abs(d - e) for d, e in zip(fields["density"], exact["density"])) / len(x)
    order = sorted(range(len(x)), key=lambda i: x[i])  # the exact solution as a line along x
    line = [x[i] for i in order]

    figure, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for axis, name in zip(axes, ("density", "velocity", "pressure")):
        axis.plot(x, fields[name], ".", markersize=1.5, color="tab:blue", label="Kempe")
        axis.plot(line, [exact[name][i] for i in order], "-", linewidth=1, color="black", label="exact")
        axis.set_title(name)
        axis.set_xlabel("x")
    axes[0].legend(loc="best", fontsize=8)
    figure.suptitle(f"{args.title}  t = {time:g}, L1 density error {l1:.3e}".strip(), fontsize=10)
    figure.tight_layout()
    figure.savefig(args.png, dpi=110)
    print(f"wrote {args.png}: {len(x)} points at t = {time:g}; L1 density error {l1:.4e}")


if __name__ == "__main__":
    main()
