"""dtsim plots: `dtsim plot RESULTS` runs this with Debian's python3-matplotlib.

RESULTS is a run folder (report.json, optionally timeline.json) or a sweep folder (results.csv). Every plot is
written as PNG and SVG into the output folder; the file names are printed, one per line.
  run:   breakdown (stacked per iteration), gantt (per-worker timeline of the last iteration), training (test
         loss and accuracy against simulated time, numerics mode)
  sweep: scaling (samples/s and efficiency against workers, one line per other setting), breakdown (stacked
         per point), heatmap (mean iteration time over the first two swept keys)
"""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PHASES = [("forward_s", "forward", "#4c72b0"), ("backward_s", "backward", "#55a868"),
          ("update_s", "update", "#8172b2"), ("exposed_comm_s", "exposed communication", "#c44e52"),
          ("idle_s", "idle", "#cccccc")]
LANE_COLOURS = {"forward": "#4c72b0", "backward": "#55a868", "update": "#8172b2", "comm": "#c44e52",
                "compress": "#dd8452"}


def save(fig, out, name):
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=110, bbox_inches="tight")
        print(path)
    plt.close(fig)


def stacked(ax, labels, rows, scale=1e3):
    bottom = [0.0] * len(labels)
    for key, name, colour in PHASES:
        values = [r[key] * scale for r in rows]
        ax.bar(labels, values, bottom=bottom, label=name, color=colour)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylabel("time (ms)")
    ax.legend(fontsize=8)


def plot_run(folder, out):
    with open(os.path.join(folder, "report.json")) as f:
        report = json.load(f)
    setup = report["setup"]
    title = f"{setup['model']}, {setup['workers']} workers, {setup['scheduler']}, {setup['platform']}"
    fig, ax = plt.subplots(figsize=(7, 4))
    iterations = report["iterations"]
    stacked(ax, [str(i["index"]) for i in iterations], [i["breakdown_mean"] for i in iterations])
    ax.set_xlabel("iteration")
    ax.set_title(f"Iteration breakdown: {title}", fontsize=9)
    save(fig, out, "breakdown")

    if "training" in report:
        curve = report["training"]["curve"]
        times = [p["simulated_time_s"] * 1e3 for p in curve]
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
        left.plot(times, [p["loss"] for p in curve], marker="o")
        left.set_xlabel("simulated time (ms)")
        left.set_ylabel("test loss")
        right.plot(times, [100 * p["accuracy"] for p in curve], marker="o")
        right.set_xlabel("simulated time (ms)")
        right.set_ylabel("test accuracy (%)")
        target = report["training"]["target_accuracy"]
        if target:
            right.axhline(100 * target, color="#999999", linestyle="--", label=f"target {100 * target:.0f} %")
            right.legend(fontsize=8)
        fig.suptitle(f"Training: {title}", fontsize=9)
        save(fig, out, "training")

    trace_path = os.path.join(folder, "timeline.json")
    if not os.path.exists(trace_path):
        return
    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    last = iterations[-1]
    start, end = last["start_s"] * 1e6, last["end_s"] * 1e6
    workers = sorted({e["pid"] for e in events})[:16]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(workers) * 2 + 1))
    for row, worker in enumerate(workers):
        for e in events:
            if e["pid"] != worker or e["ts"] + e["dur"] < start or e["ts"] > end:
                continue
            y = row * 2 + (0 if e["tid"] == 1 else 1)
            ax.broken_barh([((e["ts"] - start) / 1e3, e["dur"] / 1e3)], (y, 0.8),
                           color=LANE_COLOURS.get(e["cat"], "#999999"))
    ax.set_yticks([row * 2 + 0.4 for row in range(len(workers))] + [row * 2 + 1.4 for row in range(len(workers))])
    ax.set_yticklabels([f"w{w} compute" for w in workers] + [f"w{w} comm" for w in workers], fontsize=7)
    ax.set_xlabel("time in the last iteration (ms)")
    ax.set_title(f"Timeline: {title}", fontsize=9)
    used = [c for c in LANE_COLOURS if any(e["cat"] == c for e in events)]
    handles = [plt.Rectangle((0, 0), 1, 1, color=LANE_COLOURS[c]) for c in used]
    ax.legend(handles, used, fontsize=7, loc="upper right")
    save(fig, out, "gantt")


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def axis_values(rows, key):
    """An axis's values: numbers ascending, anything else (bandwidths, strategies) in the sweep file's order."""
    values = list(dict.fromkeys(r[key] for r in rows))
    if all(number(v) is not None for v in values):
        values.sort(key=number)
    return values


def plot_sweep(folder, out):
    with open(os.path.join(folder, "results.csv")) as f:
        reader = csv.DictReader(f)
        keys = reader.fieldnames[1:reader.fieldnames.index("status")]
        rows = [r for r in reader if r["status"] == "ok"]
    if not rows:
        print("no successful point to plot", file=sys.stderr)
        sys.exit(1)
    for r in rows:
        for key, _, _ in PHASES + [("mean_iteration_s", "", ""), ("samples_per_s", "", ""),
                                   ("scaling_efficiency", "", "")]:
            r[key] = float(r[key])

    if "workers" in keys:
        others = [k for k in keys if k != "workers"]
        lines = {}
        for r in rows:
            label = ", ".join(f"{k}={r[k]}" for k in others) or "base"
            lines.setdefault(label, []).append(r)
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
        for label, points in lines.items():
            points.sort(key=lambda r: number(r["workers"]))
            x = [number(r["workers"]) for r in points]
            left.plot(x, [r["samples_per_s"] for r in points], marker="o", label=label)
            right.plot(x, [100 * r["scaling_efficiency"] for r in points], marker="o", label=label)
        left.set_xlabel("workers")
        left.set_ylabel("samples/s")
        left.set_title("Throughput", fontsize=9)
        right.set_xlabel("workers")
        right.set_ylabel("scaling efficiency (%)")
        right.set_title("Scaling efficiency", fontsize=9)
        right.legend(fontsize=7)
        save(fig, out, "scaling")

    labels = ["\n".join(f"{k}={r[k]}" for k in keys) for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows)), 4.5))
    stacked(ax, labels, rows)
    ax.tick_params(axis="x", labelsize=6)
    ax.set_title("Mean iteration breakdown per point", fontsize=9)
    save(fig, out, "breakdown")

    if len(keys) >= 2:
        a, b = keys[0], keys[1]
        fixed = {k: rows[0][k] for k in keys[2:]}
        chosen = [r for r in rows if all(r[k] == v for k, v in fixed.items())]
        xs = axis_values(chosen, a)
        ys = axis_values(chosen, b)
        grid = [[float("nan")] * len(xs) for _ in ys]
        for r in chosen:
            grid[ys.index(r[b])][xs.index(r[a])] = r["mean_iteration_s"] * 1e3
        fig, ax = plt.subplots(figsize=(1.2 * len(xs) + 3, 0.6 * len(ys) + 2))
        image = ax.imshow(grid, cmap="viridis_r", aspect="auto")
        ax.set_xticks(range(len(xs)), xs, fontsize=8)
        ax.set_yticks(range(len(ys)), ys, fontsize=8)
        ax.set_xlabel(a)
        ax.set_ylabel(b)
        for j, row in enumerate(grid):
            for i, value in enumerate(row):
                if value == value:
                    ax.text(i, j, f"{value:.1f}", ha="center", va="center", fontsize=7, color="white")
        fig.colorbar(image, label="mean iteration (ms)")
        suffix = ", ".join(f"{k}={v}" for k, v in fixed.items())
        ax.set_title("Mean iteration time" + (f" ({suffix})" if suffix else ""), fontsize=9)
        save(fig, out, "heatmap")


def main():
    folder, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(folder, "results.csv")):
        plot_sweep(folder, out)
    elif os.path.exists(os.path.join(folder, "report.json")):
        plot_run(folder, out)
    else:
        print(f"{folder}: neither report.json (a run) nor results.csv (a sweep)", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
