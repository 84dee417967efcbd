#!/usr/bin/python3
"""PNG plots of one famsim run directory (the --out DIR of `famsim run`).

    scripts/plot_run.py RUN_DIR [--out PLOTS_DIR]

Writes into PLOTS_DIR (default RUN_DIR/plots):
  latency_cdf.png       read and write latency CDF (stats.json summary.*_latency_histogram)
  bandwidth_time.png    read and write bandwidth per window (timeseries.csv)
  latency_time.png      latency p50 / p99 / max per window (timeseries.csv)
  utilization.png       utilisation of every resource, busiest first (stats.json components)
  hop_breakdown.png     mean latency per hop, stacked, reads and writes
                        (stats.json latency_breakdown_ns, when the run has it)
Needs Debian's python3-matplotlib (scripts/setup.sh installs it).
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def latency_cdf(stats, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    drawn = False
    for kind in ("read", "write"):
        h = stats["summary"].get(f"{kind}_latency_histogram")
        if not h or not h["count"]:
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


def read_series(run_dir):
    path = os.path.join(run_dir, "timeseries.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def bandwidth_time(rows, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    t = [r["window_start_ns"] * 1e-3 for r in rows]
    ax.plot(t, [r["read_gbps"] for r in rows], label="read")
    ax.plot(t, [r["write_gbps"] for r in rows], label="write")
    ax.set_xlabel("simulated time (us)")
    ax.set_ylabel("bandwidth (GB/s)")
    ax.set_title("Bandwidth per window")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def latency_time(rows, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    t = [r["window_start_ns"] * 1e-3 for r in rows]
    for key, label in (("latency_p50_ns", "p50"), ("latency_p99_ns", "p99"),
                       ("latency_max_ns", "max")):
        ax.plot(t, [r[key] for r in rows], label=label)
    ax.set_xlabel("simulated time (us)")
    ax.set_ylabel("latency (ns)")
    ax.set_title("Latency per window (requests completing in it)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def utilization(stats, out, top=40):
    comps = sorted(stats["components"].items(), key=lambda kv: -kv[1]["utilization"])
    comps = [c for c in comps if c[1]["utilization"] > 0][:top]
    fig, ax = plt.subplots(figsize=(8, max(3, 0.25 * len(comps) + 1)))
    names = [c[0] for c in comps][::-1]
    vals = [100 * c[1]["utilization"] for c in comps][::-1]
    ax.barh(names, vals)
    ax.set_xlim(0, 100)
    ax.set_xlabel("utilisation (%)")
    ax.set_title(f"Utilisation, busiest {len(comps)} resources")
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def hop_breakdown(stats, out):
    br = stats.get("latency_breakdown_ns")
    if not br:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    kinds = [k for k in ("read", "write") if k in br and br[k].get("hops")]
    for i, kind in enumerate(kinds):
        left = 0.0
        for hop in br[kind]["hops"]:
            ax.barh(i, hop["mean"], left=left, label=hop["hop"] if i == 0 else None)
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
    out = a.out or os.path.join(a.run_dir, "plots")
    os.makedirs(out, exist_ok=True)
    written = []
    latency_cdf(stats, os.path.join(out, "latency_cdf.png"))
    written.append("latency_cdf.png")
    rows = read_series(a.run_dir)
    if rows:
        bandwidth_time(rows, os.path.join(out, "bandwidth_time.png"))
        latency_time(rows, os.path.join(out, "latency_time.png"))
        written += ["bandwidth_time.png", "latency_time.png"]
    utilization(stats, os.path.join(out, "utilization.png"))
    written.append("utilization.png")
    if hop_breakdown(stats, os.path.join(out, "hop_breakdown.png")):
        written.append("hop_breakdown.png")
    for w in written:
        print(os.path.join(out, w))
    return 0


if __name__ == "__main__":
    sys.exit(main())
