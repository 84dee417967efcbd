#!/usr/bin/env bash
# famsim sweep from the outside: the same table with 1 and 2 local processes and under
# `mpirun -np 2`; resuming skips finished points; a failing point is recorded and does not stop
# the others; elasticities on platforms built so the answer is known.
#   tests/cli/sweep_cli_test.sh path/to/famsim
set -euo pipefail
famsim=$(realpath "$1")
root=$(pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok: $*"; }
PY=/usr/bin/python3

# Both sweeps start from minimal.yaml (1 GPU straight to the device), reading 4 MiB sequentially
# with 256 requests in flight; 16 GiB fits in one DDR5 channel of 32 GiB.
common='set: ["gpus.max_outstanding=256", "gpus.issue_width=8",
      "workload.streams.0.pattern=sequential", "workload.streams.0.total_bytes=4MiB",
      "workload.streams.0.max_outstanding=256", "devices.0.capacity_gib=16",
      "devices.0.port_logic.tags_per_port=256"'

# Channel-bound: 4 links (4 x 22.2 GB/s of read data) and 1, 2, 4 DDR5-4800 channels (19.2 GB/s
# peak each, at most 76.8 GB/s): bandwidth grows with the channels, so its elasticity is 1.
cat >"$WORK/channels.yaml" <<EOF
name: channel_bound
platform: $root/platforms/minimal.yaml
$common, "links.gpu_device.per_gpu=4", "devices.0.fabric_ports=4"]
parameters:
  - key: devices.0.memory.channels
    values: [1, 2, 4]
    base: 2
EOF
# Link-bound: one link (22.2 GB/s of read data) in front of 2, 4, 8 channels (38 to 154 GB/s):
# more channels change nothing, so the elasticity is 0.
cat >"$WORK/link.yaml" <<EOF
name: link_bound
platform: $root/platforms/minimal.yaml
$common]
parameters:
  - key: devices.0.memory.channels
    values: [2, 4, 8]
    base: 4
EOF

bad_sweep() {  # bad_sweep NAME TEXT: sweep $WORK/NAME.yaml exits 2 with TEXT in its output
  local rc=0
  "$famsim" sweep "$WORK/$1.yaml" --out "$WORK/$1" >"$WORK/$1.log" 2>&1 || rc=$?
  [[ $rc -eq 2 ]] || fail "$1: exit code $rc, expected 2: $(cat "$WORK/$1.log")"
  grep -qF -- "$2" "$WORK/$1.log" || fail "$1: expected '$2' in: $(cat "$WORK/$1.log")"
}

good_sweep() {  # good_sweep NAME OUT WHAT: sweep $WORK/NAME.yaml into $WORK/OUT, which must succeed
  "$famsim" sweep "$WORK/$1.yaml" --out "$WORK/$2" >"$WORK/$2.log" 2>&1 ||
    fail "$3: $(cat "$WORK/$2.log")"
}

without_host_time() {  # results.csv minus the host_seconds column
  $PY - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    r.pop("host_seconds")
    print(sorted(r.items()))
PY
}

"$famsim" sweep "$WORK/channels.yaml" --out "$WORK/j1" --jobs 1 >"$WORK/j1.log" 2>&1 ||
  fail "sweep --jobs 1: $(cat "$WORK/j1.log")"
"$famsim" sweep "$WORK/channels.yaml" --out "$WORK/j2" --jobs 2 >"$WORK/j2.log" 2>&1 ||
  fail "sweep --jobs 2: $(cat "$WORK/j2.log")"
[[ -f $WORK/j1/points/0002/stats.json ]] || fail "each point keeps its own stats.json"
diff <(without_host_time "$WORK/j1/results.csv") <(without_host_time "$WORK/j2/results.csv") ||
  fail "1 and 2 local processes give different tables"
pass "same table with 1 and 2 local processes"

# Channel-bound: elasticity of bandwidth with respect to channels is 1; the limiter is a channel.
$PY - "$WORK/j1" <<'PY' || fail "channel-bound elasticity"
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/results.csv")))
assert [r["status"] for r in rows] == ["ok"] * 3, rows
assert all(r["limiter"].startswith("fam*.memory.ch*") for r in rows), [r["limiter"] for r in rows]
s = [r for r in csv.DictReader(open(d + "/sensitivity.csv"))
     if r["metric"] == "bandwidth_gbps" and r["parameter"] == "devices.0.memory.channels"]
assert len(s) == 1, s
e = float(s[0]["elasticity"])
assert abs(e - 1.0) < 0.1, e
assert (s[0]["low_value"], s[0]["base_value"], s[0]["high_value"]) == ("1", "2", "4"), s
print("elasticity", e)
PY
pass "elasticity 1 when the channels are the bottleneck"

# The device's bandwidth column comes after the earlier columns, which keep their places; on
# minimal.yaml (no GPU memory) every byte goes to the device, so it is the total bandwidth.
$PY - "$WORK/j1" <<'PY' || fail "device_bandwidth_gbps column"
import csv, sys
d = sys.argv[1]
header = next(csv.reader(open(d + "/results.csv")))
known = ["bandwidth_gbps", "read_bandwidth_gbps", "write_bandwidth_gbps", "latency_mean_ns",
         "latency_p99_ns", "read_latency_mean_ns", "read_latency_p99_ns",
         "achieved_fraction_of_bound", "limiter", "limiter_utilization", "simulated_time_ns",
         "host_seconds", "device_bandwidth_gbps", "phase_limiters", "device_max_over_mean",
         "device_window_max_over_mean", "gpu_jain_index", "gpu_least_served_over_mean",
         "device_latency_mean_ns", "device_latency_p99_ns"]
start = header.index("bandwidth_gbps")
assert header[start:start + len(known)] == known, header
for r in csv.DictReader(open(d + "/results.csv")):
    assert float(r["device_bandwidth_gbps"]) > 0, r
    assert r["device_bandwidth_gbps"] == r["bandwidth_gbps"], r
    assert r["phase_limiters"] == "", r  # reads only: one phase
    assert float(r["device_max_over_mean"]) == 1.0, r  # one device: it is the mean
    assert r["device_window_max_over_mean"] == "", r  # and no balance between devices per window
    assert r["gpu_jain_index"] == "", r  # one GPU: no balance between GPUs
    assert r["gpu_least_served_over_mean"] == "", r
    # Every request went to the device: its latencies are the run's.
    assert r["device_latency_mean_ns"] == r["latency_mean_ns"], r
    assert r["device_latency_p99_ns"] == r["latency_p99_ns"], r
# sweep.json names the famsim that made the table, as each point's stats.json does.
import json
v = json.load(open(d + "/sweep.json"))["famsim_version"]
assert v and v == json.load(open(d + "/points/0000/stats.json"))["sim"]["famsim_version"], v
# Ranked in sensitivity.csv too; with every byte to the device, as the total is.
sens = list(csv.DictReader(open(d + "/sensitivity.csv")))
by = {r["metric"]: r for r in sens if r["parameter"] == "devices.0.memory.channels"}
for device, total in (("device_bandwidth_gbps", "bandwidth_gbps"),
                      ("device_latency_mean_ns", "latency_mean_ns"),
                      ("device_latency_p99_ns", "latency_p99_ns")):
    assert {k: v for k, v in by[device].items() if k != "metric"} == \
        {k: v for k, v in by[total].items() if k != "metric"}, (by[device], by[total])
# The sweep names no workload: sweep.json says which one ran, as each point's stats.json does.
w = json.load(open(d + "/sweep.json"))["workload"]
assert w == "(built-in) traffic/random_read.yaml", w
assert w == json.load(open(d + "/points/0000/stats.json"))["config_changes"]["workload_source"]
PY
pass "device_bandwidth_gbps and device latency columns"

# Device latency apart from the GPUs' own memory: on nvl8_fam GPU 0 reads 1 MiB of its local HBM
# and 2 MiB of the device. Local reads cross no link or switch, so the device's mean latency is
# above the mean over all reads, and is the one the device's stats.json part gives.
cat >"$WORK/mixed.yaml" <<EOF
name: mixed
platform: $root/platforms/nvl8_fam.yaml
workload: $root/tests/cli/data/local_and_device_reads.yaml
parameters:
  - key: devices.0.fabric_ports
    values: [4, 8]
    base: 8
EOF
good_sweep mixed mixed "mixed sweep"
$PY - "$WORK/mixed" "$root/tests/cli/data/local_and_device_reads.yaml" <<'PY' || fail "device latency beside local reads"
import csv, json, sys
d = sys.argv[1]
for i, r in enumerate(csv.DictReader(open(d + "/results.csv"))):
    dev = json.load(open(f"{d}/points/{i:04d}/stats.json"))["summary"]["by_target"]["device"]
    assert dev["latency_ns"]["count"] == 2 * 1024 * 1024 // 128, dev
    assert float(r["device_latency_mean_ns"]) == dev["latency_ns"]["mean"], (r, dev)
    assert float(r["device_latency_p99_ns"]) == dev["latency_ns"]["p99"], (r, dev)
    assert float(r["device_latency_mean_ns"]) > float(r["latency_mean_ns"]), r
assert json.load(open(d + "/sweep.json"))["workload"] == sys.argv[2]
PY
pass "device latency columns leave the GPUs' local reads out"

# A workload's results that no point changed (configuration echoes, the passes it was asked for)
# are not ranked, each a row of elasticity 0, but listed in sweep.json. weight_stream on nvl8_fam
# shrunk as in the workloads test: 1 pass of 2 layers whose compute is fixed by the model
# (2 x 1,704,448 weights x 32768 / 8 FLOPs per GPU and layer at 700 TFLOP/s, to the ps), while
# half the fabric ports lengthen the pass.
S=workload.streams.0.weight_stream
cat >"$WORK/unchanged.yaml" <<EOF
name: unchanged
platform: $root/platforms/nvl8_fam.yaml
workload: $root/traffic/weight_stream.yaml
set: ["$S.layers=2", "$S.model.hidden_size=256", "$S.model.intermediate_size=512"]
parameters:
  - key: devices.0.fabric_ports
    values: [4, 8]
    base: 8
EOF
good_sweep unchanged unchanged "weight_stream sweep"
$PY - "$WORK/unchanged" <<'PY' || fail "unchanged workload results"
import csv, json, sys
d = sys.argv[1]
u = json.load(open(d + "/sweep.json"))["unchanged_workload_results"]
assert u["weights.passes_done"] == 1 and u["weights.tensor_parallel_groups"] == 1, u
layer_ps = round(2 * 1704448 * 32768 / 8 / 700e12 * 1e12)
assert abs(u["weights.compute_ns_per_pass"] - 2 * layer_ps / 1000) < 1e-6, (u, layer_ps)
ranked = {r["metric"] for r in csv.DictReader(open(d + "/sensitivity.csv"))}
assert not ranked & set(u), ranked & set(u)
assert "weights.mean_pass_ns" in ranked, ranked
# Every workload column of results.csv is either ranked or listed as unchanged, by its values.
rows = list(csv.DictReader(open(d + "/results.csv")))
for k in (k for k in rows[0] if k.startswith("weights.")):
    same = len({r[k] for r in rows}) == 1
    assert (k in u) == same and (k in ranked) == (not same), (k, same)
PY
pass "workload results no point changed are listed, not ranked"

# A platform file with its own workload section and a sweep naming none: that section ran.
$PY - "$root/platforms/minimal.yaml" "$root/traffic/random_read.yaml" "$WORK/own_wl.yaml" <<'PY'
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
p["workload"] = yaml.safe_load(open(sys.argv[2]))
p["workload"]["streams"][0]["total_bytes"] = "64KiB"
yaml.safe_dump(p, open(sys.argv[3], "w"))
PY
cat >"$WORK/own.yaml" <<EOF
name: own_workload
platform: own_wl.yaml
parameters:
  - key: sim.seed
    values: [1, 2]
    base: 1
EOF
good_sweep own own_wl "sweep of a platform with its own workload"
[[ $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["workload"])' \
  "$WORK/own_wl/sweep.json") == "$WORK/own_wl.yaml (its workload section)" ]] ||
  fail "sweep.json workload: $(cat "$WORK/own_wl/sweep.json")"
pass "sweep.json names the platform's own workload section"

good_sweep link link "link-bound sweep"
$PY - "$WORK/link" <<'PY' || fail "link-bound elasticity"
import csv, sys
d = sys.argv[1]
s = [r for r in csv.DictReader(open(d + "/sensitivity.csv")) if r["metric"] == "bandwidth_gbps"]
e = float(s[0]["elasticity"])
assert abs(e) < 0.05, e
# A metric that did not move on a side reads 0, not "-0".
cells = [v for r in csv.DictReader(open(d + "/sensitivity.csv")) for v in r.values()]
assert not any(v.startswith("-0") and float(v) == 0 for v in cells if v), cells
rows = list(csv.DictReader(open(d + "/results.csv")))
assert all("link" in r["limiter"] for r in rows), [r["limiter"] for r in rows]
print("elasticity", e)
PY
pass "elasticity near 0 when the channels are not the bottleneck"

# GPU balance columns: two GPUs on minimal.yaml, each with its own link and 1 MiB stream; GPU 1
# keeps 64 or 4 requests in flight. With 4 it gets a fraction of GPU 0's bandwidth, so the least
# served GPU's share and Jain's index move, and the columns must say so. For two GPUs, min and max
# of summary.gpu_balance.bandwidth_gbps are the two GPUs' figures: Jain's index is
# (a + b)^2 / (2 (a^2 + b^2)) and the least served over the mean is min / ((a + b) / 2).
cat >"$WORK/two_gpus.yaml" <<EOF
name: two_gpus
streams:
  - {name: g0, gpus: [0], buffer: {bytes: 64MiB, location: device/fam0}, pattern: sequential,
     read_fraction: 1.0, access_bytes: 128, total_bytes: 1MiB, max_outstanding: 64}
  - {name: g1, gpus: [1], buffer: {bytes: 64MiB, location: device/fam0}, pattern: sequential,
     read_fraction: 1.0, access_bytes: 128, total_bytes: 1MiB, max_outstanding: 64}
EOF
cat >"$WORK/gpus.yaml" <<EOF
name: gpu_balance
platform: $root/platforms/minimal.yaml
workload: $WORK/two_gpus.yaml
set: ["gpus.count=2", "devices.0.fabric_ports=2", "gpus.max_outstanding=64"]
parameters:
  - {key: workload.streams.1.max_outstanding, values: [64, 4]}
EOF
good_sweep gpus gpus "two-GPU sweep"
$PY - "$WORK/gpus" <<'PY' || fail "GPU balance columns"
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/results.csv")))
assert [r["status"] for r in rows] == ["ok"] * 2, rows
least = []
for r in rows:
    bw = json.load(open(f"{d}/points/{int(r['point']):04d}/stats.json"))["summary"]["gpu_balance"][
        "bandwidth_gbps"]
    a, b = bw["min"], bw["max"]
    jain = (a + b) ** 2 / (2 * (a * a + b * b))
    assert abs(float(r["gpu_jain_index"]) - jain) < 1e-9, (r, jain)
    assert abs(float(r["gpu_least_served_over_mean"]) - a / ((a + b) / 2)) < 1e-9, r
    least.append(float(r["gpu_least_served_over_mean"]))
# 64 in flight each: even within a few per cent; 4 in flight for GPU 1: far below the mean.
assert least[0] > 0.95 and least[1] < 0.8, least
print("least served over mean", least)
PY
pass "GPU balance columns"

# Resume: a point whose results are gone runs again; the others are skipped; same table.
rm "$WORK/j1/points/0001/stats.json"
"$famsim" sweep "$WORK/channels.yaml" --out "$WORK/j1" --jobs 1 >"$WORK/resume.log" 2>&1 ||
  fail "resumed sweep: $(cat "$WORK/resume.log")"
grep -q "2 already done" "$WORK/resume.log" || fail "resume did not skip the finished points"
grep -q "point    1 ok" "$WORK/resume.log" || fail "resume did not rerun point 1"
diff <(without_host_time "$WORK/j2/results.csv") <(without_host_time "$WORK/j1/results.csv") ||
  fail "resumed table differs"
pass "resume skips finished points"

# Resume compares each point's whole configuration as it would run now, not only its overrides:
# the same platform under another name is resumed, an edit the sweep's set overrides anyway is
# resumed, an edit that changes the run reruns every point.
cp platforms/minimal.yaml "$WORK/plat.yaml"
sed "s#platform: .*#platform: $WORK/plat.yaml#" "$WORK/channels.yaml" >"$WORK/channels_copy.yaml"
resume_count() {  # resume_count WHAT: runs channels_copy.yaml into j1, prints "N already done"
  "$famsim" sweep "$WORK/channels_copy.yaml" --out "$WORK/j1" --jobs 2 >"$WORK/resume2.log" 2>&1 ||
    fail "$1: $(cat "$WORK/resume2.log")"
  grep -o "[0-9]* already done" "$WORK/resume2.log"
}
[[ $(resume_count "same platform, another file") == "3 already done" ]] ||
  fail "the same platform in another file was not resumed: $(cat "$WORK/resume2.log")"
sed -i 's/issue_width: 1/issue_width: 2/' "$WORK/plat.yaml"  # the sweep sets gpus.issue_width=8
[[ $(resume_count "an overridden edit") == "3 already done" ]] ||
  fail "an edit the sweep overrides reran points: $(cat "$WORK/resume2.log")"
sed -i 's/ingress_cycles: 8/ingress_cycles: 9/' "$WORK/plat.yaml"
[[ $(resume_count "an edit that matters") == "0 already done" ]] ||
  fail "an edited platform file's points were resumed: $(cat "$WORK/resume2.log")"
pass "resume reruns points whose configuration changed"

# A shorter sweep into the same directory removes the points past its last: they would pass for
# its own.
sed 's/values: \[1, 2, 4\]/values: [1, 2]/; s/base: 2/base: 1/' "$WORK/channels.yaml" >"$WORK/two.yaml"
"$famsim" sweep "$WORK/two.yaml" --out "$WORK/j1" --jobs 2 >"$WORK/two.log" 2>&1 ||
  fail "shorter sweep: $(cat "$WORK/two.log")"
[[ -d $WORK/j1/points/0001 && ! -e $WORK/j1/points/0002 ]] ||
  fail "a shorter sweep left the earlier sweep's points: $(ls "$WORK/j1/points")"
pass "a shorter sweep removes the earlier sweep's later points"

# plot_sweep.py's figures describe the tables they were drawn from: a sweep that rewrites the
# tables removes them (the files plot_sweep.py lists as its own), and keeps a file of the user's.
$PY scripts/plot_sweep.py "$WORK/j1" >"$WORK/plot.log" 2>&1 || fail "plot_sweep.py: $(cat "$WORK/plot.log")"
[[ -s $WORK/j1/plots/summary.md && -s $WORK/j1/plots/.plot_sweep-files ]] ||
  fail "plot_sweep.py wrote no summary.md or manifest: $(ls -A "$WORK/j1/plots")"
echo mine >"$WORK/j1/plots/notes.txt"
"$famsim" sweep "$WORK/two.yaml" --out "$WORK/j1" --jobs 2 >"$WORK/two.log" 2>&1 ||
  fail "sweep after plots: $(cat "$WORK/two.log")"
[[ $(ls -A "$WORK/j1/plots") == notes.txt ]] ||
  fail "a sweep left earlier plots or removed the user's file: $(ls -A "$WORK/j1/plots")"
pass "a sweep removes the plots of the tables it rewrites, and only those"

# A base of 0 has no elasticity (a relative change from 0 is not defined; the arc formula would
# give half the metric's change whatever the neighbour), and the summary says why it is not
# ranked. Writes 0, 0.5, 1 of the time (read_fraction), base 0.
cat >"$WORK/base0.yaml" <<EOF
name: base0
platform: $root/platforms/minimal.yaml
$common]
parameters:
  - key: workload.streams.0.read_fraction
    values: [0, 0.5, 1]
    base: 0
  - key: devices.0.memory.channels
    values: [1, 2]
EOF
"$famsim" sweep "$WORK/base0.yaml" --out "$WORK/base0" --jobs 2 >"$WORK/base0.log" 2>&1 ||
  fail "base-0 sweep: $(cat "$WORK/base0.log")"
$PY - "$WORK/base0" <<'PY' || fail "base-0 sensitivity"
import csv, sys
sens = list(csv.DictReader(open(sys.argv[1] + "/sensitivity.csv")))
assert not [r for r in sens if r["parameter"] == "workload.streams.0.read_fraction"], sens
assert [r for r in sens if r["parameter"] == "devices.0.memory.channels"], sens
PY
$PY scripts/plot_sweep.py "$WORK/base0" >"$WORK/plot0.log" 2>&1 ||
  fail "plot_sweep.py: $(cat "$WORK/plot0.log")"
grep -qF 'Not ranked: `workload.streams.0.read_fraction` (its base is 0' "$WORK/base0/plots/summary.md" ||
  fail "summary.md does not say why the base-0 parameter is not ranked: $(cat "$WORK/base0/plots/summary.md")"
pass "a parameter whose base is 0 has no elasticity, and the summary says why"

# A value the configuration refuses at one point is bad input: every point's configuration is
# read before anything is written or run, and the sweep exits 2 naming the entry's line and the
# point (it used to run the other points, write results.csv and exit 1).
cat >"$WORK/bad_point.yaml" <<EOF
name: bad_point
platform: $root/platforms/minimal.yaml
$common]
parameters:
  - key: devices.0.port_logic.tags_per_port
    values: [64, 0, 128]
EOF
line=$(grep -n -- '- key: devices.0.port_logic.tags_per_port' "$WORK/bad_point.yaml" | cut -d: -f1)
rc=0
"$famsim" sweep "$WORK/bad_point.yaml" --out "$WORK/bad" >"$WORK/bad.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "a point of bad input: exit code $rc, expected 2: $(cat "$WORK/bad.log")"
grep -qF "bad_point.yaml:$line: parameters.0.key: point 1 (devices.0.port_logic.tags_per_port=0): devices.0.port_logic.tags_per_port: expected an integer in [1," \
  "$WORK/bad.log" || fail "a point of bad input: $(cat "$WORK/bad.log")"
[[ ! -e $WORK/bad ]] || fail "a point of bad input: the sweep wrote $(ls -A "$WORK/bad")"
pass "a point of bad input stops the sweep before anything runs"
# A value that only fails with the platform's: 64 GiB do not fit in 1 channel of minimal.yaml.
# The error names the platform's line, and the sweep file's line of the parameter.
printf 'name: x\nplatform: %s\nparameters:\n  - {key: devices.0.memory.channels, values: [2, 1]}\n' \
  "$root/platforms/minimal.yaml" >"$WORK/no_fit.yaml"
rc=0
"$famsim" sweep "$WORK/no_fit.yaml" --out "$WORK/nofit" >"$WORK/nofit.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "a point that does not fit: exit code $rc, expected 2: $(cat "$WORK/nofit.log")"
grep -qF "no_fit.yaml:4: parameters.0.key: point 1 (devices.0.memory.channels=1): $root/platforms/minimal.yaml:16: devices.0.capacity_gib: 64.00 GiB do not fit in 1 channels" \
  "$WORK/nofit.log" || fail "a point that does not fit: $(cat "$WORK/nofit.log")"
[[ ! -e $WORK/nofit ]] || fail "a point that does not fit: the sweep wrote $(ls -A "$WORK/nofit")"
# The same with the built-in platform by name: the error names it as such, not the scratch copy
# the check read (gone once it returns).
printf 'name: x\nplatform: minimal\nparameters:\n  - {key: devices.0.memory.channels, values: [2, 1]}\n' \
  >"$WORK/no_fit_builtin.yaml"
bad_sweep no_fit_builtin "no_fit_builtin.yaml:4: parameters.0.key: point 1 (devices.0.memory.channels=1): built-in platforms/minimal.yaml:16: devices.0.capacity_gib:"
pass "a point whose values do not go with the platform's stops the sweep before anything runs"

# Every different reason is named at once: a grid of minimal.yaml's channels [2, 1] (its 64 GiB do
# not fit in 1) and tags [64, 0] (below 1) refuses 3 of its 4 points, for two reasons (point 3 has
# both; the first check to fail reports the tags' again).
printf 'name: x\nplatform: minimal\nparameters:\n  - {key: devices.0.memory.channels, values: [2, 1]}\n  - {key: devices.0.port_logic.tags_per_port, values: [64, 0]}\n' \
  >"$WORK/two_reasons.yaml"
bad_sweep two_reasons "two_reasons.yaml:5: parameters.1.key: point 1 (devices.0.memory.channels=2, devices.0.port_logic.tags_per_port=0): devices.0.port_logic.tags_per_port: expected an integer in [1,"
grep -qF "  also " "$WORK/two_reasons.log" && grep -qF "point 2 (devices.0.memory.channels=1, devices.0.port_logic.tags_per_port=64): built-in platforms/minimal.yaml:16: devices.0.capacity_gib: 64.00 GiB do not fit in 1 channels" "$WORK/two_reasons.log" ||
  fail "the second reason is not named: $(cat "$WORK/two_reasons.log")"
grep -qF "(3 of the sweep's 4 points are refused, for the 2 reasons above)" "$WORK/two_reasons.log" ||
  fail "the count of refused points: $(cat "$WORK/two_reasons.log")"
[[ ! -e $WORK/two_reasons ]] || fail "two reasons: the sweep wrote $(ls -A "$WORK/two_reasons")"
pass "a sweep refused for several reasons names each of them"

# A point whose run fails (here a failed data check: the reader verifies another seed than the
# writer wrote, exit 1) is recorded with its error; the others still run; exit code 1.
verify_sweep() {  # verify_sweep FILE NAME WRITER_SEEDS READER_SEEDS
  cat >"$1" <<EOF
name: $2
platform: $root/platforms/minimal.yaml
workload: $root/traffic/write_then_verify.yaml
parameters:
  - zip:
      - {key: workload.streams.0.data_seed, values: [$3]}
      - {key: workload.streams.1.data_seed, values: [$4]}
EOF
}
verify_sweep "$WORK/fail_point.yaml" fail_point "42, 42, 9" "42, 7, 9"
rc=0
"$famsim" sweep "$WORK/fail_point.yaml" --out "$WORK/bad" >"$WORK/bad.log" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "a failed point: exit code $rc, expected 1"
$PY - "$WORK/bad" <<'PY' || fail "failed point not recorded"
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/results.csv")))
assert [r["status"] for r in rows] == ["ok", "failed", "ok"], rows
assert "CONSERVATION FAILED" in rows[1]["error"] and "data mismatches" in rows[1]["error"], rows[1]["error"]
assert rows[1]["bandwidth_gbps"] == "", rows[1]
assert json.load(open(d + "/sweep.json"))["failed"] == 1
assert json.load(open(d + "/points/0001/point.json"))["status"] == "failed"
PY
pass "a failing point is recorded and does not stop the others"

# A bad sweep file: exit 2 naming the file, the line and the key.
printf 'name: x\nparameters:\n  - key: a.b\n    valuez: [1]\n' >"$WORK/bad_file.yaml"
rc=0
"$famsim" sweep "$WORK/bad_file.yaml" --out "$WORK/badfile" >"$WORK/badfile.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "bad sweep file: exit code $rc, expected 2"
grep -q "bad_file.yaml:4: unknown key 'parameters.0.valuez'" "$WORK/badfile.log" ||
  fail "bad sweep file: $(cat "$WORK/badfile.log")"
[[ ! -e $WORK/badfile/results.csv ]] || fail "bad sweep file left results"
pass "bad sweep file"

# A misspelt key of a parameter is named against every key a parameter may have (it listed only
# those the entry had); a base that is not among a random parameter's values lists the values
# drawn, which the user cannot know before the sweep.
printf 'name: x\nparameters:\n  - {key: a.b, values: [1, 2], bse: 2}\n' >"$WORK/bse.yaml"
bad_sweep bse "unknown key 'parameters.0.bse'; expected one of: base, key, random, range, values"
printf 'name: x\nparameters:\n  - {key: gpus.max_outstanding, random: {min: 1, max: 3, count: 3, integer: true}, base: 7}\n' \
  >"$WORK/rbase.yaml"
bad_sweep rbase "'7' is not one of the parameter's values; expected one of: 1, 2, 3"
pass "a misspelt parameter key and a base not among the values drawn are named with what is valid"

# The same value twice (8.0 is 8), or a zip's same position twice, would run a point twice and
# give it double weight in the sensitivity: refused, naming the key. Positions that differ in one
# zip member are distinct.
printf 'name: x\nplatform: minimal\nparameters:\n  - key: gpus.max_outstanding\n    values: [8, 16, 8.0]\n' \
  >"$WORK/dup_values.yaml"
rc=0
"$famsim" sweep "$WORK/dup_values.yaml" --out "$WORK/dupv" >"$WORK/dupv.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "repeated value: exit code $rc, expected 2"
grep -q "dup_values.yaml:5: parameters.0.values: value 3 ('8.0') is value 1 ('8') again" \
  "$WORK/dupv.log" || fail "repeated value: $(cat "$WORK/dupv.log")"
cat >"$WORK/dup_zip.yaml" <<'YAML'
name: x
platform: minimal
parameters:
  - zip:
    - {key: gpus.max_outstanding, values: [8, 8, 16]}
    - {key: gpus.request_bytes, values: [64, 128, 64]}
  - zip:
    - {key: links.gpu_device.latency_ns, values: [10, 20, 10]}
    - {key: links.gpu_device.lanes, values: [4, 8, 4]}
YAML
rc=0
"$famsim" sweep "$WORK/dup_zip.yaml" --out "$WORK/dupz" >"$WORK/dupz.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "repeated zip position: exit code $rc, expected 2"
grep -q "dup_zip.yaml:8: parameters.1.zip: positions 1 and 3 give the same values" \
  "$WORK/dupz.log" || fail "repeated zip position: $(cat "$WORK/dupz.log")"
pass "a repeated value or zip position is refused"

# A range of a billion values, or one whose step cannot move its values (1e17 + 1 == 1e17 in a
# double), is refused as too long, not built first: it once took minutes and gigabytes, or never
# ended. (The test's own time limit catches a return of that.)
for range in "{from: 1, to: 1e9, step: 1}" "{from: 1e17, to: 2e17, step: 1}"; do
  printf 'name: x\nplatform: %s\nparameters:\n  - key: gpus.max_outstanding\n    range: %s\n' \
    "$root/platforms/minimal.yaml" "$range" >"$WORK/huge_range.yaml"
  rc=0
  timeout 60 "$famsim" sweep "$WORK/huge_range.yaml" --out "$WORK/huge" >"$WORK/huge.log" 2>&1 || rc=$?
  [[ $rc -eq 2 ]] || fail "range $range: exit code $rc, expected 2"
  grep -q "huge_range.yaml:5: parameters.0.range: expected 1 to 10000 values" "$WORK/huge.log" ||
    fail "range $range: $(cat "$WORK/huge.log")"
done
pass "a range of too many values is refused at once"

# The last point failing (nothing left running after it) is recorded like any other; so is a
# sweep whose every point fails. Exit code 1 and the three tables.
verify_sweep "$WORK/last_fails.yaml" last_fails "42, 42" "42, 7"
verify_sweep "$WORK/all_fail.yaml" all_fail "42" "7"
for run in "last_fails 1 ok,failed" "last_fails 2 ok,failed" "all_fail 1 failed" \
  "all_fail 2 failed"; do
  read -r name jobs want <<<"$run"
  out=$WORK/$name-j$jobs
  rc=0
  "$famsim" sweep "$WORK/$name.yaml" --out "$out" --jobs "$jobs" >"$out.log" 2>&1 || rc=$?
  [[ $rc -eq 1 ]] || fail "$name --jobs $jobs: exit code $rc, expected 1: $(cat "$out.log")"
  $PY - "$out" "$want" <<'PY' || fail "$name --jobs $jobs: failed points not recorded"
import csv, json, sys
d, want = sys.argv[1], sys.argv[2].split(",")
rows = list(csv.DictReader(open(d + "/results.csv")))
assert [r["status"] for r in rows] == want, rows
for r in rows:
    if r["status"] == "failed":
        assert "data mismatches" in r["error"], r["error"]
assert json.load(open(d + "/sweep.json"))["failed"] == want.count("failed")
open(d + "/sensitivity.csv").read()
PY
done
pass "a failing last point, or every point failing, is recorded with --jobs 1 and 2"

# A key the configuration does not know (in `set` or a parameter, alone or in a zip), a path
# through a value, or a key written with '=value' is an error in the sweep file, the same at every
# point: exit 2 naming the file, the line and the key, before anything is written.
minimal=$root/platforms/minimal.yaml
printf 'name: unknown_key\nplatform: %s\nparameters:\n  - {key: gpus.max_outstanding, values: [8, 16]}\n  - key: gpus.bogus\n    values: [1, 2]\n' \
  "$minimal" >"$WORK/unknown_key.yaml"
printf 'name: unknown_set\nplatform: %s\nset: ["gpus.issue_width=1",\n      "gpus.nope=3"]\nparameters:\n  - {key: gpus.max_outstanding, values: [8, 16]}\n' \
  "$minimal" >"$WORK/unknown_set.yaml"
printf 'name: key_value\nplatform: %s\nparameters:\n  - {key: "gpus.max_outstanding=3", values: [8, 16]}\n' \
  "$minimal" >"$WORK/key_value.yaml"
printf 'name: zip_path\nplatform: %s\nparameters:\n  - zip:\n      - {key: gpus.issue_width, values: [1, 2]}\n      - {key: gpus.max_outstanding.limit, values: [8, 16]}\n' \
  "$minimal" >"$WORK/zip_path.yaml"
for case in "unknown_key|unknown_key.yaml:5: parameters.1.key: gpus.bogus: unknown key" \
  "unknown_set|unknown_set.yaml:4: set.1: gpus.nope: unknown key" \
  "key_value|key_value.yaml:4: parameters.0.key: 'gpus.max_outstanding=3'" \
  "zip_path|zip_path.yaml:6: parameters.0.zip.1.key: gpus.max_outstanding.limit: 'gpus.max_outstanding' is a value"; do
  name=${case%%|*}
  want=${case#*|}
  rc=0
  "$famsim" sweep "$WORK/$name.yaml" --out "$WORK/$name" >"$WORK/$name.log" 2>&1 || rc=$?
  [[ $rc -eq 2 ]] || fail "$name: exit code $rc, expected 2: $(cat "$WORK/$name.log")"
  grep -qF -e "$want" "$WORK/$name.log" || fail "$name: expected '$want' in: $(cat "$WORK/$name.log")"
  [[ ! -e $WORK/$name ]] || fail "$name: a bad sweep file left $WORK/$name"
done
pass "a key the configuration does not know is an error in the sweep file"

# --out naming a directory no famsim sweep wrote that holds names a sweep writes (results.csv,
# points/): refused with exit 2 naming it and them, every file left as it was. The sweep (two
# distinct granules, one 4 KiB stream on minimal.yaml) is otherwise fine.
tiny_sweep() {  # tiny_sweep FILE VALUES: a sweep of the interleave granule with those values
  cat >"$1" <<EOF
name: tiny
platform: $root/platforms/minimal.yaml
workload: $root/traffic/random_read.yaml
set: ["workload.streams.0.total_bytes=4096"]
parameters:
  - {key: devices.0.memory.interleave.granule_bytes, values: $2}
EOF
}
tiny_sweep "$WORK/tiny2.yaml" "[1KiB, 2KiB]"
tiny_sweep "$WORK/tiny1.yaml" "[1KiB]"
mkdir -p "$WORK/udir/points/0005"
echo precious >"$WORK/udir/points/0005/notes.txt"
echo mine >"$WORK/udir/results.csv"
rc=0
"$famsim" sweep "$WORK/tiny2.yaml" --out "$WORK/udir" --jobs 1 >"$WORK/udir.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "--out a user's directory: exit code $rc, expected 2: $(cat "$WORK/udir.log")"
grep -qF -e "--out $WORK/udir: holds points, results.csv but no .famsim-sweep marker" \
  "$WORK/udir.log" || fail "--out a user's directory: $(cat "$WORK/udir.log")"
[[ $(cat "$WORK/udir/points/0005/notes.txt") == precious && $(cat "$WORK/udir/results.csv") == mine ]] ||
  fail "--out a user's directory: its files changed"
[[ $(cd "$WORK/udir" && find . | sort | tr '\n' ' ') == ". ./points ./points/0005 ./points/0005/notes.txt ./results.csv " ]] ||
  fail "--out a user's directory: something was written: $(find "$WORK/udir")"
pass "a directory no sweep wrote is refused and left as it was"

# A sweep's own directory takes it again: a rerun resumes every point, and a shorter sweep then
# removes the point past its last, but only what famsim wrote there: a file of the user's in it
# stays (with its directory), and a directory famsim never wrote in points/ is not touched.
"$famsim" sweep "$WORK/tiny2.yaml" --out "$WORK/own" --jobs 1 >"$WORK/own.log" 2>&1 ||
  fail "tiny sweep: $(cat "$WORK/own.log")"
"$famsim" sweep "$WORK/tiny2.yaml" --out "$WORK/own" --jobs 1 >"$WORK/own2.log" 2>&1 ||
  fail "rerun into the sweep's own directory: $(cat "$WORK/own2.log")"
grep -q "2 already done" "$WORK/own2.log" || fail "rerun did not resume: $(cat "$WORK/own2.log")"
echo mine >"$WORK/own/points/0001/notes.txt"
mkdir "$WORK/own/points/0007" && echo mine >"$WORK/own/points/0007/config.yaml"
"$famsim" sweep "$WORK/tiny1.yaml" --out "$WORK/own" --jobs 1 >"$WORK/own3.log" 2>&1 ||
  fail "shorter sweep into the sweep's own directory: $(cat "$WORK/own3.log")"
[[ $(ls -A "$WORK/own/points/0001") == notes.txt ]] ||
  fail "a stale point kept famsim's files or lost the user's: $(ls -A "$WORK/own/points/0001")"
[[ $(cat "$WORK/own/points/0007/config.yaml") == mine ]] || fail "a user's directory in points/ changed"
[[ -f $WORK/own/points/0000/stats.json && $(wc -l <"$WORK/own/results.csv") -eq 2 ]] ||
  fail "shorter sweep's results: $(cat "$WORK/own/results.csv")"
pass "a sweep's own directory is rerun; stale points lose only what famsim wrote"

# The same byte count written with and without a unit is the same value: refused.
tiny_sweep "$WORK/dup_bytes.yaml" "[1KiB, 1024]"
rc=0
"$famsim" sweep "$WORK/dup_bytes.yaml" --out "$WORK/dupb" >"$WORK/dupb.log" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "1KiB and 1024: exit code $rc, expected 2: $(cat "$WORK/dupb.log")"
grep -qF "dup_bytes.yaml:6: parameters.0.values: value 2 ('1024') is value 1 ('1KiB') again" \
  "$WORK/dupb.log" || fail "1KiB and 1024: $(cat "$WORK/dupb.log")"
[[ ! -e $WORK/dupb ]] || fail "1KiB and 1024: the refused sweep left $WORK/dupb"
pass "a byte count written twice (1KiB, 1024) is refused"

# --out naming a file, or a directory that cannot be created: exit 2 naming --out.
touch "$WORK/afile"
for case in "$WORK/afile|exists and is not a directory" "/proc/nope|cannot create the directory"; do
  dir=${case%%|*}
  rc=0
  "$famsim" sweep "$WORK/channels.yaml" --out "$dir" >"$WORK/badout.log" 2>&1 || rc=$?
  [[ $rc -eq 2 ]] || fail "--out $dir: exit code $rc, expected 2: $(cat "$WORK/badout.log")"
  grep -qF -e "--out $dir: ${case#*|}" "$WORK/badout.log" ||
    fail "--out $dir: $(cat "$WORK/badout.log")"
done
pass "an --out that is a file or cannot be created"

# Under mpirun -np 2 the points are spread over two ranks, rank 0 collecting: the same table.
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun --oversubscribe -np 2 "$famsim" sweep "$WORK/channels.yaml" --out "$WORK/mpi" \
    >"$WORK/mpi.log" 2>&1 || fail "mpirun sweep: $(cat "$WORK/mpi.log")"
  [[ $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"])' \
      "$WORK/mpi/sweep.json") == 2 ]] || fail "the sweep did not run on 2 ranks: $(cat "$WORK/mpi.log")"
  diff <(without_host_time "$WORK/j2/results.csv") <(without_host_time "$WORK/mpi/results.csv") ||
    fail "mpirun -np 2 gives a different table"
  pass "same table under mpirun -np 2"
else
  fail "mpirun missing (scripts/setup.sh installs openmpi-bin)"
fi
echo "sweep CLI: all ok"
