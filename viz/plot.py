"""dtsim plots: `dtsim plot RESULTS` runs this with Debian's python3-matplotlib.

RESULTS is a run folder (report.json, optionally timeline.json), a sweep folder (results.csv) or a plan folder
(plan.json). Every plot is
written as PNG and SVG into the output folder; the file names are printed, one per line.
  run:   breakdown (stacked per iteration), gantt (the last iteration of worker 0, and of the slowest and
         fastest workers when their compute differs; a layer-by-layer phase is one bar, a bucket one bar),
         exposure (exposed communication per bucket), links (the busiest links' utilisation), training (test
         loss and accuracy against simulated time, numerics mode)
  sweep: scaling (samples/s with the ideal line and efficiency against workers, one line per other setting),
         against_<i> (mean iteration and samples/s against the i-th other numeric swept key), breakdown (stacked
         per point), heatmap (mean iteration time over the first two swept keys)
  plan:  pareto (time to train against cost and energy of every simulated candidate, the front and the
         recommendation; `dtsim plan` writes plan.json), timeline (the recommended candidate's last iteration,
         from the run plan.json names), goodput (shares of the wall time of the recommended candidate and the
         fronts' under [goodput]); each says which dtsim and which command made it
"""
import csv
import json
import os
import sys
import tomllib

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: smaller pages, selectable labels
matplotlib.rcParams["svg.hashsalt"] = "dtsim"  # element ids from the content, not random: same plot, same bytes
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

PHASES = [("forward_s", "forward", "#4c72b0"), ("backward_s", "backward", "#55a868"),
          ("update_s", "update", "#8172b2"), ("exposed_comm_s", "exposed communication", "#c44e52"),
          ("idle_s", "idle", "#cccccc")]
FORMATS = ["png", "svg"]  # a third argument "svg" draws SVG only (the HTML report inlines nothing else)
LANE_COLOURS = {"forward": "#4c72b0", "backward": "#55a868", "update": "#8172b2", "comm": "#c44e52",
                "compress": "#dd8452", "comm_latency": "#6e1d20"}
LEGEND = {"comm_latency": "comm start-up latency"}


def save(fig, out, name, footer=None):
    """Writes the figure in every format; `footer` (which dtsim and which command made it) goes in small print
    below everything else."""
    if footer:
        used = fig.get_tightbbox(fig.canvas.get_renderer())  # inches from the figure's corner
        width, height = fig.get_size_inches()
        fig.text(used.x0 / width, (used.y0 - 0.05) / height, footer, fontsize=6, color="#777777", ha="left", va="top")
    # The tight box is measured once for both formats (bbox_inches="tight" would measure it per file).
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)
    for ext in FORMATS:
        path = os.path.join(out, f"{name}.{ext}")
        # No creation date in an SVG: the same results draw the same bytes.
        fig.savefig(path, dpi=110, bbox_inches=box, metadata={"Date": None} if ext == "svg" else None)
        print(path)
    plt.close(fig)


def stacked(ax, labels, rows, scale=1e3, horizontal=False):
    bottom = [0.0] * len(labels)
    for key, name, colour in PHASES:
        values = [r[key] * scale for r in rows]
        if horizontal:
            ax.barh(labels, values, left=bottom, label=name, color=colour)
        else:
            ax.bar(labels, values, bottom=bottom, label=name, color=colour)
        bottom = [b + v for b, v in zip(bottom, values)]
    (ax.set_xlabel if horizontal else ax.set_ylabel)("time (ms)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)


def run_title(report):
    setup = report["setup"]
    return f"{setup['model']}, {setup['workers']} workers, {setup['scheduler']}, {setup['platform']}"


def run_window(report):
    """The last iteration, or until the stop when none completed: (start, end) in seconds."""
    if report["iterations"]:
        last = report["iterations"][-1]
        return last["start_s"], last["end_s"]
    return 0.0, report.get("stopped_at_s", 0.0)


def read_trace(folder, report):
    """The timeline's complete events by worker and lane name: {worker: {lane: [(start_ms, dur_ms, cat)]}}.

    Reads timeline.json only when the run wrote it (report.json's "outputs" list, or the file itself)."""
    outputs = report.get("outputs")
    name = "timeline.json"
    if (outputs is not None and name not in [os.path.basename(o) for o in outputs]) or \
            not os.path.exists(os.path.join(folder, name)):
        return {}
    with open(os.path.join(folder, name)) as f:
        events = json.load(f)["traceEvents"]
    workers, lanes = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name" and e["args"]["name"].startswith("worker "):
            workers[e["pid"]] = int(e["args"]["name"].split()[1])
        elif e["ph"] == "M" and e["name"] == "thread_name":
            lanes[(e["pid"], e["tid"])] = e["args"]["name"]
    start, end = run_window(report)
    trace = {}
    for e in events:
        # A communication span's latency part is drawn over its start; its transfer part is the rest of the span.
        if e["ph"] != "X" or e["pid"] not in workers or e["cat"] == "comm_transfer":
            continue
        begin, dur = e["ts"] / 1e3 - start * 1e3, e["dur"] / 1e3
        if begin + dur < 0 or begin > (end - start) * 1e3:
            continue
        lane = lanes.get((e["pid"], e["tid"]), "other")
        trace.setdefault(workers[e["pid"]], {}).setdefault(lane, []).append((begin, dur, e["cat"]))
    return trace


def merged(bars, gap):
    """Consecutive bars of one category closer than `gap` become one: a layer-by-layer forward is one bar."""
    out = []
    for begin, dur, cat in sorted(bars):
        if out and out[-1][2] == cat and not cat.startswith("comm") and begin - (out[-1][0] + out[-1][1]) <= gap:
            out[-1] = (out[-1][0], begin + dur - out[-1][0], cat)
        else:
            out.append((begin, dur, cat))
    return out


def shown_workers(report, trace):
    """Worker 0 stands for all; the slowest and fastest traced workers join it when their compute differs."""
    per_worker = {}
    for it in report["iterations"]:
        for w, b in enumerate(it["breakdown_per_worker"]):
            per_worker[w] = per_worker.get(w, 0.0) + b["forward_s"] + b["backward_s"] + b["update_s"]
    workers = sorted(trace)[:1]
    if per_worker:
        slowest = max(per_worker, key=per_worker.get)
        fastest = min(per_worker, key=per_worker.get)
        if per_worker[slowest] > 1.01 * per_worker[fastest]:
            workers = list(dict.fromkeys(workers + [slowest, fastest]))
    return [w for w in workers if w in trace]


def plot_gantt(report, trace, out, name="gantt", what="Last iteration", footer=None):
    workers = shown_workers(report, trace)
    if not workers:
        return
    start, end = run_window(report)
    span_ms = (end - start) * 1e3
    rows = [(w, lane) for w in workers for lane in ("compute", "comm", "compress") if lane in trace[w]]
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(rows) + 1.4))
    for row, (w, lane) in enumerate(reversed(rows)):
        by_cat = {}
        for begin, dur, cat in merged(trace[w][lane], 1e-3 * span_ms):
            by_cat.setdefault(cat, []).append((begin, dur))
        for cat, bars in sorted(by_cat.items(), key=lambda item: item[0] == "comm_latency"):
            ax.broken_barh(bars, (row + 0.1, 0.8), facecolor=LANE_COLOURS.get(cat, "#999999"),
                           edgecolor="white", linewidth=0.3)
    ax.set_yticks([row + 0.5 for row in range(len(rows))])
    ax.set_yticklabels([f"worker {w} {lane}" for w, lane in reversed(rows)], fontsize=8)
    ax.set_xlim(0, span_ms)
    ax.set_xlabel("time since the iteration started (ms)")
    alike = "" if len(workers) > 1 else f" (worker {workers[0]} of {report['setup']['workers']})"
    ax.set_title(f"{what}{alike}: {run_title(report)}; one bar per bucket on comm", fontsize=9)
    used = [c for c in LANE_COLOURS if any(cat == c for w in workers for bars in trace[w].values()
                                           for _, _, cat in bars)]
    handles = [plt.Rectangle((0, 0), 1, 1, color=LANE_COLOURS[c]) for c in used]
    ax.legend(handles, [LEGEND.get(c, c) for c in used], fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=len(used),
              frameon=False)
    save(fig, out, name, footer)


def plot_exposure(report, out):
    exposed = [1e3 * e for e in report.get("exposed_comm_per_bucket_s", [])]
    if not any(exposed):
        return
    fig, ax = plt.subplots(figsize=(8, 3))
    if len(exposed) <= 40:
        ax.bar(range(len(exposed)), exposed, color=LANE_COLOURS["comm"])
    else:  # one filled step outline instead of hundreds of bars: fast, and as legible
        ax.stairs(exposed, [i - 0.5 for i in range(len(exposed) + 1)], fill=True, color=LANE_COLOURS["comm"])
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("bucket (0 is sent first)")
    ax.set_ylabel("exposed communication (ms)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Exposed communication per bucket, last iteration of worker 0: {sum(exposed):.1f} ms in all",
                 fontsize=9)
    save(fig, out, "exposure")


def plot_links(report, out, shown=12):
    links = report.get("links", [])[:shown]
    if not links:
        return
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(links) + 1.2))
    # Each entry is a class of `count` links alike (report.json schema dtsim.report/3; schema 2: one link).
    names = [l["name"] + (f" x{l['count']}" if l.get("count", 1) > 1 else "") for l in links][::-1]
    values = [100 * l["utilisation"] for l in links][::-1]
    ax.barh(names, values, color="#4c72b0")
    for y, v in enumerate(values):
        ax.text(v, y, f" {v:.0f} %", va="center", fontsize=7)
    ax.set_xlim(0, max(100, max(values) * 1.1))
    ax.set_xlabel("utilisation (% of the mean iteration)")
    ax.tick_params(axis="y", labelsize=7)
    more = sum(l.get("count", 1) for l in report["links"][shown:])
    ax.set_title("Busiest links" + (f" ({more} more with traffic)" if more > 0 else ""), fontsize=9)
    save(fig, out, "links")


def plot_training(report, out):
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
    fig.suptitle(f"Training: {run_title(report)}", fontsize=9)
    save(fig, out, "training")


def plot_run(folder, out):
    with open(os.path.join(folder, "report.json")) as f:
        report = json.load(f)
    iterations = report["iterations"]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    stacked(ax, [str(i["index"]) for i in iterations], [i["breakdown_mean"] for i in iterations])
    ax.set_xlabel("iteration")
    ax.set_title(f"Iteration breakdown (mean over workers): {run_title(report)}", fontsize=9)
    save(fig, out, "breakdown")
    plot_gantt(report, read_trace(folder, report), out)
    plot_exposure(report, out)
    plot_links(report, out)
    if "training" in report:
        plot_training(report, out)


PREFIXES = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def quantity(text):
    """A swept value as a number: "16" -> 16, "10Gbps" -> 1e10, "1.2ms" -> 0.0012; None for anything else."""
    digits = len(text)
    while digits > 0 and not (text[digits - 1].isdigit() or text[digits - 1] == "."):
        digits -= 1
    try:
        value = float(text[:digits])
    except ValueError:
        return None
    unit = text[digits:]
    if unit == "" or unit in ("s", "B", "bps", "Bps", "FLOPS"):
        return value
    if unit == "min":
        return 60 * value
    return value * PREFIXES[unit[0]] if unit[0] in PREFIXES and len(unit) > 1 else None


def name(value):
    """An axis value by name: an inline table { architecture = "ps", ps = { servers = 2 } } reads
    "architecture=ps, ps.servers=2"."""
    if not value.startswith("{"):
        return value

    def flat(table, prefix=""):
        for key, v in table.items():
            if isinstance(v, dict):
                yield from flat(v, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}={v}"
    try:
        return ", ".join(flat(tomllib.loads("v = " + value)["v"]))
    except tomllib.TOMLDecodeError:
        return value


def setting(key, value):
    """"inter_link.bandwidth=10Gbps" for one swept key and value: the key's last two parts, tables by name."""
    return name(value) if value.startswith("{") else f"{'.'.join(key.split('.')[-2:])}={value}"


def axis_values(rows, key):
    """An axis's values: numbers (with or without a unit) ascending, anything else in the sweep file's order."""
    values = list(dict.fromkeys(r[key] for r in rows))
    if all(quantity(v) is not None for v in values):
        values.sort(key=quantity)
    return values


def lines_over(rows, keys, axis):
    """The points as lines over `axis`, one per combination of the other swept keys, in axis order."""
    lines = {}
    for r in rows:
        label = ", ".join(setting(k, r[k]) for k in keys if k != axis) or "base"
        lines.setdefault(label, []).append(r)
    for points in lines.values():
        points.sort(key=lambda r: quantity(r[axis]))
    return lines


def numeric_x(ax, rows, axis):
    """x ticks at the axis's values, as written; a log scale when they span more than a factor of 20."""
    values = axis_values(rows, axis)
    numbers = [quantity(v) for v in values]
    if min(numbers) > 0 and max(numbers) / min(numbers) > 20:
        ax.set_xscale("log")
    ax.set_xticks(numbers, values, fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel(axis)


def legend_below(ax, count):
    if count > 1:
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(count, 2), frameon=False)


def plot_scaling(rows, keys, out):
    lines = lines_over(rows, keys, "workers")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    ideals = {}  # Ideal: every worker at one GPU's rate without communication (samples/s / scaling efficiency).
    for label, points in lines.items():
        x = [quantity(r["workers"]) for r in points]
        (line,) = left.plot(x, [r["samples_per_s"] for r in points], marker="o", label=label)
        ideal = tuple((w, round(r["samples_per_s"] / r["scaling_efficiency"], 6)) for w, r in zip(x, points))
        ideals.setdefault(ideal, line.get_color())
        right.plot(x, [100 * r["scaling_efficiency"] for r in points], marker="o", label=label)
    for ideal, colour in ideals.items():  # one grey line when every setting has the same single-GPU rate
        left.plot([w for w, _ in ideal], [s for _, s in ideal], linestyle="--", linewidth=1,
                  color="#888888" if len(ideals) == 1 else colour)
    left.plot([], [], linestyle="--", color="#888888", label="ideal (linear) scaling")
    for ax in (left, right):
        numeric_x(ax, rows, "workers")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    right.set_ylim(0, 105)
    right.axhline(100, color="#888888", linestyle="--", linewidth=1)
    left.set_ylabel("samples/s")
    left.set_title("Throughput", fontsize=9)
    right.set_ylabel("scaling efficiency (%)")
    right.set_title("Scaling efficiency", fontsize=9)
    legend_below(left, len(lines) + 1)
    save(fig, out, "scaling")


def plot_against(rows, keys, axis, index, out):
    """Mean iteration time and throughput against one numeric swept key."""
    lines = lines_over(rows, keys, axis)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for label, points in lines.items():
        x = [quantity(r[axis]) for r in points]
        left.plot(x, [1e3 * r["mean_iteration_s"] for r in points], marker="o", label=label)
        right.plot(x, [r["samples_per_s"] for r in points], marker="o", label=label)
    for ax in (left, right):
        numeric_x(ax, rows, axis)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    left.set_ylabel("mean iteration (ms)")
    right.set_ylabel("samples/s")
    fig.suptitle(f"Against {axis}", fontsize=9)
    legend_below(left, len(lines))
    save(fig, out, f"against_{index}")


def plot_heatmap(rows, keys, out):
    a, b = keys[0], keys[1]
    fixed = {k: rows[0][k] for k in keys[2:]}
    chosen = [r for r in rows if all(r[k] == v for k, v in fixed.items())]
    xs = axis_values(chosen, a)
    ys = axis_values(chosen, b)
    grid = [[float("nan")] * len(xs) for _ in ys]
    for r in chosen:
        grid[ys.index(r[b])][xs.index(r[a])] = r["mean_iteration_s"] * 1e3
    fig, ax = plt.subplots(figsize=(1.4 * len(xs) + 4, 0.6 * len(ys) + 2))
    image = ax.imshow(grid, cmap="viridis_r", aspect="auto")
    ax.set_xticks(range(len(xs)), [name(x) for x in xs], fontsize=8)
    ax.set_yticks(range(len(ys)), [name(y) for y in ys], fontsize=8)
    ax.set_xlabel(a)
    ax.set_ylabel(b)
    for j, row in enumerate(grid):
        for i, value in enumerate(row):
            if value == value:
                r, g, bl, _ = image.cmap(image.norm(value))
                dark = 0.299 * r + 0.587 * g + 0.114 * bl < 0.5
                ax.text(i, j, f"{value:.0f}" if value >= 100 else f"{value:.3g}", ha="center", va="center", fontsize=9,
                        color="white" if dark else "black")
    fig.colorbar(image, label="mean iteration (ms)")
    suffix = ", ".join(setting(k, v) for k, v in fixed.items())
    ax.set_title("Mean iteration time (ms)" + (f", {suffix}" if suffix else ""), fontsize=9)
    save(fig, out, "heatmap")


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
    numeric = [k for k in keys if all(quantity(r[k]) is not None for r in rows) and len({r[k] for r in rows}) > 1]
    if "workers" in numeric:
        plot_scaling(rows, keys, out)
    for index, axis in enumerate(k for k in numeric if k != "workers"):
        plot_against(rows, keys, axis, index, out)

    labels = [" | ".join(setting(k, r[k]) for k in keys) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(rows) + 1.5))
    stacked(ax, labels, rows, horizontal=True)
    ax.invert_yaxis()  # the first point on top, as in the results table
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("Mean iteration breakdown per point", fontsize=9)
    save(fig, out, "breakdown")

    if len(keys) >= 2:
        plot_heatmap(rows, keys, out)


def plan_footer(plan):
    p = plan["provenance"]
    return f"dtsim {p['dtsim_version']}: {p['command_line']} (plan {p['plan_digest']})"


def plot_plan_timeline(folder, plan, out):
    """The recommended candidate's last iteration, from the run plan.json names (its flow re-check, or its analytic
    run made with the timeline)."""
    if plan.get("recommended", -1) < 0 or not plan.get("timeline"):
        return
    run = os.path.join(folder, plan["timeline"])
    with open(os.path.join(run, "report.json")) as f:
        report = json.load(f)
    label = plan["candidates"][plan["recommended"]]["label"]
    plot_gantt(report, read_trace(run, report), out, "timeline", f"Recommended, {label}: last iteration",
               plan_footer(plan))


GOODPUT = [("training", "training", "#55a868"), ("checkpoint", "writing checkpoints", "#4c72b0"),
           ("lost_work", "work lost since the last checkpoint", "#dd8452"),
           ("restart", "restarts and restores", "#c44e52")]


def plot_goodput(plan, out):
    """Where the wall time goes under failures, restarts and checkpoints, for the recommended candidate and the
    candidates of the fronts ([goodput] plans)."""
    indices = list(dict.fromkeys(([plan["recommended"]] if plan["recommended"] >= 0 else []) +
                                 plan["front"] + plan["energy_front"]))
    rows = [plan["candidates"][i] for i in indices if "goodput" in plan["candidates"][i]]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(rows) + 1.6))
    labels = [("* " if c["index"] == plan["recommended"] else "") + c["label"] for c in rows]
    left = [0.0] * len(rows)
    for key, name, colour in GOODPUT:
        values = [100 * (c["goodput"]["fraction"] if key == "training" else c["goodput"]["lost"][key]) for c in rows]
        ax.barh(labels, values, left=left, label=name, color=colour)
        left = [a + b for a, b in zip(left, values)]
    for y, c in enumerate(rows):
        ax.text(101, y, f"{100 * c['goodput']['fraction']:.1f} %", va="center", fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 108)
    ax.set_xlabel("share of the wall time (%)")
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=4, frameon=False)
    ax.set_title("Goodput: where the wall time goes under failures, restarts and checkpoints (* recommended; the "
                 "Pareto fronts' candidates)", fontsize=9)
    save(fig, out, "goodput", plan_footer(plan))


def plot_plan(folder, out):
    with open(os.path.join(folder, "plan.json")) as f:
        plan = json.load(f)
    def reached(c):  # a candidate training to an accuracy it did not reach has no time to train
        e = c.get("flow", c.get("analytic", {}))
        return "training" not in e or e["training"]["time_to_accuracy_s"] is not None

    shown = [c for c in plan["candidates"] if c["pruned"] == "" and reached(c)]
    if not shown:
        print("no simulated candidate to plot", file=sys.stderr)
        sys.exit(1)
    currency = plan["costs"]["currency"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    gpus = sorted({c["cluster"]["gpu"] for c in shown})
    colours = dict(zip(gpus, ["#4c72b0", "#55a868", "#c44e52", "#8172b2", "#dd8452"]))
    fronts = {"cost": [plan["candidates"][i] for i in plan["front"]],
              "energy_kwh": [plan["candidates"][i] for i in plan["energy_front"]]}
    best = plan["recommended"]
    for ax, key, label in ((axes[0], "cost", f"cost ({currency})"), (axes[1], "energy_kwh", "energy (kWh)")):
        for gpu in gpus:
            mine = [c for c in shown if c["cluster"]["gpu"] == gpu]
            ax.scatter([c["time_s"] / 3600 for c in mine], [c[key] for c in mine], s=18, color=colours[gpu],
                       label=gpu, alpha=0.8)
        ax.plot([c["time_s"] / 3600 for c in fronts[key]], [c[key] for c in fronts[key]], color="#444", lw=1,
                label="Pareto front")
        if key == "cost":
            if "budget" in plan["target"]:
                ax.axhline(plan["target"]["budget"], color="#999", ls="--", lw=1, label="budget")
        if "time_s" in plan["target"]:
            ax.axvline(plan["target"]["time_s"] / 3600, color="#999", ls=":", lw=1, label="time target")
        if best >= 0:
            c = plan["candidates"][best]
            ax.scatter([c["time_s"] / 3600], [c[key]], marker="*", s=220, color="#f2b701", edgecolor="#222",
                       zorder=5, label="recommended")
        ax.set_xlabel("time to train (h)")
        ax.set_ylabel(label)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8, frameon=False)
    axes[0].set_title("Time to train against cost: every simulated candidate", fontsize=9)
    axes[1].set_title("... and against energy", fontsize=9)
    save(fig, out, "pareto", plan_footer(plan))
    plot_plan_timeline(folder, plan, out)
    plot_goodput(plan, out)


def main():
    folder, out = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        FORMATS[:] = sys.argv[3].split(",")
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(folder, "results.csv")):
        plot_sweep(folder, out)
    elif os.path.exists(os.path.join(folder, "report.json")):
        plot_run(folder, out)
    elif os.path.exists(os.path.join(folder, "plan.json")):
        plot_plan(folder, out)
    else:
        print(f"{folder}: neither report.json (a run), results.csv (a sweep) nor plan.json (a plan)", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
