#!/usr/bin/python3
"""PNG plots and a Markdown summary of one parameter sweep (the --out DIR of `famsim sweep`).

    scripts/plot_sweep.py SWEEP_DIR [--out PLOTS_DIR]

Reads SWEEP_DIR/results.csv (required), sensitivity.csv and sweep.json (used when present: without
sweep.json every swept key is its own group and the base values come from sensitivity.csv or point
0). Writes into PLOTS_DIR (default SWEEP_DIR/plots):
  tornado_<metric>.png      one row per parameter, most sensitive on top: two bars, the metric's
                            change (%) from the base point to the nearest value below and above
                            the base, each labelled past its end with that value and the metric
                            there; the base point's value and unit under the axis (sensitivity.csv;
                            one figure per metric it has rows for)
  <param>_vs_<metric>.png   bandwidth_gbps and latency_p99_ns against each parameter group (dots
                            of the key replaced by '_'), over the points where every other group
                            is at its base; the base point circled, each point coloured by its
                            limiter (named in the legend), a dashed line where it changes, failed
                            points as red crosses on the axis; log x when the values span a
                            factor of 8 or more; categorical x, points not joined by a line,
                            when they are not all numbers
  summary.md                the sweep's name, points ok and failed (with each failure's error),
                            the three parameters bandwidth is most sensitive to, and the figures

"Doubling X changes the metric by about Y%" reads the elasticity E as a constant one: Y =
100 (2^E - 1). Exit codes: 0 written; 2 bad input (no SWEEP_DIR, results.csv missing or not the
sweep's table, a corrupt sweep.json or sensitivity.csv), one line naming the file, nothing
written; 1 internal error. The files are drawn in a temporary directory and renamed into place at
the end, so a failure leaves no partial set behind.
Needs Debian's python3-matplotlib (scripts/setup.sh installs it): run it as /usr/bin/python3.
"""
import argparse
import csv
import importlib.util
import json
import math
import os
import re
import shutil
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

PROG = "plot_sweep"

# results.csv: the columns before the swept keys, and the headline metrics after them, in order
# (the sweep contract). Everything between the two is a swept key.
LEAD = ["point", "status", "error"]
METRICS = ["bandwidth_gbps", "read_bandwidth_gbps", "write_bandwidth_gbps", "latency_mean_ns",
           "latency_p99_ns", "read_latency_mean_ns", "read_latency_p99_ns",
           "achieved_fraction_of_bound", "limiter", "limiter_utilization", "simulated_time_ns",
           "host_seconds", "device_bandwidth_gbps"]
SENSITIVITY_COLUMNS = ["parameter", "metric", "base_value", "low_value", "high_value",
                       "metric_base", "metric_low", "metric_high", "elasticity"]
# The metrics drawn against each parameter, and the tornado figures drawn first.
LINE_METRICS = ["bandwidth_gbps", "latency_p99_ns"]
METRIC_LABELS = {
    "bandwidth_gbps": "bandwidth, all targets (GB/s)",
    "device_bandwidth_gbps": "expansion device bandwidth (GB/s)",
    "read_bandwidth_gbps": "read bandwidth (GB/s)",
    "write_bandwidth_gbps": "write bandwidth (GB/s)", "latency_mean_ns": "mean latency (ns)",
    "latency_p99_ns": "p99 latency (ns)", "read_latency_mean_ns": "mean read latency (ns)",
    "read_latency_p99_ns": "p99 read latency (ns)",
    "achieved_fraction_of_bound": "fraction of the analytic bound",
    "limiter_utilization": "limiter utilisation", "simulated_time_ns": "simulated time (ns)",
    "host_seconds": "host time (s)",
    "device_latency_mean_ns": "mean latency of device requests (ns)",
    "device_latency_p99_ns": "p99 latency of device requests (ns)"}
# A parameter whose values span this factor or more is drawn on a log axis.
LOG_SPAN = 8.0


class BadInput(Exception):
    """A one-line message naming the file and what was expected (exit code 2)."""


def load_md_text():
    """report.py's Markdown escaping (the project's one way to put plain text in Markdown)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.py")
    spec = importlib.util.spec_from_file_location("famsim_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.md_text


md_text = load_md_text()


def to_float(s):
    """The number in a CSV cell or JSON value, or None (empty, not a number, not finite)."""
    if isinstance(s, bool) or s is None:
        return None
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def same_value(a, b):
    """Two parameter values as written (strings, or numbers from JSON) name the same value."""
    fa, fb = to_float(a), to_float(b)
    if fa is not None and fb is not None:
        return fa == fb
    return str(a).strip() == str(b).strip()


def fmt_value(v):
    """A parameter value for a label: 16.0 -> 16, other text as it is."""
    if v is None:
        return "\u2014"
    f = to_float(v)
    if f is not None and f == int(f) and abs(f) < 1e15:
        return str(int(f))
    return str(v)


def fmt_metric(v):
    if v is None:
        return "\u2014"
    return f"{v:,.3g}" if abs(v) < 100 else f"{v:,.0f}"


def fmt_elasticity(e, sign=False):
    """Two decimals, with no "-0.00" for a tiny negative one."""
    if e is None:
        return "\u2014"
    e = 0.0 if abs(e) < 0.005 else e
    return f"{e:+.2f}" if sign else f"{e:.2f}"


def file_name(key):
    """A key as part of a file name: devices.0.memory.channels -> devices_0_memory_channels."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", key)


# --- Reading the sweep directory -----------------------------------------------------------------

def read_csv(path, what):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            rows = [r for r in reader if r]
    except FileNotFoundError:
        raise BadInput(f"{path}: not found; expected the {what} that famsim sweep writes")
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadInput(f"{path}: cannot be read ({e}); expected the {what} that famsim sweep "
                       "writes")
    if not header:
        raise BadInput(f"{path}: empty; expected the {what} that famsim sweep writes")
    for i, r in enumerate(rows):
        if len(r) != len(header):
            raise BadInput(f"{path}: line {i + 2} has {len(r)} fields, the header {len(header)}; "
                           f"expected the {what} that famsim sweep writes")
    return header, [dict(zip(header, r)) for r in rows]


def load_results(sweep_dir):
    """(swept keys in column order, rows) of results.csv."""
    path = os.path.join(sweep_dir, "results.csv")
    header, rows = read_csv(path, "results.csv")
    missing = [c for c in LEAD + ["bandwidth_gbps"] if c not in header]
    if missing:
        raise BadInput(f"{path}: no {', '.join(missing)} column; expected the results.csv that "
                       "famsim sweep writes")
    if not rows:  # a sweep has at least one point: a header alone is a cut-off table
        raise BadInput(f"{path}: a header and no points; expected the results.csv that famsim "
                       "sweep writes, a row per point")
    # The swept keys sit between `error` and the first metric (a metric added later goes after
    # the known ones and is not mistaken for a key).
    first_metric = min(header.index(m) for m in METRICS if m in header)
    keys = [c for c in header[:first_metric] if c not in LEAD]
    for r in rows:
        r["ok"] = r["status"].strip() == "ok"
    return keys, rows


def load_sensitivity(sweep_dir):
    """The rows of sensitivity.csv with numbers parsed (None when the file is absent)."""
    path = os.path.join(sweep_dir, "sensitivity.csv")
    if not os.path.exists(path):
        return None
    header, rows = read_csv(path, "sensitivity.csv")
    missing = [c for c in SENSITIVITY_COLUMNS if c not in header]
    if missing:
        raise BadInput(f"{path}: no {', '.join(missing)} column; expected the sensitivity.csv "
                       "that famsim sweep writes")
    for r in rows:
        for c in ("metric_base", "metric_low", "metric_high", "elasticity", "elasticity_low",
                  "elasticity_high"):
            r[c] = to_float(r.get(c, ""))
    return rows


def load_summary(sweep_dir):
    """sweep.json ({} when absent)."""
    path = os.path.join(sweep_dir, "sweep.json")
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: not valid JSON ({e}); expected the sweep.json that famsim sweep "
                       "writes")
    if not isinstance(summary, dict):
        raise BadInput(f"{path}: not a JSON object; expected the sweep.json that famsim sweep "
                       "writes")
    return summary


def distinct(values):
    """The distinct values: ascending when all are numbers, else in order of appearance."""
    seen = []
    for v in values:
        if not any(same_value(v, u) for u in seen):
            seen.append(v)
    if all(to_float(v) is not None for v in seen):
        seen.sort(key=to_float)
    return seen


class Sweep:
    """What the figures need: the points, the parameter groups and each key's base value."""

    def __init__(self, sweep_dir):
        if not os.path.isdir(sweep_dir):
            raise BadInput(f"{sweep_dir}: no such directory; expected the --out directory of "
                           "famsim sweep (holding results.csv)")
        self.keys, self.rows = load_results(sweep_dir)
        sensitivity = load_sensitivity(sweep_dir)
        self.has_sensitivity = sensitivity is not None
        self.sensitivity = sensitivity or []
        summary = load_summary(sweep_dir)
        self.name = str(summary.get("name") or os.path.basename(os.path.abspath(sweep_dir)))
        self.description = summary.get("description") or ""
        self.mode = summary.get("mode")
        # Groups: sweep.json's, with keys results.csv lacks dropped and keys it has but no group
        # names each its own group.
        groups = []
        for g in summary.get("groups") or []:
            g = [k for k in (g if isinstance(g, list) else [g]) if k in self.keys]
            if g:
                groups.append(g)
        grouped = {k for g in groups for k in g}
        groups += [[k] for k in self.keys if k not in grouped]
        self.groups = groups
        # Base values: sweep.json's, else sensitivity.csv's, else point 0's (the base point of a
        # one_at_a_time sweep, every first value (the default base) of a grid).
        base = summary.get("base") if isinstance(summary.get("base"), dict) else {}
        self.base = {}
        for k in self.keys:
            if k in base and base[k] is not None:
                self.base[k] = base[k]
            else:
                s = next((r for r in self.sensitivity if r["parameter"] == k), None)
                self.base[k] = s["base_value"] if s else (self.rows[0][k] if self.rows else None)
        unchanged = summary.get("unchanged_workload_results")
        self.unchanged = unchanged if isinstance(unchanged, dict) else {}
        self.one_dimensional = summary.get("one_dimensional")
        if not isinstance(self.one_dimensional, bool):
            self.one_dimensional = sum(1 for g in groups if len(self.values(g)) > 1) == 1

    def values(self, group):
        """The distinct values of a group's first key: ascending when all are numbers, else in
        point order."""
        return distinct(r[group[0]] for r in self.rows)

    def at_base(self, row, group):
        return all(same_value(row[k], self.base[k]) for k in group)

    def line(self, group):
        """The points on this group's line through the base point: every other group at its
        base (all points when the sweep varies one group only)."""
        if self.one_dimensional:
            return list(self.rows)
        return [r for r in self.rows
                if all(self.at_base(r, g) for g in self.groups if g is not group)]

    def ok(self):
        return [r for r in self.rows if r["ok"]]

    def failed(self):
        return [r for r in self.rows if not r["ok"]]


# --- Figures -------------------------------------------------------------------------------------

def metric_label(metric):
    return METRIC_LABELS.get(metric, metric)


def metric_name_unit(metric):
    """A metric's label split into its name and unit: ("p99 latency", "ns"); unit "" when the
    label has none (a fraction)."""
    label = metric_label(metric)
    m = re.match(r"^(.*) \(([^()]*)\)$", label)
    return (m.group(1), m.group(2)) if m else (label, "")


def symmetric_x_limit(ax, texts, anchors, pad_px=6):
    """The smallest S such that x limits (-S, S) keep every text inside the axes with pad_px to
    spare, each text staying where it is drawn relative to its anchor's x (data) in pixels: a
    label's width is fixed in points, so widening the limits to fit it moves it too and a fixed
    margin in data units is too much for a short label or too little for a long one."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width = ax.get_window_extent(renderer).width
    limit = max(abs(x) for x in anchors) or 1.0
    for t, x in zip(texts, anchors):
        box = t.get_window_extent(renderer)
        at = ax.transData.transform((x, 0))[0]
        left, right = box.x0 - at, box.x1 - at  # the text's extent from its anchor, in pixels
        # At limits (-S, S) the anchor sits at (x + S) / 2S of the width; solved for S on each side.
        if width - 2 * pad_px + 2 * left > 0:
            limit = max(limit, -x * width / (width - 2 * pad_px + 2 * left))
        if width - 2 * pad_px - 2 * right > 0:
            limit = max(limit, x * width / (width - 2 * pad_px - 2 * right))
    return limit


def tornado(sweep, metric, out):
    """One row per parameter, largest |elasticity| on top: the metric's change from the base (%)
    at the nearest value below the base (lower bar, blue) and above it (upper bar, orange), each
    labelled past its end with that value and the metric there. Returns the number of parameters
    drawn (0: nothing written)."""
    rows = []
    for r in sweep.sensitivity:
        if r["metric"] != metric or not r["metric_base"]:
            continue  # no base metric (or zero): no percent change to draw
        lo = (None if r["metric_low"] is None
              else 100 * (r["metric_low"] - r["metric_base"]) / r["metric_base"])
        hi = (None if r["metric_high"] is None
              else 100 * (r["metric_high"] - r["metric_base"]) / r["metric_base"])
        if lo is None and hi is None:
            continue
        rows.append((r, lo, hi))
    if not rows:
        return 0
    # Drawn bottom up: the largest |elasticity| last, on top; rows without one at the bottom.
    rows.sort(key=lambda t: -1 if t[0]["elasticity"] is None else abs(t[0]["elasticity"]))
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.75 * len(rows) + 1.6)))
    labelled = set()
    texts, anchors = [], []
    for y, (r, lo, hi) in enumerate(rows):
        # Each side on its own half of the row: both changes of the same sign (a metric that
        # rises either way) would otherwise draw one bar over the other and one label over the
        # other.
        for side, pct, value, m, colour, dy in (
                ("low", lo, r["low_value"], r["metric_low"], "tab:blue", -0.2),
                ("high", hi, r["high_value"], r["metric_high"], "tab:orange", 0.2)):
            if pct is None:
                continue
            labelled.add(side)
            ax.barh(y + dy, pct, left=0, height=0.38, color=colour, alpha=0.85)
            # The parameter value and the metric there, outside the bar's end by a fixed 4
            # points: clear of the zero line however short the bar.
            texts.append(ax.annotate(
                f"{fmt_value(value)}: {fmt_metric(m)}", (pct, y + dy),
                xytext=(4 if pct >= 0 else -4, 0), textcoords="offset points", va="center",
                ha="left" if pct >= 0 else "right", fontsize=8))
            anchors.append(pct)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([
        f"{r['parameter']}\nbase {fmt_value(r['base_value'])}, E = "
        + fmt_elasticity(r["elasticity"], sign=True)
        for r, _, _ in rows], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:+.0f}%" if v else "0%"))
    # The axis is a percent change: the metric's own unit belongs to the base value alone.
    name, unit = metric_name_unit(metric)
    xlabel = f"{name}: change from the base point (%)"
    bases = {r["metric_base"] for r, _, _ in rows}
    if len(bases) == 1:  # one base point (always, unless sensitivity.csv was edited)
        xlabel += f"\nbase point: {fmt_metric(bases.pop())}{' ' + unit if unit else ''}"
    ax.set_xlabel(xlabel)
    ax.set_title(f"Sensitivity of {metric} (E: elasticity; most sensitive on top)")
    ax.grid(True, axis="x", alpha=0.3)
    # The layout first (the parameter names set the axes' width), then limits wide enough for
    # every label at that width.
    # (An annotation whose point lies outside the limits is not drawn and has no extent: start
    # from limits that hold every bar's end.)
    span = max(abs(x) for x in anchors) or 1.0
    ax.set_xlim(-1.05 * span, 1.05 * span)
    fig.tight_layout()
    limit = symmetric_x_limit(ax, texts, anchors)
    ax.set_xlim(-limit, limit)
    handles = [Patch(color=c, alpha=0.85, label=f"nearest value {w} the base")
               for side, c, w in (("low", "tab:blue", "below"), ("high", "tab:orange", "above"))
               if side in labelled]
    # Below the x label, wherever its two lines end: a fixed offset would sit on it.
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    label_bottom = ax.xaxis.get_tightbbox(renderer).y0 - 4
    y = ax.transAxes.inverted().transform((0, label_bottom))[1]
    ax.legend(handles=handles, fontsize=7, loc="upper center", ncol=2, frameon=False,
              bbox_to_anchor=(0.5, y))
    fig.savefig(out, dpi=110, bbox_inches="tight")  # the legend lies below the figure's area
    plt.close(fig)
    return len(rows)


def x_positions(values):
    """(x of each value, numeric, log): numbers where every value is one, else 0, 1, ... in
    order of appearance (categorical)."""
    nums = [to_float(v) for v in values]
    if nums and all(n is not None for n in nums):
        lo, hi = min(nums), max(nums)
        return nums, True, lo > 0 and hi / lo >= LOG_SPAN
    return list(range(len(values))), False, False


def between(a, b, log):
    return math.sqrt(a * b) if log else (a + b) / 2


# A colour per limiter in the per-parameter figures (red is the base point's ring and the failed
# points' crosses).
LIMITER_COLOURS = ["tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:olive", "tab:cyan",
                   "tab:pink", "tab:gray"]


def parameter_line(sweep, group, metric, out):
    """The metric against the group's first key on its line through the base point. Returns
    False (nothing written) when the line has fewer than two values or no point with the
    metric."""
    key = group[0]
    rows = sweep.line(group)
    values = distinct(r[key] for r in rows)
    if len(values) < 2:
        return False
    xs, numeric, log = x_positions(values)

    def x_of(v):
        return xs[next(i for i, u in enumerate(values) if same_value(u, v))]

    pts = sorted(((x_of(r[key]), to_float(r.get(metric)), r) for r in rows if r["ok"]),
                 key=lambda t: t[0])
    pts = [p for p in pts if p[1] is not None]
    if not pts:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    if numeric:
        # Numbers are ordered: the line between neighbours is the trend between them. Values that
        # are names (sequential, uniform_random) have no order, and a line would invent a trend:
        # their points stand alone.
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="0.6", zorder=2)
    # Each point coloured by its limiter, named in the legend: names written beside the points
    # ran over the line, over each other and past the axes.
    has_limiter = "limiter" in rows[0]  # an older results.csv: no limiter column

    def limiter(r):
        return r.get("limiter") or ""

    for i, name in enumerate(distinct(limiter(p[2]) for p in pts)):
        mine = [p for p in pts if limiter(p[2]) == name]
        ax.plot([p[0] for p in mine], [p[1] for p in mine], marker="o", linestyle="none",
                color=LIMITER_COLOURS[i % len(LIMITER_COLOURS)], zorder=3,
                label=(f"limited by {name}" if name else "no resource saturated")
                if has_limiter else None)
    base = [p for p in pts if sweep.at_base(p[2], group)]
    if base:
        ax.plot([base[0][0]], [base[0][1]], marker="o", markersize=14, markerfacecolor="none",
                markeredgecolor="tab:red", linestyle="none", zorder=4,
                label=f"base ({fmt_value(base[0][2][key])})")
    # x in data, y in axes coordinates: for marks along the axis.
    trans = blended_transform_factory(ax.transData, ax.transAxes)
    failed = [x_of(r[key]) for r in rows if not r["ok"]]
    if failed:  # on the x axis: a failed point has no metric
        ax.plot(failed, [0.02] * len(failed), marker="x", color="tab:red", markersize=9,
                linestyle="none", transform=trans, clip_on=False, label="failed point")
    # Between ordered neighbours of different limiters, a dashed line (the colours say which).
    changed = False
    for (x0, _, r0), (x1, _, r1) in zip(pts, pts[1:]) if numeric and has_limiter else ():
        if limiter(r0) == limiter(r1) or x0 == x1:
            continue
        ax.axvline(between(x0, x1, log), color="0.3", linestyle="--", linewidth=1,
                   label=None if changed else "limiter changes")
        changed = True
    if log:
        ax.set_xscale("log")
    # The ticks are the values themselves; a zip group's partners below, in brackets.
    ticks = []
    for v in values:
        row = next(r for r in rows if same_value(r[key], v))
        ticks.append("\n".join([fmt_value(v)] + [f"({fmt_value(row[k])})" for k in group[1:]]))
    ax.set_xticks(xs)
    if numeric:
        ax.set_xticklabels(ticks)
        if log:
            ax.minorticks_off()
    else:
        ax.set_xticklabels(ticks, rotation=20, fontsize=8)
        ax.set_xlim(-0.5, len(values) - 0.5)
    others = f" (in brackets: {', '.join(group[1:])})" if len(group) > 1 else ""
    ax.set_xlabel(f"{key}{others}{' (log)' if log else ''}", fontsize=9)
    ax.set_ylabel(metric_label(metric))
    ax.set_ylim(0, 1.1 * max(p[1] for p in pts) or 1.0)  # from zero
    rest = "" if sweep.one_dimensional or len(sweep.groups) < 2 else ", other parameters at base"
    ax.set_title(f"{metric} vs {key}{rest}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        # Right of the axes: inside, wherever it went it could cover a point.
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=110, bbox_inches="tight")  # the legend lies right of the figure's area
    plt.close(fig)
    return True


# --- summary.md ----------------------------------------------------------------------------------

def doubling_change(e):
    """Percent change of a metric of constant elasticity e when its parameter doubles."""
    try:
        return 100 * (2.0 ** e - 1)
    except OverflowError:
        return math.inf


# A byte count as a sweep writes one (1KiB, 2 MiB): a number to famsim's elasticities.
BYTES = re.compile(r"^\s*[0-9.]+\s*[KMGT]i?B\s*$")


def not_ranked(sweep, ranked):
    """Lines naming the swept parameters that have no bandwidth elasticity, and why."""
    why = []
    for g in sweep.groups:
        k = g[0]
        if k in ranked or len(sweep.values(g)) < 2:
            continue
        base = to_float(sweep.base.get(k))
        if base == 0:
            why.append(f"`{k}` (its base is 0, from which no relative change is defined: give it "
                       "a non-zero base)")
        elif base is None and not BYTES.match(str(sweep.base.get(k))):
            why.append(f"`{k}` (its values are not numbers: compare its points in results.csv)")
        else:
            why.append(f"`{k}` (no ok point beside its base with the other parameters at theirs)")
    return [f"Not ranked: {', '.join(why)}.", ""] if why else []


def summary_md(sweep, figures):
    lines = [f"# Sweep {md_text(sweep.name)}", ""]
    if sweep.description:
        lines += [md_text(" ".join(str(sweep.description).split())), ""]
    ok, failed = sweep.ok(), sweep.failed()
    mode = f" ({md_text(sweep.mode)})" if sweep.mode else ""
    lines += [f"{len(sweep.rows)} points{mode}: {len(ok)} ok, {len(failed)} failed.", ""]
    if sweep.groups:
        lines += ["Parameters (base value):", ""]
        for g in sweep.groups:
            vals = ", ".join(fmt_value(v) for v in sweep.values(g))
            zipped = f", moving with {', '.join(f'`{k}`' for k in g[1:])}" if len(g) > 1 else ""
            lines.append(f"- `{g[0]}` (base {md_text(fmt_value(sweep.base[g[0]]))}){zipped}: "
                         f"{md_text(vals)}")
        lines.append("")
    if failed:
        lines += ["## Failed points", ""]
        for r in failed:
            # Where the point differs from the base (every key where none does).
            keys = [k for k in sweep.keys if not same_value(r[k], sweep.base[k])]
            at = ", ".join(f"{k}={fmt_value(r[k])}" for k in keys) or "the base point"
            error = " ".join(r["error"].split()) or "no error recorded"
            lines.append(f"- point {md_text(r['point'])} ({md_text(at)}): {md_text(error)}")
        lines.append("")
    lines += ["## Most sensitive parameters for bandwidth", ""]
    bw = [r for r in sweep.sensitivity
          if r["metric"] == "bandwidth_gbps" and r["elasticity"] is not None]
    bw.sort(key=lambda r: -abs(r["elasticity"]))
    if not bw:
        lines += ["`sensitivity.csv` has no `bandwidth_gbps` rows (no parameter has a numeric "
                  "value next to its base with both points ok)." if sweep.has_sensitivity else
                  "No `sensitivity.csv`: nothing to rank.", ""]
    def pct_text(e):
        y = doubling_change(e)
        return "more than 1000%" if abs(y) > 1000 else "0%" if abs(y) < 0.5 else f"{y:+.0f}%"

    for i, r in enumerate(bw[:3]):
        pct = pct_text(r["elasticity"])
        # The two sides of the base apart by 5 points or more per doubling: a kink at the base (a
        # limiter that changes there), which one averaged figure would hide.
        lo_e, hi_e = r.get("elasticity_low"), r.get("elasticity_high")
        kink = (lo_e is not None and hi_e is not None and
                abs(doubling_change(lo_e) - doubling_change(hi_e)) >= 5)
        # The measured neighbours too: an average of two sides can hide a kink at the base.
        seen = [f"{md_text(fmt_value(r[f'{side}_value']))} gives "
                f"{fmt_metric(r[f'metric_{side}'])} GB/s "
                f"({100 * (r[f'metric_{side}'] - r['metric_base']) / r['metric_base']:+.1f}%)"
                for side in ("low", "high")
                if r[f"metric_{side}"] is not None and r["metric_base"]]
        measured = f" Measured: {' and '.join(seen)}." if seen else ""
        sides = [side for side in ("low", "high") if r[f"metric_{side}"] is not None]
        if len(sides) == 1:
            # Measured on one side of the base only (the base the largest or smallest value
            # swept): what lies beyond the base is not known, and a limit there may allow no gain.
            below = sides[0] == "low"
            lines.append(f"{i + 1}. `{r['parameter']}` was measured only "
                         f"{'below' if below else 'above'} its base "
                         f"({md_text(fmt_value(r['base_value']))}): per "
                         f"{'halving' if below else 'doubling'} from the base, bandwidth changes by "
                         f"about {pct_text(-r['elasticity'] if below else r['elasticity'])} "
                         f"(elasticity {fmt_elasticity(r['elasticity'])}).{measured} "
                         f"{'Above' if below else 'Below'} the base nothing was measured: sweep "
                         "there before reading a change from it, as another limit may bind.")
        elif kink:
            lines.append(f"{i + 1}. `{r['parameter']}` has a kink at its base "
                         f"({md_text(fmt_value(r['base_value']))}): per doubling, bandwidth "
                         f"changes by about {pct_text(lo_e)} below it and {pct_text(hi_e)} above "
                         f"it (elasticities {fmt_elasticity(lo_e)} and {fmt_elasticity(hi_e)}, "
                         f"{fmt_elasticity(r['elasticity'])} averaged).{measured}")
        else:
            lines.append(f"{i + 1}. Doubling `{r['parameter']}` around its base "
                         f"({md_text(fmt_value(r['base_value']))}) changes bandwidth by about "
                         f"{pct} (elasticity {fmt_elasticity(r['elasticity'])}).{measured}")
    if bw:
        note = ("(About: read from the elasticity E as a constant one, 100 (2^E - 1)% per "
                "doubling, 100 (2^-E - 1)% per halving")
        if bw[0]["metric_base"] is not None:
            note += f"; the base point gives {fmt_metric(bw[0]['metric_base'])} GB/s"
        lines += ["", note + ".)", ""]
    lines += not_ranked(sweep, {r["parameter"] for r in bw})
    # The headline bandwidth is over every target: say so where the devices' part differs.
    if any(to_float(r.get("device_bandwidth_gbps")) is not None and
           to_float(r.get("bandwidth_gbps")) is not None and
           abs(to_float(r["device_bandwidth_gbps"]) - to_float(r["bandwidth_gbps"])) >
           1e-9 * max(1.0, to_float(r["bandwidth_gbps"])) for r in sweep.ok()):
        lines += ["Bandwidth here is over every target, the GPUs' own and peer HBM as well as the "
                  "expansion devices; the devices' part is `device_bandwidth_gbps` in results.csv "
                  "and sensitivity.csv.", ""]
    if sweep.unchanged:
        listed = ", ".join(f"`{k}` ({md_text(fmt_value(v))})" for k, v in sweep.unchanged.items())
        lines += [f"The workload's results that had one value at every point are not ranked: "
                  f"{listed}.", ""]
    lines += ["## Figures", ""]
    if not figures:
        lines += ["None: no point has the metrics to draw.", ""]
    for png, title in figures:
        lines += [f"### {md_text(title)}", "", f"![{md_text(title)}]({png})", ""]
    return "\n".join(lines).rstrip() + "\n"


# --- Writing -------------------------------------------------------------------------------------

def draw(sweep, tmp):
    """Draws every figure into tmp; returns [(png, title)]."""
    figures = []
    metrics = [m for m in LINE_METRICS if any(r["metric"] == m for r in sweep.sensitivity)]
    metrics += [m for m in dict.fromkeys(r["metric"] for r in sweep.sensitivity)
                if m not in metrics]
    for metric in metrics:
        # A metric no parameter moved (a workload's fixed layer count, say) has nothing to rank.
        if all(r["metric"] != metric or
               (r["metric_low"] in (None, r["metric_base"]) and
                r["metric_high"] in (None, r["metric_base"]))
               for r in sweep.sensitivity):
            continue
        png = f"tornado_{file_name(metric)}.png"
        if tornado(sweep, metric, os.path.join(tmp, png)):
            figures.append((png, f"Sensitivity of {metric} to each parameter"))
    for group in sweep.groups:
        for metric in LINE_METRICS:
            if metric not in (sweep.rows[0] if sweep.rows else {}):
                continue
            png = f"{file_name(group[0])}_vs_{metric}.png"
            if parameter_line(sweep, group, metric, os.path.join(tmp, png)):
                figures.append((png, f"{metric} against {group[0]}"))
    return figures


# What the last plot_sweep.py wrote into its output directory, a name a line: the next one removes
# those it does not write again (a figure of a parameter the sweep no longer has), and famsim sweep
# removes them all when it rewrites the tables they were drawn from. Nothing else there is touched.
MANIFEST = ".plot_sweep-files"


def remove_stale(out_dir, names):
    """Removes the files the previous run listed and this one did not write; lists this run's."""
    path = os.path.join(out_dir, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            before = [line.strip() for line in f if line.strip()]
    except OSError:
        before = []
    for name in before:
        # Only a plain name: a manifest edited to point elsewhere removes nothing outside.
        if name not in names and os.path.basename(name) == name and not name.startswith("."):
            try:
                os.remove(os.path.join(out_dir, name))
            except OSError:
                pass
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))


def write(sweep, out_dir):
    created = not os.path.isdir(out_dir)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise BadInput(f"{out_dir}: cannot create the output directory ({e.strerror})")
    tmp = tempfile.mkdtemp(prefix=".plot_sweep-", dir=out_dir)
    done = False
    try:
        figures = draw(sweep, tmp)
        with open(os.path.join(tmp, "summary.md"), "w", encoding="utf-8") as f:
            f.write(summary_md(sweep, figures))
        names = [png for png, _ in figures] + ["summary.md"]
        for name in names:
            os.replace(os.path.join(tmp, name), os.path.join(out_dir, name))
        remove_stale(out_dir, names)
        done = True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not done and created:
            shutil.rmtree(out_dir, ignore_errors=True)
    return [os.path.join(out_dir, n) for n in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep_dir", help="the --out directory of famsim sweep")
    ap.add_argument("--out", help="where the PNGs and summary.md go (default SWEEP_DIR/plots)")
    a = ap.parse_args()
    try:
        sweep = Sweep(a.sweep_dir)
        written = write(sweep, a.out or os.path.join(a.sweep_dir, "plots"))
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
