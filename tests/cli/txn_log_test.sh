#!/usr/bin/env bash
# The transaction log (`famsim run --txn-log`, models/core/transaction_log.h) from the outside:
#   - one line per completed request, in completion order, whose latencies add up to the run's
#     mean latency and whose bytes and operations to its read and write totals;
#   - the addresses: a sequential 1 MiB stream is every 128 B step of its buffer once, the VMM keeps
#     the offset within each 2 MiB page, and the channel and channel address follow from the
#     device's interleave worked out by hand (minimal.yaml: 2 channels, 256 B granules, modulo);
#   - two runs with the same seed write the same file;
#   - a run stopped by a fault (exit 2) leaves the directory as it was: an earlier run's files
#     (log, DRAM command logs, stats.json) byte for byte, nothing of its own (no .partial, no
#     staging directory); a completed run without --txn-log or --dram-log removes an older run's
#     logs, and the report and plots made from its stats.json.
set -euo pipefail
CLI_TEST_NAME=txn-log
source "$(dirname "$0")/lib.sh"
SUPPORT="$(cd "$(dirname "$0")/../support" && pwd)"  # data_pattern.py
PY=/usr/bin/python3

cat >"$WORK/seq.yaml" <<'YAML'
name: seq_rw
streams:
  - name: writer
    buffer: {bytes: 4MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 128
    total_bytes: 1MiB
    max_outstanding: 16
  - name: reader
    buffer: {bytes: 4MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 128
    total_bytes: 1MiB
    max_outstanding: 16
YAML

for n in 1 2; do
  run_famsim "run$n" run --platform platforms/minimal.yaml --workload "$WORK/seq.yaml" --txn-log \
    --out "$WORK/run$n" || true
  expect_rc 0 "run $n"
done
cmp -s "$WORK/run1/transactions.csv" "$WORK/run2/transactions.csv" ||
  fail "two runs with the same seed wrote different transaction logs"
pass "the same seed writes the same log"

"$PY" - "$WORK/run1" <<'PY' || fail "transaction log contents (above)"
import csv, json, sys
d = sys.argv[1]
stats = json.load(open(f"{d}/stats.json"))
rows = list(csv.DictReader(open(f"{d}/transactions.csv")))
header = open(f"{d}/transactions.csv").readline().strip()
assert header == ("id,initiator,stream,op,bytes,virtual_address,physical_address,target,"
                  "channel_address,issue_ps,service_start_ps,complete_ps,latency_ps,status,"
                  "memory_done_ps"), header
n = stats["sim"]["requests_completed"]
assert len(rows) == n == 2 * 8192, (len(rows), n)
assert stats["transaction_log"] == {"file": "transactions.csv", "transactions": n}
# Latencies: each the difference of its times; their mean the run's mean latency.
lat = [int(r["latency_ps"]) for r in rows]
for r in rows:
    assert int(r["latency_ps"]) == int(r["complete_ps"]) - int(r["issue_ps"]), r
    # A read is answered once its data has moved; a posted write is answered on acceptance, and
    # its service starts and ends at its DRAM commands, which may come after that.
    assert int(r["issue_ps"]) <= int(r["service_start_ps"]) < int(r["memory_done_ps"]), r
    if r["op"] == "read":
        assert int(r["memory_done_ps"]) <= int(r["complete_ps"]), r
    assert r["status"] == "ok" and r["initiator"] == "gpu0", r
mean_ns = sum(lat) / len(lat) / 1000
assert abs(mean_ns - stats["summary"]["latency_ns"]["mean"]) < 1e-6 * mean_ns, mean_ns
done = [int(r["complete_ps"]) for r in rows]
assert done == sorted(done), "not in completion order"
# Bytes and operations.
reads = [r for r in rows if r["op"] == "read"]
writes = [r for r in rows if r["op"] == "write"]
assert len(reads) + len(writes) == n
assert sum(int(r["bytes"]) for r in reads) == stats["summary"]["read_bytes"] == 1 << 20
assert sum(int(r["bytes"]) for r in writes) == stats["summary"]["write_bytes"] == 1 << 20
# Addresses. Each stream walks its buffer in 128 B steps: 8192 distinct steps from its base.
base = {l["target"]: int(l["base"], 16) for l in stats["address_layout"]}
dev_base = min(v for k, v in base.items() if k.startswith("fam0"))
for stream, part in (("0", writes), ("1", reads)):
    vas = sorted(int(r["virtual_address"], 16) for r in part if r["stream"] == stream)
    assert len(vas) == 8192, (stream, len(vas))
    assert vas == [vas[0] + 128 * k for k in range(8192)], f"stream {stream} is not sequential"
page = 2 << 20
for r in rows:
    va, pa = int(r["virtual_address"], 16), int(r["physical_address"], 16)
    assert va % page == pa % page, f"the VMM moved an address within its page: {r}"
    # minimal.yaml: 2 channels, 256 B granules, modulo: granule g of the device goes to channel
    # g mod 2, at channel address (g div 2) x 256 + the offset within the granule.
    off = pa - dev_base
    g = off // 256
    assert r["target"] == f"fam0.memory.ch{g % 2}", (r, g)
    assert int(r["channel_address"], 16) == (g // 2) * 256 + off % 256, r
print("ok")
PY
pass "one line per request: times, bytes, operations and addresses as worked out"

# --- The request column of the DRAM command log, memory_done_ps and data_hash. ----------------
# 8 KiB written in 128 B requests with data_seed 42, then read back (minimal.yaml: DDR5-4800 x4
# channels, platforms/presets/memory/ddr5_4800_x4.yaml: tCK 416 ps, CL 40, CWL 38, BL16 = 8 clocks
# of data; a 128 B request is 2 bursts of 64 B on a 32-bit sub-channel). Worked out independently
# of the model, for every request:
#   - its lines in the DRAM command log (request = its id) are the ones it was served by: the
#     first at its service_start_ps (a posted write's too), every RD/WR carries an id, refreshes
#     and PREA none; reads have 2 RD (RDA) and writes 2 WR (WRA) lines, in the channel target says;
#   - memory_done_ps = (last RD cycle + 40 + 8) x 416 for a read, (last WR cycle + 38 + 8) x 416
#     for a write (posted: after its answer, so possibly after complete_ps);
#   - data_hash = FNV-1a 64 of the bytes: the pattern the GPU writes, byte a of the buffer being
#     byte (a mod 8) of splitmix64_mix((a >> 3) ^ data_seed + 0x9e3779b97f4a7c15) (traffic/
#     pattern.h), written again in Python in tests/support/data_pattern.py; the reads return what
#     was written.
cat >"$WORK/wv.yaml" <<'YAML'
name: write_verify_small
streams:
  - name: write
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.0
    access_bytes: 128
    total_bytes: 8KiB
    data_seed: 42
  - name: read_back
    buffer: {from_stream: write}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 128
    total_bytes: 8KiB
    verify_reads: true
    data_seed: 42
    start_after: [write]
YAML
run_famsim hash run --platform platforms/minimal.yaml --workload "$WORK/wv.yaml" --txn-data \
  --dram-log --out "$WORK/hash" || true
expect_rc 0 "a run with --txn-data and --dram-log"
PYTHONPATH="$SUPPORT" "$PY" - "$WORK/hash" <<'PY' || fail "request ids, memory_done_ps and data_hash (above)"
import csv, glob, json, os, sys
d = sys.argv[1]
from data_pattern import fnv1a, pattern  # tests/support: the pattern and hash again
rows = list(csv.DictReader(open(f"{d}/transactions.csv")))
header = open(f"{d}/transactions.csv").readline().strip()
assert header.endswith(",status,memory_done_ps,data_hash"), header
assert len(rows) == 128, len(rows)
cmds = {}  # id -> [(cycle, command, log file)]
for f in glob.glob(f"{d}/dram/*.csv"):
    lines = [l.rstrip("\n") for l in open(f) if not l.startswith("#")]
    assert lines[0] == ("cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,"
                        "column,request"), lines[0]
    for l in lines[1:]:
        c = l.split(",")
        assert len(c) == 11, l
        if c[7].startswith("REF") or c[7] == "PREA":
            assert c[10] == "-", l
            continue
        assert c[10] != "-", f"a command for no request: {l}"
        assert int(c[1]) == int(c[0]) * 416, l
        cmds.setdefault(int(c[10]), []).append((int(c[0]), c[7], os.path.basename(f)))
assert set(cmds) == {int(r["id"]) for r in rows}, "the logs' request ids are not the requests'"
tck, cl, cwl, bl = 416, 40, 38, 8
posted_after_answer = 0
for r in rows:
    mine = sorted(cmds[int(r["id"])])
    assert all(f == r["target"].split(".", 1)[1] + ".csv" or f == r["target"] + ".csv"
               for _, _, f in mine), (r, mine)
    col = [c for c in mine if c[1] in ("RD", "RDA", "WR", "WRA")]
    kinds = {"read": ("RD", "RDA"), "write": ("WR", "WRA")}[r["op"]]
    assert len(col) == 2 and all(c[1] in kinds for c in col), (r, mine)
    assert int(r["service_start_ps"]) == mine[0][0] * tck, (r, mine)
    delay = cl if r["op"] == "read" else cwl
    assert int(r["memory_done_ps"]) == (col[-1][0] + delay + bl) * tck, (r, mine)
    if int(r["memory_done_ps"]) > int(r["complete_ps"]):
        assert r["op"] == "write", r
        posted_after_answer += 1
    va, n = int(r["virtual_address"], 16), int(r["bytes"])
    assert r["data_hash"] == format(fnv1a(pattern(va, n, 42)), "016x"), r
assert posted_after_answer > 0, "no posted write finished in the DRAM after its answer"
print("ok", posted_after_answer, "posted writes done after their answer")
PY
pass "command log lines carry the request id; memory_done_ps and data_hash as worked out"

# A trace player's writes carry the same pattern (data_seed 1) at their address, so the data the
# memory stores, a later read returns and data_hash hashes are the trace's alone. A Ramulator
# trace on dram_ddr4.yaml with its backing store on (it keeps no data by default), one request in
# flight (each read comes after the write before it): every line's data_hash is FNV-1a of
# pattern(address, bytes, 1), worked out as above; the address never written reads zeros.
printf 'ST 0x1000\nST 0x2040\nLD 0x1000\nLD 0x2040\nLD 0x80000\n' >"$WORK/wr.trace"
run_famsim trace_hash run --platform platforms/dram_ddr4.yaml --trace "$WORK/wr.trace" \
  --trace-format ramulator --max-outstanding 1 --txn-data --out "$WORK/trace_hash" \
  --set memory.controller.backing_store=true || true
expect_rc 0 "a trace run with --txn-data"
PYTHONPATH="$SUPPORT" "$PY" - "$WORK/trace_hash" <<'PY' || fail "a trace player's data_hash (above)"
import csv, sys
from data_pattern import fnv1a, pattern  # tests/support: the pattern and hash again
rows = sorted(csv.DictReader(open(sys.argv[1] + "/transactions.csv")), key=lambda r: int(r["id"]))
assert [r["op"] for r in rows] == ["write", "write", "read", "read", "read"], rows
for r in rows[:4]:
    va, n = int(r["physical_address"], 16), int(r["bytes"])
    assert r["data_hash"] == format(fnv1a(pattern(va, n, 1)), "016x"), r
# Never written: the backing store's zeros.
assert rows[4]["data_hash"] == format(fnv1a(bytes(int(rows[4]["bytes"]))), "016x"), rows[4]
PY
pass "a trace player's writes carry the pattern: data_hash as worked out"

# sim.transaction_log_data is a column of the transaction log: true without the log is bad input.
run_famsim nolog run --platform platforms/minimal.yaml --workload "$WORK/wv.yaml" \
  --set sim.transaction_log_data=true --out "$WORK/nolog" || true
expect_rc 2 "sim.transaction_log_data without sim.transaction_log"
expect_in_output "sim.transaction_log_data" "the key named"
expect_in_output "expected sim.transaction_log: true as well" "what was expected"
run_famsim badtype run --platform platforms/minimal.yaml --workload "$WORK/wv.yaml" --txn-log \
  --set sim.transaction_log_data=maybe --out "$WORK/nolog" || true
expect_rc 2 "sim.transaction_log_data that is not a boolean"
expect_in_output "sim.transaction_log_data" "the key named"
pass "sim.transaction_log_data is checked"

# A fault stops the run (exit 2) halfway through: the directory keeps the earlier run's files
# (here with DRAM command logs too) exactly, and nothing of the failed run.
run_famsim logged run --platform platforms/minimal.yaml --workload "$WORK/seq.yaml" --txn-log \
  --dram-log --out "$WORK/run1" || true
expect_rc 0 "a run with both logs"
cp -r "$WORK/run1" "$WORK/run1.before"
cat >"$WORK/fault.yaml" <<'YAML'
name: fault
streams:
  - name: reader
    buffer: {bytes: 4MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 1.0
    access_bytes: 128
    total_bytes: 4MiB
vmm_events:
  - {op: unmap, stream: reader, at_ns: 2000}
YAML
run_famsim fault run --platform platforms/minimal.yaml --workload "$WORK/fault.yaml" --txn-log \
  --dram-log --out "$WORK/run1" || true
expect_rc 2 "a run stopped by a fault"
expect_in_output "not mapped" "the fault message"
diff -r "$WORK/run1.before" "$WORK/run1" >"$WORK/fault.diff" 2>&1 ||
  fail "a failed run changed the directory:
$(head -20 "$WORK/fault.diff")"
pass "a failed run leaves the earlier run's files as they were, and nothing of its own"

# A completed run without --txn-log or --dram-log into a directory that holds an older run's logs
# removes them, and the report and plots made from the older stats.json.
mkdir -p "$WORK/run1/plots"
touch "$WORK/run1/report.md" "$WORK/run1/report.html" "$WORK/run1/plots/latency_cdf.png"
run_famsim plain run --platform platforms/minimal.yaml --workload "$WORK/seq.yaml" \
  --out "$WORK/run1" || true
expect_rc 0 "a run without --txn-log"
for f in transactions.csv dram report.md report.html plots .famsim-staging; do
  [ ! -e "$WORK/run1/$f" ] || fail "an older run's $f was left beside the new results"
done
[ -s "$WORK/run1/stats.json" ] && [ -s "$WORK/run1/config.yaml" ] || fail "the new run's files"
pass "a completed run removes an older run's logs, report and plots"
