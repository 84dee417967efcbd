#!/usr/bin/env bash
# Where the bandwidth went (stats.json summary.by_target) from the outside: the bytes each class
# of target carried are those the workload sends there, the terminal summary and report.py show
# the split and say which figure is the expansion device's, and a trace player's memory is a
# target of its own.
#   tests/cli/target_split_cli_test.sh path/to/famsim
set -euo pipefail
CLI_TEST_NAME=target_split
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's python3: the one with matplotlib (report.py's shebang)
REPORT="$(dirname "$0")/../../scripts/report.py"

# nvl8_fam: GPU 0 reads 1 MiB of its own HBM and 2 MiB of the device; GPU 1 writes 512 KiB to the
# device. 128 B requests.
cp "$(dirname "$0")/data/local_and_device_reads.yaml" "$WORK/mixed.yaml"
cat >>"$WORK/mixed.yaml" <<'EOF'
  - name: device_write
    gpus: [1]
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.0
    total_bytes: 512KiB
EOF
RUN="$WORK/mixed"
run_famsim mixed run --workload "$WORK/mixed.yaml" --out "$RUN" || true
expect_rc 0 "mixed run"
"$PY" - "$RUN/stats.json" "$WORK/mixed.log" <<'PY' || fail "summary.by_target or the terminal summary of the mixed run"
import json, sys
s = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
by = s["summary"]["by_target"]
MiB = 1 << 20
want = {"device": (2 * MiB, MiB // 2), "local_hbm": (MiB, 0), "peer_gpu": (0, 0),
        "standalone_memory": (0, 0)}
assert sorted(by) == sorted(want), sorted(by)
for k, (r, w) in want.items():
    assert (by[k]["read_bytes"], by[k]["write_bytes"]) == (r, w), (k, by[k])
    assert by[k]["latency_ns"]["count"] == (r + w) // 128, (k, by[k]["latency_ns"])
# The headline keeps its meaning (every target) and is the sum of the parts.
assert s["summary"]["read_bytes"] == 3 * MiB and s["summary"]["write_bytes"] == MiB // 2
secs = (s["sim"]["simulated_time_ns"] - s["sim"]["active_from_ns"]) * 1e-9
dev = by["device"]
assert abs(dev["bandwidth_gbps"] - 2.5 * MiB / secs * 1e-9) < 1e-9, dev
assert abs(sum(by[k]["bandwidth_gbps"] for k in by) - s["summary"]["bandwidth_gbps"]) < 1e-9
# The terminal summary: a line per target that carried traffic, with its bandwidth.
assert "by target (read + write, adding up to the figures above):" in out, out
lines = {l.strip().split("  ")[0]: l for l in out.splitlines() if l.startswith("    ")}
assert "expansion device" in lines and "local HBM" in lines and "peer GPU HBM" not in lines, out
assert f"{dev['bandwidth_gbps']:.2f} GB/s" in lines["expansion device"], lines
assert f"{by['local_hbm']['bandwidth_gbps']:.2f} GB/s" in lines["local HBM"], lines
# The bottleneck sentence says its achieved figure is the total over the targets.
assert "over all targets (expansion device" in s["bottlenecks"]["sentence"], s["bottlenecks"]
# Under the hop shares, the terminal says that queueing behind the limiter, here a device link's
# response wire, counts in the hops before it, naming the limiter.
l = s["bottlenecks"]["limiter"]
assert l["kind"] == "link", l
caveat = "(a hop's time includes waiting for the next block to take the request"
assert f"{caveat}: queueing behind the limiter, {l['component']} {l['resource']}," in out, out
# By memory: GPU 0's HBM served the local stream, fam0 both device streams; the other GPUs' HBM
# nothing. One device: it is its own mean, and the terminal lists no devices.
m = s["summary"]["by_memory"]
assert sorted(m) == sorted([f"gpu{g}_hbm" for g in range(8)] + ["fam0"]), list(m)
assert (m["gpu0_hbm"]["read_bytes"], m["gpu0_hbm"]["write_bytes"]) == (MiB, 0), m["gpu0_hbm"]
assert (m["fam0"]["read_bytes"], m["fam0"]["write_bytes"]) == (2 * MiB, MiB // 2), m["fam0"]
assert all(m[f"gpu{g}_hbm"]["read_bytes"] + m[f"gpu{g}_hbm"]["write_bytes"] == 0
           for g in range(1, 8)), m
assert m["fam0"]["kind"] == "device" and m["gpu0_hbm"]["kind"] == "gpu_hbm", m
assert abs(m["fam0"]["share_of_bytes"] - 2.5 / 3.5) < 1e-12, m["fam0"]
assert m["fam0"]["latency_ns"] == dev["latency_ns"], (m["fam0"], dev)
b = s["summary"]["device_balance"]
assert (b["devices"], b["devices_used"], b["max_over_mean"]) == (1, 1, 1.0), b
assert "by device" not in out, out
PY
pass "bytes by target as the workload sends them; the terminal shows the split"

# Two devices, a 6 MiB buffer striped over them page (2 MiB) by page and read sequentially: pages
# 0 and 2 on fam0, page 1 on fam1, so fam0 serves 4 MiB and fam1 2 MiB (4/3 and 2/3 of the mean).
# Each request's device, found here from the transaction log's physical address and the address
# layout, gives the same bytes and latencies.
cat >"$WORK/striped.yaml" <<'EOF'
name: striped
streams:
  - name: reader
    gpus: [0]
    buffer: {bytes: 6MiB, location: [device/fam0, device/fam1]}
    pattern: sequential
EOF
DATA="$(dirname "$0")/data"
run_famsim striped run --platform "$DATA/two_devices.yaml" --workload "$WORK/striped.yaml" \
  --txn-log --out "$WORK/striped" || true
expect_rc 0 "striped run"
"$PY" - "$WORK/striped" "$WORK/striped.log" <<'PY' || fail "the split by device of a striped buffer"
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/stats.json"))
out = open(sys.argv[2]).read()
MiB = 1 << 20
layout = [(int(t["base"], 16), t["bytes"], t["target"]) for t in s["address_layout"]]
got = {name: [0, []] for _, _, name in layout}
for r in csv.DictReader(open(d + "/transactions.csv")):
    pa = int(r["physical_address"], 16)
    name = next(n for base, size, n in layout if base <= pa < base + size)
    got[name][0] += int(r["bytes"])
    got[name][1].append(int(r["latency_ps"]) / 1e3)
assert got["fam0"][0] == 4 * MiB and got["fam1"][0] == 2 * MiB, {k: v[0] for k, v in got.items()}
m = s["summary"]["by_memory"]
for name, (moved, lat) in got.items():
    e = m[name]
    assert e["read_bytes"] == moved and e["write_bytes"] == 0, (name, e)
    assert e["latency_ns"]["count"] == len(lat), (name, e["latency_ns"])
    assert abs(e["latency_ns"]["mean"] - sum(lat) / len(lat)) < 1e-6, (name, e["latency_ns"])
    assert abs(e["latency_ns"]["max"] - max(lat)) < 1e-9, (name, e["latency_ns"])
b = s["summary"]["device_balance"]
assert (b["devices"], b["devices_used"], b["busiest"], b["least_busy"]) == (2, 2, "fam0", "fam1"), b
assert abs(b["max_over_mean"] - 4 / 3) < 1e-12 and abs(b["min_over_mean"] - 2 / 3) < 1e-12, b
head = ("by device (2 of 2 used; busiest fam0 at 1.333 x the mean bytes, least busy fam1 at "
        "0.667 x):")
assert head in out, out
lines = {l.split()[0]: l for l in out.splitlines() if l.startswith("    fam")}
for name in ("fam0", "fam1"):
    assert f"{m[name]['bandwidth_gbps']:.2f} GB/s" in lines[name], lines
PY
pass "a striped buffer's bytes and latencies by device, checked against the transaction log"

# The same run window by window: the pages are read one after the other, so the load sits on one
# device at a time. Each window's bytes per device, and the busiest device's bytes over the mean
# per window, are worked out here from the transaction log (a request counts in the window its
# response arrived in).
"$PY" - "$WORK/striped" "$WORK/striped.log" <<'PY' || fail "the striped run's series by device"
import csv, json, sys
from collections import defaultdict
d = sys.argv[1]
s = json.load(open(d + "/stats.json"))
out = open(sys.argv[2]).read()
ts = s["timeseries"]
w_ps = round(ts["window_ns"] * 1000)
layout = [(int(t["base"], 16), t["bytes"], t["target"]) for t in s["address_layout"]]
devs = ["fam0", "fam1"]
moved = defaultdict(lambda: [0, 0])  # window -> bytes per device
count = defaultdict(int)
for r in csv.DictReader(open(d + "/transactions.csv")):
    pa = int(r["physical_address"], 16)
    name = next(n for base, size, n in layout if base <= pa < base + size)
    w = int(r["complete_ps"]) // w_ps
    moved[w][devs.index(name)] += int(r["bytes"])
    count[w] += 1
rows = list(csv.DictReader(open(d + "/timeseries.csv")))
assert rows[0].keys() >= {"device_fam0_gbps", "device_fam1_gbps"}, rows[0].keys()
for row in rows:
    w = round(float(row["window_start_ns"]) * 1000) // w_ps
    for i, name in enumerate(devs):
        want = moved[w][i] / (w_ps / 1000)  # bytes per ns = GB/s
        assert abs(float(row[f"device_{name}_gbps"]) - want) < 1e-4, (w, name, row, want)
# Windows with at least 32 requests per device on average count; the mean is weighted by bytes.
ratios = [(max(b) * 2 / sum(b), sum(b)) for w, b in moved.items() if count[w] >= 64]
mean = sum(r * n for r, n in ratios) / sum(n for _, n in ratios)
b = ts["device_balance_by_window"]
assert b["windows"] == len(ratios), (b, len(ratios))
assert abs(b["mean_max_over_mean"] - mean) < 1e-9, (b, mean)
assert abs(b["max_max_over_mean"] - max(r for r, _ in ratios)) < 1e-12, b
assert abs(b["run_max_over_mean"] - 4 / 3) < 1e-12, b
assert mean > 1.9 and b["took_turns"] is True, b  # one device at a time, both over the run
for i, name in enumerate(devs):
    peak = max(v[i] for v in moved.values()) / (w_ps / 1000)
    assert abs(ts["peak_window_by_device_gbps"][name] - peak) < 1e-9, (name, ts, peak)
line = (f"per 1000 ns window: busiest at {mean:.3f} x the mean on average, "
        f"{b['max_max_over_mean']:.3f} x at most (the devices took turns)")
assert line in out, out
PY
pass "the striped run's bandwidth per device per window, checked against the transaction log"

# The devices' channels saturated in turn are phases of their own (bottlenecks.phases): each page
# takes 2 MiB / (2000 MT/s x 8 B = 16 GB/s) = 131.072 us, so fam0's channel limits up to about
# 131 us, fam1's up to about 262 us, fam0's after; each boundary within one window of that. Over
# the whole run each channel is only partly busy, which had made the three one phase.
"$PY" - "$WORK/striped/stats.json" <<'PY' || fail "the striped run's phases"
import json, sys
s = json.load(open(sys.argv[1]))
ph = s["bottlenecks"]["phases"]
w = ph["window_ns"]
got = [(p["limiter"] or {}).get("component") for p in ph["phases"]]
assert got == ["fam0.memory.ch0", "fam1.memory.ch0", "fam0.memory.ch0"], (got, ph)
page_ns = 2 * 1024 * 1024 / 16.0
for p, k in zip(ph["phases"][1:], (1, 2)):
    assert abs(p["start_ns"] - k * page_ns) <= w, (k, p["start_ns"], w)
assert "The limiter changed over the run" in s["bottlenecks"]["sentence"], s["bottlenecks"]
PY
pass "two devices saturated in turn are named phase by phase"


# A GPU whose window of 2 requests limits the run: nothing queues before it, so no such note.
run_famsim window run --platform platforms/minimal.yaml --out "$WORK/window" \
  --set workload.streams.0.total_bytes=256KiB --set gpus.max_outstanding=2 || true
expect_rc 0 "window-bound run"
grep -q "read latency by hop:" "$WORK/window.log" || fail "the window-bound run has no hop shares"
grep -q "limits throughput" "$WORK/window.log" || fail "the window-bound run names no limiter"
if grep -q "a hop's time includes waiting" "$WORK/window.log"; then
  fail "the hop note appears although a GPU's window, with no hop before it, limits the run"
fi
pass "no queueing note when the GPU's own window limits"

# A memory channel that limits the run (minimal.yaml cut to one DDR5-4800 channel, 19.2 GB/s,
# under a 25 GB/s link and 256 requests in flight): its full queues push back on the NoC and the
# port logic, whose hops then hold the waiting, so the note names the memory.
run_famsim memory run --platform platforms/minimal.yaml --out "$WORK/memory" \
  --set devices.0.memory.channels=1 --set devices.0.capacity_gib=32 --set workload.streams.0.total_bytes=1MiB \
  --set gpus.max_outstanding=256 || true
expect_rc 0 "memory-bound run"
grep -q "limits throughput" "$WORK/memory.log" || fail "the memory-bound run names no limiter"
grep -q "(a hop's time includes waiting for the next block to take the request: queueing behind the limiter, fam0.memory" "$WORK/memory.log" ||
  fail "no queueing note naming the memory when a memory channel limits: $(cat "$WORK/memory.log")"
pass "the queueing note when a memory channel limits"

run_tool report "$REPORT" "$RUN"
[ "$RC" -eq 0 ] || fail "report.py on the mixed run: exit code $RC. Output:
$OUT"
"$PY" - "$RUN" <<'PY' || fail "report.md does not say which bandwidth is the device's"
import json, re, sys
d = sys.argv[1]
s = json.load(open(d + "/stats.json"))
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())  # Markdown escapes
dev = s["summary"]["by_target"]["device"]["bandwidth_gbps"]
total = s["summary"]["bandwidth_gbps"]
assert f"The expansion device's bandwidth is {dev:,.2f} GB/s" in md, md
assert f"The bandwidth above is the total over every target, {total:,.2f} GB/s" in md, md
assert "| expansion device |" in md and "| local HBM |" in md, md
# The per-hop table: GPU 0's 1 MiB of local reads (8192 of 128 B) cross no link, its 2 MiB of
# device reads (16384) do; the means are over all 24576 reads, and the table says how many
# crossed each hop.
reads = md[md.index("### Reads"):md.index("### Writes")]
assert "per request of all 24,576" in reads and "'Mean' x 24,576 / 'Requests'" in reads, reads
row = next(l for l in reads.splitlines() if l.startswith("| `link (request)`"))
assert row.split("|")[7].strip() == "16,384", row
PY
pass "report.py names the expansion device's bandwidth"

run_tool striped_report "$REPORT" "$WORK/striped"
[ "$RC" -eq 0 ] || fail "report.py on the striped run: exit code $RC. Output:
$OUT"
"$PY" - "$WORK/striped" "$RUN" <<'PY' || fail "report.md's table by device"
import re, sys
md = re.sub(r"\\(.)", r"\1", open(sys.argv[1] + "/report.md").read())
rows = {l.split("|")[1].strip(): l for l in md.splitlines() if l.startswith("| `fam")}
assert "66.7%" in rows["`fam0`"] and "33.3%" in rows["`fam1`"], rows
assert "busiest, `fam0`, moved 1.333 times the mean device's bytes" in md, md
assert "The devices took turns:" in md, md
assert "plots/device_bandwidth_time.png" in md, md
one = open(sys.argv[2] + "/report.md").read()
assert "| Device |" not in one  # one device: no table
assert "device_bandwidth_time.png" not in one  # nor a plot by device
PY
pass "report.py lists the devices' shares"

# Everything to the GPU's own HBM: the summary says none of it went to a device.
run_famsim local run --workload "$WORK/mixed.yaml" --out "$WORK/local" \
  --set workload.streams.1.buffer.location=gpu_local \
  --set workload.streams.2.buffer.location=gpu_local || true
expect_rc 0 "local-only run"
expect_in_output "all of it to local HBM, none to an expansion device" "local-only run"
pass "a run without device traffic says so"

# A trace player's memory: 100 reads and 50 writes of 64 B (dram_ddr4's request size).
for i in $(seq 0 99); do printf 'LD 0x%x\n' $((i * 64)); done >"$WORK/t.trace"
for i in $(seq 0 49); do printf 'ST 0x%x\n' $((i * 64 + 65536)); done >>"$WORK/t.trace"
run_famsim dram run --platform platforms/dram_ddr4.yaml --trace "$WORK/t.trace" \
  --trace-format ramulator --out "$WORK/dram" || true
expect_rc 0 "standalone DRAM run"
"$PY" - "$WORK/dram/stats.json" "$WORK/dram.log" <<'PY' || fail "a trace player's traffic by target"
import json, sys
s = json.load(open(sys.argv[1]))
by = s["summary"]["by_target"]
assert (by["standalone_memory"]["read_bytes"], by["standalone_memory"]["write_bytes"]) == \
    (6400, 3200), by["standalone_memory"]
for k in ("device", "local_hbm", "peer_gpu"):
    assert by[k]["read_bytes"] + by[k]["write_bytes"] == 0, (k, by[k])
assert "by target" not in open(sys.argv[2]).read()
m = s["summary"]["by_memory"]
assert list(m) == ["memory"] and m["memory"]["kind"] == "standalone_memory", m
assert (m["memory"]["read_bytes"], m["memory"]["write_bytes"]) == (6400, 3200), m
assert s["summary"]["device_balance"] is None, s["summary"]["device_balance"]
assert s["summary"]["gpu_balance"] is None, s["summary"]["gpu_balance"]  # no GPU
PY
pass "a trace player's traffic is the standalone memory's"

# Two GPUs of nvl8_fam reading 1 MiB each from the device, gpu0 with 64 requests in flight and
# gpu1 with 4: gpu1 is served less (by the workload's design here). Each GPU's bandwidth over its
# own span, the Jain index, the least and most served, the mean latencies and the finish spread
# are worked out here from the transaction log.
cat >"$WORK/two_gpus.yaml" <<'EOF'
name: two_gpus
streams:
  - name: wide
    gpus: [0]
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: sequential
    total_bytes: 1MiB
    max_outstanding: 64
  - name: narrow
    gpus: [1]
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.5
    total_bytes: 1MiB
    max_outstanding: 4
EOF
run_famsim two_gpus run --platform platforms/nvl8_fam.yaml --workload "$WORK/two_gpus.yaml" \
  --txn-log --out "$WORK/two_gpus" || true
expect_rc 0 "two-GPU run"
"$PY" - "$WORK/two_gpus" "$WORK/two_gpus.log" <<'PY' || fail "the balance between GPUs"
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/stats.json"))
out = open(sys.argv[2]).read()
per = {}
for r in csv.DictReader(open(d + "/transactions.csv")):
    g = per.setdefault(r["initiator"], {"bytes": 0, "first": None, "last": 0, "lat": []})
    g["bytes"] += int(r["bytes"])
    issue = int(r["issue_ps"])
    g["first"] = issue if g["first"] is None else min(g["first"], issue)
    g["last"] = max(g["last"], int(r["complete_ps"]))
    g["lat"].append(int(r["latency_ps"]) / 1e3)
assert sorted(per) == ["gpu0", "gpu1"], per.keys()
bw = {n: g["bytes"] / ((g["last"] - g["first"]) / 1e3) for n, g in per.items()}
lat = {n: sum(g["lat"]) / len(g["lat"]) for n, g in per.items()}
mean = sum(bw.values()) / 2
jain = sum(bw.values()) ** 2 / (2 * sum(x * x for x in bw.values()))
b = s["summary"]["gpu_balance"]
assert (b["gpus"], b["gpus_active"]) == (8, 2), b
assert abs(b["jain_index"] - jain) < 1e-12, (b, jain)
slowest = max(lat, key=lat.get)
assert (b["least_served"], b["most_served"], b["highest_latency"]) == ("gpu1", "gpu0", slowest), b
assert abs(b["least_served_over_mean"] - bw["gpu1"] / mean) < 1e-12, (b, bw)
assert abs(b["bandwidth_gbps"]["min"] - bw["gpu1"]) < 1e-9, (b, bw)
assert abs(b["highest_latency_over_mean"] - lat[slowest] / (sum(lat.values()) / 2)) < 1e-9, (b, lat)
spread = abs(per["gpu0"]["last"] - per["gpu1"]["last"]) / 1e3
assert abs(b["finish_spread_ns"] - spread) < 1e-9, (b, spread)
# gpu1 writes half its bytes: they count in its bandwidth and its latency as its reads do.
assert per["gpu1"]["bytes"] == 1 << 20, per["gpu1"]["bytes"]
assert abs(b["bandwidth_gbps"]["min"] * (per["gpu1"]["last"] - per["gpu1"]["first"]) / 1e3
           - (1 << 20)) < 1e-3, b
g1 = s["components"]["gpu1"]
assert g1["write_bytes"] > 1 << 18 and g1["read_bytes"] > 1 << 18, g1  # about half each
# (gpu1's posted writes are answered sooner than its reads: gpu0, reading only, waits longest.)
assert slowest == "gpu0", lat
assert b["uneven"] is True, b
# At most 4 requests of 128 B in flight: by Little's law gpu1 gets at most 512 B per mean latency.
assert bw["gpu1"] <= 4 * 128 / lat["gpu1"] * (1 + 1e-9), (bw, lat)
line = (f"by GPU (2 active): {b['bandwidth_gbps']['min']:.2f} to {b['bandwidth_gbps']['max']:.2f} "
        f"GB/s each over its own span, Jain index {jain:.3f}; least served gpu1 at "
        f"{bw['gpu1'] / mean:.3f} x the mean")
assert line in out and line.split(";")[0] in out and "(uneven)" in out, out
PY
pass "the GPUs' own bandwidth, Jain index and latencies, checked against the transaction log"

run_tool two_gpus_report "$REPORT" "$WORK/two_gpus"
[ "$RC" -eq 0 ] || fail "report.py on the two-GPU run: exit code $RC. Output:
$OUT"
"$PY" - "$WORK/two_gpus" "$WORK/striped" <<'PY' || fail "report.md's GPU balance"
import json, re, sys
md = re.sub(r"\\(.)", r"\1", open(sys.argv[1] + "/report.md").read())
b = json.load(open(sys.argv[1] + "/stats.json"))["summary"]["gpu_balance"]
assert "2 of 8 GPUs completed requests." in md, md
assert f"Jain's fairness index over those is {b['jain_index']:.3f}" in md, md
assert "**Uneven service:**" in md, md  # 0.56 here
one = open(sys.argv[2] + "/report.md").read()  # one GPU
assert "Jain's fairness index over those" not in one  # (the Terms table defines it in every report)
PY
pass "report.py states how evenly the GPUs were served"

# A tie: on ualink_pod64 each group of 16 GPUs reads 64 KiB per GPU of its own device, so the four
# devices move 16 x 64 KiB each. busiest and least_busy are then the same device; the terminal and
# report.py say the devices moved the same bytes rather than naming it as both.
ROOT="$(dirname "$0")/../.."
run_famsim tie run --platform "$ROOT/platforms/ualink_pod64.yaml" \
  --workload "$ROOT/traffic/pod_random_read.yaml" --set workload.streams.0.total_bytes=64KiB \
  --set workload.streams.1.total_bytes=64KiB --set workload.streams.2.total_bytes=64KiB \
  --set workload.streams.3.total_bytes=64KiB --out "$WORK/tie" || true
expect_rc 0 "four devices with the same bytes"
"$PY" "$REPORT" "$WORK/tie" --out "$WORK/tie_report" >/dev/null
"$PY" - "$WORK/tie" "$WORK/tie.log" "$WORK/tie_report" <<'PY' || fail "a tie between devices"
import json, sys
s = json.load(open(sys.argv[1] + "/stats.json"))
for name in ("fam0", "fam1", "fam2", "fam3"):
    assert s["summary"]["by_memory"][name]["read_bytes"] == 16 * 64 * 1024, s["summary"]["by_memory"][name]
b = s["summary"]["device_balance"]
assert b["max_over_mean"] == b["min_over_mean"] == 1.0, b
out = open(sys.argv[2]).read()
assert "by device (4 of 4 used; each moved the same bytes):" in out, out
md = open(sys.argv[3] + "/report.md").read()
assert "4 of 4 devices carried traffic, each the same bytes." in md
assert "The busiest," not in md
PY
pass "devices that moved the same bytes are said to, not named busiest and least busy"
