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
                  "channel_address,issue_ps,service_start_ps,complete_ps,latency_ps,status"), header
n = stats["sim"]["requests_completed"]
assert len(rows) == n == 2 * 8192, (len(rows), n)
assert stats["transaction_log"] == {"file": "transactions.csv", "transactions": n}
# Latencies: each the difference of its times; their mean the run's mean latency.
lat = [int(r["latency_ps"]) for r in rows]
for r in rows:
    assert int(r["latency_ps"]) == int(r["complete_ps"]) - int(r["issue_ps"]), r
    assert int(r["issue_ps"]) <= int(r["service_start_ps"]) <= int(r["complete_ps"]), r
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
