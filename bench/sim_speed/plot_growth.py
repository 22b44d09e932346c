"""Plots dtsim's growth with cluster size (issue 18): CPU (user) time and peak memory against GPUs, per fidelity
level and fabric, on log-log axes, each curve labelled with the exponent k of time ~ GPUs^k fitted (least squares
on logs, as growth.sh) over its runs from 1,024 GPUs on. CPU time, not wall time: the machine is shared, and
other engineers' builds stretch wall time by up to 3x (growth.csv keeps both).

Usage: /usr/bin/python3 bench/sim_speed/plot_growth.py bench/sim_speed/growth.csv docs/growth.png
(Debian's python3-matplotlib, as viz/plot.py)."""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def exponent(points):
    """Slope of log(y) against log(x) over the points from 1,024 GPUs on; None with fewer than two."""
    pts = [(math.log(x), math.log(y)) for x, y in points if x >= 1024 and y > 0]
    if len(pts) < 2:
        return None
    n = len(pts)
    sx = sum(p[0] for p in pts)
    sy = sum(p[1] for p in pts)
    sxx = sum(p[0] * p[0] for p in pts)
    sxy = sum(p[0] * p[1] for p in pts)
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def main(source, target):
    with open(source, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    curves = {}
    for r in rows:
        curves.setdefault((r["fabric"], r["level"]), []).append(r)
    fig, (time_ax, memory_ax) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"analytic": "o-", "flow": "s-", "message": "^-"}
    colours = {"fat_tree": "tab:blue", "star": "tab:orange"}
    for (fabric, level), runs in sorted(curves.items()):
        runs.sort(key=lambda r: int(r["gpus"]))
        gpus = [int(r["gpus"]) for r in runs]
        # A run too short for /usr/bin/time's 10 ms resolution counts as 10 ms.
        cpu = [max(float(r["user_s"]), 0.01) for r in runs]
        k = exponent(list(zip(gpus, cpu)))
        label = f"{fabric.replace('_', ' ')}, {level}" + (f" (k = {k:.2f})" if k is not None else "")
        style = dict(color=colours.get(fabric), markersize=4)
        time_ax.plot(gpus, cpu, styles.get(level, "x-"), label=label, **style)
        memory = [(g, float(r["rss_mib"])) for g, r in zip(gpus, runs) if r["rss_mib"]]
        if memory:
            memory_ax.plot([m[0] for m in memory], [m[1] for m in memory], styles.get(level, "x-"),
                           label=f"{fabric.replace('_', ' ')}, {level}", **style)
    for ax, what in ((time_ax, "CPU time, user (s)"), (memory_ax, "peak memory (MiB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("GPUs (workers)")
        ax.set_ylabel(what)
        ax.grid(True, which="major", alpha=0.3)
    time_ax.set_title("time ~ GPUs^k, k fitted from 1,024 GPUs on")
    memory_ax.set_title("peak RSS")
    time_ax.legend(fontsize=7)
    memory_ax.legend(fontsize=7)
    fig.suptitle("dtsim, one iteration of ResNet-50 (WFBP, ring), 2-core machine", fontsize=10)
    fig.tight_layout()
    fig.savefig(target, dpi=100, metadata={"Software": None})


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_growth.py GROWTH.csv OUT.png")
    main(sys.argv[1], sys.argv[2])
