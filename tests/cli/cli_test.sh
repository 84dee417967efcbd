#!/usr/bin/env bash
# The famsim command-line contract, checked from the outside as a user's script would:
# exit codes, the stats.json keys, determinism for a seed, and error messages that name the file
# and the key. Run from the repository root (ctest does): bash tests/cli/cli_test.sh path/to/famsim
set -u

CLI_TEST_NAME=cli
source "$(dirname "$0")/lib.sh"
PLATFORM=platforms/minimal.yaml
[ -f "$PLATFORM" ] || { echo "FAIL: run from the repository root ($PLATFORM not found)" >&2; exit 2; }

# An existing, empty output directory that a rejected run must leave empty.
fresh_dir() {
  local d="$WORK/out-$1"
  mkdir -p "$d"
  echo "$d"
}
expect_untouched() {  # expect_untouched DIR WHAT
  [ -z "$(ls -A "$1")" ] || fail "$2: the rejected run wrote into its --out directory: $(ls -A "$1")"
}

# A run that must be rejected as bad input (exit 2) before touching its output directory.
# expect_bad_input NAME WHAT NEEDLE... -- FAMSIM_ARGS...
expect_bad_input() {
  local out
  out=$(fresh_dir "$1")
  expect_exit2 "$@" --out "$out"
  expect_untouched "$out" "$2"
  pass "$2"
}

SMALL=(--platform "$PLATFORM" --set workload.streams.0.total_bytes=256KiB)

# --- A successful run and its stats.json. ------------------------------------------------------
run_famsim run1 run "${SMALL[@]}" --out "$WORK/run1" --seed 7
expect_rc 0 "famsim run on $PLATFORM"
[ -f "$WORK/run1/stats.json" ] || fail "famsim run wrote no $WORK/run1/stats.json"
python3 - "$WORK/run1/stats.json" <<'EOF' || fail "stats.json of the first run: see above"
import json, sys
with open(sys.argv[1]) as f:
    s = json.load(f)
def get(path):
    node = s
    for k in path.split("."):
        if not isinstance(node, dict) or k not in node:
            sys.exit(f"stats.json has no key {path}")
        node = node[k]
    return node
for key in ("sim.simulated_time_ns", "sim.requests_per_host_second", "summary.latency_ns.p99",
            "conservation.ok", "config"):
    get(key)
if get("conservation.ok") is not True:
    sys.exit(f"conservation.ok is {get('conservation.ok')!r}, expected true")
if not isinstance(get("config"), dict) or "gpus" not in get("config"):
    sys.exit("stats.json config is not the resolved configuration (no gpus key)")
# 256 KiB in 128 B requests: 2048 requests, all of them reads.
if get("sim.requests_completed") != 2048:
    sys.exit(f"sim.requests_completed is {get('sim.requests_completed')}, expected 256 KiB / 128 B = 2048")
if get("summary.read_bytes") != 262144:
    sys.exit(f"summary.read_bytes is {get('summary.read_bytes')}, expected 262144")
if not get("sim.simulated_time_ns") > 0:
    sys.exit("sim.simulated_time_ns is not positive")
# The --set on the workload is a change like any other: traffic/random_read.yaml (the default
# workload) reads 16MiB per GPU.
changes = [c for c in get("config_changes.changes") if c["key"].startswith("workload.")]
want = [{"key": "workload.streams.0.total_bytes", "value": "256KiB", "base_value": "16MiB",
         "source": "--set workload.streams.0.total_bytes=256KiB"}]
if changes != want:
    sys.exit(f"config_changes lists the workload changes {changes}, expected {want}")
# config_defaults: what the readers assumed for keys left out, never a key the config holds.
# minimal.yaml gives its DRAM controller no settings: README's defaults (read_queue 64,
# scheduler frfcfs, write watermarks 48/16) are what it ran with.
d = get("config_defaults")
want = {"devices.0.memory.controller.read_queue": 64,
        "devices.0.memory.controller.scheduler": "frfcfs",
        "devices.0.memory.controller.write_high_watermark": 48,
        "devices.0.memory.controller.write_low_watermark": 16}
for k, v in want.items():
    if d.get(k) != v:
        sys.exit(f"config_defaults[{k}] is {d.get(k)!r}, expected {v!r}")
# minimal.yaml has no switch: its one GPU link runs from gpu0 straight to the device's port logic.
ends = [(get(f"components.gpu0_link0.{d}_direction.from"), get(f"components.gpu0_link0.{d}_direction.to"))
        for d in ("request", "response")]
if ends != [("gpu0", "fam0.port_logic"), ("fam0.port_logic", "gpu0")]:
    sys.exit(f"gpu0_link0's wires run {ends}, expected gpu0 -> fam0.port_logic and back")
def holds(node, path):
    for seg in path.split("."):
        if isinstance(node, dict) and seg in node:
            node = node[seg]
        elif isinstance(node, list) and seg.isdigit() and int(seg) < len(node):
            node = node[int(seg)]
        else:
            return False
    return True
both = [k for k in d if holds(get("config"), k)]
if both:
    sys.exit(f"config_defaults lists keys the config holds: {both[:5]}")
# minimal.yaml has no switch and one GPU: no peer paths, so no GPU memory hub and none of its
# defaults (its reader runs before the topology is known).
if any(k.startswith("gpus.hub.") for k in d):
    sys.exit("config_defaults lists gpus.hub keys on a platform without a hub")
EOF
pass "run writes stats.json with the contract keys and conservation.ok == true"
# The terminal's hop line gives each of the three largest hop classes its share, mean and fastest
# pass as stats.json has them (latency_breakdown_ns.read.hops: share, mean, min).
python3 - "$WORK/run1/stats.json" "$WORK/run1.log" <<'EOF' || fail "the terminal's hop line: see above"
import json, re, sys
hops = {h["hop"]: h for h in json.load(open(sys.argv[1]))["latency_breakdown_ns"]["read"]["hops"]}
line = next(l for l in open(sys.argv[2]) if "read latency by hop:" in l)
shown = re.findall(r"([a-z_]+(?: \((?:request|response)\))?) (\d+)% \((\d+) ns, fastest (\d+)\)", line)
assert len(shown) == 3, line
for name, share, mean, fastest in shown:
    h = hops[name]
    assert (int(share), int(mean), int(fastest)) == (round(h["share"] * 100), round(h["mean"]),
                                                     round(h["min"])), (name, line, h)
EOF
pass "the terminal's hop line shows each hop's share, mean and fastest pass"

# nvl8_fam has peer paths, so its GPUs' hubs exist and the hub keys it leaves out are listed.
run_famsim hub run --platform platforms/nvl8_fam.yaml --set workload.streams.0.total_bytes=64KiB \
  --out "$WORK/hub"
expect_rc 0 "famsim run on nvl8_fam"
python3 - "$WORK/hub/stats.json" <<'EOF' || fail "config_defaults of nvl8_fam: see above"
import json, sys
d = json.load(open(sys.argv[1]))["config_defaults"]
if d.get("gpus.hub.arbiter") != "round_robin":
    sys.exit(f"config_defaults[gpus.hub.arbiter] is {d.get('gpus.hub.arbiter')!r}, expected 'round_robin'")
EOF
pass "config_defaults lists a hub's defaults only where the platform has hubs"

# --- Reads and writes in separate phases: the bottleneck sentence warns that its averages can
# hide a resource saturated within one phase. write_then_verify writes its buffers, then reads
# them back: about half the busy windows are writes only, half reads only. run1 reads only.
run_famsim phases run --platform "$PLATFORM" --workload traffic/write_then_verify.yaml \
  --txn-log --out "$WORK/phases"
expect_rc 0 "write_then_verify on $PLATFORM"
python3 - "$WORK/phases/stats.json" "$WORK/run1/stats.json" <<'EOF' || fail "direction phases"
import json, sys
b = json.load(open(sys.argv[1]))["bottlenecks"]
p = b["direction_phases"]
assert p["phased"] is True, p
assert 0.4 < p["reads_only_fraction"] < 0.6 and 0.4 < p["writes_only_fraction"] < 0.6, p
assert "reads and writes came in separate phases" in b["sentence"], b["sentence"]
b = json.load(open(sys.argv[2]))["bottlenecks"]
p = b["direction_phases"]
assert p["phased"] is False and p["reads_only_fraction"] == 1.0 and p["writes_only_fraction"] == 0.0, p
assert "separate phases" not in b["sentence"], b["sentence"]
EOF
pass "a run in a write phase and a read phase is flagged, a read-only run is not"

# The backing store holds what was written and no more: write_then_verify writes 4 MiB per GPU
# sequentially, whole pages, so the stored pages over the memories are the bytes written over the
# page size.
python3 - "$WORK/phases/stats.json" <<'EOF' || fail "backing store pages"
import json, sys
d = json.load(open(sys.argv[1]))
mems = [c for c in d["components"].values() if "stored_pages" in c]
page = mems[0]["stored_page_bytes"]
assert page == 256, page
stored = sum(c["stored_pages"] for c in mems) * page
written = d["summary"]["write_bytes"]
assert written == 4 * 2**20 * d["config"]["gpus"]["count"], written
assert stored == written, (stored, written)
EOF
pass "the backing store's pages hold the bytes written (4 MiB per GPU)"

# The per-phase analysis names each phase's limiter: the link's request wire while the writes
# carry their data out, its response wire while the reads bring it back (the whole run's averages
# show neither saturated). Checked against the transaction log: the phases meet within a window
# of the last write's completion, and each phase's bandwidth is the bytes the log has completing
# in it over its span.
expect_in_output "phases (the limiter of each part of the run" "terminal phase table"
# minimal.yaml's one link runs from gpu0 to the device's port logic: the writes' data goes out on
# its request wire, the reads' comes back on its response wire.
expect_in_output "gpu0_link0 request wire (gpu0 -> fam0.port_logic) (busy" "phase 1's limiter and its ends"
expect_in_output "gpu0_link0 response wire (fam0.port_logic -> gpu0) (busy" "phase 2's limiter and its ends"
python3 - "$WORK/phases/stats.json" <<'EOF' || fail "phase sentences: see above"
import json, sys
phases = json.load(open(sys.argv[1]))["bottlenecks"]["phases"]["phases"]
want = ["gpu0_link0 request wire (gpu0 -> fam0.port_logic) limits throughput",
        "gpu0_link0 response wire (fam0.port_logic -> gpu0) limits throughput"]
got = [p["sentence"] for p in phases if p["limiter"]]
assert len(got) == 2 and all(g.startswith(w) for g, w in zip(got, want)), got
EOF
pass "each phase's verdict sentence names its link limiter with the wire's ends"
python3 - "$WORK/phases/stats.json" "$WORK/phases/transactions.csv" "$WORK/run1/stats.json" <<'EOF' ||
import csv, json, sys
b = json.load(open(sys.argv[1]))["bottlenecks"]
ph = b["phases"]
w = ph["window_ns"]
p = ph["phases"]
assert len(p) == 2, p
link = "gpu0_link0"
assert (p[0]["limiter"]["component"], p[0]["limiter"]["resource"]) == (link, "request wire"), p[0]
assert (p[1]["limiter"]["component"], p[1]["limiter"]["resource"]) == (link, "response wire"), p[1]
assert p[0]["limiter"]["utilization"] >= 0.85 and p[1]["limiter"]["utilization"] >= 0.85, p
assert "The limiter changed over the run" in b["sentence"], b["sentence"]
rows = list(csv.DictReader(open(sys.argv[2])))
last_write = max(int(r["complete_ps"]) for r in rows if r["op"] == "write") * 1e-3
assert abs(p[0]["end_ns"] - last_write) <= w, (p[0]["end_ns"], last_write, w)
assert p[1]["start_ns"] == p[0]["end_ns"]
for q in p:
    lo, hi = q["start_ns"] * 1e3, q["end_ns"] * 1e3
    inside = sum(int(r["bytes"]) for r in rows if lo < int(r["complete_ps"]) <= hi)
    gbps = inside / ((hi - lo) * 1e-12) * 1e-9
    assert abs(q["achieved_gbps"] - gbps) <= 0.01 * gbps, (q, gbps)
one = json.load(open(sys.argv[3]))["bottlenecks"]["phases"]["phases"]
assert len(one) == 1, one
EOF
  fail "per-phase bottlenecks"
pass "per-phase analysis: the write phase's and the read phase's limiters, each phase's bandwidth"

# An idle gap between the writes and the reads is a phase of its own with nothing saturated: the
# link's request VC holds no credits while idle, although its sender collects the returned ones
# only when it next sends (a sampled gauge alone showed it 56 % full through the gap: a threshold
# of 0.5 makes that a limiter).
run_famsim gap run --platform "$PLATFORM" --workload tests/cli/data/idle_gap.yaml \
  --set sim.saturation_threshold=0.5 --out "$WORK/gap"
expect_rc 0 "idle_gap on $PLATFORM"
python3 - "$WORK/gap/stats.json" <<'EOF' || fail "per-phase bottlenecks of a run with an idle gap"
import json, sys
p = json.load(open(sys.argv[1]))["bottlenecks"]["phases"]["phases"]
assert [q["limiter"] and q["limiter"]["resource"] for q in p] == \
    ["request wire", None, "response wire"], p
# The reads start at 500 us: the gap phase ends there, within a window.
assert p[1]["end_ns"] == 500000, p[1]
assert p[1]["achieved_gbps"] < 1, p[1]
EOF
pass "an idle gap is a phase with nothing saturated"

# --- Same seed, same results (host-time fields aside). ----------------------------------------
run_famsim run2 run "${SMALL[@]}" --out "$WORK/run2" --seed 7
expect_rc 0 "second famsim run with seed 7"
python3 - "$WORK/run1/stats.json" "$WORK/run2/stats.json" <<'EOF' || fail "runs with the same seed differ"
import json, sys
def load(p):
    with open(p) as f:
        s = json.load(f)
    for k in ("host_seconds", "requests_per_host_second", "peak_rss_mib"):
        s["sim"].pop(k, None)
    return s
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    sys.exit(f"stats.json sections that differ: {diff}")
EOF
cmp -s "$WORK/run1/config.yaml" "$WORK/run2/config.yaml" || fail "config.yaml differs between runs with the same seed"
pass "same seed gives identical stats.json"

# Which famsim made a result: the project version and the commit the executable was built from,
# from the checkout by git here (the build worked it out the same way), in --version and stats.json.
want="0.1.0 ($(git -C "$(dirname "$0")/../.." describe --always --dirty --abbrev=12))"
run_famsim version --version
expect_rc 0 "famsim --version"
[ "$(cat "$WORK/version.log")" = "famsim $want" ] || fail "famsim --version: '$(cat "$WORK/version.log")', expected 'famsim $want'"
python3 - "$WORK/run1/stats.json" "$want" <<'EOF' || fail "stats.json sim.famsim_version"
import json, sys
v = json.load(open(sys.argv[1]))["sim"]["famsim_version"]
assert v == sys.argv[2], (v, sys.argv[2])
EOF
pass "famsim --version and stats.json name the version and commit"

# config.yaml records the seed used, so a rerun from it lists no seed change when it was the
# default (1); a chosen seed is a change from that default.
run_famsim rerun0 run "${SMALL[@]}" --out "$WORK/run0"
expect_rc 0 "famsim run with the default seed"
run_famsim rerun0b run --platform "$WORK/run0/config.yaml" --out "$WORK/run0b"
expect_rc 0 "famsim run of config.yaml"
python3 - "$WORK/run0b/stats.json" "$WORK/run1/stats.json" <<'EOF' || fail "config_changes and the seed"
import json, sys
rerun = json.load(open(sys.argv[1]))["config_changes"]["changes"]
assert not [c for c in rerun if c["key"] == "sim.seed"], rerun
seeded = [c for c in json.load(open(sys.argv[2]))["config_changes"]["changes"] if c["key"] == "sim.seed"]
assert len(seeded) == 1 and seeded[0]["value"] == 7 and seeded[0]["base_value"] == 1, seeded
EOF
pass "a rerun of config.yaml with the default seed lists no seed change"

# A --set of a key the base platform leaves to famsim's defaults is compared with that default
# (README: minimal.yaml's controller has read_queue 64 by default; sim.quantum_ns is 1000 by
# default), and one that sets the default again is no change.
run_famsim defaults_changed run "${SMALL[@]}" --out "$WORK/defaults_changed" \
  --set devices.0.memory.controller.read_queue=32 --set devices.0.memory.controller.scheduler=frfcfs \
  --set sim.quantum_ns=500
expect_rc 0 "famsim run with --set of defaulted keys"
python3 - "$WORK/defaults_changed/stats.json" <<'EOF' || fail "config_changes of defaulted keys"
import json, sys
changes = {c["key"]: c for c in json.load(open(sys.argv[1]))["config_changes"]["changes"]}
rq = changes["devices.0.memory.controller.read_queue"]
assert rq["value"] == 32 and rq["base_value"] == 64, rq
q = changes["sim.quantum_ns"]
assert q["value"] == 500 and q["base_value"] == 1000, q
assert "devices.0.memory.controller.scheduler" not in changes, changes
EOF
pass "config_changes compares a defaulted key with its default"

# A write high watermark given alone below the default low one (64 / 4 = 16) takes a low
# watermark below it, not an internal error; a low watermark given at or above the high one is bad
# input naming it; a write queue too small for a request names write_queue.
run_famsim wm_alone validate --platform "$PLATFORM" --set devices.0.memory.controller.write_high_watermark=2
expect_rc 0 "write_high_watermark=2 alone"
expect_bad_input wm_low "a low watermark above the high one" \
  devices.0.memory.controller.write_low_watermark -- \
  run "${SMALL[@]}" --set devices.0.memory.controller.write_high_watermark=2 \
  --set devices.0.memory.controller.write_low_watermark=5
expect_bad_input wq_small "a write queue smaller than a request" \
  devices.0.memory.controller.write_queue -- \
  run "${SMALL[@]}" --set devices.0.memory.controller.write_queue=2
pass "write watermarks and queue sizes"

# --- Another seed, other random addresses, other latencies. -----------------------------------
run_famsim run3 run "${SMALL[@]}" --out "$WORK/run3" --seed 8
expect_rc 0 "famsim run with seed 8"
python3 - "$WORK/run1/stats.json" "$WORK/run3/stats.json" <<'EOF' || fail "seed 7 and seed 8 give the same latencies"
import json, sys
with open(sys.argv[1]) as f:
    a = json.load(f)
with open(sys.argv[2]) as f:
    b = json.load(f)
if a["summary"]["latency_ns"] == b["summary"]["latency_ns"]:
    sys.exit("summary.latency_ns is identical for seeds 7 and 8 of a uniform-random workload")
EOF
pass "a different seed changes summary.latency_ns"

# --- Bad input: exit 2, the message names the file and the key, nothing written. --------------
expect_bad_input unknown_key "unknown key from --set" no_such_block -- \
  run "${SMALL[@]}" --set no_such_block.width=3

printf 'name: broken\ngpus: {count: 1\nlinks: [\n' >"$WORK/broken.yaml"
expect_bad_input malformed "malformed platform YAML" "$WORK/broken.yaml" -- \
  run --platform "$WORK/broken.yaml"

expect_bad_input wrong_type "wrong type (gpus.count=eight)" gpus.count -- \
  run "${SMALL[@]}" --set gpus.count=eight

expect_bad_input negative_bw "negative bandwidth" links.gpu_device.lane_gbps -- \
  run "${SMALL[@]}" --set links.gpu_device.lane_gbps=-5

cat >"$WORK/fam9.yaml" <<'EOF'
name: missing_device
streams:
  - buffer: {bytes: 1MiB, location: device/fam9}
    pattern: sequential
EOF
expect_bad_input missing_device "buffer on a device that does not exist" \
  "$WORK/fam9.yaml" workload.streams.0.buffer.location -- \
  run --platform "$PLATFORM" --workload "$WORK/fam9.yaml"

# --out must be a directory famsim can make: a regular file, or a path under /proc, is bad input
# (the file itself left as it was).
echo "not a directory" >"$WORK/out-is-a-file"
run_famsim out_file run "${SMALL[@]}" --out "$WORK/out-is-a-file"
expect_rc 2 "--out naming a regular file"
expect_in_output "--out $WORK/out-is-a-file: exists and is not a directory" "--out naming a file"
[ "$(cat "$WORK/out-is-a-file")" = "not a directory" ] || fail "--out file: the file was changed"
run_famsim out_proc run "${SMALL[@]}" --out /proc/famsim-no-such-dir
expect_rc 2 "--out that cannot be created"
expect_in_output "--out /proc/famsim-no-such-dir: cannot create the directory" "--out under /proc"
pass "--out that is not a usable directory is bad input"

# Bad input found after the output directory was made (an unknown key, read while the platform is
# built) leaves no trace of it: neither DIR nor the parents the run made for it.
run_famsim out_new run "${SMALL[@]}" --set devices.0.memory.chanels=4 --out "$WORK/new/nested/dir"
expect_rc 2 "an unknown key with a new --out"
[ ! -e "$WORK/new" ] || fail "a failed run left the directory it made: $(find "$WORK/new")"
mkdir "$WORK/kept"
run_famsim out_kept run "${SMALL[@]}" --set devices.0.memory.chanels=4 --out "$WORK/kept/dir"
[ -d "$WORK/kept" ] && [ ! -e "$WORK/kept/dir" ] || fail "a failed run removed too much or too little"
# A path through "..": the run makes kept/made and kept/dir2, both apart on the path.
run_famsim out_dotdot run "${SMALL[@]}" --set devices.0.memory.chanels=4 \
  --out "$WORK/kept/made/../dir2"
expect_rc 2 "an unknown key with --out through .."
[ -d "$WORK/kept" ] && [ -z "$(ls -A "$WORK/kept")" ] ||
  fail "a failed run through .. left: $(find "$WORK/kept")"
pass "a failed run leaves no directory it made"

# A directory that holds names a run replaces (plots/, dram/, report.md, ...) but no famsim run's
# files is the user's own (--out . in a project folder): refused, and nothing in it touched; a
# directory a run wrote is reused, also after its stats.json was removed.
mkdir -p "$WORK/mine/plots"
echo "my figure" >"$WORK/mine/plots/figure.txt"
run_famsim out_mine run "${SMALL[@]}" --out "$WORK/mine"
expect_rc 2 "--out holding the user's plots/"
expect_in_output "--out $WORK/mine: holds 'plots' but no earlier run's stats.json" "--out of the user's"
[ "$(cat "$WORK/mine/plots/figure.txt")" = "my figure" ] || fail "the user's plots/ was touched"
[ "$(ls -A "$WORK/mine")" = "plots" ] || fail "a refused run left files: $(ls -A "$WORK/mine")"
run_famsim out_again run "${SMALL[@]}" --out "$WORK/run0"
expect_rc 0 "a run into a directory a run wrote"
rm "$WORK/run0/stats.json"
run_famsim out_again2 run "${SMALL[@]}" --out "$WORK/run0"
expect_rc 0 "a run into a directory a run wrote, its stats.json removed"
pass "--out of the user's own files is refused; a run's own directory is reused"

# --seed is checked as sim.seed is: a negative seed or one past 64 bits is bad input, not a seed
# of 2^64 - 1.
expect_bad_input negative_seed "a negative --seed" "--seed" "got '-1'" -- run "${SMALL[@]}" --seed -1
expect_bad_input huge_seed "a --seed past 64 bits" "--seed" -- \
  run "${SMALL[@]}" --seed 99999999999999999999999

# Reads verified against a pattern nothing writes into their buffer would all mismatch: a
# workload mistake (exit 2), not a failed conservation check (exit 1) after the run.
cat >"$WORK/verify-unwritten.yaml" <<'EOF'
name: verify_unwritten
streams:
  - name: reader
    buffer: {bytes: 64KiB, location: device/fam0}
    pattern: uniform_random
    read_fraction: 1.0
    verify_reads: true
EOF
expect_bad_input verify_unwritten "verified reads of a buffer nothing writes" \
  "$WORK/verify-unwritten.yaml:7" workload.streams.0.verify_reads "no stream writes" -- \
  run --platform "$PLATFORM" --workload "$WORK/verify-unwritten.yaml"
# Written, but not first: a reader that does not start after its writer (write_then_verify
# without start_after), and a stream that writes and verifies its own reads, read addresses
# before they are written.
sed '/start_after/d' traffic/write_then_verify.yaml >"$WORK/verify-racing.yaml"
expect_bad_input verify_racing "verified reads racing their writer" \
  "$WORK/verify-racing.yaml:19" workload.streams.1.verify_reads "finishes before it starts" -- \
  run --platform "$PLATFORM" --workload "$WORK/verify-racing.yaml"
expect_bad_input verify_mixed "a mixed stream verifying its own writes" \
  workload.streams.0.verify_reads "finishes before it starts" -- \
  run "${SMALL[@]}" --set workload.streams.0.read_fraction=0.5 \
  --set workload.streams.0.verify_reads=true

# minimal.yaml's device has 64 GiB: a 128 GiB buffer cannot be allocated.
expect_bad_input too_big "buffer larger than its device" workload.streams.0.buffer -- \
  run "${SMALL[@]}" --set workload.streams.0.buffer.bytes=128GiB

expect_bad_input threshold "saturation threshold of 0" sim.saturation_threshold -- \
  run "${SMALL[@]}" --set sim.saturation_threshold=0

expect_bad_input missing_file "unreadable platform file" "$WORK/no-such-platform.yaml" -- \
  run --platform "$WORK/no-such-platform.yaml"

# A switch with nothing behind it, and clocks or bandwidths that would run past famsim's 281 s.
cat >"$WORK/switch-no-device.yaml" <<'YAML'
name: switch_no_device
gpus: {count: 2, clock_mhz: 1000,
       local_memory: {preset: hbm3_6400, stacks: 1}}
links:
  gpu_switch: {preset: nvlink4, per_gpu: 2}
switch: {radix: 8, clock_mhz: 1000, pipeline_cycles: 4, port_bytes: 64}
workload:
  streams:
    - buffer: {bytes: 2MiB, location: gpu_local}
YAML
expect_bad_input switch_no_device "switch without devices" switch -- \
  run --platform "$WORK/switch-no-device.yaml"
expect_bad_input slow_clock "clock below 1 MHz" gpus.clock_mhz -- \
  run "${SMALL[@]}" --set gpus.clock_mhz=0.5
expect_bad_input time_limit "a link so slow the run passes 281 s" "281 s" -- \
  run "${SMALL[@]}" --set links.gpu_device.lane_gbps=1e-9
# Slower still, one flit would outlast 281 s: its time in fs overflowed 64 bits, and the link
# ran as if infinitely fast (exit 0).
expect_bad_input endless_flit "a link so slow that one flit passes 281 s" \
  "links.gpu_device.encoding_efficiency: a flit of 16 B takes" -- \
  run "${SMALL[@]}" --set links.gpu_device.encoding_efficiency=1e-15
# A device smaller than one 2 MiB page rounded to 0 B and failed only as the workload's allocation.
expect_bad_input tiny_device "a device below one mapping page" \
  "devices.0.capacity_gib: 0 B is less than one 2 MiB page" -- \
  run "${SMALL[@]}" --set devices.0.capacity_gib=1e-12

# A rule between several keys names the one a --set changed, not the one the file gave.
for c in "ualink_pod64 switch.spines=1 switch.spines: impossible topology" \
  "fam_mesh devices.0.noc.link_bytes=1 devices.0.noc.link_bytes: expected at least 129 flits" \
  "minimal links.gpu_device.max_payload_bytes=1048576 links.gpu_device.max_payload_bytes: expected at least 65537 credits (flits) in request_vc_credits"; do
  read -r plat set want <<<"$c"
  run_famsim "set_named_$plat" validate --platform "platforms/$plat.yaml" --set "$set"
  expect_rc 2 "--set $set on $plat"
  expect_in_output "--set $set: $want" "--set $set on $plat"
done
pass "a rule between keys names the key a --set changed"

# --- sim.max_time_ns cuts a run short: not a failure, the requests in flight are accounted for.
run_famsim truncated run "${SMALL[@]}" --set sim.max_time_ns=3000 --out "$WORK/truncated"
expect_rc 0 "a run cut off by sim.max_time_ns"
python3 - "$WORK/truncated/stats.json" <<'PY' || fail "truncated run: see above"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["conservation"]
assert d["sim"]["truncated"] is True, "sim.truncated is not true"
assert d["sim"]["simulated_time_ns"] == 3000.0, d["sim"]["simulated_time_ns"]
assert c["ok"] is True, "conservation.ok is not true"
assert c["issued"] > c["completed"] > 0, (c["issued"], c["completed"])
assert c["stuck_requests_total"] == c["issued"] - c["completed"], "in-flight count does not add up"
assert c["in_flight"] == c["issued"] - c["completed"] == c["leaked_payloads"], c
PY
pass "sim.max_time_ns truncates a run, exit 0, in-flight requests accounted for"
# Cut at 20 ns, before the first response (a read's round trip on minimal takes hundreds of ns):
# nothing delivered, so no traffic split to extrapolate and no analytic bound (it was 0 GB/s, and
# the share achieved NaN).
run_famsim truncated_early run "${SMALL[@]}" --set sim.max_time_ns=20 --out "$WORK/truncated_early"
expect_rc 0 "a run cut off by sim.max_time_ns before its first completion"
expect_in_output "no analytic bound" "a run cut off before its first completion"
python3 - "$WORK/truncated_early/stats.json" <<'PY' || fail "run cut before a completion: see above"
import json, math, sys
def no_nan(v, path="stats"):
    if isinstance(v, float):
        assert math.isfinite(v), f"{path} is {v}"
    elif isinstance(v, dict):
        for k, x in v.items(): no_nan(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v): no_nan(x, f"{path}.{i}")
d = json.load(open(sys.argv[1], encoding="utf-8"), parse_constant=lambda c: float(c))
no_nan(d)
b = d["bottlenecks"]
assert d["sim"]["requests_completed"] == 0, d["sim"]["requests_completed"]
for key in ("analytic_bound_gbps", "achieved_fraction_of_bound"):
    assert key not in b, f"bottlenecks.{key} = {b[key]} with nothing delivered"
assert "nan" not in b["sentence"].lower(), b["sentence"]
# The sentence says why nothing came back, and no resource claims a cap of 0 GB/s.
for r in b["ranked"]:
    assert "bound_gbps" not in r, r
n = b["nothing_delivered"]
assert n["cause"] == "none_completed", n
assert n["mean_requests_in_flight"] > 0, n
assert "none completed" in b["sentence"], b["sentence"]
PY
pass "a run cut before its first completion gives no bound and no NaN"
# A workload that issues nothing (every expert already in the HBM cache): the sentence says so,
# instead of explaining a throughput by the workload's pace, and no resource is listed at 0 %.
run_famsim no_request run --platform platforms/nvl8_fam.yaml \
  --workload traffic/moe_deepseek_v3.yaml --set workload.streams.0.moe_experts.cache_experts=256 \
  --out "$WORK/no_request"
expect_rc 0 "a run whose workload issued no request"
expect_in_output "the workload issued no request" "a run whose workload issued no request"
expect_in_output "top resources: none was used" "a run whose workload issued no request"
python3 - "$WORK/no_request/stats.json" <<'PY' || fail "run with no request: see above"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["bottlenecks"]
assert d["conservation"]["issued"] == 0, d["conservation"]["issued"]
assert b["nothing_delivered"] == {"cause": "no_request_issued"}, b["nothing_delivered"]
assert "limiter" not in b and "in_flight" not in b, sorted(b)
PY
pass "a run that issued no request says so"

# --- --dram-log: every controller's command log is written and passes the timing checker.
run_famsim dramlog run "${SMALL[@]}" --set workload.streams.0.read_fraction=0.7 --dram-log \
  --out "$WORK/dramlog"
expect_rc 0 "run with --dram-log"
python3 - "$WORK/dramlog" <<'PY' || fail "--dram-log: see above"
import json, os, sys
out = sys.argv[1]
d = json.load(open(os.path.join(out, "stats.json")))
c = d["dram_timing_check"]
assert c["ok"] is True, c
logs = c["logs"]
assert len(logs) >= 2, "expected a log per DRAM controller: %s" % list(logs)
for name, f in logs.items():
    assert f["violations"] == 0, (name, f)
    assert os.path.exists(f["file"]), f["file"]
    lines = [l for l in open(f["file"]) if not l.startswith("#")]
    assert lines[0].strip() == "cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column,request"
    assert len(lines) - 1 == f["commands"], (len(lines), f["commands"])
busy = [f for f in logs.values() if f["commands"] > 0]
assert busy, "no controller logged a command"
PY
pass "--dram-log writes command logs that pass the independent timing checker"

# On minimal.yaml every byte crosses the one GPU link: the link's payload bandwidth is the run's,
# and its bandwidth_gbps is NVLink4's configured 2 lanes x 106.25 Gb/s x 0.9412 / 8 = 25.0 GB/s.
python3 - "$WORK/dramlog/stats.json" <<'PY' || fail "link bandwidth fields: see above"
import json, sys
d = json.load(open(sys.argv[1]))
l, s = d["components"]["gpu0_link0"], d["summary"]
run = s["read_bandwidth_gbps"] + s["write_bandwidth_gbps"]
assert abs(l["payload_bandwidth_gbps"] - run) <= 1e-9 * run, (l["payload_bandwidth_gbps"], run)
assert abs(l["peak_bandwidth_gbps"] - 2 * 106.25 * 0.9412 / 8) < 1e-3, l["peak_bandwidth_gbps"]
assert l["bandwidth_gbps"] == l["peak_bandwidth_gbps"], l
PY
pass "a link reports its configured and its carried bandwidth"

# sim.log: per-module verbosity. Info from the device's memory controllers only.
run_famsim loglevel run "${SMALL[@]}" --set 'sim.log.modules=[fam0.memory=info]' \
  --out "$WORK/loglevel"
expect_rc 0 "run with sim.log.modules"
expect_in_output "fam0.memory.ch0:" "info from fam0.memory"
case "$OUT" in *"Info: gpu0"*) fail "gpu0 logged at info with level warning" ;; esac
pass "sim.log.modules raises one module's verbosity"

# A verifying stream that reads what its writer never wrote: exit 1, and the first mismatching
# reads are named. write_then_verify on minimal.yaml's one GPU with the writer cut to 256 KiB
# (2048 writes of 128 B, ids 0..2047) and the verifier reading all 4 MiB (ids 2048..34815): the
# reads past 256 KiB, (4 MiB - 256 KiB) / 128 B = 30720 of them from id 4096 on, find never-written
# memory, which reads as zeros.
run_famsim mismatch run --platform "$PLATFORM" --workload traffic/write_then_verify.yaml \
  --set workload.streams.0.total_bytes=256KiB --out "$WORK/mismatch"
expect_rc 1 "a verifier reading bytes its writer never wrote"
expect_in_output "wrong bytes, the first at offset" "the terminal names the first mismatching reads"
python3 - "$WORK/mismatch/stats.json" <<'PY' || fail "first_data_mismatches: see above"
import json, sys
c = json.load(open(sys.argv[1]))["conservation"]
assert c["data_mismatches"] == 30720, c["data_mismatches"]
m = c["first_data_mismatches"]
assert len(m) == 10, len(m)
assert [x["complete_ns"] for x in m] == sorted(x["complete_ns"] for x in m), m
for x in m:
    assert x["id"] >= 4096 and x["gpu"] == 0 and x["bytes"] == 128, x
    assert x["read_byte"] == "0x00", x
    assert 0 < x["wrong_bytes"] <= 128 and x["first_wrong_offset"] < 128, x
PY
python3 scripts/report.py "$WORK/mismatch" >/dev/null || fail "report.py on a failed run"
grep -q "stats.json lists the first reads that did not return the data written" "$WORK/mismatch/report.md" ||
  fail "the report does not point at the mismatching reads"
if grep -q "stuck requests" "$WORK/mismatch/report.md"; then fail "the report blames stuck requests"; fi
pass "a data mismatch names its first reads, in stats.json, the terminal and the report"

# famsim check-dram-log: the same logs pass; a log with one RD moved earlier than tRCD fails.
run_famsim checklog check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  "$WORK"/dramlog/dram/*.csv
expect_rc 0 "check-dram-log on famsim's own logs"
log=$(ls "$WORK"/dramlog/dram/*.csv | head -1)
python3 - "$log" "$WORK/broken.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
out, act = [], None
for l in lines:
    f = l.split(",")
    if len(f) == 11 and f[7] == "ACT" and act is None:
        act = f
    elif act is not None and len(f) == 11 and f[7] == "RD" and f[4:7] == act[4:7]:
        # DDR5-4800 tRCD is 40 clocks: issue the read 1 clock after its ACT instead.
        f[0] = str(int(act[0]) + 1)
        f[1] = str((int(act[0]) + 1) * 416)
        out.append(",".join(f))
        out.extend(lines[len(out):])
        break
    out.append(l)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
run_famsim checkbad check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  "$WORK/broken.csv"
expect_rc 1 "check-dram-log on a log with a read too early"
expect_in_output "tRCD_RD" "check-dram-log names the violated constraint"
pass "check-dram-log accepts famsim's logs and names the constraint a broken log violates"

# A log in the format before the request column (its header and lines without the last field) is
# still read: the same log cut back to it passes, and so does the broken one's cut fail.
for f in "$log" "$WORK/broken.csv"; do
  sed -e 's/,request$//' -e '/^[0-9]/s/,[^,]*$//' "$f" >"$f.v1"
done
head -3 "$log.v1" | grep -qx 'cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column' ||
  fail "the old-format copy has the old header"
run_famsim checkv1 check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 "$log.v1"
expect_rc 0 "check-dram-log on a log without the request column"
run_famsim checkv1bad check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  "$WORK/broken.csv.v1"
expect_rc 1 "check-dram-log on an old-format log with a read too early"
expect_in_output "tRCD_RD" "the old-format log's violation"
pass "check-dram-log reads logs without the request column as before"

# time_ps must be the cycle at the preset's tCK (416 ps for DDR5-4800) plus the log's first offset:
# a log whose times run 1 ps per cycle slow fails "clock" on its second command; a log whose times
# all start 1000 ps later (a test bench counting from its reset) passes.
python3 - "$log" "$WORK/slow_clock.csv" "$WORK/offset.csv" <<'PY'
import sys
slow, offset, seen = [], [], 0
for l in open(sys.argv[1]).read().splitlines():
    f = l.split(",")
    if len(f) == 11 and f[0].isdigit():
        seen += 1
        cycle = int(f[0])
        slow.append(",".join([f[0], str(cycle * 417)] + f[2:]))
        offset.append(",".join([f[0], str(cycle * 416 + 1000)] + f[2:]))
    else:
        slow.append(l)
        offset.append(l)
assert seen > 2
open(sys.argv[2], "w").write("\n".join(slow) + "\n")
open(sys.argv[3], "w").write("\n".join(offset) + "\n")
PY
run_famsim slowclock check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  "$WORK/slow_clock.csv"
expect_rc 1 "check-dram-log on a log at another clock"
expect_in_output "clock: " "the clock violation"
expect_in_output "x tCK 416 ps" "the clock violation names the preset's tCK"
run_famsim offsetclock check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  "$WORK/offset.csv"
expect_rc 0 "check-dram-log on a log whose times start 1000 ps later"
# The log's first line names the preset it was written with: another --preset is bad input.
run_famsim otherpreset check-dram-log --preset ddr4_3200 "$log"
expect_rc 2 "check-dram-log against another preset than the log's"
expect_in_output "$log:1: the log was written for memory preset 'ddr5_4800_x4', but --preset is 'ddr4_3200'" \
  "the preset mismatch"
pass "check-dram-log checks time_ps against the clock and the log's preset against --preset"

# The log's second line records the organisation and every timing it was made with: checked
# without minimal.yaml's 2 ranks, the log is bad input naming the --set that restores them.
run_famsim noranks check-dram-log --preset ddr5_4800_x4 "$log"
expect_rc 2 "check-dram-log with the preset's 1 rank on a 2-rank log"
expect_in_output "$log:2: the log was made with figures other than those of preset 'ddr5_4800_x4'" \
  "the figures' mismatch"
expect_in_output "organization.ranks 2 (checking with 1)" "the rank count named"
expect_in_output "add --set organization.ranks=2" "the --set that gives the log's ranks"

# A timing given in clocks replaces the preset's in ns (DDR5-4800's tRCD: 16.666 ns = 40 clocks
# of 416 ps), in the run and in the check: with tRCD_ck=24 the log's fastest ACT to RD of one
# bank, read from the log alone, is 24 clocks; checked with the preset alone the log is bad input
# naming tRCD, and with the --set it names, clean.
run_famsim rcd24 run "${SMALL[@]}" --set devices.0.memory.timing.tRCD_ck=24 --dram-log \
  --out "$WORK/rcd24"
expect_rc 0 "run with tRCD_ck=24 over the preset's tRCD_ns"
rcd_log=$(ls "$WORK"/rcd24/dram/*.csv | head -1)
python3 - "$rcd_log" <<'PY' || fail "the fastest ACT to RD is not 24 clocks"
import sys
act, gaps = {}, []
for l in open(sys.argv[1]):
    f = l.strip().split(",")
    if len(f) != 11 or not f[0].isdigit():
        continue
    bank = tuple(f[2:7])
    if f[7] == "ACT":
        act[bank] = int(f[0])
    elif f[7] in ("RD", "RDA") and bank in act:
        gaps.append(int(f[0]) - act.pop(bank))
assert gaps and min(gaps) == 24, (len(gaps), min(gaps) if gaps else None)
PY
python3 - "$WORK/rcd24/stats.json" <<'PY' || fail "config_changes does not list the preset's tRCD_ns as replaced"
import json, sys
c = {x["key"]: x for x in json.load(open(sys.argv[1]))["config_changes"]["changes"]}
ns = c["devices.0.memory.timing.tRCD_ns"]
assert ns["value"] is None and ns["source"].startswith("replaced by devices.0.memory.timing.tRCD_ck"), ns
assert c["devices.0.memory.timing.tRCD_ck"]["value"] == 24, c
PY
run_famsim rcd24check check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 "$rcd_log"
expect_rc 2 "check-dram-log with the preset's tRCD on a log made with tRCD_ck=24"
expect_in_output "timing.tRCD_ck 24 (checking with 40)" "the tRCD mismatch"
run_famsim rcd24ok check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  --set timing.tRCD_ck=24 --set timing.tRCDWR_ck=24 "$rcd_log"
expect_rc 0 "check-dram-log with the log's tRCD"
# A figure the log has and the checking preset has not: DDR4-3200 given per-bank refresh (tREFIpb
# 487 ns = 779 clocks of 625 ps, rounded down as an interval; tRFCpb 130 ns = 208 clocks) checked
# against the plain preset is bad input naming both, not 1500 refresh_mode violations.
run_famsim pbref run "${SMALL[@]}" --set devices.0.capacity_gib=32 \
  --set devices.0.memory.preset=ddr4_3200 --set devices.0.memory.timing.tREFIpb_ns=487 \
  --set devices.0.memory.timing.tRFCpb_ns=130 --set devices.0.memory.controller.refresh=per_bank \
  --dram-log --out "$WORK/pbref"
expect_rc 0 "a DDR4 run with per-bank refresh"
run_famsim pbrefcheck check-dram-log --preset ddr4_3200 --set organization.ranks=2 \
  "$(ls "$WORK"/pbref/dram/*.csv | head -1)"
expect_rc 2 "check-dram-log of a per-bank-refresh log against a preset without it"
expect_in_output "add --set timing.tREFIpb_ck=779 --set timing.tRFCpb_ck=208" "the per-bank figures"
# A log without the spec line (an RTL test bench's, or one written before it) is checked against
# the preset and --set as given.
sed '2{/^# spec: /d}' "$log" >"$WORK/nospec.csv"
grep -q '^# spec: ' "$WORK/nospec.csv" && fail "the copy still has its spec line"
run_famsim nospec check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 "$WORK/nospec.csv"
expect_rc 0 "check-dram-log on a log without the spec line"
pass "a log records its figures; a timing in clocks replaces the preset's in ns, run and check"

# --- Rates are over the active window: a late start does not dilute bandwidth or utilisation.
run_famsim early run "${SMALL[@]}" --out "$WORK/early"
expect_rc 0 "run starting at 0"
run_famsim late run "${SMALL[@]}" --set workload.streams.0.start_ns=100000 --out "$WORK/late"
expect_rc 0 "run starting at 100 us"
python3 - "$WORK/early/stats.json" "$WORK/late/stats.json" <<'PY' || fail "late start: see above"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert b["sim"]["active_from_ns"] >= 100000, b["sim"]["active_from_ns"]
for key in ("read_bandwidth_gbps",):
    x, y = a["summary"][key], b["summary"][key]
    assert abs(x - y) <= 0.01 * x, f"{key}: {x} starting at 0, {y} starting at 100 us"
x, y = a["components"]["gpu0_link0"]["utilization"], b["components"]["gpu0_link0"]["utilization"]
assert abs(x - y) <= 0.01, f"link utilisation {x} vs {y}"
PY
pass "bandwidth and utilisation are measured from the first request, not from time 0"

# --- Peer traffic: the shipped example runs; a buffer on a GPU that does not exist is bad input.
run_famsim peer run --platform platforms/nvl8_fam.yaml --workload traffic/peer_read.yaml \
  --set workload.streams.0.total_bytes=256KiB --out "$WORK/peer"
expect_rc 0 "traffic/peer_read.yaml on platforms/nvl8_fam.yaml"
python3 - "$WORK/peer/stats.json" <<'PY' || fail "peer_read: see above"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["components"]
# 256 KiB in 128 B requests: 2048 reads by GPU 0, every one into GPU 1's HBM through its hub.
assert d["conservation"]["ok"] is True, d["conservation"]
assert d["summary"]["read_bytes"] == 262144, d["summary"]["read_bytes"]
assert c["gpu0"]["peer_requests"] == 2048, c["gpu0"]["peer_requests"]
assert c["gpu1_hub"]["requests"] == 2048, c["gpu1_hub"]["requests"]
# The read data leaves GPU 1's hub on the GPU-to-switch wires of GPU 1's own links, on their
# response channel (the peer requests came in on the switch-to-GPU wires).
assert sum(v["request_direction"]["response_vc"]["payload_bytes"]
           for k, v in c.items() if k.startswith("gpu1_link")) == 262144
PY
pass "the peer_read example reaches GPU 1's HBM over the peer path"

# Each link wire names its ends: request_direction is side A to side B. On nvl8_fam (4 planes of
# one switch chip, README "Switch planes") GPU g's link l runs from gpu<g> to plane<l mod 4>_switch
# and device port p's link from plane<p mod 4>_switch to fam0.port_logic. The terminal's and
# report.py's resource lists show them after a wire's name, so that GPU 1's "request wire",
# which carries its peer responses (above), reads as GPU 1 -> switch.
python3 - "$WORK/peer/stats.json" "$WORK/peer.log" <<'PY' || fail "peer_read link ends: see above"
import json, re, sys
c = json.load(open(sys.argv[1]))["components"]
ends = {}
for g in range(8):
    for l in range(18):
        ends[f"gpu{g}_link{l}"] = (f"gpu{g}", f"plane{l % 4}_switch")
for p in range(8):
    ends[f"fam0_link{p}"] = (f"plane{p % 4}_switch", "fam0.port_logic")
links = {k for k, v in c.items() if "request_direction" in v}
assert links == set(ends), sorted(links ^ set(ends))
for k, (a, b) in ends.items():
    got = [(c[k][d]["from"], c[k][d]["to"]) for d in ("request_direction", "response_direction")]
    assert got == [(a, b), (b, a)], (k, got)
shown = re.findall(r"^    (\S+) (request|response) wire \((\S+) -> (\S+)\) ", open(sys.argv[2]).read(), re.M)
assert shown, "no link wire among the terminal's top resources"
for k, wire, a, b in shown:
    assert (a, b) == (ends[k] if wire == "request" else ends[k][::-1]), (k, wire, a, b)
# The bottleneck entries carry the same ends: a link's wire, and a VC's credits (which pace the
# wire their VC's data goes on: "(response direction)" names the response wire), by the same rule;
# no other resource has them.
b = json.load(open(sys.argv[1]))["bottlenecks"]
entries = b["ranked"] + ([b["limiter"]] if "limiter" in b else [])
entries += [p["limiter"] for p in b.get("phases", {}).get("phases", []) if p["limiter"]]
seen = 0
for e in entries:
    m = re.fullmatch(r"(request|response) (?:wire|VC credits(?: \((request|response) direction\))?)",
                     e["resource"])
    if e["component"] not in ends or not m:
        assert "from" not in e and "to" not in e, e
        continue
    wire = m.group(2) or m.group(1)
    want = ends[e["component"]] if wire == "request" else ends[e["component"]][::-1]
    assert (e.get("from"), e.get("to")) == want, (e["component"], e["resource"], e.get("from"), want)
    seen += 1
assert seen, "no link resource among the bottleneck entries"
PY
/usr/bin/python3 scripts/report.py "$WORK/peer" --out "$WORK/peer-report" >/dev/null 2>&1 ||
  fail "report.py on the peer_read run"
grep -q '| `gpu1_link[0-9]*` | request wire (gpu1 → plane[0-3]_switch) |' "$WORK/peer-report/report.md" ||
  fail "report.py's resource table shows no GPU 1 request wire with its ends"
pass "link wires name their ends in stats.json, its bottleneck entries, the terminal and report.py"

cat >"$WORK/gpu9.yaml" <<'YAML'
name: missing_gpu
streams:
  - gpus: [0]
    buffer: {bytes: 1MiB, location: gpu/9}
YAML
expect_bad_input missing_gpu "buffer on a GPU that does not exist" \
  "$WORK/gpu9.yaml" workload.streams.0.buffer.location "no GPU 9" -- \
  run --platform platforms/nvl8_fam.yaml --workload "$WORK/gpu9.yaml"

# --- The UALink pod: 4 planes of leaf/spine switches; a short run reaches all 4 devices.
run_famsim pod run --platform platforms/ualink_pod64.yaml --workload traffic/pod_random_read.yaml \
  --set workload.streams.0.total_bytes=64KiB --set workload.streams.1.total_bytes=64KiB \
  --set workload.streams.2.total_bytes=64KiB --set workload.streams.3.total_bytes=64KiB \
  --out "$WORK/pod"
expect_rc 0 "traffic/pod_random_read.yaml on platforms/ualink_pod64.yaml"
python3 - "$WORK/pod/stats.json" <<'PY' || fail "pod: see above"
import json, re, sys
d = json.load(open(sys.argv[1]))
c = d["components"]
# 64 accelerators x 64 KiB in 256 B requests = 16384 reads, a quarter to each device.
assert d["conservation"]["ok"] is True, d["conservation"]
assert d["conservation"]["completed"] == 16384, d["conservation"]["completed"]
for dev in range(4):
    reads = sum(v["request_direction"]["request_vc"]["transfers"]
                for k, v in c.items() if k.startswith("fam%d_link" % dev))
    assert reads == 4096, (dev, reads)
# 4 planes x (5 leaves + 4 spines) switch chips, each leaf with 16 uplinks.
assert sum(1 for k in c if "_leaf" in k and "_link" not in k) == 20
assert sum(1 for k in c if "_spine" in k and "_link" not in k) == 16
assert sum(1 for k in c if "_spine" in k and "_link" in k) == 4 * 5 * 16
# Link ends: plane<k>_leaf<i>_spine<s>_link<t> runs from plane<k>_leaf<i> up to plane<k>_spine<s>;
# accelerator g's port l from gpu<g> to a leaf of plane l mod 4, device port p from a leaf of
# plane p mod 4 to fam<d>.port_logic.
for k, v in c.items():
    if "request_direction" not in v:
        continue
    a, b = v["request_direction"]["from"], v["request_direction"]["to"]
    assert (v["response_direction"]["from"], v["response_direction"]["to"]) == (b, a), k
    parts = k.split("_")
    if "_spine" in k:
        assert (a, b) == ("_".join(parts[:2]), parts[0] + "_" + parts[2]), (k, a, b)
    elif k.startswith("gpu"):
        l = int(parts[1][4:])
        assert a == parts[0] and re.fullmatch(f"plane{l % 4}_leaf[0-4]", b), (k, a, b)
    else:
        p = int(parts[1][4:])
        assert re.fullmatch(f"plane{p % 4}_leaf[0-4]", a) and b == parts[0] + ".port_logic", (k, a, b)
PY
pass "the UALink pod routes every device's requests through its leaf/spine planes"

run_famsim validate_peer validate --platform platforms/nvl8_fam.yaml
expect_rc 0 "famsim validate on nvl8_fam"
expect_in_output "peer paths: 8 GPUs x 18 peer outputs" "validate lists peer ports"
expect_in_output "switch-GPU peer: 144 links" "validate lists peer links"
expect_in_output "GPU memory hub: per GPU a crossbar of 178 up ports" "validate lists the hub"
pass "famsim validate lists the peer ports, peer links and memory hubs"

# An interleave granule coarse against the bytes in flight: minimal.yaml's one GPU keeps 1024 x
# 128 B = 131,072 B in flight; 1 MiB granules over 8 channels make a round of 8,388,608 B, so a
# sequential walk is inside one granule, one channel, at a time; 131,072 / 8 = 16,384 B granules
# would spread it over all 8. nvl8_fam (256 B x 16 channels = 4 KiB a round against 8 x 512 x
# 128 B = 512 KiB in flight) has no such line.
run_famsim validate_granule validate --platform platforms/minimal.yaml \
  --set gpus.max_outstanding=1024 --set devices.0.memory.channels=8 \
  --set devices.0.memory.interleave.granule_bytes=1048576
expect_rc 0 "famsim validate with 1 MiB granules"
expect_in_output "interleave coarse for the bytes in flight: 1048576 B granules x 8 channels = 8388608 B a round, more than the 131072 B the GPUs keep in flight (1 x 1024 x 128 B): a sequential walk keeps about 1 of the 8 channels busy at a time (they take turns); a granule of at most 16384 B spreads it over all" \
  "validate flags a granule coarse for the bytes in flight"
run_famsim validate_granule_ok validate --platform platforms/nvl8_fam.yaml
case "$OUT" in *"interleave coarse"*) fail "nvl8_fam's 256 B granules flagged as coarse" ;; esac
pass "famsim validate says when the channels would take turns under a sequential walk"

# How much of the device's port bandwidth the GPUs reach over the switch planes. nvl8_fam: each GPU
# spreads its traffic over its 18 links by address, link l on plane l mod 4, so the planes carry
# 5/18, 5/18, 4/18 and 4/18 of it; the device's 8 ports sit 2 on each plane, 2 x 25 GB/s. Plane 0
# (and 1) passes 50 GB/s when the device takes 50 / (5/18) = 180 GB/s in all (planes 2 and 3 would
# allow 50 / (4/18) = 225). 128 B reads: 128 of each 144-byte response on the wire are data,
# 180 x 128 / 144 = 160 GB/s.
expect_in_output "fabric reach: at most 180.00 of its ports' 200.00 GB/s per direction (128 B reads: 160.00 GB/s): the GPUs' link hash gives the planes 5/18, 5/18, 4/18, 4/18 of their traffic, the device has 2, 2, 2, 2 of its 8 ports on them; planes 0 and 1 bind" \
  "validate's fabric reach on nvl8_fam"
# 9 ports: port p on plane p mod 4 puts 3 on plane 0, so plane 1 alone binds: 2 x 25 x 18 / 5 = 180.
run_famsim validate_reach9 validate --platform platforms/nvl8_fam.yaml --set devices.0.fabric_ports=9
expect_rc 0 "famsim validate on nvl8_fam with 9 device ports"
expect_in_output "at most 180.00 of its ports' 225.00 GB/s per direction (128 B reads: 160.00 GB/s)" \
  "validate's fabric reach with 9 device ports"
expect_in_output "the device has 3, 2, 2, 2 of its 9 ports on them; plane 1 binds" \
  "validate's fabric reach names the binding plane"
# 16 links per GPU, 4 on each plane, as the device's ports: all 8 x 25 = 200 GB/s reachable.
run_famsim validate_reach16 validate --platform platforms/nvl8_fam.yaml --set links.gpu_switch.per_gpu=16
expect_rc 0 "famsim validate on nvl8_fam with 16 links per GPU"
expect_in_output "fabric reach: all 200.00 GB/s of its ports per direction (128 B reads: 177.78 GB/s), its ports spread over the planes as the GPUs' links are" \
  "validate's fabric reach with the ports spread as the links"
# The simulation keeps to that bound: saturating random reads on nvl8_fam reach the device at
# no more than 160 GB/s, and within 3 % of it.
run_famsim reach_run run --platform platforms/nvl8_fam.yaml --out "$WORK/reach" \
  --set workload.streams.0.total_bytes=4MiB
expect_rc 0 "nvl8_fam random reads, 4 MiB per GPU"
python3 - "$WORK/reach/stats.json" <<'PY' || fail "nvl8_fam's read bandwidth against its fabric reach"
import json, sys
bw = json.load(open(sys.argv[1]))["summary"]["read_bandwidth_gbps"]
assert 0.97 * 160.0 <= bw <= 160.0, bw
PY
pass "validate gives the device's fabric reach, and a saturating run keeps within it"

# The reach takes the device links' VC credits into account. nvl8_fam with 20 response credits on
# each switch-device link (NVLink4-like: 25 GB/s, 16 B flits, 20 ns, credits back 20 ns after
# use): a 128 B read response is 144 B = 9 flits, so 2 fit; each holds its credits 144 / 25 =
# 5.76 ns on the wire + 20 + 20 = 45.76 ns, so a link carries at most 2 x 128 / 45.76 = 5.59 GB/s
# of read data (Little's law) where its wire carries 128 / 5.76 = 22.22. The planes let the
# device take 180 GB/s = 7.2 links' worth: 7.2 x 2 x 128 / 45.76 = 40.28 GB/s of reads, not the
# 160 the wire alone allows. A run stays within that and gets near it.
run_famsim validate_reach_credits validate --platform platforms/nvl8_fam.yaml \
  --set links.switch_device.response_vc_credits=20
expect_rc 0 "famsim validate on nvl8_fam with 20 response credits on the device links"
expect_in_output "fabric reach: at most 180.00 of its ports' 200.00 GB/s per direction (128 B reads: 40.28 GB/s, held by the response VC credits to 5.59 of the wire's 22.22 per link): the GPUs' link hash" \
  "validate's fabric reach under a credit cap"
case "$OUT" in *"held by the request VC credits"*) fail "a write credit cap on nvl8_fam's default 128 request credits: $OUT" ;; esac
run_famsim reach_credits_run run --platform platforms/nvl8_fam.yaml --out "$WORK/reach_credits" \
  --set links.switch_device.response_vc_credits=20 --set workload.streams.0.total_bytes=1MiB
expect_rc 0 "nvl8_fam random reads with 20 response credits on the device links"
python3 - "$WORK/reach_credits/stats.json" <<'PY' || fail "nvl8_fam's read bandwidth against its credit-capped reach"
import json, sys
bw = json.load(open(sys.argv[1]))["summary"]["read_bandwidth_gbps"]
cap = 180 / 25 * 2 * 128 / (144 / 25 + 20 + 20)
assert 0.9 * cap <= bw <= cap * 1.001, (bw, cap)
PY
pass "validate's fabric reach takes the device links' credit cap into account, and a run keeps within it"

# --- validate. ----------------------------------------------------------------------------------
for p in platforms/*.yaml; do
  run_famsim "validate-$(basename "$p")" validate --platform "$p"
  expect_rc 0 "famsim validate --platform $p"
  expect_in_output "valid" "famsim validate --platform $p"
done
pass "famsim validate accepts every platforms/*.yaml"

# validate lists under each memory the values its preset marks as assumptions (ddr5_4800_x4's
# assumptions map: tFAW 40 clocks, tRTRS 2, tREFIsb 487.5 ns, tREFSBRD 18.75 ns, 4 postponed
# refreshes), with the value the run would use.
run_famsim validate_assumptions validate --platform platforms/minimal.yaml
expect_in_output "    assumptions, not figures from a standard or a datasheet: timing.tFAW_ck 40, timing.tRTRS_ck 2, timing.tREFIsb_ns 487.5, timing.tREFSBRD_ns 18.75, timing.refresh_postpone_max 4" \
  "validate lists a memory's assumed values"
pass "famsim validate lists the memory's assumed values"

# The link line's read figures follow gpus.request_bytes. minimal's NVLink4-like link: 2 lanes x
# 106.25 Gb/s x 16/17 = 25 GB/s per direction, 16 B headers, 16 B slots. 256 B reads: the
# response is 256 + 16 = 272 B, 256 / 272 = 0.941 of the wire, 25 x 0.941 = 23.53 GB/s; with the
# 16 B request, 256 / 288 = 0.889 over both directions.
run_famsim validate_reads validate --platform platforms/minimal.yaml --set gpus.request_bytes=256
expect_rc 0 "famsim validate with 256 B requests"
expect_in_output "256 B reads: 0.941 of the response wire is data, at most 23.53 GB/s of reads per link (0.889 over request and response wire bytes together)" \
  "validate's read wire figures for 256 B requests"
pass "validate's read wire figures follow the request size"

run_famsim validate_split validate --platform platforms/minimal.yaml \
  --set devices.0.memory.interleave.granule_bytes=64 --set devices.0.port_logic.response_order=in_order
expect_rc 0 "famsim validate with a 64 B device interleave"
expect_in_output "128 B requests split into 64 B granules" "validate says requests are split"
expect_in_output "in-order responses" "validate shows the response order"
run_famsim validate_bits validate --platform platforms/minimal.yaml \
  --set 'devices.0.memory.interleave={channel_select: bits, channel_bits: [12]}'
expect_rc 0 "famsim validate with a bit-list interleave"
expect_in_output "4096 B bits [12] interleave" "validate shows the channel bits and their granule"
run_famsim validate_bits_bad validate --platform platforms/minimal.yaml \
  --set 'devices.0.memory.interleave={channel_select: bits, channel_bits: [12, 13]}'
expect_rc 2 "famsim validate with too many channel bits"
expect_in_output "devices.0.memory.interleave.channel_bits" "the error names the key"
pass "famsim validate shows the device's splitting, ordering and bit-list interleave, and rejects a bit list that does not fit"

# 20 response-VC credits on minimal's NVLink4 link (16 B flits, 16 B headers, 25 GB/s, 20 ns,
# credits back 20 ns after use): a 128 B read response is 16 + 128 = 144 B = 9 flits, so 2 fit;
# each holds its credits at least 144 / 25 = 5.76 ns on the wire + 20 + 20 = 45.76 ns, so the VC
# carries at most 2 x 128 / 45.76 = 5.59 GB/s of read data (the wire: 128 / 5.76 = 22.22). A run
# gets within 2% of that, never above; the default 128 credits (14 responses) print no cap.
run_famsim validate_credits validate --platform platforms/minimal.yaml \
  --set links.gpu_device.response_vc_credits=20
expect_rc 0 "famsim validate with 20 response credits"
expect_in_output "response VC credits short of the credit round trip: 2 read response(s) of 128 B (9 flits each) in 20 credits, each holding them at least 45.76 ns (on the wire 5.76 + 20 + return 20): at most 5.59 GB/s of read data per link direction, where the wire carries 22.22" \
  "validate prints the credit cap"
if grep -q "short of the credit round trip" "$WORK/validate-minimal.yaml.log"; then
  fail "validate prints a credit cap for minimal's default 128 credits"
fi
run_famsim run_credits run --platform platforms/minimal.yaml --out "$WORK/credits" \
  --set links.gpu_device.response_vc_credits=20 --set workload.streams.0.total_bytes=2MiB
expect_rc 0 "famsim run with 20 response credits"
python3 - "$WORK/credits/stats.json" <<'PY' || fail "the run does not reach the credit cap: see above"
import json, sys
got = json.load(open(sys.argv[1]))["summary"]["read_bandwidth_gbps"]
cap = 2 * 128 / (144 / 25 + 20 + 20)
if not 0.98 * cap <= got <= cap * 1.001:
    sys.exit(f"read bandwidth {got:.3f} GB/s, expected within 98-100.1% of the cap {cap:.3f}")
PY
pass "validate prints the cap 20 link credits put on reads (5.59 GB/s), and a run reaches it"

run_famsim one_request run --platform platforms/minimal.yaml --out "$WORK/one" \
  --set workload.streams.0.total_bytes=128
expect_rc 0 "famsim run of one request"
expect_in_output "kept 1.0 requests in flight on average, of 64 window slots" \
  "the sentence of a run that saturates nothing gives the requests in flight"
python3 - "$WORK/one/stats.json" <<'PY' || fail "one request: see above"
import json, sys
d = json.load(open(sys.argv[1]))
flight = d["bottlenecks"]["in_flight"]
# One request out for the whole run: exactly 1 in flight, of minimal's 64-request GPU window.
if flight != {"mean_requests": 1.0, "window_slots": 64.0}:
    sys.exit(f"in_flight {flight}, expected 1 of 64")
# Little's law: 1 request x 128 B over its latency is the bandwidth (within the issue clock).
s = d["summary"]
want = 128 / s["latency_ns"]["mean"]
if not 0.98 * want <= s["read_bandwidth_gbps"] <= want * 1.001:
    sys.exit(f"read bandwidth {s['read_bandwidth_gbps']:.4f} GB/s, Little's law gives {want:.4f}")
PY
pass "a run of one request names 1 of 64 requests in flight, and its bandwidth is 128 B / latency"

run_famsim validate_none validate
expect_rc 2 "famsim validate without --platform"
expect_in_output "--platform" "famsim validate without --platform"
pass "famsim validate without --platform exits 2"

run_famsim validate_bad validate --platform "$PLATFORM" --set gpus.count=eight
expect_rc 2 "famsim validate with a wrong type"
expect_in_output gpus.count "famsim validate with a wrong type"
pass "famsim validate rejects a wrong type"

# --- Progress lines (--progress SECONDS; none by default off a terminal). --------------------------
# With an interval far below a run-ahead's host time, every run-ahead (1 us of simulated time at
# most) prints a line; simulated time and requests completed only grow, and never pass the run's
# own totals (to within the hand-shakes after the last completion). Each line gives the share done: the larger of the bytes delivered over the stream's
# total_bytes (128 B a request) and the simulated time over the duration_ns or sim.max_time_ns
# that ends the run, and then the host time left at the rate so far: host s x (1 - share) / share.
#   check_progress NAME TOTAL_REQUESTS END_US ARGS...   (TOTAL_REQUESTS: the requests a run moving
#   every byte of total_bytes makes; END_US: the duration or time limit, 0 for none)
check_progress() {
  local name=$1 requests=$2 end=$3
  shift 3
  "$FAMSIM" run "$@" --progress 1e-9 --out "$WORK/$name" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
    fail "famsim run --progress 1e-9 ($name): exit code $?: $(cat "$WORK/$name.err")"
  python3 - "$WORK/$name.err" "$WORK/$name/stats.json" "$requests" "$end" <<'PY2' ||
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
stats = json.load(open(sys.argv[2]))
total, limit_us = int(sys.argv[3]), float(sys.argv[4])
end_us = stats["sim"]["simulated_time_ns"] / 1000
completed = stats["sim"]["requests_completed"]
pat = re.compile(r"famsim: progress: ([0-9.]+) us simulated, ([0-9]+) requests completed, "
                 r"([0-9.]+) host s \([0-9]+ requests per host second\), about ([0-9.]+) % done"
                 r"(?:, about ([0-9.]+) host s left)?$")
if len(lines) < 3:
    sys.exit(f"{len(lines)} progress lines for a run of {end_us:.1f} us, expected one per us")
last_us, last_done = 0.0, 0
for line in lines:
    m = pat.match(line)
    if not m:
        sys.exit(f"not a progress line: {line!r}")
    us, done = float(m.group(1)), int(m.group(2))
    # The last run-ahead may end a few ns after the last completion (simulated_time_ns), on the
    # hand-shakes that follow it.
    if us < last_us or done < last_done or us > end_us + 0.01 or done > completed:
        sys.exit(f"{line!r} after {last_us} us and {last_done} requests "
                 f"(run: {end_us} us, {completed})")
    share = min(1.0, max(done / total, us / limit_us if limit_us else 0))
    # The time is printed to 1 ns, the share to 0.1 %.
    slack = 0.051 + (100 * 0.0005 / limit_us if limit_us else 0)
    if abs(float(m.group(4)) - 100 * share) > slack:
        sys.exit(f"{line!r}: expected {100 * share:.2f} % done")
    if share > 0:
        if m.group(5) is None:
            sys.exit(f"{line!r}: no host time left at {100 * share:.2f} % done")
        host = float(m.group(3))
        # Host seconds are printed to 0.1 s: the estimate from the printed figure is that close.
        lo, hi = max(host - 0.05, 0) * (1 - share) / share, (host + 0.05) * (1 - share) / share
        if not lo - 0.051 <= float(m.group(5)) <= hi + 0.051:
            sys.exit(f"{line!r}: expected {lo:.3f}-{hi:.3f} host s left")
    elif m.group(5) is not None:
        sys.exit(f"{line!r}: host time left before anything was done")
    last_us, last_done = us, done
PY2
    fail "--progress lines ($name): see above"
}
# 256 KiB in 128 B requests: 2048 requests.
check_progress progress 2048 0 "${SMALL[@]}"
# The workload's 16 MiB (131072 requests) with a 5 us duration, which ends the run first.
check_progress progress_duration 131072 5 --platform "$PLATFORM" \
  --set workload.streams.0.duration_ns=5000
# 2048 requests, cut at 3 us by sim.max_time_ns.
check_progress progress_limit 2048 3 "${SMALL[@]}" --set sim.max_time_ns=3000
pass "--progress prints simulated time, requests completed (growing, within the run's totals), share done and time left"
grep -q "famsim: progress" "$WORK/progress.out" && fail "--progress wrote to stdout: $(cat "$WORK/progress.out")"
run_famsim progress_default run "${SMALL[@]}" --out "$WORK/progress_default"
expect_rc 0 "famsim run without --progress"
case "$OUT" in *"famsim: progress"*) fail "progress lines off a terminal without --progress: $OUT" ;; esac
pass "no progress lines by default when stderr is not a terminal"
run_famsim progress_bad run "${SMALL[@]}" --progress -1 --out "$WORK/progress_bad"
expect_rc 2 "famsim run --progress -1"
expect_in_output "--progress" "famsim run --progress -1"
pass "a negative --progress interval is bad input"
run_famsim progress_nan run "${SMALL[@]}" --progress nan --out "$WORK/progress_nan"
expect_rc 2 "famsim run --progress nan"
expect_in_output "--progress" "famsim run --progress nan"
pass "a NaN --progress interval is bad input"

# A replay buffer too small for the ACK round trip caps the link, and validate and the bottleneck
# analysis say so. nvlink4 (minimal's link): 2 lanes x 106.25 Gb/s x 100/106.25 / 8 = 25 GB/s, a
# 16 B flit 0.64 ns, replay latency 50 ns: each flit holds its entry 50.64 ns, so 40 entries carry
# 40 x 16 / 50.64 = 12.64 GB/s of flits, and a 128 B read response (128 B of data in 144 B of
# flits) 12.638 x 128 / 144 = 11.23 GB/s of reads. The preset's 256 flits do not bind (255 x 0.64
# = 163 ns > 50).
run_famsim replay_validate validate --platform "$PLATFORM" --set links.gpu_device.replay_buffer_flits=40
expect_rc 0 "validate with a 40-flit replay buffer"
expect_in_output "replay buffer short of the ACK round trip: 40 flits, each held 50.64 ns (on the wire 0.64 + replay 50): at most 12.64 GB/s of flits per link direction (11.23 of read data)" \
  "validate names the replay buffer's cap"
run_famsim replay_run run "${SMALL[@]}" --set links.gpu_device.replay_buffer_flits=40 --out "$WORK/replay_run"
expect_rc 0 "a run with a 40-flit replay buffer"
run_famsim replay_default run "${SMALL[@]}" --out "$WORK/replay_default"
python3 - "$WORK/replay_run/stats.json" "$WORK/replay_default/stats.json" <<'PY' || fail "replay buffer resource: see above"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["bottlenecks"]
got = d["summary"]["read_bandwidth_gbps"]
cap = 40 * 16 / 50.64 * 128 / 144
assert 0.97 * cap <= got <= cap * 1.001, f"{got} GB/s of reads, expected just under {cap:.3f}"
lim = b["limiter"]
assert lim["component"] == "gpu0_link0" and lim["resource"] == "response wire replay buffer", lim
assert lim["capacity"] == 40 and lim["utilization"] > 0.95, lim
default = json.load(open(sys.argv[2]))["bottlenecks"]
names = [r["resource"] for r in default["ranked"]]
assert not any("replay" in n for n in names), names
PY
pass "a replay buffer short of the ACK round trip is named as the link's cap and limiter"

# A VC whose credits hold one transfer and a remainder no transfer fits is full as a pool. 17
# request credits (nvlink4's 16 B flits: the least that holds a 256 B payload and its 16 B header)
# hold one 128 B write (144 B = 9 flits), so 8 credits are never used: the pool has 9 slots. Each
# write holds its 9 credits for the round trip R = 9 x 0.64 ns on the wire + 20 ns latency + 20 ns
# credit return (+ up to a 1 ns link clock edge): at most 128 B / 45.76 ns = 2.797 GB/s of writes.
run_famsim credit_pool run "${SMALL[@]}" --set workload.streams.0.read_fraction=0 \
  --set links.gpu_device.request_vc_credits=17 --out "$WORK/credit_pool"
expect_rc 0 "a run with 17 request credits"
python3 - "$WORK/credit_pool/stats.json" <<'PY' || fail "credit pool in whole transfers: see above"
import json, sys
d = json.load(open(sys.argv[1]))
got = d["summary"]["write_bandwidth_gbps"]
cap = 128 / (9 * 0.64 + 20 + 20)
assert 128 / (9 * 0.64 + 20 + 20 + 1) * 0.99 <= got <= cap * 1.001, f"{got} GB/s, expected about {cap:.3f}"
b = d["bottlenecks"]
lim = b["limiter"]
# The credits as a server (their round trip) limit, with the bound the round trip gives.
assert lim["component"] == "gpu0_link0" and lim["resource"] == "request VC credit round trip", lim
assert lim["capacity"] == 9 and lim["utilization"] > 0.95, lim
assert abs(b["analytic_bound_gbps"] - cap) <= 0.01 * cap, (b["analytic_bound_gbps"], cap)
pool = [r for r in b["ranked"] if r["component"] == "gpu0_link0" and r["resource"] == "request VC credits"]
assert pool and pool[0]["capacity"] == 9 and pool[0]["utilization"] > 0.95, pool
PY
pass "credits no transfer can use are not counted: a VC of one transfer's credits is the limiter"

# A GPU fabric port starts one request per GPU cycle: at 100 MHz, 128 B requests go out at most
# 128 B x 100 MHz = 12.8 GB/s per port, below nvlink4's 25 GB/s wire (22.2 GB/s of 128 B reads),
# so minimal's one link runs at that rate; validate and the bottleneck analysis say so, and at the
# preset's 1980 MHz (253 GB/s per port) there is no such resource.
run_famsim port_issue_validate validate --platform "$PLATFORM" --set gpus.clock_mhz=100
expect_rc 0 "validate with a 100 MHz GPU"
expect_in_output "fabric port issue short of the link: a port starts one request per GPU cycle, 128 B at 100 MHz = at most 12.80 GB/s per port, where its link carries 25.00" \
  "validate names the GPU port's issue rate"
run_famsim port_issue_run run "${SMALL[@]}" --set gpus.clock_mhz=100 --out "$WORK/port_issue"
expect_rc 0 "a run with a 100 MHz GPU"
python3 - "$WORK/port_issue/stats.json" "$WORK/replay_default/stats.json" <<'PY' || fail "GPU port issue resource: see above"
import json, sys
d = json.load(open(sys.argv[1]))
got = d["summary"]["read_bandwidth_gbps"]
assert 0.97 * 12.8 <= got <= 12.8 * 1.001, f"{got} GB/s of reads, expected just under 12.8"
lim = d["bottlenecks"]["limiter"]
assert lim["component"] == "gpu0" and lim["resource"] == "fabric port 0 issue", lim
assert abs(lim["capacity"] - 12.8) < 1e-9 and lim["utilization"] > 0.95, lim
default = json.load(open(sys.argv[2]))["bottlenecks"]
assert not any("issue" in r["resource"] for r in default["ranked"]), default["ranked"]
PY
pass "a GPU port's one request per cycle is named as the limiter when it is below the link"

# --- "This memory, were it ideal": model ideal over the minimal platform's DDR5-4800B preset. A
# lone 128 B read is served in tRCD + CL + its two 64 B bursts: 40 + 40 + 2 x 8 clocks of 416 ps
# (tRCD 16.666 ns -> 40 clocks by JESD79-5 rounding; a 32-bit bus at 2 transfers per clock moves
# 8 B a clock) = 39.936 ns, the DRAM model's closed-bank read; the run's assumptions say so.
run_famsim ideal_over_dram run --platform "$PLATFORM" --set workload.streams.0.total_bytes=128 \
  --set devices.0.memory.model=ideal --out "$WORK/ideal_over_dram"
expect_rc 0 "a run with devices.0.memory.model=ideal over a DRAM preset"
grep -q "^  devices.0.memory: an ideal memory over ddr5_4800_x4" <<<"$OUT" ||
  fail "the summary of a run with an ideal memory does not say so:
$OUT"
python3 - "$WORK/ideal_over_dram/stats.json" <<'PY' || fail "ideal memory over a DRAM preset: see above"
import json, sys
d = json.load(open(sys.argv[1]))
hops = {h["hop"]: h for h in d["latency_breakdown_ns"]["read"]["hops"]}
got = hops["memory_service"]["mean"]
assert abs(got - (40 + 40 + 2 * 8) * 0.416) < 1e-9, f"memory_service {got} ns, expected 39.936"
notes = [v for m in d["assumptions"] if m["memory"] == "devices.0.memory" for v in m["values"]]
model = [v for v in notes if v["key"] == "model"]
assert model and model[0]["value"] == "ideal" and "tRCD + CL = 40 + 40" in model[0]["why"], notes
assert d["conservation"]["ok"] is True
PY
pass "model ideal over a DRAM preset serves a lone read in tRCD + CL + its bursts and says so"

# --- A preset's values that no standard or datasheet gave are named in the summary: nvl8_fam's GPU
# memory takes hbm3_6400, which lists 17 under `assumptions:` (15 array timings from Ramulator's
# self-declared guesstimate, tCCD_L, refresh_postpone_max), and the platform notes one more, its
# choice of that preset; the summary counts the memory's assumptions in stats.json and names the
# first six.
run_famsim assumed run --platform platforms/nvl8_fam.yaml --set workload.streams.0.total_bytes=4KiB \
  --out "$WORK/assumed"
expect_rc 0 "a run on a platform with assumed preset values"
want=$(python3 - "$WORK/assumed/stats.json" platforms/presets/memory/hbm3_6400.yaml <<'PY'
import json, sys, yaml
a = yaml.safe_load(open(sys.argv[2]))["assumptions"]
preset = list(a["timing"]) + [k for k in a if k != "timing"]
assert len(preset) == 17, preset
m = [m for m in json.load(open(sys.argv[1]))["assumptions"] if m["memory"] == "gpus.local_memory"]
keys = [v["key"].split(".")[-1] for v in m[0]["values"]]
assert set(preset) <= set(keys) and len(keys) == 18, keys
print(f"  gpus.local_memory (hbm3_6400): 18 values assumed, not from a standard or datasheet "
      f"({', '.join(keys[:6])} and 12 more): stats.json assumptions")
PY
) || fail "the assumptions of nvl8_fam's GPU memory: see above"
grep -qxF "$want" <<<"$OUT" || fail "the summary does not name the preset's assumed values: want
$want
got:
$OUT"
pass "the summary names a preset's assumed values"

echo "cli.contract: all checks passed"
