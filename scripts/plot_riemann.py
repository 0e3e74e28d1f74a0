#!/usr/bin/python3
"""Plots density, velocity and pressure of a Riemann-problem run (.pvd or .vtu) against the exact solution.

Reads our own VTK output (Debian's python3-vtk9) and draws with matplotlib (python3-matplotlib). The exact
solution is Toro's (Riemann Solvers and Numerical Methods for Fluid Dynamics, ch. 4): Newton's method for the
star pressure, then sampling. Every point of the output is drawn (the channel's solution does not depend on y),
and the L1 density error per unit length is printed and written in the title.

    scripts/plot_riemann.py output/sod/sod.pvd docs/cases/sod.png --left 1 0 1 --right 0.125 0 0.1
"""
import argparse
import math
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


class ExactRiemann:
    """Toro's exact solver for the one-dimensional Euler equations of an ideal gas."""

    def __init__(self, left, right, gamma):
        self.gamma = gamma
        (self.rl, self.ul, self.pl), (self.rr, self.ur, self.pr) = left, right
        self.cl = math.sqrt(gamma * self.pl / self.rl)
        self.cr = math.sqrt(gamma * self.pr / self.rr)
        self.p_star, self.u_star = self._star()

    def _f(self, p, r, pk, ck):
        g = self.gamma
        if p > pk:  # shock
            a, b = 2 / ((g + 1) * r), (g - 1) / (g + 1) * pk
            return (p - pk) * math.sqrt(a / (p + b)), math.sqrt(a / (b + p)) * (1 - (p - pk) / (2 * (b + p)))
        ratio = p / pk  # rarefaction
        return 2 * ck / (g - 1) * (ratio ** ((g - 1) / (2 * g)) - 1), ratio ** (-(g + 1) / (2 * g)) / (r * ck)

    def _star(self):
        p = max(1e-12, 0.5 * (self.pl + self.pr))
        for _ in range(100):
            fl, dl = self._f(p, self.rl, self.pl, self.cl)
            fr, dr = self._f(p, self.rr, self.pr, self.cr)
            step = (fl + fr + self.ur - self.ul) / (dl + dr)
            p_new = max(1e-14, p - step)
            if abs(p_new - p) < 1e-14 * (p_new + p):
                p = p_new
                break
            p = p_new
        fl, _ = self._f(p, self.rl, self.pl, self.cl)
        fr, _ = self._f(p, self.rr, self.pr, self.cr)
        return p, 0.5 * (self.ul + self.ur) + 0.5 * (fr - fl)

    def sample(self, s):
        """(rho, u, p) at x / t = s."""
        g, ps, us = self.gamma, self.p_star, self.u_star
        if s <= us:  # left of the contact
            r, u, p, c = self.rl, self.ul, self.pl, self.cl
            if ps > p:  # left shock
                speed = u - c * math.sqrt((g + 1) / (2 * g) * ps / p + (g - 1) / (2 * g))
                if s < speed:
                    return r, u, p
                return r * ((ps / p + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ps / p + 1)), us, ps
            c_star = c * (ps / p) ** ((g - 1) / (2 * g))
            if s < u - c:
                return r, u, p
            if s > us - c_star:
                return r * (ps / p) ** (1 / g), us, ps
            factor = 2 / (g + 1) + (g - 1) / ((g + 1) * c) * (u - s)
            return r * factor ** (2 / (g - 1)), 2 / (g + 1) * (c + (g - 1) / 2 * u + s), p * factor ** (2 * g / (g - 1))
        r, u, p, c = self.rr, self.ur, self.pr, self.cr
        if ps > p:  # right shock
            speed = u + c * math.sqrt((g + 1) / (2 * g) * ps / p + (g - 1) / (2 * g))
            if s > speed:
                return r, u, p
            return r * ((ps / p + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ps / p + 1)), us, ps
        c_star = c * (ps / p) ** ((g - 1) / (2 * g))
        if s > u + c:
            return r, u, p
        if s < us + c_star:
            return r * (ps / p) ** (1 / g), us, ps
        factor = 2 / (g + 1) - (g - 1) / ((g + 1) * c) * (u - s)
        return r * factor ** (2 / (g - 1)), 2 / (g + 1) * (-c + (g - 1) / 2 * u + s), p * factor ** (2 * g / (g - 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help=".pvd or .vtu written by kempe run")
    parser.add_argument("png")
    parser.add_argument("--left", type=float, nargs=3, required=True, metavar=("RHO", "U", "P"))
    parser.add_argument("--right", type=float, nargs=3, required=True, metavar=("RHO", "U", "P"))
    parser.add_argument("--x0", type=float, default=0.5, help="the diaphragm")
    parser.add_argument("--gamma", type=float, default=1.4)
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
    fields = {name: vtk_to_numpy(grid.GetPointData().GetArray(name)) for name in ("density", "velocity", "pressure")}
    fields["velocity"] = fields["velocity"][:, 0]

    exact = ExactRiemann(args.left, args.right, args.gamma)
    line = [min(x) + (max(x) - min(x)) * i / 2000 for i in range(2001)]
    exact_line = [exact.sample((xi - args.x0) / time) if time > 0 else None for xi in line]
    exact_points = [exact.sample((xi - args.x0) / time)[0] for xi in x]
    l1 = sum(abs(d - e) for d, e in zip(fields["density"], exact_points)) / len(x)

    figure, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for axis, (k, name) in zip(axes, enumerate(("density", "velocity", "pressure"))):
        axis.plot(x, fields[name], ".", markersize=1.5, color="tab:blue", label="Kempe")
        axis.plot(line, [e[k] for e in exact_line], "-", linewidth=1, color="black", label="exact")
        axis.set_title(name)
        axis.set_xlabel("x")
    axes[0].legend(loc="best", fontsize=8)
    figure.suptitle(f"{args.title}  t = {time:g}, L1 density error {l1:.3e}".strip(), fontsize=10)
    figure.tight_layout()
    figure.savefig(args.png, dpi=110)
    print(f"wrote {args.png}: {len(x)} points at t = {time:g}; L1 density error {l1:.4e}; "
          f"exact p* = {exact.p_star:.6g}, u* = {exact.u_star:.6g}")


if __name__ == "__main__":
    main()
