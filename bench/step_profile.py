"""Reads Nsight Compute's raw CSV of STEPS identical time steps (gpu__time_duration.sum per kernel) and prints
the launches of one step in order with their mean time, then the time per step by kernel.
Usage: python3 bench/step_profile.py RAW.csv STEPS"""
import collections
import csv
import re
import sys


def short_name(name):
    """The functor a forall launch runs (kempe::detail::forall_kernel<kempe::dg::EvalSurface<...>>, or F of
    StopGuard<Real, F>), else the kernel's own name (CUB's DeviceReduceKernel, ...)."""
    # A launch inside a step goes through StopGuard<Real, F>: name F.
    m = re.search(r"StopGuard<\s*\w+\s*,\s*((?:\w+::)*)(\w+)", name) or re.search(
        r"forall_kernel<\s*(?:const\s+)?((?:\w+::)*)(\w+)", name)
    if m:
        return m.group(2)
    m = re.search(r"(\w+)\s*(?:<|\()", name.replace("void ", "", 1))
    return m.group(1) if m else name


def main():
    path, steps = sys.argv[1], int(sys.argv[2])
    lines = open(path).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(lines[start:]))
    header, units, data = rows[0], rows[1], rows[2:]
    name_col, time_col = header.index("Kernel Name"), header.index("gpu__time_duration.sum")
    scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "ns": 1e-3, "us": 1.0, "ms": 1e3}[units[time_col]]
    launches = [(short_name(r[name_col]), float(r[time_col].replace(",", "")) * scale) for r in data if len(r) > time_col]
    total = sum(t for _, t in launches)
    print(f"{len(launches)} launches in {steps} steps; kernels' time {total / steps:.1f} us per step")
    by_name = collections.OrderedDict()
    for name, t in launches:
        by_name.setdefault(name, [0, 0.0])
        by_name[name][0] += 1
        by_name[name][1] += t
    if len(launches) % steps == 0:
        period = len(launches) // steps
        step = [launches[k * period:(k + 1) * period] for k in range(steps)]
        if all([n for n, _ in s] == [n for n, _ in step[0]] for s in step):
            print("\n| launch | kernel | us (mean over the steps) | share of the step |\n|---|---|---|---|")
            for j in range(period):
                mean = sum(s[j][1] for s in step) / steps
                print(f"| {j + 1} | {step[0][j][0]} | {mean:.1f} | {100 * mean * steps / total:.1f} % |")
    print("\n| kernel | launches per step | us per step | share of the step |\n|---|---|---|---|")
    for name, (count, t) in sorted(by_name.items(), key=lambda item: -item[1][1]):
        print(f"| {name} | {count / steps:g} | {t / steps:.1f} | {100 * t / total:.1f} % |")


main()
