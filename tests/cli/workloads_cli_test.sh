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
  expect_in_output "    model " "$name: validate gives the generator's summary a key a line"
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
expect_in_output "steps done 1," "kv_decode: the terminal counts the group's step once"
expect_in_output "(kv_decode, all its GPUs): whole-model estimate (assuming the model's other layers run like the simulated ones): step time " \
  "kv_decode: the terminal leads with the whole model's estimate"
expect_in_output "; simulated: steps done 1, step time " \
  "kv_decode: the terminal names the simulated layers' figures as such"
expect_in_output "; for the first 1 of the model's 80 layers" \
  "kv_decode: the terminal says which layers ran, in words"

# A run stopped before any decode step was done (duration 1 us: the first layer's fetch alone takes
# longer) gives no whole-model estimate of a step time of 0, but says why.
run_famsim kv_cut run --platform "$P" --workload traffic/kv_decode_llama70b.yaml \
  --set $S.kv_decode.layers=1 --set $S.kv_decode.steps=1 --set $S.duration_ns=1000 \
  --out "$WORK/kv_cut"
expect_rc 0 "kv_decode cut before its first step runs"
python3 - "$WORK/kv_cut/stats.json" <<'EOF' || fail "kv_decode cut before its first step: see above"
import json, sys
r = json.load(open(sys.argv[1]))["workload"]["streams"]["decode"]["result"]
assert r["steps_done"] == 0, r["steps_done"]
assert not any("whole_model" in k for k in r), sorted(r)
assert r["note"].startswith("no decode step was completed by every GPU before the run stopped"), r
EOF
pass "no whole-model estimate from a run that completed no step"

# A model file with keys beside it, which --set can vary (a sweep over a new model's format):
# Llama-3-8B's file with 4 KV heads instead of 8, 4 x 128 dims x K and V x 2 B = 2,048 B per token
# per layer; --set kv_heads=2: 1,024 B.
cp traffic/models/llama3_8b.yaml "$WORK/my_model.yaml"
cat >"$WORK/my_model_wl.yaml" <<'YAML'
name: my_model
streams:
  - name: decode
    kv_decode: {model: {file: my_model.yaml, kv_heads: 4}, batch: 1, context_tokens: 16,
                layers: 1, kv_location: device/fam0}
YAML
run_famsim model_file validate --platform platforms/minimal.yaml --workload "$WORK/my_model_wl.yaml"
expect_rc 0 "a model file with keys beside it validates"
expect_in_output "kv_bytes_per_token_per_gpu_per_layer  2048" "the key beside the model file replaces the file's"
run_famsim model_file_set validate --platform platforms/minimal.yaml \
  --workload "$WORK/my_model_wl.yaml" --set $S.kv_decode.model.kv_heads=2
expect_rc 0 "a model file's key set on the command line"
expect_in_output "kv_bytes_per_token_per_gpu_per_layer  1024" "--set replaces a model file's key"
pass "a model file with keys beside it"

# A whole-model estimate only for a deployment that fits. kv_decode_llama70b on a 4 GiB device, 1
# of its 80 layers, batch 8: a GPU's KV region is 8 sequences x 257 blocks of 16 tokens (contexts
# up to 4096 + 1 step) x 512 B a token (K and V of the GPU's one KV head of 128 dims, 2 B each) a
# layer, in 2 MiB pages: 9 pages for 1 layer, 643 for 80, so the 8 GPUs' need 8 x 634 pages more
# on fam0, which has 2048 - 8 x 9 pages free. The estimate is withheld and the note says why.
KV=$S.kv_decode
run_famsim kv_unfit run --platform "$P" --workload traffic/kv_decode_llama70b.yaml \
  --set devices.0.capacity_gib=4 --set $KV.layers=1 --set $KV.steps=1 --out "$WORK/kv_unfit"
expect_rc 0 "kv_decode whose whole model does not fit still runs"
python3 - "$WORK/kv_unfit/stats.json" <<'EOF' ||
import json, math, sys
page = 2 << 20
region = lambda layers: math.ceil(8 * 257 * 16 * 512 * layers / page)
more, free = 8 * (region(80) - region(1)) * page, 4 * 2**30 - 8 * region(1) * page
r = json.load(open(sys.argv[1]))["workload"]["streams"]["decode"]["result"]
assert not any("whole_model" in k for k in r), sorted(r)
want = f"would take {more} B ({more / 2**30:.2f} GiB) more on fam0 than with the simulated layers, and fam0 has {free} B"
assert want in r["note"], (want, r["note"])
EOF
  fail "kv_decode on a device too small for the whole model: see above"
expect_in_output "note: no whole-model estimate: with every layer of the model, the kv_cache region" \
  "kv_decode: the terminal says why no whole-model estimate is given"
run_famsim kv_unfit.validate validate --platform "$P" --workload traffic/kv_decode_llama70b.yaml \
  --set devices.0.capacity_gib=4
expect_rc 0 "validate of a kv_decode whose whole model does not fit"
expect_in_output "warning: decode (workload.streams.0): no whole-model estimate" \
  "validate warns that the whole model does not fit"
# Llama 3.1 405B's weights on one GPU: 126 layers of attention (2 x 16384^2 + 2 x 16384 x 1024),
# FFN (3 x 16384 x 53248) and 2 norms of 16384, an embedding and an LM head of 128256 x 16384 and
# a final norm: 405,853,388,800 parameters, 2 B each, against a GPU's 80 GiB of HBM.
run_famsim w405.validate validate --platform "$P" --workload traffic/kv_decode_llama70b.yaml \
  --set $KV.model.preset=llama3_1_405b --set $KV.tensor_parallel=1 --set $KV.batch=1
expect_rc 0 "validate of a model whose weights do not fit in HBM"
params=$(( 126 * (2 * 16384 * 16384 + 2 * 16384 * 1024 + 3 * 16384 * 53248 + 2 * 16384) \
  + 2 * 128256 * 16384 + 16384 ))
expect_in_output "model_parameters                      $params" "validate gives the model's parameters"
expect_in_output "warning: decode (workload.streams.0): the model's weights, $(( 2 * params )) B" \
  "validate warns that the weights do not fit in HBM"
expect_in_output "exceed its 85899345920 B (80.00 GiB)" "the HBM warning names the capacity"
pass "a whole-model estimate only for a deployment that fits"
# Four tensor-parallel groups of 2 GPUs decode side by side: the terminal gives what they decode
# together, 4 x the per-group estimate.
run_famsim kv_groups run --platform "$P" --workload traffic/kv_decode_llama70b.yaml \
  --set $KV.tensor_parallel=2 --set $KV.layers=2 --set $KV.steps=1 --set $KV.batch=1 \
  --set $KV.hbm_tokens=0 --out "$WORK/kv_groups"
expect_rc 0 "kv_decode in 4 groups of 2"
together=$(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['workload']['streams']['decode']['result']
assert r['tensor_parallel_groups'] == 4, r['tensor_parallel_groups']
print(f\"{r['tokens_per_second_per_group_whole_model_estimate']:.1f} (4 groups together {4 * r['tokens_per_second_per_group_whole_model_estimate']:.1f})\")
" "$WORK/kv_groups/stats.json") || fail "kv_decode in 4 groups: no result"
expect_in_output "tokens per second per group $together" "the terminal adds the groups' tokens per second"
# The whole-model estimate against the whole model run: weight_stream shrunk as below (Llama-3.2-1B
# at hidden 256, FFN 512: 16 identical layers, each read one layer ahead of its compute), 4 of its
# layers run, then all 16. The estimate (the first layer as it ran, the pipeline's fill, and the
# other 15 at the later 3 layers' pace) must come within 5 % of the full pass; scaling the 4-layer
# pass by 16 / 4, fill and all, came 16 % long (2026-12-07: 355.2 and 424.5 against 364.1 us).
for layers in 4 16; do
  run_famsim "ws_whole$layers" run --platform "$P" --workload traffic/weight_stream.yaml \
    --set $S.weight_stream.layers=$layers --set $S.weight_stream.model.hidden_size=256 \
    --set $S.weight_stream.model.intermediate_size=512 --out "$WORK/ws_whole$layers"
  expect_rc 0 "weight_stream of $layers layers"
done
python3 - "$WORK/ws_whole4/stats.json" "$WORK/ws_whole16/stats.json" <<'EOF' ||
import json, sys
part = json.load(open(sys.argv[1]))["workload"]["streams"]["weights"]["result"]
full = json.load(open(sys.argv[2]))["workload"]["streams"]["weights"]["result"]
est, truth = part["mean_pass_ns_whole_model_estimate"], full["mean_pass_ns"]
assert "mean_pass_ns_whole_model_estimate" not in full, "a full run needs no estimate"
assert abs(est / truth - 1) < 0.05, f"estimate {est} ns against the full pass {truth} ns"
EOF
  fail "weight_stream's whole-model estimate: see above"
pass "weight_stream's whole-model estimate comes within 5 % of the whole model's run"

# Prompts of 256 tokens, shared whole within their group (the file's 1024-token prefix is longer
# than they are, which is refused).
check prefill prefill traffic/prefill_prefix_reuse.yaml \
  --set $S.prefill.layers=1 --set $S.prefill.prompts=4 --set $S.prefill.input_tokens=256 \
  --set $S.prefill.shared_prefix_tokens=256
# A prompt's prefill time: from its arrival to its last simulated layer's compute end on its
# group's slowest GPU, and its service, from its arrival or the end of its GPU's previous prompt.
# With one GPU a group the former's mean is the per-GPU latency histograms' (prefill_latency_ns,
# kept apart) weighted by their counts; and the 4 prompts all arrive at 0, so on each GPU they
# run back to back: the first's two times are equal, and each later one's time from arrival is
# the one before it's plus its own service.
expect_in_output "prefill time per prompt " "prefill: the terminal gives the prefill time"
python3 - "$WORK/prefill/stats.json" <<'EOF' ||
import json, sys
s = json.load(open(sys.argv[1]))
st = s["workload"]["streams"]["prefill"]
r, gpus = st["result"], [g for g in st["gpus"].values() if g["prompt_latency_ns"]]
hist = [g["prefill_latency_ns"] for g in gpus]
mean = sum(h["mean"] * h["count"] for h in hist) / sum(h["count"] for h in hist)
assert abs(r["mean_prompt_latency_ns"] - mean) <= 1e-6 * mean, (r["mean_prompt_latency_ns"], mean)
assert r["max_prompt_latency_ns"] == max(max(g["prompt_latency_ns"]) for g in gpus), r
queued = False
for g in gpus:
    lat, svc = g["prompt_latency_ns"], g["prompt_service_ns"]
    assert lat[0] == svc[0], g
    for i in range(1, len(lat)):
        assert abs(lat[i] - (lat[i - 1] + svc[i])) < 1e-3, g
        queued = True
assert queued, "no GPU took two prompts: the back-to-back check checked nothing"
assert r["mean_prompt_service_ns"] < r["mean_prompt_latency_ns"], r
EOF
  fail "prefill times: see above"
pass "prefill gives each prompt's time, as the per-GPU histograms do"
check weight_stream weight_stream traffic/weight_stream.yaml \
  --set $S.weight_stream.layers=2 --set $S.weight_stream.model.hidden_size=256 \
  --set $S.weight_stream.model.intermediate_size=512
check moe moe_experts traffic/moe_deepseek_v3.yaml \
  --set $S.moe_experts.steps=1 --set $S.moe_experts.model.moe.expert_intermediate_size=16
expect_in_output "expert lookups 8, cache hit rate " "moe_experts: the terminal gives its result in words"
expect_in_output "; for 1 MoE layer" "moe_experts: the terminal says which layers ran"
check mooncake prefill traffic/mooncake_prefill.yaml \
  --set $S.prefill.layers=1 --set $S.prefill.trace.max_requests=4

# The stream results count the workload's units once per tensor-parallel group (the three runs
# above are each one group of 8 GPUs), not once per GPU, and kv_decode says which layers its
# figures cover. Expected values by hand from the workload files and the --set above.
python3 - "$WORK" <<'PY' || fail "stream results do not match the hand-worked values"
import json, sys
w = sys.argv[1]
def result(name, stream):
    return json.load(open(f"{w}/{name}/stats.json"))["workload"]["streams"][stream]["result"]
# kv_decode: 1 step of 1 of Llama-3-70B's 80 layers, batch 1 (before: steps_done 8).
r = result("kv_decode", "decode")
assert r["steps_done"] == 1 and r["tensor_parallel_groups"] == 1, r
assert r["layers_simulated"] == 1 and r["model_layers"] == 80, r
step = r["mean_step_ns"]
assert abs(r["tokens_per_second_per_group"] - 1 / (step * 1e-9)) < 1e-6 * r["tokens_per_second_per_group"], r
# The estimate adds the LM head once: 128,256 / 8 vocabulary rows x 8192 BF16 weights =
# 262,668,288 B per GPU at nvl8_fam's 4096 GB/s of HBM, 64,128 ns.
lm_head = 128256 / 8 * 8192 * 2 / 4096
assert r["lm_head_ns_per_step"] == lm_head, r
assert abs(r["mean_step_ns_whole_model_estimate"] - (80 * step + lm_head)) < 1e-6 * step, r
assert abs(r["tokens_per_second_per_group_whole_model_estimate"] - 1 / ((80 * step + lm_head) * 1e-9)) < 1e-3, r
# weight_stream: 1 pass of 2 layers of Llama-3.2-1B shrunk to hidden 256, FFN 512 (32 heads and 8
# KV heads of 64): q 256x2048 + k 256x512 + v 256x512 + o 2048x256 + FFN 3x256x512 + 2x256 norms
# = 1,704,448 weights; 2 x 1,704,448 x 32768 / 8 FLOPs per GPU and layer at 700 TFLOP/s, rounded to
# the ps (before: passes_done 8 and compute_ns_per_pass 8 x one GPU's).
r = result("weight_stream", "weights")
layer_ps = round(2 * 1704448 * 32768 / 8 / 700e12 * 1e12)
assert r["passes_done"] == 1, r
assert abs(r["compute_ns_per_pass"] - 2 * layer_ps / 1000) < 1e-6, (r, layer_ps)
assert r["mean_pass_ns"] >= r["compute_ns_per_pass"], r
assert abs(r["exposed_transfer_ns_per_pass"] - (r["mean_pass_ns"] - r["compute_ns_per_pass"])) < 1e-6, r
assert abs(r["exposed_transfer_ns"] - r["exposed_transfer_ns_per_pass"]) < 1e-6, r  # one pass
# moe: 1 step, 1 token routed to 8 distinct experts of 1 MoE layer: 8 lookups (before: 64).
r = result("moe", "experts")
assert r["steps_done"] == 1 and r["expert_lookups"] == 8, r
assert r["cache_hits"] + r["cache_misses"] == 8 and r["evictions"] == r["cache_misses"], r
# The step: one group, batch 1, so tokens per second is 1 / step time; the part compute did not
# hide is the step beyond compute (ai_generators_test works the step out by hand).
assert r["mean_step_ns"] >= r["compute_ns_per_step"] > 0, r
assert abs(r["exposed_fetch_ns_per_step"] - (r["mean_step_ns"] - r["compute_ns_per_step"])) < 1e-6, r
assert abs(r["tokens_per_second_per_group"] - 1 / (r["mean_step_ns"] * 1e-9)) < 1e-6 * r["tokens_per_second_per_group"], r
assert r["moe_layers_simulated"] == 1 and "not its 3 dense layers" in r["note"], r
PY
pass "stream results count each group's unit once"

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
# Each target's column adds up to that target's bytes in the summary (the GPUs' own counts), and
# kv_decode's KV cache on the device and its weights in local HBM both carried some.
for t, b in s["summary"]["by_target"].items():
    total = b["read_bytes"] + b["write_bytes"]
    got = sum(float(r[t + "_gbps"]) * w for r in rows)
    assert abs(got - total) <= 0.001 * len(rows) * w + 1e-9 * total, (t, got, total)
assert s["summary"]["by_target"]["device"]["read_bytes"] > 0
assert s["summary"]["by_target"]["local_hbm"]["read_bytes"] > 0
# The windows run to the run's end: the step ends with the last layer's all-reduces (the example's
# all_reduce: ring), whose last writes complete at its end, in the last window.
end = s["sim"]["simulated_time_ns"]
assert float(rows[-1]["window_start_ns"]) < end <= float(rows[-1]["window_end_ns"]), (rows[-1], end)
busy = [r for r in rows if int(r["requests"]) > 0]
assert busy[-1] is rows[-1], (busy[-1], end)
PY
pass "timeseries.csv adds up, by target too, and runs to the run's end"

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

# An all-reduce receive buffer that does not fit in a peer's HBM is bad input naming the key: GPU 1's
# 80 GiB (nvl8_fam) all taken by another stream's buffer, GPU 0's ring buffer there has no room.
cat > "$WORK/ar_full.yaml" <<'EOF'
name: ar_full
streams:
  - name: filler
    gpus: [1]
    buffer: {bytes: 80GiB, location: gpu_local}
    pattern: sequential
    total_bytes: 128
  - name: decode
    gpus: all
    kv_decode: {model: {preset: llama3_70b}, batch: 1, context_tokens: 16, tensor_parallel: 8,
                layers: 1, all_reduce: ring}
EOF
run_famsim ar_full run --platform "$P" --workload "$WORK/ar_full.yaml"
expect_rc 2 "all-reduce buffer that does not fit"
expect_in_output "workload.streams.1.kv_decode.all_reduce: GPU 0's all-reduce receive buffer" \
  "all-reduce buffer that does not fit names the key"
expect_in_output "in GPU 1's HBM does not fit" "all-reduce buffer that does not fit names the peer"
# The same for the expert-parallel all-to-all's buffer: its own key.
cat > "$WORK/a2a_full.yaml" <<'EOF'
name: a2a_full
streams:
  - name: filler
    gpus: [1]
    buffer: {bytes: 80GiB, location: gpu_local}
    pattern: sequential
    total_bytes: 128
  - name: experts
    gpus: all
    moe_experts: {model: {preset: gpt_oss_120b}, location: device/fam0, batch: 4,
                  expert_parallel: 8, layers: 1, all_to_all: direct}
EOF
run_famsim a2a_full run --platform "$P" --workload "$WORK/a2a_full.yaml"
expect_rc 2 "all-to-all buffer that does not fit"
expect_in_output "workload.streams.1.moe_experts.all_to_all: GPU 0's all-to-all receive buffer" \
  "all-to-all buffer that does not fit names its key"
pass "an all-reduce buffer that does not fit"

# prefill all-reduces each prompt's new tokens: tensor_parallel 2, ring (2 rounds of half the
# message each: a GPU writes the whole message), 2 all-reduces a layer x 2 layers, Llama-3-8B's
# hidden 4096 x 2 B a token. Every GPU of a prompt's group writes, so in all 2 GPUs x 4 x (input
# tokens - reused tokens) x 8192 B (no prompt is wholly reused: each has tokens past the shared
# 1024-token prefix); and each prompt's time holds its all-reduces.
run_famsim pf_ar run --platform "$P" --workload traffic/prefill_prefix_reuse.yaml \
  --out "$WORK/pf_ar" --set $S.prefill.tensor_parallel=2 --set $S.prefill.all_reduce=ring \
  --set $S.prefill.prompts=4 --set $S.prefill.prefix_groups=2
expect_rc 0 "prefill with all_reduce"
python3 - "$WORK/pf_ar" <<'PY' || fail "prefill's all-reduce bytes are not the prompts' new tokens'"
import json, sys
r = json.load(open(sys.argv[1] + "/stats.json"))["workload"]["streams"]["prefill"]["result"]
new = r["input_tokens"] - r["reused_tokens"]
assert r["all_reduce_bytes_written"] == 2 * 4 * new * 8192, (r["all_reduce_bytes_written"], new)
assert r["reused_tokens"] > 0 and 0 < r["mean_all_reduce_ns_per_prompt"] < r["mean_prompt_service_ns"], r
PY
pass "prefill all-reduces each prompt's new tokens"

# famsim run --progress on generators: the share done is the phases whose compute has ended over
# the phases the configuration fixes. weight_stream shrunk as above, 3 passes of 2 layers on each
# of the 8 GPUs: 8 x 3 x 2 = 48 phases.
WS=(--platform "$P" --workload traffic/weight_stream.yaml --set $S.weight_stream.layers=2
  --set $S.weight_stream.model.hidden_size=256 --set $S.weight_stream.model.intermediate_size=512)
check_phase_lines() {  # check_phase_lines ERR_FILE PHASES: every line's count and share
  python3 - "$1" "$2" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("famsim: progress")]
total = int(sys.argv[2])
pat = re.compile(r"famsim: progress: ([0-9.]+) us simulated, .* about ([0-9.]+) % done "
                 r"\(([0-9]+) of ([0-9]+) phases\)")
if len(lines) < 3:
    sys.exit(f"{len(lines)} progress lines, expected one per us")
last = 0
for line in lines:
    m = pat.match(line)
    if not m:
        sys.exit(f"no phase count in {line!r}")
    done, of = int(m.group(3)), int(m.group(4))
    if of != total or done < last or done > total:
        sys.exit(f"{line!r}: expected a count growing to at most {total} phases, from {last}")
    if abs(float(m.group(2)) - 100 * done / total) > 0.051:
        sys.exit(f"{line!r}: expected {100 * done / total:.2f} % done")
    last = done
print(last)
PY
}
"$FAMSIM" run "${WS[@]}" --set $S.weight_stream.steps=3 --progress 1e-9 --out "$WORK/ws_progress" >/dev/null \
  2>"$WORK/ws_progress.err" || fail "weight_stream --progress: $(cat "$WORK/ws_progress.err")"
check_phase_lines "$WORK/ws_progress.err" 48 >/dev/null || fail "weight_stream progress lines"
pass "--progress on a generator counts its phases"

# 100 s of compute per layer, 2 passes of 2 layers: the last compute ends at 400 s at least, past
# 2^48 ps (281 s). The lines say so once a phase has ended; the run then stops with exit 2.
"$FAMSIM" run "${WS[@]}" --set $S.weight_stream.steps=2 --set "$S.weight_stream.compute={layer_ns: 1e11}" \
  --progress 1e-9 --out "$WORK/ws_long" >/dev/null 2>"$WORK/ws_long.err"
rc=$?
[ "$rc" = 2 ] || fail "weight_stream with 400 s of compute: exit $rc, expected 2"
check_phase_lines "$WORK/ws_long.err" 32 >/dev/null || fail "weight_stream (400 s) progress lines"
python3 - "$WORK/ws_long.err" <<'PY' || fail "no 'cannot finish' projection in the progress lines"
import re, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("famsim: progress")]
warned = 0
for line in lines:
    m = re.match(r"famsim: progress: ([0-9.]+) us simulated, .*\(([0-9]+) of 32 phases\)", line)
    us, done = float(m.group(1)), int(m.group(2))
    end_s = us * 1e-6 * 32 / done if done else 0
    w = re.search(r"; at this rate it ends near ([0-9]+) s simulated, past 2\^48 ps \(281 s\), "
                  r"the longest famsim represents: it cannot finish, shorten the workload$", line)
    if done and end_s > 281.5 and not w:
        sys.exit(f"{line!r}: ends near {end_s:.0f} s at this rate, and does not say so")
    if w and (end_s < 281 or abs(float(w.group(1)) - end_s) > 1):
        sys.exit(f"{line!r}: expected an end near {end_s:.1f} s")
    warned += bool(w)
if not warned:
    sys.exit("no line projects the end")
PY
pass "--progress says when a generator's run cannot end within 2^48 ps"

# A trace's prompts are not known up front: no share.
"$FAMSIM" run --platform "$P" --workload traffic/mooncake_prefill.yaml --set $S.prefill.layers=1 \
  --set $S.prefill.trace.max_requests=4 --progress 1e-9 --out "$WORK/mc_progress" >/dev/null \
  2>"$WORK/mc_progress.err" || fail "mooncake --progress: $(cat "$WORK/mc_progress.err")"
grep -q "famsim: progress" "$WORK/mc_progress.err" || fail "mooncake --progress printed no line"
grep -q "% done" "$WORK/mc_progress.err" && fail "a trace-driven run gave a share done"
pass "--progress gives no share for a trace-driven generator"

# weight_stream (prefetch_layers 1, steps 1) with all_reduce: its one pass is the run's last, which
# ends early (no next fetch for its last all-reduces), so validate warns that there will be no
# whole-model estimate, and says nothing of it without all_reduce.
run_famsim ws_ar_validate validate --platform "$P" --workload traffic/weight_stream.yaml \
  --set $S.weight_stream.all_reduce=ring
expect_rc 0 "weight_stream with all_reduce validates"
expect_in_output "warning: weights (workload.streams.0): pass time is for the first 3 of Llama-3.2-1B's 16 layers only: with all_reduce and prefetch_layers 1" \
  "validate warns that one pass with all_reduce and prefetch gives no estimate"
run_famsim ws_validate validate --platform "$P" --workload traffic/weight_stream.yaml
expect_rc 0 "weight_stream validates"
grep -q "give steps: 2 or more" "$WORK/ws_validate.log" && fail "validate warned without all_reduce"
pass "no such warning without all_reduce"
