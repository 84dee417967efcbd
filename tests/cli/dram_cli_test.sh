#!/usr/bin/env bash
# The standalone DRAM platforms from the outside: synthetic traces (scripts/make_trace.py) in every
# format famsim reads, replayed on every platforms/dram_*.yaml with --dram-log. Each run must exit
# 0 with stats.json reporting dram_timing_check.ok == true (the independent timing checker found no
# violation in the command log), conservation.ok == true and one completed request per trace line.
# Bad input exits 2 with a message naming the file (and line).
# Run from the repository root (ctest does): bash tests/cli/dram_cli_test.sh path/to/famsim
set -u

CLI_TEST_NAME=dram-cli
source "$(dirname "$0")/lib.sh"
[ -f scripts/make_trace.py ] || { echo "FAIL: run from the repository root" >&2; exit 2; }

# make_trace NAME FORMAT PATTERN [EXTRA...]: a 1000-request trace, reads:writes 8:2, over 512 MiB
# (the smallest channel, an HBM3 pseudo-channel, holds 512 MiB: no address is folded by the
# player's modulo-capacity rule), 64 B aligned. Prints the file name.
REQUESTS=1000
make_trace() {
  local name=$1 format=$2 pattern=$3
  shift 3
  python3 scripts/make_trace.py --format "$format" --pattern "$pattern" --requests "$REQUESTS" \
    --read-fraction 0.8 --address-bytes 512MiB --seed 5 -o "$WORK/$name" "$@" ||
    fail "make_trace.py $format $pattern"
  echo "$WORK/$name"
}

# check_stats WHAT STATS_JSON TRACE_FILE: the contract of a successful DRAM trace run.
check_stats() {
  python3 - "$2" "$3" <<'EOF' || fail "$1: see above"
import json, sys
stats_path, trace_path = sys.argv[1], sys.argv[2]
with open(trace_path) as f:
    lines = sum(1 for l in f if l.strip() and not l.lstrip().startswith("#"))
with open(stats_path) as f:
    s = json.load(f)
check = s.get("dram_timing_check")
if check is None:
    sys.exit("stats.json has no dram_timing_check (was --dram-log honoured?)")
if check.get("ok") is not True:
    sys.exit(f"dram_timing_check.ok is {check.get('ok')!r}: {json.dumps(check)[:2000]}")
if not check.get("logs") or any(l["commands"] == 0 for l in check["logs"].values()):
    sys.exit(f"dram_timing_check checked no commands: {json.dumps(check)[:2000]}")
if s["conservation"]["ok"] is not True:
    sys.exit(f"conservation.ok is {s['conservation']['ok']!r}")
done = s["sim"]["requests_completed"]
if done != lines:
    sys.exit(f"sim.requests_completed is {done}, the trace has {lines} request lines")
EOF
}

# --- Every platform x every trace format x random/sequential. ---------------------------------
for format in ramulator dramsim3 dramsys; do
  for pattern in random sequential; do
    make_trace "$format-$pattern.trace" "$format" "$pattern" >/dev/null
  done
done
for platform in ddr4 ddr5 lpddr5x hbm3; do
  for format in ramulator dramsim3 dramsys; do
    for pattern in random sequential; do
      trace="$WORK/$format-$pattern.trace"
      out="$WORK/out-$platform-$format-$pattern"
      run_famsim "$platform-$format-$pattern" run --platform "platforms/dram_$platform.yaml" \
        --trace "$trace" --trace-format "$format" --dram-log --out "$out"
      expect_rc 0 "dram_$platform, $format $pattern trace"
      check_stats "dram_$platform, $format $pattern trace" "$out/stats.json" "$trace"
    done
  done
  pass "dram_$platform.yaml: ramulator, dramsim3 and dramsys traces, random and sequential"
done

# --- One request in flight at a time. ------------------------------------------------------------
trace="$WORK/ramulator-random.trace"
run_famsim max1 run --platform platforms/dram_ddr4.yaml --trace "$trace" --trace-format ramulator \
  --max-outstanding 1 --dram-log --out "$WORK/out-max1"
expect_rc 0 "--max-outstanding 1"
check_stats "--max-outstanding 1" "$WORK/out-max1/stats.json" "$trace"
pass "--max-outstanding 1"

# --- A run cut off by sim.max_time_ns: whatever happened before the cut is what the whole run did
# then, so its DRAM command log is the whole run's up to the cut (the controller, which may run
# its commands late, catches up at the end). 3000.1 ns falls between clocks of 625 ps, mid-run.
run_famsim cut run --platform platforms/dram_ddr4.yaml --trace "$trace" --trace-format ramulator \
  --set sim.max_time_ns=3000.1 --dram-log --out "$WORK/out-cut"
expect_rc 0 "a run cut off by sim.max_time_ns"
python3 - "$WORK/out-ddr4-ramulator-random/dram" "$WORK/out-cut/dram" 3000100 <<'EOF' ||
import pathlib, sys
def commands(d):
    logs = list(pathlib.Path(d).glob("*"))
    if len(logs) != 1:
        sys.exit(f"{d}: expected one command log, found {len(logs)}")
    return [l for l in logs[0].read_text().splitlines() if l[:1].isdigit()]
whole, cut, end_ps = commands(sys.argv[1]), commands(sys.argv[2]), int(sys.argv[3])
before = [l for l in whole if int(l.split(",")[1]) < end_ps]
if not 0 < len(before) < len(whole):
    sys.exit(f"the cut at {end_ps} ps should fall mid-run: {len(before)} of {len(whole)} commands before it")
if cut != before:
    n = next((i for i, (a, b) in enumerate(zip(cut, before)) if a != b), min(len(cut), len(before)))
    sys.exit(f"the cut run logged {len(cut)} commands, the whole run {len(before)} before the cut; "
             f"first difference at command {n}")
EOF
  fail "the cut run's DRAM command log is not the whole run's up to the cut"
pass "a run cut off by sim.max_time_ns logs the DRAM commands the whole run issued before the cut"

# --- Open loop: dramsim3 timestamps (command-clock cycles, one request every 20) drive issue. ---
trace=$(make_trace open.trace dramsim3 random --cycles-per-request 20)
run_famsim open run --platform platforms/dram_ddr5.yaml --trace "$trace" --trace-format dramsim3 \
  --set trace_player.mode=open --dram-log --out "$WORK/out-open"
expect_rc 0 "dramsim3 trace with trace_player.mode=open"
check_stats "dramsim3 trace with trace_player.mode=open" "$WORK/out-open/stats.json" "$trace"
pass "--trace-format dramsim3 --set trace_player.mode=open"

# --- Bad input: exit 2 and a message naming the file and line. ----------------------------------
printf 'LD 0x40\nST 0x80\nLD 0xnothex\nLD 0xc0\n' >"$WORK/bad.trace"
run_famsim bad_line run --platform platforms/dram_ddr4.yaml --trace "$WORK/bad.trace" \
  --trace-format ramulator --out "$WORK/out-bad"
expect_rc 2 "a malformed trace line"
expect_in_output "$WORK/bad.trace:3" "a malformed trace line"
[ ! -f "$WORK/out-bad/stats.json" ] || fail "a malformed trace line: stats.json was written"
pass "a malformed trace line exits 2 naming FILE:LINE"

run_famsim no_trace run --platform platforms/dram_ddr4.yaml --out "$WORK/out-no-trace"
expect_rc 2 "a DRAM platform without --trace"
expect_in_output "--trace" "a DRAM platform without --trace"
[ ! -f "$WORK/out-no-trace/stats.json" ] || fail "a DRAM platform without --trace: stats.json was written"
pass "a DRAM platform without --trace exits 2"

# Writes a trace player hands straight to a controller that posts them are answered at once: the
# terminal says why their latency is 0, and leaves out their (empty) hop breakdown. Answered on
# completion, they have a latency and no such note.
printf 'LD 0x40\nST 0x80\nST 0x100000\nLD 0xc0\n' >"$WORK/posted.trace"
run_famsim posted run --platform platforms/dram_ddr4.yaml --trace "$WORK/posted.trace" \
  --trace-format ramulator --out "$WORK/out-posted"
expect_rc 0 "a trace with posted writes"
expect_in_output "latency mean 0.0" "posted writes' latency"
expect_in_output "(writes are posted: the memory controller answers a write when its write queue takes it" \
  "the posted-write note"
case "$OUT" in *"write latency by hop"*) fail "an all-zero write hop breakdown was printed" ;; esac
run_famsim completion run --platform platforms/dram_ddr4.yaml --trace "$WORK/posted.trace" \
  --trace-format ramulator --set memory.controller.write_response=on_completion \
  --out "$WORK/out-completion"
expect_rc 0 "a trace with writes answered on completion"
case "$OUT" in *"writes are posted"*) fail "the posted-write note with write_response on_completion" ;; esac
expect_in_output "write latency by hop" "the write hop breakdown on completion"
pass "posted writes' zero latency is explained"

# Writes answered only once written hold the player's window for a write-drain cycle (about a
# microsecond here): 32 slots x 64 B per microsecond is about 2 GB/s, far under the activate-rate
# bound of one DDR4 channel (about 12 GB/s of random 64 B accesses), so the window is the limiter.
make_trace window.trace ramulator random >/dev/null
run_famsim window run --platform platforms/dram_ddr4.yaml --trace "$WORK/window.trace" \
  --trace-format ramulator --set memory.controller.write_response=on_completion \
  --out "$WORK/out-window"
expect_rc 0 "a trace with writes answered on completion"
expect_in_output "bottleneck: trace_player outstanding window limits throughput" \
  "the trace player's window as the limiter"
pass "the trace player's window of requests in flight is a resource of the bottleneck analysis"

# Sequential reads with the bank group bits on top of the address (mapping BgRoRaBaCo) stay in one
# bank group: one 64 B burst per tCCD_L = 12 clocks of 416 ps (DDR5-4800, JESD79-5: max(8 nCK,
# 5 ns)) is 64 / 4.992 = 12.82 GB/s, two thirds of the data bus. That group's column rate is the
# limiter and sets the analytic bound; with the default mapping (bank group bits lowest) the data
# bus is.
python3 -c "
for i in range(4000): print(f'0x{i * 64:x} READ 0')" >"$WORK/seq64.trace"
for order in BgRoRaBaCo RoRaBaCoBg; do
  run_famsim "ccd-$order" run --platform platforms/dram_ddr5.yaml --trace "$WORK/seq64.trace" \
    --trace-format dramsim3 --set memory.mapping.order=$order --out "$WORK/out-ccd-$order"
  expect_rc 0 "sequential reads, mapping $order"
done
python3 - "$WORK/out-ccd-BgRoRaBaCo/stats.json" "$WORK/out-ccd-RoRaBaCoBg/stats.json" <<'EOF' ||
import json, sys
one, spread = (json.load(open(p))["bottlenecks"] for p in sys.argv[1:3])
assert one["limiter"]["resource"] == "column rate (busiest bank group, tCCD_L)", one["limiter"]
assert abs(one["analytic_bound_gbps"] - 64 / (12 * 0.416)) < 0.05, one["analytic_bound_gbps"]
assert spread["limiter"]["resource"] == "data bus", spread["limiter"]
EOF
  fail "the bank group's column rate: see above"
pass "one bank group's tCCD_L bounds a stream that stays in it"

# A request's service starts at its first DRAM command, not on arrival: two reads of bank 0, rows 0
# and 128 (0x1000000 on dram_ddr4.yaml's mapping), back to back. DDR4-3200 (platforms/presets/
# memory/ddr4_3200.yaml, tCK 625 ps): the first opens its row at once and is served for tRCD + CL
# + BL/2 = 22 + 22 + 4 = 48 cycles. The second waits in the queue until its PRE, which tRAS (32 ns:
# 52 cycles) holds after the first ACT, then is served for tRP + tRCD + CL + BL/2 = 70 cycles.
# (Before, its service began on arrival, and its wait for the row counted as service.)
printf 'LD 0x0\nLD 0x1000000\n' >"$WORK/conflict.trace"
run_famsim conflict run --platform platforms/dram_ddr4.yaml --trace "$WORK/conflict.trace" \
  --trace-format ramulator --txn-log --out "$WORK/conflict"
expect_rc 0 "row conflict run"
python3 - "$WORK/conflict" <<'EOF' || fail "service starts at the first command: see above"
import csv, json, sys
d = sys.argv[1]
tck = 625
a, b = list(csv.DictReader(open(d + "/transactions.csv")))
start = lambda r: int(r["service_start_ps"])
service = lambda r: int(r["complete_ps"]) - start(r)
assert service(a) == 48 * tck, a
assert start(b) - start(a) == 52 * tck, (a, b)
assert service(b) == 70 * tck, b
assert int(b["issue_ps"]) < start(a) + tck < start(b), b
# The breakdown's parts are the same cuts: means over the two reads.
hops = {h["hop"]: h for h in json.load(open(d + "/stats.json"))["latency_breakdown_ns"]["read"]["hops"]}
assert abs(hops["memory_service"]["mean"] - (48 + 70) * tck / 2 / 1000) < 1e-9, hops["memory_service"]
EOF
pass "a request's service starts at its first DRAM command"

# The command log's request column and the transaction log's memory_done_ps, worked out by hand:
# a write to bank 0, row 0, then a read of row 128 (0x1000000) of the same bank, one trace-player
# clock later. DDR4-3200 (ddr4_3200.yaml, tCK 625 ps: tRCD = tRP = CL = 22, CWL 16, BL/2 4,
# tWR 15 ns = 24, tRAS 32 ns = 52, tRC 45.75 ns = 74 clocks). The trace player numbers its
# requests from 0: the write is 0, the read 1. The write (posted: answered on arrival) finds the
# controller idle and writes-only, so at its first decision cycle c0 its ACT opens row 0; the read,
# arriving the next cycle, does not close that row before the write's burst has used it:
#   c0       ACT row 0    request 0
#   c0 + 22  WR  col 0    request 0   (tRCD); its data is in at c0 + 22 + 16 + 4 = c0 + 42
#   c0 + 66  PRE          request 1   (WR + CWL + BL/2 + tWR = 22 + 16 + 4 + 24; tRAS: 52)
#   c0 + 88  ACT row 128  request 1   (+ tRP; tRC from the first ACT: 74)
#   c0 + 110 RD  col 0    request 1   (+ tRCD); its data is out at c0 + 110 + 22 + 4 = c0 + 136
# so the write's line has service_start_ps c0 x 625 (its ACT, not its acceptance) and
# memory_done_ps (c0 + 42) x 625, after its complete_ps; the read's (c0 + 66) x 625 and
# (c0 + 136) x 625. c0 is the first command clock after the write's arrival at the controller,
# which is directly behind the player: issue_ps < c0 x 625 <= issue_ps + 625.
printf 'ST 0x0\nLD 0x1000000\n' >"$WORK/posted.trace"
run_famsim posted run --platform platforms/dram_ddr4.yaml --trace "$WORK/posted.trace" \
  --trace-format ramulator --txn-log --dram-log --out "$WORK/posted"
expect_rc 0 "posted write then read run"
python3 - "$WORK/posted" <<'EOF' || fail "request ids and memory_done_ps by hand: see above"
import csv, glob, sys
d = sys.argv[1]
tck = 625
w, r = list(csv.DictReader(open(d + "/transactions.csv")))
assert (w["id"], w["op"], r["id"], r["op"]) == ("0", "write", "1", "read"), (w, r)
(log,) = glob.glob(d + "/dram/*.csv")
cmds = [l.rstrip("\n").split(",") for l in open(log) if l[0].isdigit()]
c0 = int(cmds[0][0])
assert int(w["issue_ps"]) < c0 * tck <= int(w["issue_ps"]) + tck, (w, cmds[0])
want = [(0, "ACT", "0", "-", "0"), (22, "WR", "-", "0", "0"), (66, "PRE", "-", "-", "1"),
        (88, "ACT", "128", "-", "1"), (110, "RD", "-", "0", "1")]
got = [(int(c[0]) - c0, c[7], c[8], c[9], c[10]) for c in cmds]
assert got == want, got
for c in cmds:
    assert c[4:7] == ["0", "0", "0"], c  # rank 0, bank group 0, bank 0
assert int(w["service_start_ps"]) == c0 * tck, w
assert int(w["memory_done_ps"]) == (c0 + 42) * tck, w
assert int(w["memory_done_ps"]) > int(w["complete_ps"]), w
assert int(r["service_start_ps"]) == (c0 + 66) * tck, r
assert int(r["memory_done_ps"]) == (c0 + 136) * tck, r
EOF
pass "the command log names each command's request; a posted write's memory_done_ps is its WR's"

# The activate-rate verdict's mapping advice (an order with the column lowest keeps a request's
# bursts in one row) is for requests of several bursts: random 64 B requests on DDR5 (64 B bursts)
# are one burst each, where no order helps; 128 B ones are two, which RoRaBaCoBg (the bank group
# lowest) sends to different bank groups. Random reads over 8 GiB bind the activate rate either way.
python3 scripts/make_trace.py --format ramulator --pattern random --requests 20000 \
  --read-fraction 1.0 --address-bytes 8GiB --seed 1 -o "$WORK/act.trace" >/dev/null ||
  fail "make_trace.py act"
for bytes in 64 128; do
  run_famsim "act$bytes" run --platform platforms/dram_ddr5.yaml --trace "$WORK/act.trace" \
    --set trace_player.request_bytes=$bytes --out "$WORK/act$bytes"
  expect_rc 0 "random $bytes B reads on dram_ddr5"
done
python3 - "$WORK/act64/stats.json" "$WORK/act128/stats.json" <<'EOF' || fail "activate-rate mapping advice: see above"
import json, sys
for path, several in ((sys.argv[1], False), (sys.argv[2], True)):
    lim = json.load(open(path))["bottlenecks"]["limiter"]
    assert lim["resource"].startswith("activate rate (rank"), (path, lim["resource"])
    advice = lim["advice"]
    assert ("keeps a request's bursts in one row" in advice) == several, (path, advice)
EOF
pass "the mapping advice is given for requests of several bursts only"

# model: ideal is one key on a standalone platform too: its capacity is the DRAM organisation's,
# as with the DRAM model. A lone 128 B read on DDR5-4800B (tCK 416 ps, 8 B a clock on a 32-bit
# sub-channel): tRCD + CL = 40 + 40 clocks, then 128 / 8 = 16 clocks of data: 96 x 416 ps.
printf 'LD 0x0\n' >"$WORK/one.trace"
run_famsim ideal1 run --platform platforms/dram_ddr5.yaml --trace "$WORK/one.trace" \
  --set memory.model=ideal --set trace_player.request_bytes=128 --out "$WORK/ideal1"
expect_rc 0 "model: ideal alone on a standalone DRAM platform"
python3 - "$WORK/ideal1/stats.json" <<'EOF' || fail "a lone read on the ideal memory: see above"
import json, sys
lat = json.load(open(sys.argv[1]))["summary"]["latency_ns"]["max"]
assert abs(lat - 96 * 0.416) < 1e-6, lat
EOF
pass "model: ideal switches a standalone DRAM platform with one key"

# Sequential reads on one DDR4-3200 channel run at its refresh ceiling, 1 - tRFC / tREFI = 1 - 560 /
# 12480 = 95.5 % of the bus: the verdict says so, and does not ask the trace window for more slots
# (a review: 256 slots instead of 32 changed nothing).
python3 scripts/make_trace.py --format ramulator --pattern sequential --requests 200000 \
  --read-fraction 1.0 --address-bytes 1GiB --seed 1 -o "$WORK/seq.trace" >/dev/null ||
  fail "make_trace.py seq"
run_famsim seqref run --platform platforms/dram_ddr4.yaml --trace "$WORK/seq.trace" --out "$WORK/seqref"
expect_rc 0 "sequential reads on dram_ddr4"
expect_in_output "all-bank refresh leaves it 95.5% of the time" "the verdict gives the refresh ceiling"
python3 - "$WORK/seqref/stats.json" <<'EOF' || fail "the refresh ceiling: see above"
import json, sys
lim = json.load(open(sys.argv[1]))["bottlenecks"]["limiter"]
assert lim["resource"] == "data bus" and "starved_by" not in lim, lim
assert abs(lim["available"] - (1 - 560 / 12480)) < 1e-12, lim["available"]
EOF
pass "a DRAM bus at its refresh ceiling is not said to be starved"

# The same reads with the column lowest in the address (RoRaBgBaCo): the stream keeps to one bank
# group for a whole row before the next, so its column commands go one per tCCD_L (8 clocks of
# 0.625 ns: 200 M bursts/s), half the bus. Over the whole run every group was busy a quarter of
# the time (a review found the verdict blaming the trace window, 25 % "busy" tCCD_L); per span of
# 64 tCCD_L the busiest group is the one the stream is in: the limiter, at its ceiling.
run_famsim seqcol run --platform platforms/dram_ddr4.yaml --trace "$WORK/seq.trace" \
  --set memory.mapping.order=RoRaBgBaCo --out "$WORK/seqcol"
expect_rc 0 "sequential reads, column lowest, on dram_ddr4"
python3 - "$WORK/seqcol/stats.json" <<'EOF' || fail "the tCCD_L verdict: see above"
import json, sys
lim = json.load(open(sys.argv[1]))["bottlenecks"]["limiter"]
assert lim["resource"] == "column rate (busiest bank group, tCCD_L)", lim["resource"]
assert abs(lim["capacity"] - 1e3 / (8 * 0.625)) < 1e-9, lim["capacity"]
assert lim["utilization"] > 0.9 and "starved_by" not in lim, lim
EOF
pass "a stream kept to one bank group at a time is bound by tCCD_L, and said so"

echo "all DRAM CLI checks passed"
