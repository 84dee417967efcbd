#!/usr/bin/python3
"""PNG plots of one famsim run directory (the --out DIR of `famsim run`).

    scripts/plot_run.py RUN_DIR [--out PLOTS_DIR]

Writes into PLOTS_DIR (default RUN_DIR/plots):
  latency_cdf.png       read and write latency CDF (stats.json summary.*_latency_histogram)
  bandwidth_time.png    read and write bandwidth per window (timeseries.csv)
  latency_time.png      latency p50 / p99 / max per window, a gap where no request completed
                        (timeseries.csv)
  device_bandwidth_time.png  each expansion device's bandwidth per window, with two or more
                        devices carrying traffic (timeseries.csv)
  utilization.png       utilisation of every resource, busiest first (stats.json components);
                        a name longer than 60 characters cut in its middle (tick_names)
  hop_breakdown.png     mean latency per hop, stacked, reads and writes
                        (stats.json latency_breakdown_ns, when the run has it)
  utilization_by_class.png  utilisation of each class of like resources, max and mean
                        (stats.json bottlenecks.classes, when the run has it)
  limiter_occupancy.png time spent at each occupancy level of the limiting slot pool
                        (when the bottleneck is a pool whose component reports its occupancy)
  mesh_links.png        every directed link of each mesh NoC drawn on the mesh, coloured by
                        flits per cycle, request and response networks side by side, the
                        limiter's link (its wire or its VC credits) outlined (when a device has
                        a mesh NoC)
Exit codes: 0 written; 2 bad input (no stats.json, one not of the shape famsim writes, a
timeseries.csv that is not famsim's (see read_series), a PLOTS_DIR that cannot be made), with one
line saying what (for timeseries.csv, the line and what was expected there). The plots are drawn
in a temporary directory and renamed into place when all are drawn, so bad input leaves none.
The functions take the parsed stats.json and an output path; scripts/report.py imports them.
Needs Debian's python3-matplotlib (scripts/setup.sh installs it).
"""
import argparse
import csv
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


def latency_cdf(stats, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    drawn = False
    for kind in ("read", "write"):
        h = (stats.get("summary") or {}).get(f"{kind}_latency_histogram")
        if not h or not h.get("count") or not sum(h["count"]):
            continue
        total = float(sum(h["count"]))
        xs, ys, acc = [], [], 0
        for upper, n in zip(h["upper_ns"], h["count"]):
            acc += n
            xs.append(upper)
            ys.append(acc / total)
        ax.step(xs, ys, where="post", label=f"{kind} ({int(total)} requests)")
        drawn = True
    ax.set_xscale("log")
    ax.set_xlabel("latency (ns, log)")
    ax.set_ylabel("fraction of requests at or below")
    ax.set_title("Latency CDF")
    ax.grid(True, which="both", alpha=0.3)
    if drawn:
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


# The columns every timeseries.csv famsim writes starts with (models/core/timeseries.cpp); the
# per-target and per-device columns after them came later and are optional.
SERIES_COLUMNS = ("window_start_ns", "window_end_ns", "read_gbps", "write_gbps", "requests",
                  "latency_mean_ns", "latency_p50_ns", "latency_p90_ns", "latency_p99_ns",
                  "latency_max_ns")


class BadSeries(ValueError):
    """timeseries.csv is not the file famsim writes: one line naming the file, the line and what
    was expected."""


def read_series(run_dir, windows=None):
    """timeseries.csv's rows as {column: float}; [] when the run has no such file (the time series
    was switched off). `windows`: the number of rows stats.json's timeseries.windows says the file
    has, when known. BadSeries for a file that is not the one famsim writes: not UTF-8, no header
    or one without SERIES_COLUMNS, a row whose cells do not match the header, a cell that is not a
    finite number, or fewer or more rows than `windows` (a file cut short at a line break would
    otherwise plot a shorter run without a word)."""
    path = os.path.join(run_dir, "timeseries.csv")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise BadSeries(f"{path}: cannot be read ({e.strerror or e}); expected the timeseries.csv "
                        "famsim run writes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise BadSeries(f"{path} line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); "
                        "expected the CSV text famsim run writes")
    expected_header = (f"expected the header famsim run writes ({SERIES_COLUMNS[0]},"
                       f"{SERIES_COLUMNS[1]},...,{SERIES_COLUMNS[-1]},...)")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    if not lines:
        raise BadSeries(f"{path}: empty; {expected_header}")
    reader = csv.reader(line.rstrip("\r") for line in lines)
    try:
        header = next(reader)
    except csv.Error as e:
        raise BadSeries(f"{path} line 1: {e}; {expected_header}")
    missing = [c for c in SERIES_COLUMNS if c not in header]
    if len(missing) == len(SERIES_COLUMNS):
        raise BadSeries(f"{path} line 1: {lines[0][:40]!r} is not famsim's header; "
                        f"{expected_header}")
    if missing:
        raise BadSeries(f"{path} line 1: the header lacks {', '.join(missing)}; {expected_header}")
    rows = []
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise BadSeries(f"{path} line {reader.line_num}: {e}; expected the CSV text "
                            "famsim run writes")
        n = reader.line_num
        if len(cells) != len(header):
            raise BadSeries(f"{path} line {n}: {len(cells)} cells; expected {len(header)}, one "
                            "per column of the header")
        row = {}
        for name, cell in zip(header, cells):
            try:
                value = float(cell)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise BadSeries(f"{path} line {n}: {name} is {cell[:20]!r}; expected a finite "
                                "number in every cell after the header")
            row[name] = value
        rows.append(row)
    if isinstance(windows, int) and not isinstance(windows, bool) and windows < len(rows):
        raise BadSeries(f"{path} line {windows + 2}: window {windows + 1}, past the last; expected "
                        f"{windows} (stats.json timeseries.windows)")
    if isinstance(windows, int) and not isinstance(windows, bool) and windows > len(rows):
        raise BadSeries(f"{path} line {len(lines) + 1}: the file ends after {len(rows)} windows; "
                        f"expected {windows} (stats.json timeseries.windows)")
    return rows


# timeseries.csv's per-target columns (read + write GB/s) and their legend labels.
TARGET_COLUMNS = (("device_gbps", "expansion device"), ("local_hbm_gbps", "local HBM"),
                  ("peer_gpu_gbps", "peer GPU HBM"),
                  ("standalone_memory_gbps", "standalone memory"))


def changed_phases(stats):
    """bottlenecks.phases.phases when the per-phase analysis found more than one, else []."""
    phases = ((stats.get("bottlenecks") or {}).get("phases") or {}).get("phases") or []
    return phases if len(phases) > 1 else []


def mark_phases(ax, phases):
    """Each phase's span shaded in turn and labelled with its limiter along the top. When a label
    is wider than its phase's span, every phase is numbered instead and the returned legend
    entries ("phase 1: <limiter>", ...) say which limiter each number stands for."""
    texts = []
    for i, p in enumerate(phases):
        start, end = p["start_ns"] * 1e-3, p["end_ns"] * 1e-3
        if i % 2:
            ax.axvspan(start, end, color="grey", alpha=0.12, linewidth=0)
        lim = p.get("limiter")
        texts.append(f"{lim['component']} {lim['resource']}" if lim else "nothing saturated")
    renderer = ax.figure.canvas.get_renderer()
    drawn, fits = [], True
    for p, text in zip(phases, texts):
        start, end = p["start_ns"] * 1e-3, p["end_ns"] * 1e-3
        t = ax.text((start + end) / 2, 0.98, text, transform=ax.get_xaxis_transform(),
                    ha="center", va="top", fontsize=7, color="dimgrey")
        span_px = ax.transData.transform((end, 0))[0] - ax.transData.transform((start, 0))[0]
        # 0.85: room between neighbours, and for the layout narrowing the axes a little.
        fits = fits and t.get_window_extent(renderer).width <= 0.85 * span_px
        drawn.append(t)
    if fits:
        return []
    for i, t in enumerate(drawn):
        t.set_text(str(i + 1))
    return [Patch(color="none", label=f"phase {i + 1}: {text}") for i, text in enumerate(texts)]


def bandwidth_time(rows, out, stats=None):
    fig, ax = plt.subplots(figsize=(7, 4))
    t = [r["window_start_ns"] * 1e-3 for r in rows]
    ax.plot(t, [r["read_gbps"] for r in rows], label="read")
    ax.plot(t, [r["write_gbps"] for r in rows], label="write")
    # Where the bytes went (read + write), when more than one kind of memory carried some: the
    # expansion device's own curve, not a total that also holds the GPUs' HBM traffic.
    targets = [(k, label) for k, label in TARGET_COLUMNS
               if any(r.get(k, 0.0) > 0 for r in rows)]
    if len(targets) > 1:
        for key, label in targets:
            ax.plot(t, [r[key] for r in rows], linestyle="--", label=label)
    # Where the per-phase analysis found the limiter changing: each phase and its limiter, along
    # the top, with the legend beside the plot rather than over the labels.
    phases = changed_phases(stats or {})
    if phases:
        ax.set_ylim(top=ax.get_ylim()[1] * 1.15)  # room for the labels
        fig.set_size_inches(10, 4)
        numbered = mark_phases(ax, phases)
        handles, _ = ax.get_legend_handles_labels()
        ax.legend(handles=handles + numbered, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize=8)
    finish_time_plot(fig, ax, out, "bandwidth (GB/s)", "Bandwidth per window",
                     legend=not phases)


def finish_time_plot(fig, ax, out, ylabel, title, legend=True):
    """Labels, grid and legend (unless the caller placed its own) of a plot over simulated time;
    saves it to `out`."""
    ax.set_xlabel("simulated time (us)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def device_columns(rows):
    """timeseries.csv's per-device columns (device_<name>_gbps) that carried traffic, as
    [(column, device name)] in the file's order (the devices' address order)."""
    if not rows:
        return []
    cols = [k for k in rows[0] if k.startswith("device_") and k.endswith("_gbps")
            and k != "device_gbps"]
    return [(k, k[len("device_"):-len("_gbps")]) for k in cols
            if any(r.get(k, 0.0) > 0 for r in rows)]


def device_bandwidth_time(rows, out, listed=8):
    """Each expansion device's bandwidth (read + write) per window, when two or more carried
    traffic: one line each up to `listed` devices, beyond that the least and the most loaded
    device's band around the mean. False (nothing drawn) with fewer than two."""
    cols = device_columns(rows)
    if len(cols) < 2:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    t = [r["window_start_ns"] * 1e-3 for r in rows]
    if len(cols) <= listed:
        for key, name in cols:
            ax.plot(t, [r[key] for r in rows], label=name)
    else:
        per_row = [[r[key] for key, _ in cols] for r in rows]
        ax.fill_between(t, [min(v) for v in per_row], [max(v) for v in per_row], alpha=0.3,
                        label=f"least to most loaded of {len(cols)} devices")
        ax.plot(t, [sum(v) / len(v) for v in per_row], label="mean device")
    finish_time_plot(fig, ax, out, "bandwidth (GB/s)", "Bandwidth per device per window")
    return True


def latency_time(rows, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    t = [r["window_start_ns"] * 1e-3 for r in rows]
    for key, label in (("latency_p50_ns", "p50"), ("latency_p99_ns", "p99"),
                       ("latency_max_ns", "max")):
        # A window in which no request completed has no latency; timeseries.csv writes 0 there
        # (models/core/timeseries.cpp), which drawn would dip to a latency of zero. A gap instead.
        ax.plot(t, [r[key] if r["requests"] > 0 else math.nan for r in rows], label=label)
    finish_time_plot(fig, ax, out, "latency (ns)", "Latency per window (requests completing in it)")


def resource_rows(stats):
    """(label, utilisation 0..1, type) of every resource: each component's `resources` where it
    lists them ("<component> <resource>", type "bandwidth" or "slots"), else the component's own
    utilisation (type None)."""
    rows = []
    for name, c in (stats.get("components") or {}).items():
        res = c.get("resources") if isinstance(c, dict) else None
        if res:
            rows += [(f"{name} {r.get('name', '?')}", r.get("utilization") or 0.0, r.get("type"))
                     for r in res]
        elif isinstance(c, dict):
            rows.append((name, c.get("utilization") or 0.0, None))
    return rows


# A component that lists no resources is drawn by its own utilisation (None).
TYPE_COLOURS = {"bandwidth": "tab:blue", "slots": "tab:orange", None: "tab:gray"}
TYPE_LABELS = {"bandwidth": "bandwidth", "slots": "slots", None: "component"}


def saturation_line(ax, stats):
    """The bottleneck analysis's saturation threshold as a dashed vertical line, when known."""
    t = (stats.get("bottlenecks") or {}).get("saturation_threshold")
    if isinstance(t, (int, float)):
        ax.axvline(100 * t, color="tab:red", linestyle="--", linewidth=1,
                   label=f"saturated ({100 * t:.0f}%)")
        return True
    return False


def middle_ellipsis(text, width):
    """text cut to `width` characters with its middle replaced by an ellipsis: a resource's name
    starts with its component and ends with what it is, and a reader needs both."""
    if len(text) <= width:
        return text
    keep = width - 1
    head = (keep + 1) // 2
    return text[:head] + "\u2026" + text[len(text) - (keep - head):]


def tick_names(names, width=60):
    """Labels for a bar per name, none longer than `width` characters where that keeps them
    apart: names that would read the same once cut are cut less, a character at a time, until
    they differ. At 7 points a 60-character label takes about a third of an 8-inch figure. It
    keeps whole every name of nvl8_fam, fam_mesh and minimal runs (the longest, 'fam0.memory.ch10
    column rate (busiest bank group, tCCD_L)', has 57), while a longer one no longer pushes the
    bars off the figure."""
    widths = [width] * len(names)
    while True:
        labels = [middle_ellipsis(n, w) for n, w in zip(names, widths)]
        alike = {}
        for i, label in enumerate(labels):
            alike.setdefault(label, []).append(i)
        cut = [i for same in alike.values() if len(same) > 1 for i in same
               if len(names[i]) > widths[i]]
        if not cut:
            return labels
        for i in cut:
            widths[i] += 1


def utilization(stats, out, top=40):
    everything = resource_rows(stats)
    rows = sorted((r for r in everything if r[1] > 0), key=lambda r: -r[1])[:top]
    fig, ax = plt.subplots(figsize=(8, max(3, 0.25 * len(rows) + 1.3)))
    rows = rows[::-1]
    vals = [100 * r[1] for r in rows]
    typed = any(r[2] for r in rows)  # some components list their resources
    # At positions, not at the names: two components of the same name would share one bar.
    ax.barh(range(len(rows)), vals,
            color=[TYPE_COLOURS.get(r[2], "tab:gray") if typed else "tab:blue" for r in rows])
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(tick_names([r[0] for r in rows]))
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlim(0, max([100.0] + vals))
    # On two lines: with 60-character names beside the bars, one line reached the right edge.
    ax.set_xlabel("utilisation (%): busy time of a bandwidth resource,\nmean fill of a slot pool")
    n_typed = sum(1 for r in everything if r[2])
    of = (f"{n_typed} resources and {len(everything) - n_typed} components listing none"
          if 0 < n_typed < len(everything) else f"{len(everything)} resources")
    # On two lines and centred on the figure: over the axes alone, which long names push right,
    # the counts ran past the figure's right edge.
    fig.suptitle(f"Utilisation, busiest {len(rows)}\nof {of}", fontsize=12)
    ax.tick_params(axis="y", labelsize=7)
    handles = []
    if typed:
        handles = [Patch(color=TYPE_COLOURS[t], label=TYPE_LABELS[t])
                   for t in ("bandwidth", "slots", None) if any(r[2] == t for r in rows)]
    if saturation_line(ax, stats) or handles:
        h, _ = ax.get_legend_handles_labels()
        ax.legend(handles=handles + h, fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def merge_port_classes(classes):
    """bottlenecks.classes with the resources that differ only in a number merged ("request input
    3 buffer", "request input 21 buffer" -> "request input * buffer"): one bar per kind of
    resource rather than one per port. Count and saturated add up, the max is the largest, the
    mean is weighted by count."""
    merged = {}
    for c in classes:
        if not isinstance(c, dict):
            continue
        key = (str(c.get("class", "?")), re.sub(r"\d+", "*", str(c.get("resource", ""))))
        m = merged.setdefault(key, {"class": key[0], "resource": key[1], "count": 0,
                                    "saturated": 0, "max_utilization": 0.0, "weighted": 0.0})
        n = c.get("count") or 0
        m["count"] += n
        m["saturated"] += c.get("saturated") or 0
        m["max_utilization"] = max(m["max_utilization"], c.get("max_utilization") or 0.0)
        m["weighted"] += n * (c.get("mean_utilization") or 0.0)
    for m in merged.values():
        m["mean_utilization"] = m.pop("weighted") / m["count"] if m["count"] else 0.0
    return sorted(merged.values(), key=lambda m: -m["max_utilization"])


def utilization_by_class(stats, out, top=30):
    """Max and mean utilisation of each class of like resources (bottlenecks.classes, with the
    per-port resources of a class merged)."""
    classes = merge_port_classes((stats.get("bottlenecks") or {}).get("classes") or [])
    if not classes:
        return False
    classes = classes[:top][::-1]
    labels = tick_names([f"{c.get('class', '?')} {c.get('resource', '')}" for c in classes])
    labels = [f"{label} (x{c.get('count', '?')})" for label, c in zip(labels, classes)]
    fig, ax = plt.subplots(figsize=(8, max(3, 0.3 * len(classes) + 1)))
    ys = range(len(classes))
    ax.barh(ys, [100 * (c.get("max_utilization") or 0) for c in classes], color="tab:blue",
            alpha=0.35, label="busiest member")
    ax.barh(ys, [100 * (c.get("mean_utilization") or 0) for c in classes], color="tab:blue",
            height=0.4, label="mean over the class")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.7, len(classes) - 0.3)
    saturation_line(ax, stats)
    ax.set_xlim(0, 100)
    ax.set_xlabel("utilisation (%)")
    ax.set_title("Utilisation by class of like resources")
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def limiter_occupancy_data(stats):
    """(limiter, occupancy) when the bottleneck is a slot pool whose component reports the pool's
    occupancy histogram, else None."""
    lim = (stats.get("bottlenecks") or {}).get("limiter")
    if not isinstance(lim, dict) or lim.get("type") != "slots":
        return None
    comp = (stats.get("components") or {}).get(lim.get("component"))
    for r in (comp or {}).get("resources") or []:
        occ = r.get("occupancy")
        if r.get("name") == lim.get("resource") and occ and occ.get("time_fraction"):
            return lim, occ
    return None


def limiter_occupancy(stats, out):
    """Share of the run the limiting pool spent at each occupancy level."""
    found = limiter_occupancy_data(stats)
    if not found:
        return False
    lim, occ = found
    width = occ.get("bucket_width") or 1
    frac = occ["time_fraction"]
    fig, ax = plt.subplots(figsize=(7, 4))
    # Buckets of one level are drawn centred on it; wider ones span [i * width, (i + 1) * width).
    ax.bar([i * width for i in range(len(frac))], [100 * f for f in frac], width=width,
           align="center" if width == 1 else "edge", edgecolor="white")
    cap = occ.get("capacity")
    if cap:
        ax.axvline(cap, color="tab:red", linestyle="--", linewidth=1, label=f"capacity {cap}")
    if occ.get("mean") is not None:
        ax.axvline(occ["mean"], color="black", linewidth=1, label=f"mean {occ['mean']:.1f}")
    ax.set_xlabel(f"slots in use (buckets of {width})")
    ax.set_ylabel("time at that level (% of the run)")
    ax.set_title(f"Occupancy of the limiter: {lim.get('component')} {lim.get('resource')}")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def mesh_components(stats):
    """[(name, component)] of the mesh NoCs in the run (components with dims and links)."""
    comps = stats.get("components") or {}
    return [(name, c) for name, c in sorted(comps.items())
            if isinstance(c, dict) and isinstance(c.get("dims"), list)
            and isinstance(c.get("links"), dict)]


LINK_NAME = re.compile(r"^(request|response) (?:link|VC credits) \((\d+),(\d+)\)->\((\d+),(\d+)\)$")


def mesh_links(stats, out):
    """Each mesh's directed links on its grid, coloured by flits per cycle."""
    meshes = mesh_components(stats)
    if not meshes:
        return False
    lim = (stats.get("bottlenecks") or {}).get("limiter") or {}
    m = LINK_NAME.match(lim.get("resource") or "")
    # (component, network, from, to) of the limiter when it is a mesh link or its credits.
    limiter = (lim.get("component"), m.group(1), (int(m.group(2)), int(m.group(3))),
               (int(m.group(4)), int(m.group(5)))) if m else None
    cmap = plt.get_cmap("viridis")
    fig, axes = plt.subplots(len(meshes), 2, figsize=(11, 5 * len(meshes)), squeeze=False)
    for row, (name, comp) in enumerate(meshes):
        cols, rows = comp["dims"]
        for col, net in enumerate(("request", "response")):
            ax = axes[row][col]
            for x in range(cols):
                for y in range(rows):
                    ax.add_patch(plt.Rectangle((x - 0.18, y - 0.18), 0.36, 0.36, color="0.85"))
                    ax.text(x, y, f"{x},{y}", ha="center", va="center", fontsize=7)
            for link in comp["links"].get(net) or []:
                (x0, y0), (x1, y1) = link["from"], link["to"]
                dx, dy = x1 - x0, y1 - y0
                # The two directions of a pair side by side: offset to the right of travel.
                ox, oy = -dy * 0.08, dx * 0.08
                u = min(1.0, link.get("flits_per_cycle", 0.0))
                is_limiter = limiter == (name, net, (x0, y0), (x1, y1))
                head = (x1 - dx * 0.2 + ox, y1 - dy * 0.2 + oy)
                tail = (x0 + dx * 0.2 + ox, y0 + dy * 0.2 + oy)
                if is_limiter:  # a red arrow under the coloured one: its outline
                    ax.annotate("", xy=head, xytext=tail,
                                arrowprops=dict(arrowstyle="-|>", color="tab:red", linewidth=6))
                    ax.text((x0 + x1) / 2 + 3.5 * ox, (y0 + y1) / 2 + 3.5 * oy, "limiter",
                            color="tab:red", fontsize=7, ha="center", va="center",
                            rotation=90 if dx == 0 else 0)
                ax.annotate("", xy=head, xytext=tail,
                            arrowprops=dict(arrowstyle="-|>", color=cmap(u), linewidth=2))
            ax.set_xlim(-0.6, cols - 0.4)
            ax.set_ylim(rows - 0.4, -0.6)  # row 0 (north) at the top
            ax.set_aspect("equal")
            ax.set_xticks(range(cols))
            ax.set_yticks(range(rows))
            ax.set_xlabel("x (west to east)")
            ax.set_ylabel("y (north to south)")
            ax.set_title(f"{name}: {net} network")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, 1))
    fig.colorbar(sm, ax=axes.ravel().tolist(), shrink=0.8, label="flits per cycle (1 = busy)")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def hop_breakdown(stats, out):
    br = stats.get("latency_breakdown_ns")
    if not br:
        return False
    kinds = [k for k in ("read", "write") if br.get(k) and br[k].get("hops")]
    if not kinds:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    # One colour per hop class across both bars (a path has up to 11 classes: more than the
    # default cycle's 10 colours).
    order = []
    for kind in kinds:
        order += [h["hop"] for h in br[kind]["hops"] if h["hop"] not in order]
    # tab20 in pairs of a dark and a light shade: the 10 dark hues first, then the light ones.
    cmap = plt.get_cmap("tab20")
    shades = [cmap(i) for i in list(range(0, 20, 2)) + list(range(1, 20, 2))]
    colour = {hop: shades[i % 20] for i, hop in enumerate(order)}
    labelled = set()
    for i, kind in enumerate(kinds):
        left = 0.0
        for hop in br[kind]["hops"]:
            name = hop["hop"]
            ax.barh(i, hop["mean"], left=left, color=colour[name],
                    label=None if name in labelled else name)
            labelled.add(name)
            left += hop["mean"]
    ax.set_yticks(range(len(kinds)))
    ax.set_yticklabels(kinds)
    ax.set_xlabel("mean latency (ns)")
    ax.set_title("Where the time goes, per hop")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def draw(stats, run_dir, out):
    """Draws every plot the run has into `out`; returns the file names written."""
    written = []
    latency_cdf(stats, os.path.join(out, "latency_cdf.png"))
    written.append("latency_cdf.png")
    rows = read_series(run_dir, (stats.get("timeseries") or {}).get("windows"))
    if rows:
        bandwidth_time(rows, os.path.join(out, "bandwidth_time.png"), stats)
        latency_time(rows, os.path.join(out, "latency_time.png"))
        written += ["bandwidth_time.png", "latency_time.png"]
        if device_bandwidth_time(rows, os.path.join(out, "device_bandwidth_time.png")):
            written.append("device_bandwidth_time.png")
    utilization(stats, os.path.join(out, "utilization.png"))
    written.append("utilization.png")
    if hop_breakdown(stats, os.path.join(out, "hop_breakdown.png")):
        written.append("hop_breakdown.png")
    if utilization_by_class(stats, os.path.join(out, "utilization_by_class.png")):
        written.append("utilization_by_class.png")
    if limiter_occupancy(stats, os.path.join(out, "limiter_occupancy.png")):
        written.append("limiter_occupancy.png")
    if mesh_links(stats, os.path.join(out, "mesh_links.png")):
        written.append("mesh_links.png")
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--out", help="where the PNGs go (default RUN_DIR/plots)")
    a = ap.parse_args()
    stats_path = os.path.join(a.run_dir, "stats.json")
    try:
        with open(stats_path) as f:
            stats = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot_run: {stats_path}: {e}; expected the output directory of famsim run",
              file=sys.stderr)
        return 2
    if not (isinstance(stats, dict) and isinstance(stats.get("sim"), dict)
            and isinstance(stats.get("summary"), dict)
            and isinstance(stats.get("components", {}), dict)):
        print(f"plot_run: {stats_path}: not a famsim stats.json (expected an object with sim and "
              "summary sections); expected the output directory of famsim run", file=sys.stderr)
        return 2
    out = a.out or os.path.join(a.run_dir, "plots")
    try:
        os.makedirs(out, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".plot_run-", dir=out)
    except OSError as e:
        print(f"plot_run: {out}: cannot create the output directory ({e.strerror or e})",
              file=sys.stderr)
        return 2
    # Drawn into a temporary directory and renamed into place only when all are drawn: a
    # stats.json of the wrong shape leaves no partial set of plots that looks complete.
    try:
        written = draw(stats, a.run_dir, tmp)
        for w in written:
            os.replace(os.path.join(tmp, w), os.path.join(out, w))
    except BadSeries as e:
        print(f"plot_run: {e}; no plots written", file=sys.stderr)
        return 2
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as e:
        print(f"plot_run: {stats_path}: not the shape famsim writes ({type(e).__name__}: {e}); "
              "no plots written", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for w in written:
        print(os.path.join(out, w))
    return 0


if __name__ == "__main__":
    sys.exit(main())
