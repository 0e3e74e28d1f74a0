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

With --where it says, for each variable, where the nodes beyond the exact range by more than --threshold % lie
along x, and which wave of the exact solution is nearest: a shock (density and pressure jump), a contact
(density jumps, pressure does not), or the head or tail of a rarefaction fan (where the exact solution starts or
stops varying continuously), with the signed distance from it (negative: to its left).

    scripts/riemann_overshoot.py --where output/toro3/toro3.pvd
    density 1.4 velocity 3.0 pressure 0.0
    waves: 0.0506 rarefaction head, 0.3337 rarefaction tail, 0.7352 contact, 0.7822 shock
    density 1.4 % at x 0.7793-0.7817: shock at 0.7822 (-0.0005)
    velocity 3.0 % at x 0.3425-0.3725: rarefaction tail at 0.3337 (+0.0088)
    velocity 1.3 % at x 0.7793-0.7793: shock at 0.7822 (-0.0029)
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


def exact_waves(x, exact):
    """The exact solution's waves along x: [(position, kind)], kind shock, contact, rarefaction head or tail.

    exact: {name: node values}. A jump is a step between neighbouring node positions of more than 5 % of the
    variable's range; a fan is a run of smaller nonzero steps of velocity, its ends the rarefaction's head (the
    side of the undisturbed state it runs into) and tail."""
    import numpy as np
    positions, first = np.unique(np.round(x, 9), return_index=True)
    steps = {}
    for name, values in exact.items():
        along = values[first]
        span = float(along.max() - along.min()) or 1.0
        steps[name] = np.abs(np.diff(along)) / span
    waves = []
    for i in range(len(positions) - 1):
        if steps["density"][i] > 0.05 or steps["pressure"][i] > 0.05:
            kind = "shock" if steps["pressure"][i] > 0.05 else "contact"
            waves.append((0.5 * (positions[i] + positions[i + 1]), kind))
    varying = (steps["velocity"] > 1e-12) & (steps["velocity"] <= 0.05)
    i = 0
    while i < len(varying):
        if not varying[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(varying) and varying[j + 1]:
            j += 1
        if j > i:  # a fan: two or more continuous steps
            # the head runs into the undisturbed state, whose pressure is the higher one across a fan
            head_left = float(exact["pressure"][first][i]) > float(exact["pressure"][first][j + 1])
            waves.append((positions[i], "rarefaction head" if head_left else "rarefaction tail"))
            waves.append((positions[j + 1], "rarefaction tail" if head_left else "rarefaction head"))
        i = j + 1
    return sorted(waves)


def where(x, run, exact, low, high, threshold, waves):
    """Groups of nodes beyond [low, high] by more than threshold % of high - low, as (x from, x to, largest %)."""
    import numpy as np
    beyond = 100 * np.maximum(run - high, low - run) / (high - low)
    found = np.unique(np.round(x[beyond > threshold], 4))
    groups = []
    for position in found:
        if groups and position - groups[-1][1] < 0.006:
            groups[-1][1] = position
        else:
            groups.append([position, position])
    out = []
    for start, end in groups:
        inside = (x >= start - 5e-5) & (x <= end + 5e-5)
        largest = float(beyond[inside].max())
        line = f"{largest:.1f} % at x {start:.4f}-{end:.4f}"
        if waves:
            position, kind = min(waves, key=lambda w: min(abs(w[0] - start), abs(w[0] - end)))
            distance = start - position if abs(start - position) < abs(end - position) else end - position
            line += f": {kind} at {position:.4f} ({distance:+.4f})"
        out.append(line)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help=".pvd (its last output) or .vtu written by kempe run")
    parser.add_argument("--where", action="store_true", help="where along x the overshoots lie, and the nearest wave")
    parser.add_argument("--threshold", type=float, default=1.0, help="with --where: the least overshoot shown, %% (1)")
    args = parser.parse_args()
    path = last_data_set(args.input)
    reader = vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput().GetPointData()
    if data.GetArray("exact_density") is None:
        sys.exit(f"{path} holds no exact solution: run the case with output.exact (e.g. --set output.exact=sod)")
    out, runs, exacts = [], {}, {}
    for name in ("density", "velocity", "pressure"):
        run, exact = vtk_to_numpy(data.GetArray(name)), vtk_to_numpy(data.GetArray("exact_" + name))
        if run.ndim > 1:
            run, exact = run[:, 0], exact[:, 0]
        runs[name], exacts[name] = run, exact
        low, high = float(exact.min()), float(exact.max())
        beyond = max(0.0, float(run.max()) - high, low - float(run.min()))
        out.append(f"{name} {100 * beyond / (high - low):.1f}" if high > low else f"{name} -")
    print(" ".join(out))
    if args.where:
        x = vtk_to_numpy(reader.GetOutput().GetPoints().GetData())[:, 0]
        waves = exact_waves(x, exacts)
        print("waves: " + (", ".join(f"{position:.4f} {kind}" for position, kind in waves) or "none"))
        for name in ("density", "velocity", "pressure"):
            low, high = float(exacts[name].min()), float(exacts[name].max())
            if high > low:
                for line in where(x, runs[name], exacts[name], low, high, args.threshold, waves):
                    print(f"{name} {line}")


if __name__ == "__main__":
    main()
