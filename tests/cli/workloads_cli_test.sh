#!/usr/bin/env bash
# The shipped AI workloads: each validates at full size on nvl8_fam and runs end to end (shrunk
# with --set so the test stays fast, also under the sanitizers) with conservation intact. Their
# full-size host time is a benchmark figure, not a test: scripts/bench_workloads.sh.
CLI_TEST_NAME=workloads
source "$(dirname "$0")/lib.sh"

P=platforms/nvl8_fam.yaml
check() {  # check NAME KIND WORKLOAD [--set ...]
  local name=$1 kind=$2 wl=$3
  shift 3
  run_famsim "$name.validate" validate --platform "$P" --workload "$wl"
  expect_rc 0 "$name validates"
  expect_in_output "($kind on " "$name: validate shows the generator"
  run_famsim "$name" run --platform "$P" --workload "$wl" --out "$WORK/$name" "$@"
  expect_rc 0 "$name runs"
  expect_in_output "conservation: ok" "$name conserves requests"
  expect_in_output "($kind, all its GPUs)" "$name reports the generator's result"
  grep -q '"workload"' "$WORK/$name/stats.json" || fail "$name: stats.json has no workload key"
  pass "$name"
}

S=workload.streams.0
check kv_decode kv_decode traffic/kv_decode_llama70b.yaml \
  --set $S.kv_decode.layers=1 --set $S.kv_decode.steps=1 --set $S.kv_decode.batch=1
check prefill prefill traffic/prefill_prefix_reuse.yaml \
  --set $S.prefill.layers=1 --set $S.prefill.prompts=4 --set $S.prefill.input_tokens=256
check weight_stream weight_stream traffic/weight_stream.yaml \
  --set $S.weight_stream.layers=2 --set $S.weight_stream.model.hidden_size=256 \
  --set $S.weight_stream.model.intermediate_size=512
check moe moe_experts traffic/moe_deepseek_v3.yaml \
  --set $S.moe_experts.steps=1 --set $S.moe_experts.model.moe.expert_intermediate_size=16
check mooncake prefill traffic/mooncake_prefill.yaml \
  --set $S.prefill.layers=1 --set $S.prefill.trace.max_requests=4

# timeseries.csv: the windows' bandwidth times their length adds up to the bytes the run moved.
python3 - "$WORK/kv_decode" <<'PY' || fail "timeseries.csv does not add up to the run's bytes"
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/stats.json"))
rows = list(csv.DictReader(open(d + "/timeseries.csv")))
w = s["timeseries"]["window_ns"]
assert len(rows) == s["timeseries"]["windows"] > 1, (len(rows), s["timeseries"])
for key, total in (("read_gbps", s["summary"]["read_bytes"]), ("write_gbps", s["summary"]["write_bytes"])):
    got = sum(float(r[key]) * w for r in rows)  # GB/s x ns = bytes
    assert abs(got - total) <= 0.001 * len(rows) * w + 1e-9 * total, (key, got, total)
assert sum(int(r["requests"]) for r in rows) == s["sim"]["requests_completed"]
PY
pass "timeseries.csv adds up"

# timeline.json follows the Chrome trace event format and has, for each sampled request on
# minimal.yaml's path (GPU, link, device port logic, NoC, memory channel), one slice per hop and
# direction: 4 request-direction hops, the memory's queue and service, 4 response-direction hops;
# the hop slices tile the request's own slice.
run_famsim timeline run --platform platforms/minimal.yaml --out "$WORK/timeline" \
  --set workload.streams.0.total_bytes=1MiB --set sim.timeline.sample_every=100
expect_rc 0 "timeline run"
python3 - "$WORK/timeline" <<'PY' || fail "timeline.json is not a valid trace of hop slices"
import json, sys
from collections import defaultdict
d = sys.argv[1]
t = json.load(open(d + "/timeline.json"))
s = json.load(open(d + "/stats.json"))
ev = t["traceEvents"]
assert isinstance(ev, list) and ev
rows = defaultdict(list)
for e in ev:
    assert e["ph"] in ("X", "M"), e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    if e["ph"] == "X":
        assert isinstance(e["name"], str) and e["ts"] >= 0 and e["dur"] >= 0, e
        rows[(e["pid"], e["tid"])].append(e)
# 1 MiB in 128 B requests = 8192 requests, every 100th of the GPU's sequence (0, 100, ... 8100).
assert len(rows) == 82 == s["timeline"]["requests"], (len(rows), s["timeline"])
for key, evs in rows.items():
    whole = [e for e in evs if e["name"].endswith(" request") and "(" not in e["name"]]
    hops = sorted((e for e in evs if "(" in e["name"]), key=lambda e: e["ts"])
    assert len(whole) == 1 and len(hops) == 10, (key, [e["name"] for e in evs])
    kinds = [e["name"].rsplit("(", 1)[1] for e in hops]
    assert kinds == ["request)"] * 4 + ["queue)", "service)"] + ["response)"] * 4, kinds
    t0, end = whole[0]["ts"], whole[0]["ts"] + whole[0]["dur"]
    cur = t0
    for h in hops:  # contiguous, inside the request
        assert abs(h["ts"] - cur) < 1e-9, (key, h, cur)
        cur = h["ts"] + h["dur"]
    assert abs(cur - end) < 1e-9, (key, cur, end)
PY
pass "timeline.json"

# The plots of a run directory (README: scripts/plot_run.py RUN_DIR), each a PNG.
"$(dirname "$0")/../../scripts/plot_run.py" "$WORK/timeline" >"$WORK/plots.log" 2>&1 ||
  fail "plot_run.py failed: $(cat "$WORK/plots.log")"
for f in latency_cdf bandwidth_time latency_time utilization; do
  head -c 8 "$WORK/timeline/plots/$f.png" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" ||
    fail "plots/$f.png is not a PNG"
done
pass "plots"

# A trace that is not there is bad input naming the key.
run_famsim missing_trace run --platform "$P" --workload traffic/mooncake_prefill.yaml \
  --set $S.prefill.trace.file=no_such.jsonl
expect_rc 2 "missing trace"
expect_in_output "$S.prefill.trace.file" "missing trace names the key"
pass "missing trace"
