#!/usr/bin/env bash
# Bad input of every kind famsim reads gets exit code 2 and a message naming the file and the key
# or line, found before anything is written, and nothing a run carries into its outputs can turn a
# finished run into an internal error. Run from the repository root (ctest does):
#   bash tests/cli/input_errors_test.sh path/to/famsim
set -u

CLI_TEST_NAME=input-errors
source "$(dirname "$0")/lib.sh"
[ -f platforms/minimal.yaml ] || { echo "FAIL: run from the repository root" >&2; exit 2; }

# expect_bad NAME WHAT NEEDLE... -- FAMSIM_ARGS...: exit 2, one line "famsim: error: ..." naming
# every NEEDLE, and no stats.json.
expect_bad() {
  local name=$1 what=$2
  expect_exit2 "$@"
  case "$OUT" in
    "famsim: error: "*) ;;
    *) fail "$what: the message does not start with 'famsim: error: ': $OUT" ;;
  esac
  [ ! -e "$WORK/out-$name/stats.json" ] || fail "$what: the rejected run wrote stats.json"
  pass "$what"
}
out() { echo "--out $WORK/out-$1"; }

DRAM=(--platform platforms/dram_ddr4.yaml)

# --- Duplicate keys: yaml-cpp keeps both, lookups saw the first, config.yaml the last. ---------
cat >"$WORK/dup.yaml" <<'YAML'
name: duplicate_read_fraction
streams:
  - buffer: {bytes: 1MiB, location: device/fam0}
    pattern: sequential
    total_bytes: 64KiB
    read_fraction: 1.0
    read_fraction: 0.0
YAML
expect_bad dup_workload "a duplicate key in a workload stream" \
  "$WORK/dup.yaml:7: streams.0.read_fraction: duplicate key (first on line 6)" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/dup.yaml" $(out dup_workload)

{ cat platforms/minimal.yaml; printf 'gpus:\n  count: 2\n'; } >"$WORK/dup-platform.yaml"
line=$(grep -c '' platforms/minimal.yaml)
expect_bad dup_platform "a duplicate top-level key in a platform file" \
  "$WORK/dup-platform.yaml:$((line + 1)): gpus: duplicate key (first on line 5)" -- \
  validate --platform "$WORK/dup-platform.yaml"

# minimal.yaml's port_logic is a flow map on one line: the same key twice in it.
line=$(grep -n 'port_logic: {' platforms/minimal.yaml | cut -d: -f1)
sed 's/tags_per_port: 64}/tags_per_port: 64, ingress_cycles: 9}/' platforms/minimal.yaml \
  >"$WORK/dup-flow.yaml"
expect_bad dup_flow "a duplicate key in a flow map inside a list entry" \
  "$WORK/dup-flow.yaml:$line: devices.0.port_logic.ingress_cycles: duplicate key (first on line $line)" -- \
  validate --platform "$WORK/dup-flow.yaml"

# --- Invalid UTF-8: nlohmann::json refuses it when stats.json is written, after the run. ----------
expect_bad utf8_set "invalid UTF-8 in a --set value" "--set" "description" "UTF-8" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set $'description=caf\xe9' $(out utf8_set)

{ printf 'name: minimal\ndescription: "caf\xff"\n'; sed -n '/^gpus:/,$p' platforms/minimal.yaml; } \
  >"$WORK/utf8.yaml"
expect_bad utf8_yaml "an invalid UTF-8 byte in a platform file" \
  "$WORK/utf8.yaml:2: description:" "UTF-8" -- \
  run --platform "$WORK/utf8.yaml" --set workload.streams.0.total_bytes=64KiB $(out utf8_yaml)

# A trace file name is no configuration value to reject: it reaches stats.json, which must still
# be written (the odd bytes replaced), exit 0.
printf 'LD 0x40\nST 0x80\n' >"$WORK/t"$'\xff'".ram"
run_famsim utf8_path run "${DRAM[@]}" --trace "$WORK/t"$'\xff'".ram" --trace-format ramulator \
  --out "$WORK/out-utf8_path"
expect_rc 0 "a trace whose file name is not UTF-8"
python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' \
  "$WORK/out-utf8_path/stats.json" || fail "stats.json of a run with a non-UTF-8 trace name"
pass "a file name that is not UTF-8 still gives a valid stats.json"

# --- YAML aliases. yaml-cpp shares an aliased node rather than copying it: an alias inside the node
# it names was a cycle that every recursive walk followed until the stack overflowed (exit 139),
# and ten lines of nested aliases a tree of 10^9 nodes that validate walked for minutes. Each case
# runs under a timeout, so that a regression fails here instead of hanging the suite. -----------
printf 'a: &a [*a]\n' >"$WORK/cycle.yaml"
CLI_TIMEOUT_S=60 expect_bad alias_cycle_file "an alias inside the list it names, in a platform file" \
  "$WORK/cycle.yaml:1: a.0: an alias to a, which contains it; expected an alias that does not refer to a node containing it" -- \
  validate --platform "$WORK/cycle.yaml"

printf 'name: cycle\nstreams: &s [*s]\n' >"$WORK/cycle-workload.yaml"
CLI_TIMEOUT_S=60 expect_bad alias_cycle_workload "an alias inside the list it names, in a workload file" \
  "$WORK/cycle-workload.yaml:2: streams.0: an alias to streams, which contains it" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/cycle-workload.yaml" $(out alias_cycle_workload)

CLI_TIMEOUT_S=60 expect_bad alias_cycle_set_list "an alias inside the list it names, in a --set value" \
  "--set gpus.foo=&a [*a]: gpus.foo.0: an alias to gpus.foo, which contains it; expected an alias that does not refer to a node containing it" -- \
  validate --platform platforms/minimal.yaml --set 'gpus.foo=&a [*a]'

CLI_TIMEOUT_S=60 expect_bad alias_cycle_set_map "an alias inside the map it names, in a --set value" \
  "--set gpus.foo=&a {b: *a}: gpus.foo.b: an alias to gpus.foo, which contains it" -- \
  validate --platform platforms/minimal.yaml --set 'gpus.foo=&a {b: *a}'

printf '0,ACT,0,0,0,0\n' >"$WORK/cycle.log"
CLI_TIMEOUT_S=60 expect_bad alias_cycle_dram_log "an alias inside the list it names, in check-dram-log's --set" \
  "--set organization={a: &a [*a]}: organization.a.0: an alias to organization.a, which contains it" -- \
  check-dram-log --preset ddr5_4800_x4 --set 'organization={a: &a [*a]}' "$WORK/cycle.log"

python3 - "$WORK/laughs.yaml" <<'PY'
import sys
lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]']
lines += [f'l{i}: &l{i} [' + ', '.join([f'*l{i - 1}'] * 10) + ']' for i in range(1, 10)]
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
CLI_TIMEOUT_S=60 expect_bad alias_laughs "ten lines of nested aliases (10^9 nodes)" \
  "$WORK/laughs.yaml:" "more than 1000000 nodes once aliases are expanded; expected a document of at most 1000000 nodes" -- \
  validate --platform "$WORK/laughs.yaml"

# yaml-cpp reads a merge key as a key named '<<', so gpus.count was reported missing.
{ printf 'gpu_base: &gpu {count: 1}\n'; sed 's/^  count: 1$/  <<: *gpu/' platforms/minimal.yaml; } \
  >"$WORK/merge.yaml"
line=$(grep -n '<<: \*gpu' "$WORK/merge.yaml" | cut -d: -f1)
CLI_TIMEOUT_S=60 expect_bad merge_key "a merge key" \
  "$WORK/merge.yaml:$line: gpus.<<: a merge key, which famsim does not support" -- \
  validate --platform "$WORK/merge.yaml"

# An alias to a node elsewhere is plain YAML: the platform reads as if the node were written out.
run_famsim alias_ok_base validate --platform platforms/minimal.yaml
expect_rc 0 "minimal.yaml validates"
base_out=$OUT
sed 's/ingress_cycles: 8, egress_cycles: 8,/ingress_cycles: \&cycles 8, egress_cycles: *cycles,/' \
  platforms/minimal.yaml >"$WORK/alias-ok.yaml"
grep -q '&cycles 8' "$WORK/alias-ok.yaml" || fail "alias-ok.yaml: the sed found nothing to change"
CLI_TIMEOUT_S=60 run_famsim alias_ok validate --platform "$WORK/alias-ok.yaml"
expect_rc 0 "a platform with an alias to a value elsewhere"
[ "$OUT" = "$base_out" ] || fail "the aliased platform validates differently:
$OUT
--- minimal.yaml:
$base_out"
pass "a platform with an alias to a value elsewhere reads as the value written out"

# --- A memory served by a foreign TLM-2.0 target: validate checks and prints it; the command
# cannot run it (nothing binds the targets: that is the user's sc_main's job). ---------------------
cat >"$WORK/external.yaml" <<'YAML'
name: external_memory
gpus: {count: 1, clock_mhz: 1000, request_bytes: 128, max_outstanding: 16}
links:
  gpu_device: {preset: nvlink4, per_gpu: 1}
devices:
  - name: fam0
    capacity_gib: 8
    fabric_ports: 1
    port_logic: {clock_mhz: 500, ingress_cycles: 3, egress_cycles: 2, tags_per_port: 8}
    noc: {kind: crossbar, clock_mhz: 1000, pipeline_cycles: 4, width_bytes: 32, input_buffer: 4,
          output_buffer: 4}
    memory:
      model: external
      standard: DRAMSys DDR5-4800
      channel_peak_gbps: 38.4
      channels: 2
YAML
run_famsim external_validate validate --platform "$WORK/external.yaml"
expect_rc 0 "a platform whose device memory is external validates"
expect_in_output "memory: 2 DRAMSys DDR5-4800 channels x 38.40 GB/s = 76.80 GB/s peak" \
  "validate names the foreign memory with its stated peak"
expect_in_output "external: a foreign TLM-2.0 target per channel, bound by your own sc_main" \
  "validate says who binds it"
expect_bad external_run "famsim run on an external memory" \
  "$WORK/external.yaml:13: devices.0.memory.model: external is a foreign TLM-2.0 target" \
  "fam0.memory.ch0 has none bound: the famsim command binds none" -- \
  run --platform "$WORK/external.yaml" $(out external_run)
grep -v channel_peak_gbps "$WORK/external.yaml" >"$WORK/external-no-peak.yaml"
expect_bad external_peak "an external memory without its peak bandwidth" \
  "$WORK/external-no-peak.yaml:13: devices.0.memory.channel_peak_gbps: missing" -- \
  validate --platform "$WORK/external-no-peak.yaml"

sed 's/channels: 2/channels: 2\n      address_offset: 12/' "$WORK/external.yaml" >"$WORK/external-offset.yaml"
expect_bad external_offset "an external memory's address_offset that would misalign an atomic" \
  "$WORK/external-offset.yaml:17: devices.0.memory.address_offset: expected a multiple of 8 B, got 12" -- \
  validate --platform "$WORK/external-offset.yaml"

# --- A trace access that runs past the end of the memory after the modulo. -----------------------
# dram_ddr4 has 8 GiB: 0x1ffffffc1 + 64 B ends 1 B past it; 0x7fff...ffff is 0x1ffffffff modulo it.
printf 'LD 0x40\nLD 0x1ffffffc1\n' >"$WORK/end.ram"
expect_bad trace_end "an unaligned trace access running past the end of memory" \
  "$WORK/end.ram:2" "8589934592" -- \
  run "${DRAM[@]}" --trace "$WORK/end.ram" --trace-format ramulator $(out trace_end)
printf 'LD 0x7fffffffffffffff\n' >"$WORK/end2.ram"
expect_bad trace_end2 "the largest trace address" "$WORK/end2.ram:1" -- \
  run "${DRAM[@]}" --trace "$WORK/end2.ram" --trace-format ramulator $(out trace_end2)
# The last whole request in memory is fine, and so is an address wrapped onto it.
printf 'LD 0x1ffffffc0\nLD 0x3ffffffc0\n' >"$WORK/last.ram"
run_famsim trace_last run "${DRAM[@]}" --trace "$WORK/last.ram" --trace-format ramulator \
  --out "$WORK/out-trace_last"
expect_rc 0 "the last 64 B of memory, directly and modulo the capacity"
pass "the last 64 B of memory replay, directly and modulo the capacity"

# --- Open-loop timestamps beyond the longest simulated time (2^48 ps). -------------------------
# 29514790517935283 cycles x 625 ps wraps past 2^64; 10^12 x 625 ps = 625 s is past 281 s.
printf '0x1000 READ 29514790517935283\n0x1000 READ 29514790517935283\n' >"$WORK/wrap.ds3"
expect_bad open_wrap "an open-loop timestamp whose time wraps 64 bits" \
  "$WORK/wrap.ds3:1" "281 s" -- \
  run "${DRAM[@]}" --trace "$WORK/wrap.ds3" --trace-format dramsim3 \
  --set trace_player.mode=open $(out open_wrap)
printf '0x1000 READ 10\n0x1040 READ 1000000000000\n' >"$WORK/late.ds3"
expect_bad open_late "an open-loop timestamp past 281 s" "$WORK/late.ds3:2" "281 s" -- \
  run "${DRAM[@]}" --trace "$WORK/late.ds3" --trace-format dramsim3 \
  --set trace_player.mode=open $(out open_late)
# 450359962737 x 625 ps = 281474976710625 ps is 30 ps below 2^48 - 1: the timestamp passes, but its
# request cannot complete before 2^48 ps, and a controller asks for the time past it. The error
# named the file only; now the line. In the .stl the blank lines after it must not be counted.
printf '0x1000 READ 10\n0x1040 READ 450359962737\n' >"$WORK/edge.ds3"
expect_bad open_edge "an open-loop timestamp too near 281 s for its request to complete" \
  "$WORK/edge.ds3:2: simulated time would pass 2^48 ps (281 s)" "at 281474976710625 ps" -- \
  run "${DRAM[@]}" --trace "$WORK/edge.ds3" --trace-format dramsim3 \
  --set trace_player.mode=open $(out open_edge)
printf '# absolute\n0: read 0x0\n450359962737: read 0x40\n\n\n' >"$WORK/edge.stl"
expect_bad open_edge_stl "a DRAMSys timestamp too near 281 s, blank lines after it" \
  "$WORK/edge.stl:3: simulated time would pass 2^48 ps (281 s)" "at 281474976710625 ps" -- \
  run "${DRAM[@]}" --trace "$WORK/edge.stl" --trace-format dramsys \
  --set trace_player.mode=open $(out open_edge_stl)
# .rstl delays count from the previous completion: 300000000000 x 625 ps = 187.5 s each, below
# 281 s, but line 4's request would start after two of them and two latencies of nanoseconds:
# 375 s. The error named the file only; now the line and the time reached.
printf '# delays\n0: read 0x0\n300000000000: read 0x40\n300000000000: read 0x80\n10: read 0xc0\n' \
  >"$WORK/sum.rstl"
expect_bad rstl_sum ".rstl delays that add up past 281 s" \
  "$WORK/sum.rstl:4: a delay of 300000000000 cycles of 625 ps" "(375 s), past 2^48 ps (281 s)" -- \
  run "${DRAM[@]}" --trace "$WORK/sum.rstl" --trace-format dramsys \
  --set trace_player.mode=open $(out rstl_sum)

# --- A replay trace line for a GPU the platform does not have. ----------------------------------
printf '0 0 R 0x0 64\n0 3 R 0x40 64\n' >"$WORK/gpu3.trace"
cat >"$WORK/replay.yaml" <<'YAML'
name: replay_gpu3
streams:
  - replay: {file: gpu3.trace, bytes: 1GiB, location: device/fam0}
YAML
expect_bad replay_gpu "a replay line for GPU 3 on a 1-GPU platform" \
  "$WORK/gpu3.trace:2" "GPU 3" "1 GPU" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/replay.yaml" $(out replay_gpu)

# --- Times past 2^48 ps (281 s) asked for by a workload: the error names the trace line or the key
# --- that asked, not only "simulated time would pass 2^48 ps". -----------------------------------
printf '0 0 R 0x0 64\n300000000000 0 R 0x40 64\n' >"$WORK/far.trace"
cat >"$WORK/replay_far.yaml" <<'YAML'
name: replay_far
streams:
  - replay: {file: far.trace, bytes: 1GiB, location: device/fam0}
YAML
expect_bad replay_far "a replay line past 281 s" \
  "$WORK/far.trace:2: time 300000000000 ns is past 2^48 ps (281 s)" "expected a time below" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/replay_far.yaml" $(out replay_far)
# 200 s in the trace, 400 s once scaled.
printf '0 0 R 0x0 64\n200000000000 0 R 0x40 64\n' >"$WORK/scaled.trace"
cat >"$WORK/replay_scaled.yaml" <<'YAML'
name: replay_scaled
streams:
  - replay: {file: scaled.trace, bytes: 1GiB, location: device/fam0, time_scale: 2}
YAML
expect_bad replay_scaled "a replay line past 281 s once scaled by time_scale" \
  "$WORK/scaled.trace:2: time 200000000000 ns x time_scale 2 = 400000000000 ns" "281 s" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/replay_scaled.yaml" $(out replay_scaled)
cat >"$WORK/far.jsonl" <<'JSONL'
{"timestamp": 0, "input_length": 16, "output_length": 1, "hash_ids": [1]}
{"timestamp": 300000, "input_length": 16, "output_length": 1, "hash_ids": [2]}
JSONL
cat >"$WORK/mooncake_far.yaml" <<'YAML'
name: mooncake_far
streams:
  - name: prefill
    prefill:
      model: {preset: llama3_2_1b}
      location: device/fam0
      layers: 1
      cache_tokens: 1024
      trace: {file: far.jsonl, block_tokens: 512}
YAML
expect_bad mooncake_far "a Mooncake timestamp past 281 s" \
  "$WORK/far.jsonl:2: timestamp 300000 ms is past 2^48 ps (281 s)" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/mooncake_far.yaml" $(out mooncake_far)

# --- Traces with nothing in them: an empty run would pass as a success (a DRAM trace is refused
# --- the same way). -----------------------------------------------------------------------------
printf '# comments only\n\n' >"$WORK/empty.trace"
sed 's/far.trace/empty.trace/; s/replay_far/replay_empty/' "$WORK/replay_far.yaml" \
  >"$WORK/replay_empty.yaml"
expect_bad replay_empty "a replay trace without one access" \
  "$WORK/replay_empty.yaml:3: workload.streams.0.replay.file" "empty.trace: no accesses in the trace" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/replay_empty.yaml" $(out replay_empty)
printf '\n  \n' >"$WORK/empty.jsonl"
sed 's/far.jsonl/empty.jsonl/; s/mooncake_far/mooncake_empty/' "$WORK/mooncake_far.yaml" \
  >"$WORK/mooncake_empty.yaml"
expect_bad mooncake_empty "a Mooncake trace without one request" \
  "$WORK/mooncake_empty.yaml:9: workload.streams.0.prefill.trace.file" \
  "empty.jsonl: no requests in the trace" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/mooncake_empty.yaml" $(out mooncake_empty)

# --- A misspelt map ('linkz:'): the key missing under 'links' names it. --------------------------
sed 's/^links:/linkz:/' platforms/minimal.yaml >"$WORK/linkz.yaml"
expect_bad linkz "a misspelt map name" \
  "links.gpu_device: missing" "(is 'linkz' on line $(grep -n '^links:' platforms/minimal.yaml | cut -d: -f1) a misspelling of 'links'?)" -- \
  validate --platform "$WORK/linkz.yaml"

# --- A rule across keys names the key a --set changed, not the preset's or platform's line of the
# --- other key. ---------------------------------------------------------------------------------
# DDR5-4800's tRC of 48.666 ns is 117 clocks of 416 ps (ceil(116.99)); a tRAS of 200 ns is above it.
expect_bad among_tras "tRAS above tRC by --set" \
  "--set devices.0.memory.timing.tRAS_ns=200: devices.0.memory.timing.tRAS_ns: tRC (117 clocks) must be at least tRAS" -- \
  validate --platform platforms/minimal.yaml --set devices.0.memory.timing.tRAS_ns=200
expect_bad among_flit "a flit header that leaves no message area, by --set" \
  "--set links.gpu_device.flit_header_bytes=16: links.gpu_device.flit_header_bytes: flit_header_bytes + flit_crc_bytes + flit_fec_bytes = 16" -- \
  validate --platform platforms/minimal.yaml --set links.gpu_device.flit_header_bytes=16
expect_bad among_ports "device ports fewer than the switch planes, by --set" \
  "--set devices.0.fabric_ports=3: devices.0.fabric_ports: impossible topology: device 0 has 3 fabric ports but there are 4 switch planes" -- \
  validate --platform platforms/nvl8_fam.yaml --set devices.0.fabric_ports=3
expect_bad among_gpus "two GPUs on a one-port device without a switch, by --set" \
  "--set gpus.count=2: gpus.count: impossible topology: 2 GPUs x 1 links = 2 GPU links" -- \
  validate --platform platforms/minimal.yaml --set gpus.count=2
# Without a --set the rule is reported where it was before: the platform's devices list.
sed 's/fabric_ports: 1/fabric_ports: 2/' platforms/minimal.yaml >"$WORK/two_ports.yaml"
expect_bad among_file "the same rule broken in the file" \
  "$WORK/two_ports.yaml:$(($(grep -n '^devices:' platforms/minimal.yaml | cut -d: -f1) + 1)): devices: impossible topology: 1 GPUs x 1 links" -- \
  validate --platform "$WORK/two_ports.yaml"

# --- A preset name or model file that does not exist: the file and the line that named it. -------
line=$(grep -n 'preset: nvlink4' platforms/minimal.yaml | cut -d: -f1)
sed 's/preset: nvlink4/preset: nvlink9/' platforms/minimal.yaml >"$WORK/nvlink9.yaml"
expect_bad preset_name "an unknown link preset" \
  "$WORK/nvlink9.yaml:$line: links.gpu_device.preset: no link preset named 'nvlink9'" -- \
  validate --platform "$WORK/nvlink9.yaml"
# An error about a preset-filled map as a whole named the file without the map's line: the map
# expanded from the preset was a new node, with no place in the file.
sed 's/^  switch_device: {preset: nvlink4}$/&\n  gpu_device: {preset: nvlink4}/' platforms/nvl8_fam.yaml \
  >"$WORK/preset_line.yaml"
line=$(grep -n '^  gpu_device: {preset: nvlink4}$' "$WORK/preset_line.yaml" | cut -d: -f1)
expect_bad preset_line "a preset-filled link map a switched platform cannot have" \
  "famsim: error: $WORK/preset_line.yaml:$line: links.gpu_device: direct GPU-to-device links only exist without a switch" -- \
  validate --platform "$WORK/preset_line.yaml"
# A key the preset file sets is named at its line there.
sed 's/gpu_device: {preset: nvlink4, per_gpu: 1}/gpu_device: {preset: nvlink4, per_gpu: 1, max_payload_bytes: 4096}/' \
  platforms/minimal.yaml >"$WORK/preset_key.yaml"
line=$(grep -n '^request_vc_credits:' platforms/presets/link/nvlink4.yaml | cut -d: -f1)
expect_bad preset_key "a preset's key too small for a payload the platform sets" \
  "famsim: error: platforms/presets/link/nvlink4.yaml:$line: links.gpu_device.request_vc_credits: expected at least 257 credits" -- \
  validate --platform "$WORK/preset_key.yaml"
cat >"$WORK/nomodel.yaml" <<'YAML'
name: nomodel
streams:
  - name: ws
    weight_stream:
      model: no_such_model.yaml
YAML
expect_bad model_file "a model file that does not exist" \
  "$WORK/nomodel.yaml:5: workload.streams.0.weight_stream.model: no_such_model.yaml: cannot read file" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/nomodel.yaml" $(out model_file)

# A model file with keys beside it ({file: PATH, ...}): a key the file misspells is named at its
# line in the file; a preset and a file together are refused.
mkdir -p "$WORK/models"
{ cat traffic/models/llama3_8b.yaml; echo "kv_haeds: 4"; } >"$WORK/models/typo.yaml"
cat >"$WORK/model_keys.yaml" <<'YAML'
name: model_keys
streams:
  - name: decode
    kv_decode: {model: {file: models/typo.yaml, kv_heads: 4}, batch: 1, context_tokens: 16,
                layers: 1, kv_location: device/fam0}
YAML
line=$(wc -l <"$WORK/models/typo.yaml")
expect_bad model_file_key "a misspelt key in a model file named with keys beside it" \
  "$WORK/models/typo.yaml:$line: unknown key 'workload.streams.0.kv_decode.model.kv_haeds'" -- \
  validate --platform platforms/minimal.yaml --workload "$WORK/model_keys.yaml"
expect_bad model_file_and_preset "a model given both as a preset and as a file" \
  "famsim: error: --set workload.streams.0.kv_decode.model.preset=llama3_8b: workload.streams.0.kv_decode.model: names both a preset and a file; expected one of them" -- \
  validate --platform platforms/minimal.yaml --workload "$WORK/model_keys.yaml" \
  --set workload.streams.0.kv_decode.model.preset=llama3_8b

# --- Errors found during the run by a VMM event or a fault name the workload file and line. -------
cat >"$WORK/unmap.yaml" <<'YAML'
name: unmap
streams:
  - name: reader
    buffer: {bytes: 4MiB, location: device/fam0}
    pattern: sequential
    total_bytes: 4MiB
vmm_events:
  - {op: unmap, stream: reader, at_ns: 2000}
YAML
expect_bad fault_line "a read of a page a VMM event unmapped" \
  "$WORK/unmap.yaml:3: workload.streams.0: gpu0: stream 'reader' reads" "the page is not mapped" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/unmap.yaml" $(out fault_line)
# An unaligned offset_bytes is named as itself, with the alignment expected; it was reported as
# bytes out of [2097152, 7340032], a range that ends off the 2 MiB granule (8 MiB - 1 MiB).
cat >"$WORK/vmm_offset.yaml" <<'YAML'
name: vmm_offset
streams:
  - name: reader
    buffer: {bytes: 8MiB, location: device/fam0}
    pattern: sequential
    total_bytes: 64KiB
vmm_events:
  - {op: unmap, stream: reader, at_ns: 100, offset_bytes: 1MiB, bytes: 8MiB}
YAML
expect_bad vmm_offset "a VMM event offset off the 2 MiB granule" \
  "$WORK/vmm_offset.yaml:8: workload.vmm_events.0.offset_bytes: 1048576 B is not a multiple" \
  "expected a multiple of 2 MiB (2097152 B)" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/vmm_offset.yaml" $(out vmm_offset)
sed 's/offset_bytes: 1MiB, bytes: 8MiB/offset_bytes: 2MiB, bytes: 3MiB/' "$WORK/vmm_offset.yaml" \
  >"$WORK/vmm_bytes.yaml"
expect_bad vmm_bytes "a VMM event size off the 2 MiB granule" \
  "$WORK/vmm_bytes.yaml:8: workload.vmm_events.0.bytes: 3145728 B is not a multiple" \
  "expected a multiple of 2 MiB (2097152 B)" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/vmm_bytes.yaml" $(out vmm_bytes)
# Two 768 MiB buffers on devices of 1 GiB: moving the second onto the first's device at 100 ns
# finds 256 MiB free there.
cat >"$WORK/remap_full.yaml" <<'YAML'
name: remap_full
streams:
  - name: a
    buffer: {bytes: 768MiB, location: device/fam0}
    total_bytes: 64KiB
  - name: b
    buffer: {bytes: 768MiB, location: device/fam1}
    total_bytes: 64KiB
vmm_events:
  - {op: remap, stream: b, at_ns: 100, location: device/fam0}
YAML
expect_bad remap_full "a remap onto a device without room" \
  "$WORK/remap_full.yaml:10: workload.vmm_events.0 (remap" "map on device/fam0 at 100 ns" \
  "location fam0 has 268435456 B free; 805306368 B requested" -- \
  run --platform tests/cli/data/two_devices.yaml --workload "$WORK/remap_full.yaml" $(out remap_full)

# --- A link clock of 1 MHz (for 1000): NVLink4's 16 B flits at 25 GB/s take 0.64 ns, so one clock
# --- of 1000 ns holds 1562.5 of them, far past the 64 a link layer could handle per clock. --------
expect_bad link_clock "a link clock far below the flit rate" \
  "--set links.gpu_device.clock_mhz=1: links.gpu_device.clock_mhz: a link clock of 1 MHz takes 1562 flits" \
  "a clock of at least 24.4 MHz" -- \
  validate --platform platforms/minimal.yaml --set links.gpu_device.clock_mhz=1

# --- A DRAM organisation past 2^48 B per channel (it overflowed 64 bits and was reported as the --
# --- mapping order's fault, with no line): the key the --set changed, and the product. ---------
expect_bad huge_channel "a DRAM channel past 2^48 B" \
  "--set memory.organization.rows=16777216: memory.organization.rows:" \
  "= 2.25e+15 B in one channel; expected at most 2^48 B" -- \
  validate --platform platforms/dram_ddr5.yaml --set memory.organization.rows=16777216 \
  --set memory.organization.columns=1048576

# --- A sim.log.modules prefix that names no block: the run would stay silent. --------------------
expect_bad log_module "a log prefix naming no block" \
  "sim.log.modules: 'fam0.memroy' is no block of this platform" "fam0" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set 'sim.log.modules=[fam0.memroy=info]' $(out log_module)
# Prefixes match whole name parts: 'fam' is not a prefix of 'fam0'.
expect_bad log_part "a log prefix that is part of a name part" \
  "sim.log.modules: 'fam' is no block" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set 'sim.log.modules=[fam=info]' $(out log_part)
# 16 TiB where 16 GiB was meant: 17592186044416 B over minimal's 2 DDR5-4800 channels (2 x 19.23
# GB/s: 2 transfers per tCK of 416 ps x 4 B) take at least 457.397 s, past 281 s: refused before
# the run, not after days of host time.
expect_bad total_typo "a total_bytes the memory cannot move within 281 s" \
  "workload.streams.0.total_bytes: the pattern streams move 17592.2 GB to fam0" "38.46 GB/s" \
  "457.397 s" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=16TiB $(out total_typo)
# Generator streams size themselves from steps, batch, prompts ...: a typo there is refused the
# same way. nvl8_fam's fam0 has 16 DDR5-4800 channels (16 x 2 / 416 ps x 4 B = 307.69 GB/s), which
# move at most 307.692 GB/s x 281.475 s = 86607.7 GB before 2^48 ps. The shipped workloads put every GPU's
# bytes on fam0.
NVL8=(--platform platforms/nvl8_fam.yaml)
# kv_decode_llama70b, steps 2 -> 2000000: Llama-3-70B's KV is 2 vectors x 8 heads x 128 x 2 B =
# 4096 B per token and layer, 512 B per GPU at tensor_parallel 8, x 2 layers = 1024 B. The newest
# 256 tokens stay in HBM in 16-token blocks, so of the 1024 tokens of the shortest context at least
# 1024 - (256 + 15) = 753 are read on fam0 each step: 8 GPUs x 2000000 steps x batch 8 x 753 x
# 1024 B = 98697.216 GB, at least 320.766 s.
CLI_TIMEOUT_S=60 expect_bad kv_steps_typo "kv_decode steps fam0 cannot serve within 281 s" \
  "--set workload.streams.0.kv_decode.steps=2000000: workload.streams.0.kv_decode.steps: the workload's streams move at least 98697.2 GB to fam0" \
  "307.69 GB/s" "320.766 s" "expected at most 86607.7 GB" -- \
  run "${NVL8[@]}" --workload traffic/kv_decode_llama70b.yaml \
  --set workload.streams.0.kv_decode.steps=2000000 $(out kv_steps_typo)
# The same with a sliding window of 513 tokens on every layer: each layer reads at most the newest
# 512 cached tokens, 512 - 271 = 241 of them on fam0: 8 GPUs x 6000000 steps x batch 8 x 241 x 2
# layers x 512 B = 94765.056 GB, at least 307.986 s (2000000 steps, 31588.4 GB, would be allowed).
CLI_TIMEOUT_S=60 expect_bad kv_window_steps "kv_decode steps with a sliding window" \
  "the workload's streams move at least 94765.1 GB to fam0" "307.986 s" \
  "at most 512 in each of the 2 sliding-window layers of 2" -- \
  run "${NVL8[@]}" --workload traffic/kv_decode_llama70b.yaml \
  --set workload.streams.0.kv_decode.steps=6000000 \
  --set workload.streams.0.kv_decode.model.sliding_window=513 $(out kv_window_steps)
# weight_stream, steps 1 -> 1000000: a Llama-3.2-1B layer is q 2048x2048 + k, v 2048x512 + o
# 2048x2048 + MLP 3 x 2048x8192 = 60817408 BF16 weights, sharded over 8 GPUs (15204352 B each),
# plus its 2 norms of 2048 unsharded (8192 B): 15212544 B a layer, x 3 layers = 45637632 B a pass
# on each GPU; 8 GPUs x 1000000 passes = 365101.056 GB, at least 1186.58 s.
CLI_TIMEOUT_S=60 expect_bad weight_steps_typo "weight_stream passes fam0 cannot serve within 281 s" \
  "--set workload.streams.0.weight_stream.steps=1000000: workload.streams.0.weight_stream.steps: the workload's streams move at least 365101 GB to fam0" \
  "1186.58 s" -- \
  run "${NVL8[@]}" --workload traffic/weight_stream.yaml \
  --set workload.streams.0.weight_stream.steps=1000000 $(out weight_steps_typo)
# moe_deepseek_v3 without its expert cache (whose hits are not known up front), steps 2 ->
# 1000000: a DeepSeek-V3 expert is 3 x 7168 x 2048 FP8 weights = 44040192 B, 5505024 B per GPU at tensor_parallel 8; each step reads at least
# top_k 8 of them on the 1 simulated MoE layer: 8 GPUs x 1000000 x 8 x 5505024 B = 352321.536 GB,
# at least 1145.04 s.
CLI_TIMEOUT_S=60 expect_bad moe_steps_typo "moe_experts steps fam0 cannot serve within 281 s" \
  "--set workload.streams.0.moe_experts.steps=1000000: workload.streams.0.moe_experts.steps: the workload's streams move at least 352322 GB to fam0" \
  "1145.04 s" -- \
  run "${NVL8[@]}" --workload traffic/moe_deepseek_v3.yaml \
  --set workload.streams.0.moe_experts.cache_experts=0 \
  --set workload.streams.0.moe_experts.warm_cache=false \
  --set workload.streams.0.moe_experts.steps=1000000 $(out moe_steps_typo)
# prefill_prefix_reuse with a bounded prefix cache, prompts 16 -> 16000000: Llama-3-8B's KV is 2 x
# 8 heads x 128 x 2 B = 4096 B per token and layer, x 2 layers = 8192 B; every prompt reads or
# writes each of its at least 1024 tokens on the one GPU (tensor_parallel 1) it goes to:
# 16000000 x 1024 x 8192 B = 134217.728 GB, at least 436.208 s.
CLI_TIMEOUT_S=60 expect_bad prefill_prompts_typo "prefill prompts fam0 cannot serve within 281 s" \
  "--set workload.streams.0.prefill.prompts=16000000: workload.streams.0.prefill.prompts: the workload's streams move at least 134218 GB to fam0" \
  "436.208 s" -- \
  run "${NVL8[@]}" --workload traffic/prefill_prefix_reuse.yaml \
  --set workload.streams.0.prefill.cache_tokens=32768 \
  --set workload.streams.0.prefill.prompts=16000000 $(out prefill_prompts_typo)
# A generator region too big for its memory names the key that set its size (the --set), the
# region's bytes and the product behind them. kv_decode_llama70b, batch 8 -> 80000: each GPU's KV
# region holds batch x ceil((context max 4096 + 2 steps) / 16) = 257 blocks a sequence x 2 layers x
# 2 vectors x a 16-token block of its 256 B-per-token vector shard (4096 B) = 80000 x 257 x 16384 B
# = 336855040000 B (a whole number of 2 MiB granules: 160625). GPU 0's fits on fam0's 512 GiB
# (549755813888 B); GPU 1 finds 549755813888 - 336855040000 = 212900773888 B free.
expect_bad kv_batch_capacity "a kv_decode batch whose KV cache does not fit on fam0" \
  "--set workload.streams.0.kv_decode.batch=80000: workload.streams.0.kv_decode.batch: GPU 1's kv_cache region takes 336855040000 B (batch 80000 x (2 layers x 257 blocks) a sequence" \
  "location fam0 has 212900773888 B free" -- \
  run "${NVL8[@]}" --workload traffic/kv_decode_llama70b.yaml \
  --set workload.streams.0.kv_decode.batch=80000 $(out kv_batch_capacity)
# The same through context_tokens.max: the range's max is named, as the --set gave it.
expect_bad kv_context_capacity "a kv_decode context_tokens.max whose KV cache does not fit" \
  "--set workload.streams.0.kv_decode.context_tokens.max=40000000: workload.streams.0.kv_decode.context_tokens.max: GPU" \
  "context_tokens up to 40000000" -- \
  run "${NVL8[@]}" --workload traffic/kv_decode_llama70b.yaml \
  --set workload.streams.0.kv_decode.context_tokens.max=40000000 $(out kv_context_capacity)
# prefill_prefix_reuse, prompts 16 -> 100000000 with the default prefix cache (every block of the
# prompts): 100000000 prompts x 128 blocks of 16 tokens (input_tokens up to 2048) = 12800000000
# blocks x 2 layers x 2 vectors x 32768 B (16 tokens x 2048 B of Llama-3-8B's vector, tensor
# parallel 1) = 1677721600000000 B, for 549755813888 B on fam0: the prompts key is named, as the
# one that sized the cache.
expect_bad prefill_cache_capacity "a prefill prompts count whose default prefix cache does not fit" \
  "--set workload.streams.0.prefill.prompts=100000000: workload.streams.0.prefill.prompts: GPU 0's kv_cache region takes 1677721600000000 B" \
  "by default every block of 100000000 prompts" "location fam0 has 549755813888 B free" -- \
  run "${NVL8[@]}" --workload traffic/prefill_prefix_reuse.yaml \
  --set workload.streams.0.prefill.prompts=100000000 $(out prefill_cache_capacity)
# The same total_bytes with a duration_ns: the duration ends the stream, so the run goes ahead.
"$FAMSIM" run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=16TiB \
  --set workload.streams.0.duration_ns=2000 --out "$WORK/out-total_dur" >"$WORK/dur.log" 2>&1 ||
  fail "16 TiB with duration_ns 2000 was refused: $(cat "$WORK/dur.log")"
pass "a total_bytes past 281 s with a duration_ns that ends the stream first"
cat >"$WORK/paced.yaml" <<'YAML'
name: paced
streams:
  - buffer: {bytes: 1MiB, location: device/fam0}
    total_bytes: 1MiB
    issue_rate_gbps: 1e-9
YAML
expect_bad issue_rate "issue_rate_gbps too low to issue total_bytes within 281 s" \
  "$WORK/paced.yaml:5: workload.streams.0.issue_rate_gbps" "past 2^48 ps (281 s)" "expected at least" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/paced.yaml" $(out issue_rate)
# start_ns + duration_ns = 2e11 + 1e11 ns = 300 s, past 2^48 ps = 281.474976710655 s: the stream
# could not stop issuing when asked, even though its 64 KiB would be read long before.
cat >"$WORK/late_stop.yaml" <<'YAML'
name: late_stop
streams:
  - buffer: {bytes: 1MiB, location: device/fam0}
    total_bytes: 64KiB
    start_ns: 2e11
    duration_ns: 1e11
YAML
expect_bad duration_end "start_ns + duration_ns past 281 s" \
  "$WORK/late_stop.yaml:6: workload.streams.0.duration_ns" "300 s" "past 2^48 ps (281 s)" \
  "expected start_ns + duration_ns of at most 281474976710.655 ns" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/late_stop.yaml" $(out duration_end)
cat >"$WORK/slow_compute.yaml" <<'YAML'
name: slow_compute
streams:
  - name: slow
    prefill:
      model: {preset: llama3_2_1b}
      location: device/fam0
      layers: 1
      prompts: 1
      input_tokens: 16
      compute: {layer_ns: 1e12}
YAML
expect_bad slow_compute "a compute time that ends past 281 s" \
  "$WORK/slow_compute.yaml:3: workload.streams.0" "stream 'slow'" "past 2^48 ps (281 s)" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/slow_compute.yaml" $(out slow_compute)

# --- A misspelt generator key: without a generator a stream is read as a pattern stream, which
# --- used to report the buffer it then lacked ("buffer: missing"). -------------------------------
cat >"$WORK/typo.yaml" <<'YAML'
name: typo
streams:
  - name: decode
    kv_decodez: {}
YAML
expect_bad generator_typo "a misspelt generator key in a stream" \
  "$WORK/typo.yaml:4:" "unknown key 'workload.streams.0.kv_decodez'" "expected one of:" "kv_decode," -- \
  run --platform platforms/minimal.yaml --workload "$WORK/typo.yaml" $(out generator_typo)
case "$OUT" in *"buffer"*"missing"*) fail "the misspelt generator is still blamed on the buffer: $OUT" ;; esac

# --- Several unknown keys in one map (a model's config.json names pasted in): the first is named
# --- with the known key one edit from it, and the others with their lines and theirs, in one
# --- message ('read_fractoin' is two letters swapped from read_fraction). ----------------------
cat >"$WORK/typos.yaml" <<'YAML'
name: typos
streams:
  - name: s
    pattren: random
    read_fractoin: 1.0
    rope_theta: 10000
YAML
expect_bad several_typos "several unknown keys in one map" \
  "$WORK/typos.yaml:4: unknown key 'workload.streams.0.pattren'" "(did you mean 'pattern'?)" \
  "also unknown here: 'read_fractoin' (line 5, did you mean 'read_fraction'?), 'rope_theta' (line 6)" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/typos.yaml" $(out several_typos)

# --- A positive time below 1 ps: it rounds to 0 ps, which means "off" (the time series, the time
# --- limit), so it would silently switch the feature off. -----------------------------------------
SMALL=(run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB)
expect_bad window_1e9 "sim.timeseries_window_ns below 1 ps" \
  "--set sim.timeseries_window_ns=1e-9" "sim.timeseries_window_ns:" "below 1 ps" \
  "expected 0 (no time series) or at least 0.001 ns" -- \
  "${SMALL[@]}" --set sim.timeseries_window_ns=1e-9 $(out window_1e9)
expect_bad window_half_ps "sim.timeseries_window_ns of half a picosecond" \
  "sim.timeseries_window_ns:" "at least 0.001 ns" -- \
  "${SMALL[@]}" --set sim.timeseries_window_ns=0.0005 $(out window_half_ps)
# Longer than any run famsim can simulate (281 s): one window, bandwidths near 0.
expect_bad window_1e12 "sim.timeseries_window_ns past 281 s" \
  "--set sim.timeseries_window_ns=1e12: sim.timeseries_window_ns: expected a number in [0, 280000000000]" -- \
  "${SMALL[@]}" --set sim.timeseries_window_ns=1e12 $(out window_1e12)
expect_bad phase_window_1e9 "sim.phase_window_ns below 1 ps" \
  "sim.phase_window_ns:" "expected 0 (no per-phase analysis) or at least 0.001 ns" -- \
  "${SMALL[@]}" --set sim.phase_window_ns=1e-9 $(out phase_window_1e9)
expect_bad max_time_1e9 "sim.max_time_ns below 1 ps" \
  "sim.max_time_ns:" "expected 0 (no limit) or at least 0.001 ns" -- \
  "${SMALL[@]}" --set sim.max_time_ns=1e-9 $(out max_time_1e9)
expect_bad quantum_1e9 "sim.quantum_ns below 1 ps" "sim.quantum_ns:" "at least 0.001 ns" -- \
  "${SMALL[@]}" --set sim.quantum_ns=1e-9 $(out quantum_1e9)
# The smallest window allowed, and 0, still run.
run_famsim window_1ps "${SMALL[@]}" --set sim.timeseries_window_ns=0.001 --out "$WORK/out-window_1ps"
expect_rc 0 "sim.timeseries_window_ns: 0.001 (1 ps)"
run_famsim window_off "${SMALL[@]}" --set sim.timeseries_window_ns=0 --out "$WORK/out-window_off"
expect_rc 0 "sim.timeseries_window_ns: 0"
[ ! -e "$WORK/out-window_off/timeseries.csv" ] || fail "a window of 0 still wrote timeseries.csv"
run_famsim phase_window_1ps "${SMALL[@]}" --set sim.phase_window_ns=0.001 \
  --out "$WORK/out-phase_window_1ps"
expect_rc 0 "sim.phase_window_ns: 0.001 (1 ps)"
run_famsim phase_window_off "${SMALL[@]}" --set sim.phase_window_ns=0 \
  --out "$WORK/out-phase_window_off"
expect_rc 0 "sim.phase_window_ns: 0"
grep -q '"phases"' "$WORK/out-phase_window_off/stats.json" &&
  fail "a phase window of 0 still wrote bottlenecks.phases"
pass "a 1 ps window runs, and 0 still switches the time series and the per-phase analysis off"

# --- famsim bench on a platform its workload cannot run on: said in the user's terms, not as the
# --- workload override bench applies itself (the user typed no --set). ----------------------------
expect_bad bench_dram "famsim bench on a standalone DRAM platform" \
  "platforms/dram_ddr4.yaml: a standalone memory platform" "no GPUs" \
  "bench's saturating random-read workload" "--trace FILE" -- \
  bench --platform platforms/dram_ddr4.yaml
case "$OUT" in *"--set"*) fail "bench blames a --set the user did not give: $OUT" ;; esac
{ cat platforms/minimal.yaml; cat <<'YAML'
workload:
  streams:
    - weight_stream: {model: {preset: llama3_2_1b}, location: device/fam0, layers: 1, steps: 1}
YAML
} >"$WORK/own-workload.yaml"
expect_bad bench_mib_generator "--mib-per-gpu on a platform whose workload is a generator" \
  "--mib-per-gpu" "$WORK/own-workload.yaml" "weight_stream stream" -- \
  bench --platform "$WORK/own-workload.yaml" --mib-per-gpu 4
case "$OUT" in *"--set"*) fail "bench blames a --set the user did not give: $OUT" ;; esac
# The same with the generator in a workload file: --mib-per-gpu is not silently dropped.
cat >"$WORK/generator-workload.yaml" <<'YAML'
name: weights
streams:
  - weight_stream: {model: {preset: llama3_2_1b}, location: device/fam0, layers: 1, steps: 1}
YAML
expect_bad bench_mib_generator_file "--mib-per-gpu with a workload file whose first stream is a generator" \
  "--mib-per-gpu" "$WORK/generator-workload.yaml" "weight_stream stream" "drop --mib-per-gpu" -- \
  bench --platform platforms/minimal.yaml --workload "$WORK/generator-workload.yaml" --mib-per-gpu 4
# Two sizes for the same stream: neither is silently dropped.
expect_bad bench_mib_and_set "--mib-per-gpu with a --set of the first stream's total_bytes" \
  "--mib-per-gpu 4 and --set workload.streams.0.total_bytes=1MiB" "expected one of them" -- \
  bench --platform platforms/minimal.yaml --mib-per-gpu 4 --set workload.streams.0.total_bytes=1MiB

# --- A directory where a file is expected. -------------------------------------------------------
mkdir -p "$WORK/somedir"
expect_bad dir_platform "--platform DIR" "$WORK/somedir/: is a directory" -- \
  validate --platform "$WORK/somedir/"
expect_bad dir_workload "--workload DIR" "$WORK/somedir/: is a directory" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/somedir/" $(out dir_workload)
expect_bad dir_log "check-dram-log DIR" "$WORK/somedir/: is a directory" -- \
  check-dram-log --preset ddr4_3200 "$WORK/somedir/"

# check-dram-log without a log: CLI11 said "files is required", naming neither what files nor how.
expect_bad log_no_files "check-dram-log without a command log" \
  "famsim: error: check-dram-log: no command log given; expected one or more DRAM command log files (CSV, as famsim run --dram-log writes into DIR/dram/) after the options" -- \
  check-dram-log --preset ddr4_3200
expect_bad log_no_files_set "check-dram-log with a --set but no command log" \
  "check-dram-log: no command log given; expected one or more DRAM command log files" -- \
  check-dram-log --preset ddr4_3200 --set organization.ranks=1

# check-dram-log --set: a key the DRAM spec does not read (the British spelling, a controller key,
# which has no part in timing) is refused; it used to leave the preset's value in place and report
# a correct log's commands as violations.
printf 'cycle,time_ps,channel,pseudo_channel,rank,bank_group,bank,command,row,column\n' >"$WORK/empty_log.csv"
expect_bad log_set_typo "check-dram-log --set with a misspelt key" \
  "--set organisation.ranks=2: unknown key 'organisation'" "organization" -- \
  check-dram-log --preset ddr5_4800_x4 --set organisation.ranks=2 "$WORK/empty_log.csv"
expect_bad log_set_ctl "check-dram-log --set of a controller key" \
  "--set controller.read_queue=0: unknown key 'controller'" -- \
  check-dram-log --preset ddr5_4800_x4 --set controller.read_queue=0 "$WORK/empty_log.csv"

# --- buffer.stripe_start: a known choice, and only where each GPU's buffer is striped. ---------
TWO_DEV="$(dirname "$0")/data/two_devices.yaml"
stripe_workload() {  # stripe_workload FILE LOCATION EXTRA
  cat >"$1" <<YAML
name: stripes
streams:
  - gpus: [0]
    buffer: {bytes: 4MiB, location: $2, $3}
    pattern: sequential
YAML
}
stripe_workload "$WORK/stripe_bad.yaml" "[device/fam0, device/fam1]" "stripe_start: rotate"
expect_bad stripe_value "an unknown stripe_start" \
  "$WORK/stripe_bad.yaml:4: workload.streams.0.buffer.stripe_start" "first | by_gpu" "'rotate'" -- \
  run --platform "$TWO_DEV" --workload "$WORK/stripe_bad.yaml" $(out stripe_value)
stripe_workload "$WORK/stripe_one.yaml" "device/fam0" "stripe_start: by_gpu"
expect_bad stripe_one "stripe_start: by_gpu on a buffer on one device" \
  "workload.streams.0.buffer.stripe_start" "striped over devices" "device/fam0" -- \
  run --platform "$TWO_DEV" --workload "$WORK/stripe_one.yaml" $(out stripe_one)
stripe_workload "$WORK/stripe_shared.yaml" "[device/fam0, device/fam1]" \
  "stripe_start: by_gpu, shared: true"
expect_bad stripe_shared "stripe_start: by_gpu on a shared buffer" \
  "workload.streams.0.buffer.stripe_start" "a shared buffer has one first device" -- \
  run --platform "$TWO_DEV" --workload "$WORK/stripe_shared.yaml" $(out stripe_shared)

# A generator stream takes stripe_start beside its generator key, for its striped regions; a
# pattern stream only under buffer.
cat >"$WORK/stripe_gen.yaml" <<YAML
name: stripes
streams:
  - gpus: [0]
    stripe_start: by_gpu
    weight_stream: {model: {preset: llama3_8b}, layers: 1, location: device/fam0}
YAML
expect_bad stripe_generator "stripe_start: by_gpu on a generator with no striped region" \
  "$WORK/stripe_gen.yaml:4: workload.streams.0.stripe_start" "regions striped over devices" \
  "weight_stream stream has none" -- \
  run --platform "$TWO_DEV" --workload "$WORK/stripe_gen.yaml" $(out stripe_generator)
cat >"$WORK/stripe_level.yaml" <<YAML
name: stripes
streams:
  - gpus: [0]
    stripe_start: by_gpu
    buffer: {bytes: 4MiB, location: [device/fam0, device/fam1]}
    pattern: sequential
YAML
expect_bad stripe_level "stripe_start beside a pattern stream's buffer" \
  "$WORK/stripe_level.yaml:4: workload.streams.0.stripe_start" "under buffer (buffer.stripe_start)" -- \
  run --platform "$TWO_DEV" --workload "$WORK/stripe_level.yaml" $(out stripe_level)


# Command-line mistakes start like every other bad-input message; a trace option on a GPU
# platform names the option given, not --trace.
expect_bad no_subcommand "no subcommand" "A subcommand is required" -- frobnicate
expect_bad bench_mib_text "--mib-per-gpu that is not a number" "--mib-per-gpu" "lots" -- \
  bench --mib-per-gpu lots
expect_bad trace_format_alone "--trace-format on a GPU platform" \
  "platforms/minimal.yaml: --trace-format is an option of trace replay" "standalone memory platform" -- \
  run --platform platforms/minimal.yaml --trace-format ramulator $(out trace_format_alone)
# --- An empty name ('name: ""') was accepted: stats.json's sim.platform or sim.workload, the
# --- summary's names and a stream's key under workload.streams were blank. A device's name was
# --- already refused (it must start with a letter); a memory's standard is a name as well.
sed 's/^name: minimal$/name: ""/' platforms/minimal.yaml >"$WORK/noname.yaml"
expect_bad name_platform "an empty platform name" \
  "famsim: error: $WORK/noname.yaml:1: name: expected a non-empty platform name" -- \
  run --platform "$WORK/noname.yaml" --set workload.streams.0.total_bytes=64KiB $(out name_platform)
cat >"$WORK/noname-workload.yaml" <<'YAML'
name: ""
streams:
  - buffer: {bytes: 1MiB, location: device/fam0}
    pattern: sequential
    total_bytes: 64KiB
YAML
expect_bad name_workload "an empty workload name" \
  "famsim: error: $WORK/noname-workload.yaml:1: workload.name: expected a non-empty workload name" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/noname-workload.yaml" $(out name_workload)
expect_bad name_stream "an empty stream name" \
  "famsim: error: --set workload.streams.0.name=\"\": workload.streams.0.name: expected a non-empty stream name" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set 'workload.streams.0.name=""' $(out name_stream)
expect_bad name_device "an empty device name" \
  "--set devices.0.name=\"\": devices.0.name: expected a name of letters, digits and _ starting with a letter, got ''" -- \
  validate --platform platforms/minimal.yaml --set 'devices.0.name=""'
expect_bad name_standard "an empty standard of an ideal memory" \
  "--set devices.1.memory.standard=\"\": devices.1.memory.standard: expected a non-empty name of a standard" -- \
  validate --platform tests/cli/data/two_devices.yaml --set 'devices.1.memory.standard=""'

# --- Device names the builder gives its own blocks: SystemC renamed one of the two (stats.json then
# named gpu3_0.noc and gpu3_link0_0), and gpu0_hbm was a VMM location added twice (exit 1).
for name in gpu0_hbm gpu3 plane0_switch switch; do
  expect_bad "devname_$name" "a device named $name, a name famsim gives its own blocks" \
    "--set devices.0.name=$name" "devices.0.name" "'$name' is a name famsim gives its own blocks" -- \
    run --platform platforms/nvl8_fam.yaml --set workload.streams.0.total_bytes=16KiB \
    --set devices.0.name=$name --set workload.streams.0.buffer.location=device/$name $(out "devname_$name")
done
# A device named like another's link (<device>_linkN), whichever comes first.
expect_bad devname_link "a device named like another device's link" \
  "devices.1.name" "fam0_link3 is the name of one of device fam0's links" -- \
  validate --platform platforms/ualink_pod64.yaml --set devices.1.name=fam0_link3
expect_bad devname_link_first "a device named like a later device's link" \
  "devices.1.name" "x_link0 is the name of one of device x's links" -- \
  validate --platform platforms/ualink_pod64.yaml --set devices.0.name=x_link0 --set devices.1.name=x

# --- A generator's access_bytes follows a pattern stream's rule (a power of two): weight_stream
# --- took 1000 and moe_experts 3 (each access its own request: minutes of simulation).
expect_bad ws_access_odd "weight_stream.access_bytes that is not a power of two" \
  "--set workload.streams.0.weight_stream.access_bytes=1000" \
  "workload.streams.0.weight_stream.access_bytes: expected a power of two, got 1000" -- \
  run --platform platforms/nvl8_fam.yaml --workload traffic/weight_stream.yaml \
  --set workload.streams.0.weight_stream.layers=1 \
  --set workload.streams.0.weight_stream.access_bytes=1000 $(out ws_access_odd)
expect_bad moe_access_odd "moe_experts.access_bytes that is not a power of two" \
  "workload.streams.0.moe_experts.access_bytes: expected a power of two, got 3" -- \
  run --platform platforms/nvl8_fam.yaml --workload traffic/moe_deepseek_v3.yaml \
  --set workload.streams.0.moe_experts.steps=1 \
  --set workload.streams.0.moe_experts.access_bytes=3 $(out moe_access_odd)

# --- A strided walk with a stride of the whole buffer or more passed the end at every step and
# --- restarted one slot on: a sequential walk, accepted without a word. minimal.yaml's stream
# --- has a 4 GiB buffer of 128 B accesses: the largest stride is 4 GiB - 128 B.
expect_bad stride_buffer "a stride as large as the buffer" \
  "--set workload.streams.0.stride_bytes=4GiB" "workload.streams.0.stride_bytes" \
  "4294967296 B passes the end of the 4294967296 B buffer" "at most 4294967168" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set workload.streams.0.pattern=strided --set workload.streams.0.stride_bytes=4GiB \
  $(out stride_buffer)
expect_bad stride_past_buffer "a stride larger than the buffer" \
  "workload.streams.0.stride_bytes" "8589934592 B passes the end of the 4294967296 B buffer" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set workload.streams.0.pattern=strided --set workload.streams.0.stride_bytes=8GiB \
  $(out stride_past_buffer)
# The largest stride below the buffer is taken.
run_famsim stride_largest validate --platform platforms/minimal.yaml \
  --set workload.streams.0.pattern=strided --set workload.streams.0.stride_bytes=4294967168
expect_rc 0 "the largest stride below the buffer"
pass "the largest stride below the buffer"

# --- Prefill values that changed nothing were accepted: a shared prefix longer than every prompt,
# --- more prefix groups than prompts, a cache of less than one block, and Mooncake hash_ids
# --- naming more tokens than the request's input_length (the ones past it were ignored).
PF=(--platform platforms/minimal.yaml --workload traffic/prefill_prefix_reuse.yaml
  --set workload.streams.0.prefill.layers=1 --set workload.streams.0.prefill.prompts=4)
expect_bad prefill_prefix_long "shared_prefix_tokens longer than the longest prompt" \
  "--set workload.streams.0.prefill.shared_prefix_tokens=2049" \
  "workload.streams.0.prefill.shared_prefix_tokens: shared_prefix_tokens 2049 is longer than the longest prompt (input_tokens max 2048)" \
  "expected at most 2048" -- \
  run "${PF[@]}" --set workload.streams.0.prefill.shared_prefix_tokens=2049 $(out prefill_prefix_long)
# The whole longest prompt shared is taken.
run_famsim prefill_prefix_max validate "${PF[@]}" \
  --set workload.streams.0.prefill.shared_prefix_tokens=2048
expect_rc 0 "shared_prefix_tokens equal to the longest prompt"
pass "shared_prefix_tokens equal to the longest prompt"
expect_bad prefill_groups "prefix_groups more than prompts" \
  "--set workload.streams.0.prefill.prefix_groups=5" \
  "workload.streams.0.prefill.prefix_groups: prefix_groups 5 is more than prompts 4" \
  "expected at most 4" -- \
  run "${PF[@]}" --set workload.streams.0.prefill.prefix_groups=5 $(out prefill_groups)
expect_bad prefill_cache_block "cache_tokens less than one block" \
  "--set workload.streams.0.prefill.cache_tokens=15" \
  "workload.streams.0.prefill.cache_tokens: cache_tokens 15 is less than one KV block (block_tokens 16)" \
  "expected at least 16" -- \
  run "${PF[@]}" --set workload.streams.0.prefill.cache_tokens=15 $(out prefill_cache_block)
# 600 tokens in blocks of 512 are 2 hash blocks; line 2 names 8 (4096 tokens).
cat >"$WORK/hash_many.jsonl" <<'JSONL'
{"timestamp": 0, "input_length": 1024, "output_length": 1, "hash_ids": [1, 2]}
{"timestamp": 1, "input_length": 600, "output_length": 1, "hash_ids": [1, 2, 3, 4, 5, 6, 7, 8]}
JSONL
sed 's/far.jsonl/hash_many.jsonl/; s/mooncake_far/mooncake_hash_many/' "$WORK/mooncake_far.yaml" \
  >"$WORK/mooncake_hash_many.yaml"
expect_bad mooncake_hash_many "Mooncake hash_ids past a request's input_length" \
  "$WORK/hash_many.jsonl:2: 8 hash_ids of trace.block_tokens 512 tokens each name 4096 tokens, more than input_length 600 has (2 blocks)" \
  "expected at most 2 hash_ids" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/mooncake_hash_many.yaml" \
  $(out mooncake_hash_many)
# Fewer prompts than the file's groups: the error names the --set that made them fewer.
expect_bad prefill_prompts_groups "prompts fewer than the file's prefix_groups" \
  "--set workload.streams.0.prefill.prompts=2: workload.streams.0.prefill.prompts: prefix_groups 4 is more than prompts 2" -- \
  run --platform platforms/minimal.yaml --workload traffic/prefill_prefix_reuse.yaml \
  --set workload.streams.0.prefill.layers=1 --set workload.streams.0.prefill.prompts=2 \
  $(out prefill_prompts_groups)

# --- The same --set key twice kept the last value without a word; a key twice in one YAML map
# --- is an error, and so is this. A sweep's set list likewise; a parameter overriding a set entry
# --- of its key is the sweep's base, which stays allowed.
expect_bad set_twice "the same --set key twice" \
  "--set workload.streams.0.read_fraction=0.7: duplicate key (first --set workload.streams.0.read_fraction=0.5)" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB \
  --set workload.streams.0.read_fraction=0.5 --set workload.streams.0.read_fraction=0.7 \
  $(out set_twice)
# An option that sets a key, and a --set of that key: which one wins would be a guess.
expect_bad set_and_flag "--dram-log and a --set of sim.dram_command_log" \
  "--set sim.dram_command_log=...: --dram-log sets that key as well; expected one of them on the command line" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB --dram-log \
  --set sim.dram_command_log=false $(out set_and_flag)
expect_bad set_and_seed "--seed and a --set of sim.seed" \
  "--set sim.seed=...: --seed sets that key as well" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB --seed 3 \
  --set sim.seed=4 $(out set_and_seed)
expect_bad set_and_trace "--trace and a --set of trace_player.file" \
  "--set trace_player.file=...: --trace sets that key as well" -- \
  run "${DRAM[@]}" --trace a.trace --set trace_player.file=b.trace $(out set_and_trace)
expect_bad set_twice_validate "the same --set key twice, same value, in validate" \
  "--set gpus.max_outstanding=32: duplicate key (first --set gpus.max_outstanding=32)" -- \
  validate --platform platforms/minimal.yaml --set gpus.max_outstanding=32 \
  --set gpus.max_outstanding=32
expect_bad set_twice_log "the same --set key twice in check-dram-log" \
  "--set organization.ranks=1: duplicate key (first --set organization.ranks=2)" -- \
  check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 --set organization.ranks=1 \
  "$WORK/empty_log.csv"
cat >"$WORK/sweep_set_twice.yaml" <<YAML
name: set_twice
platform: $PWD/platforms/minimal.yaml
set: ["workload.streams.0.total_bytes=16KiB",
      "workload.streams.0.total_bytes=32KiB"]
parameters:
  - {key: gpus.max_outstanding, values: [16, 32]}
YAML
run_famsim sweep_set_twice sweep "$WORK/sweep_set_twice.yaml" --out "$WORK/out-sweep_set_twice"
expect_bad_dir sweep_set_twice "$WORK/out-sweep_set_twice" \
  "$WORK/sweep_set_twice.yaml:4: set.1: 'workload.streams.0.total_bytes=32KiB': duplicate key (first 'workload.streams.0.total_bytes=16KiB', $WORK/sweep_set_twice.yaml:3: set.0)"
pass "the same key twice in a sweep's set"
# A parameter sweeping a key that set also gives: each point runs with the parameter's value.
cat >"$WORK/sweep_set_param.yaml" <<YAML
name: set_param
platform: $PWD/platforms/minimal.yaml
set: ["workload.streams.0.total_bytes=16KiB", "gpus.max_outstanding=8"]
parameters:
  - {key: gpus.max_outstanding, values: [16, 32]}
YAML
run_famsim sweep_set_param sweep "$WORK/sweep_set_param.yaml" --jobs 1 \
  --out "$WORK/out-sweep_set_param"
expect_rc 0 "a parameter overriding a set entry of its key"
for i in 0 1; do
  want=$((16 * (i + 1)))
  python3 - "$WORK/out-sweep_set_param/points/000$i/stats.json" "$want" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["gpus"]["max_outstanding"] == int(sys.argv[2]), d["config"]["gpus"]
PY
    fail "sweep point $i did not run with gpus.max_outstanding $want"
done
pass "a parameter overriding a set entry of its key"

# --- Closed loop (the default mode) ignores a trace's times, but took times past 2^48 ps without a
# --- word where open loop refuses them naming the line (README "DRAM" says both).
printf '0x1000 READ 10\n0x2000 READ 18446744073709551615\n' >"$WORK/huge.ds3"
expect_bad closed_huge "a closed-loop timestamp past 281 s" \
  "$WORK/huge.ds3:2: 18446744073709551615 cycles of 625 ps is past 2^48 ps (281 s)" \
  "expected a timestamp below 450359962738 cycles" -- \
  run "${DRAM[@]}" --trace "$WORK/huge.ds3" --trace-format dramsim3 $(out closed_huge)
expect_bad closed_late "a closed-loop timestamp past 281 s, mode given" "$WORK/late.ds3:2" "281 s" -- \
  run "${DRAM[@]}" --trace "$WORK/late.ds3" --trace-format dramsim3 \
  --set trace_player.mode=closed $(out closed_late)
# .rstl: 10 + 3 x 10^11 + 3 x 10^11 cycles of 625 ps = 375000000006250 ps by line 3.
printf '10: read 0x1000\n300000000000: read 0x2000\n300000000000: read 0x3000\n' >"$WORK/sum_closed.rstl"
expect_bad closed_rstl_sum "closed-loop .rstl delays that add up past 281 s" \
  "$WORK/sum_closed.rstl:3: the delays up to this line add up to 375000000006250 ps (375 s), past 2^48 ps (281 s)" -- \
  run "${DRAM[@]}" --trace "$WORK/sum_closed.rstl" --trace-format dramsys $(out closed_rstl_sum)
# Times just below the limit replay in closed loop (they are not waited for).
printf '0x1000 READ 10\n0x1040 READ 450359962737\n' >"$WORK/closed_edge.ds3"
run_famsim closed_edge run "${DRAM[@]}" --trace "$WORK/closed_edge.ds3" --trace-format dramsim3 \
  --out "$WORK/out-closed_edge"
expect_rc 0 "a closed-loop timestamp just below 281 s"
pass "a closed-loop timestamp just below 281 s"

# --- An option's value missing before the next option: "--seed --out DIR" took "--out" as the
# --- seed and then blamed DIR ("The following argument was not expected: DIR").
expect_bad seed_missing "--seed with no value before --out" \
  "--seed: expected a value after the option, got the option --out (is the value missing?)" -- \
  run --platform platforms/minimal.yaml --set workload.streams.0.total_bytes=64KiB --seed \
  $(out seed_missing)
case "$OUT" in *"not expected"*) fail "--seed with no value blames the next argument: $OUT" ;; esac
expect_bad platform_missing "--platform with no value before --set" \
  "--platform: expected a value after the option, got the option --set" -- \
  validate --platform --set gpus.count=2
expect_bad out_missing "--out with no value before --seed" \
  "--out: expected a value after the option, got the option --seed" -- \
  run --platform platforms/minimal.yaml --out --seed 3

# --set takes every argument up to the next option, the first whatever it is: "--set --out DIR"
# took "--out" and DIR as two overrides and blamed the first ("--set '--out': expected
# key.path=value"); given last, CLI11 said "--set: 1 required TEXT missing".
expect_bad set_missing "--set with no value before --out" \
  "famsim: error: --set: expected key.path=value after the option, got the option --out (is the value missing?)" -- \
  run --platform platforms/minimal.yaml --set --out "$WORK/out-set_missing"
[ ! -e "$WORK/out-set_missing" ] || fail "--set with no value: the refused run made its --out"
expect_bad set_missing_validate "validate's --set with no value before --workload" \
  "--set: expected key.path=value after the option, got the option --workload" -- \
  validate --platform platforms/minimal.yaml --set --workload traffic/random_read.yaml
expect_bad set_last "--set given last, with no value" \
  "famsim: error: --set: expected key.path=value after the option, got nothing (is the value missing?)" -- \
  validate --platform platforms/minimal.yaml --set
expect_bad seed_last "--seed given last, with no value" \
  "famsim: error: --seed: expected a value after the option, got nothing (is the value missing?)" -- \
  run --platform platforms/minimal.yaml $(out seed_last) --seed

# --- "Simulated time would pass 2^48 ps" named only the files: a vmm event ending past it, or a
# --- link too slow for the workload, is now refused up front naming the key.
# A workload file $1 of one stream, s, on every GPU and one vmm_events entry $2 (on line 9).
stream_with_vmm_event() {
  cat >"$1" <<YAML
streams:
  - name: s
    gpus: all
    buffer: {bytes: 8MiB, location: device/fam0}
    pattern: sequential
    read_fraction: 0.5
    total_bytes: 256KiB
vmm_events:
  - $2
YAML
}
stream_with_vmm_event "$WORK/vmm_late.yaml" "{op: unmap, stream: s, at_ns: 2.8e11, cost_ns: 2.8e11}"
expect_bad vmm_late "a vmm event ending past 281 s" \
  "$WORK/vmm_late.yaml:9: workload.vmm_events.0.cost_ns: the event ends at at_ns + cost_ns = 280000000000.000 + 280000000000.000 = 560000000000.000 ns, past 2^48 ps" \
  "expected at_ns + cost_ns of at most 281474976710.655 ns" -- \
  run --platform platforms/minimal.yaml --workload "$WORK/vmm_late.yaml" $(out vmm_late)
# minimal.yaml's one GPU reads 16 MiB (random_read) over 1 nvlink4 link of 2 lanes at 1e-9 Gb/s,
# encoding 16/17: 2.35294e-10 GB/s per direction, so at least 16777216 B / 4.70588e-10 GB/s =
# 3.56516e7 s; 281 s need 16777216 B / (2 x 281.475 s) = 2.98023e-05 GB/s per direction.
expect_bad link_slow "a GPU link too slow for the workload" \
  "--set links.gpu_device.lane_gbps=1e-09: links.gpu_device.lane_gbps: GPU 0's pattern streams move 0.0167772 GB over its 1 links.gpu_device link of 2.35294e-10 GB/s per direction, at least 3.56516e+07 s, past 2^48 ps (281 s)" \
  "expected links of at least 2.98023e-05 GB/s per direction" -- \
  run --platform platforms/minimal.yaml --set links.gpu_device.lane_gbps=1e-09 $(out link_slow)

# --- channel_bits: [0] was refused for a conflict with granule_bytes (minimal.yaml gives 256);
# --- the bits' own rule comes first: a device's lowest channel bit gives a granule of at least
# --- 64 B (bit 6). A granule_bytes that differs says how to replace the interleave with --set.
expect_bad bits_low "channel_bits whose lowest bit makes a granule below 64 B" \
  "devices.0.memory.interleave.channel_bits: the lowest channel bit, 0, makes an interleave granule of 1 B; expected a lowest bit of at least 6: a granule of at least 64 B" -- \
  validate --platform platforms/minimal.yaml --set devices.0.memory.interleave.channel_select=bits \
  --set 'devices.0.memory.interleave.channel_bits=[0]'
expect_bad bits_granule "channel_bits beside a granule_bytes of another size" \
  "devices.0.memory.interleave.granule_bytes: channel_bits put the lowest channel bit at a 4096 B granule, not 256 B" \
  "--set devices.0.memory.interleave={channel_select: bits, channel_bits: [...]}" -- \
  validate --platform platforms/minimal.yaml --set devices.0.memory.interleave.channel_select=bits \
  --set 'devices.0.memory.interleave.channel_bits=[12]'
# Bits whose granule is the file's own 256 B are taken.
run_famsim bits_256 validate --platform platforms/minimal.yaml \
  --set devices.0.memory.interleave.channel_select=bits --set 'devices.0.memory.interleave.channel_bits=[8]'
expect_rc 0 "channel_bits whose granule is granule_bytes"
pass "channel_bits whose granule is granule_bytes"

# --- Times in messages printed a double's noise: "at 1001.4150000000001 ns", "would arrive at
# --- 1000.0000000000001 s". A VMM fault at 1001.415 ns (the audit's set_access case) and 1001
# --- prompts 1 s apart print as worked out.
stream_with_vmm_event "$WORK/fault_time.yaml" \
  "{op: set_access, stream: s, at_ns: 1000, access: none, gpus: all}"
run_famsim fault_time run --platform platforms/minimal.yaml --workload "$WORK/fault_time.yaml" \
  $(out fault_time)
expect_rc 2 "a VMM fault"
case "$OUT" in
  *"virtual address 0x"*" at "*[0-9]" ns: the GPU has no permission"*) ;;
  *) fail "a VMM fault: $OUT" ;;
esac
t=$(printf '%s\n' "$OUT" | sed -n 's/.* at \([0-9.]*\) ns: the GPU has no permission.*/\1/p')
# A time to the ps: at most three decimals.
[[ $t =~ ^[0-9]+(\.[0-9]{1,3})?$ ]] || fail "a VMM fault's time has float noise: $t ($OUT)"
pass "a VMM fault's time is printed to the ps"
expect_bad prompts_late "1001 prompts 1 s apart, the last at 1000 s" \
  "the last of 1001 prompts would arrive at 1000 s, past 2^48 ps" \
  "expected at most 281474976.71 ns for 1001 prompts" -- \
  run --platform platforms/minimal.yaml --workload traffic/prefill_prefix_reuse.yaml \
  --set workload.streams.0.prefill.prompts=1001 \
  --set workload.streams.0.prefill.arrival_interval_ns=1e9 $(out prompts_late)

# nvl8_fam's device interleaves its 16 channels by xor, which needs a power of two: a --set of 6
# channels is named as the cause (not the platform file's interleave line, which the user did
# not change), with the way out (the architecture audit of 2026-12-04).
expect_bad xor_six "a channel count xor interleave cannot take, set on the command line" \
  "famsim: error: --set devices.0.memory.channels=6: devices.0.memory.channels: 6 channels with xor channel selection" \
  "expected a power of two, or channel_select: modulo, which takes any count" -- \
  run --platform platforms/nvl8_fam.yaml --set devices.0.memory.channels=6 $(out xor_six)

# A memory's assumptions mirror its own keys: a note for a value it does not give (a misspelt
# timing key), or a note that is not text, is an error naming the note's key path.
expect_bad assumption_unknown "an assumption note for a value the memory does not give" \
  "devices.0.memory.assumptions.timing.tFAW_nx: marks devices.0.memory.timing.tFAW_nx as an assumption, but devices.0.memory gives no such value" -- \
  run --platform platforms/minimal.yaml \
  --set devices.0.memory.assumptions.timing.tFAW_nx=guessed $(out assumption_unknown)
expect_bad assumption_not_text "an assumption note that is not text" \
  "devices.0.memory.assumptions.timing.tFAW_ck: expected a map of notes mirroring the keys of devices.0.memory" -- \
  run --platform platforms/minimal.yaml \
  --set 'devices.0.memory.assumptions.timing.tFAW_ck=[1, 2]' $(out assumption_not_text)

# --- A list entry is named as the entry, and as the --set that wrote it when one did: a --set of
# --- dims.0 or of one coordinate of port_nodes was reported at fam_mesh.yaml's line of the list,
# --- which the user did not change (the input audit of 2026-12-05).
expect_bad entry_dims "a --set of one entry of the mesh dims" \
  "famsim: error: --set devices.0.noc.dims.0=0: devices.0.noc.dims.0: expected an integer in [1, 64], got '0'" -- \
  run --platform platforms/fam_mesh.yaml --set devices.0.noc.dims.0=0 $(out entry_dims)
expect_bad entry_coordinate "a --set of one coordinate of a port's mesh node" \
  "famsim: error: --set devices.0.noc.port_nodes.0.0=4: devices.0.noc.port_nodes.0.0: port_nodes entry 0 [4, 0] is outside the 4 x 4 mesh (x in 0..3, y in 0..3)" -- \
  run --platform platforms/fam_mesh.yaml --set devices.0.noc.port_nodes.0.0=4 $(out entry_coordinate)
# fam_mesh.yaml puts ports 0 and 1 on node [0, 0] and port 2 on [0, 1]: the first outside a 1 x 1
# mesh is entry 2, and the dims the --set shrank are named.
expect_bad entry_dims_shrunk "mesh dims that a --set shrank below the file's port nodes" \
  "famsim: error: --set devices.0.noc.dims=[1, 1]: devices.0.noc.dims: port_nodes entry 2 [0, 1] is outside the 1 x 1 mesh" -- \
  run --platform platforms/fam_mesh.yaml --set 'devices.0.noc.dims=[1, 1]' $(out entry_dims_shrunk)
line=$(grep -n 'port_nodes: \[\[0, 0\]' platforms/fam_mesh.yaml | cut -d: -f1)
sed 's/port_nodes: \[\[0, 0\], \[0, 0\]/port_nodes: [[0, 0], [0, 9]/' platforms/fam_mesh.yaml \
  >"$WORK/mesh-entry.yaml"
expect_bad entry_in_file "a port's mesh node outside the mesh in the file" \
  "famsim: error: $WORK/mesh-entry.yaml:$line: devices.0.noc.port_nodes.1: port_nodes entry 1 [0, 9] is outside the 4 x 4 mesh" -- \
  validate --platform "$WORK/mesh-entry.yaml"
cat >"$WORK/striped.yaml" <<'YAML'
name: striped
streams:
  - buffer: {bytes: 1MiB, location: [device/fam0, device/fam1]}
    pattern: sequential
    total_bytes: 64KiB
YAML
expect_bad entry_stripe "a --set of one device of a striped location" \
  "famsim: error: --set workload.streams.0.buffer.location.1=device/fam0: workload.streams.0.buffer.location.1: device 'fam0' is listed twice" -- \
  run --platform tests/cli/data/two_devices.yaml --workload "$WORK/striped.yaml" \
  --set workload.streams.0.buffer.location.1=device/fam0 $(out entry_stripe)
sed 's|device/fam1\]|device/fam9]|' "$WORK/striped.yaml" >"$WORK/striped9.yaml"
expect_bad entry_stripe_file "an unknown device in a striped location in the file" \
  "famsim: error: $WORK/striped9.yaml:3: workload.streams.0.buffer.location.1: no device named 'fam9' on this platform (devices: fam0, fam1)" -- \
  validate --platform tests/cli/data/two_devices.yaml --workload "$WORK/striped9.yaml"
expect_bad entry_gpus "a GPU listed twice" \
  "famsim: error: --set workload.streams.0.gpus=[0, 0]: workload.streams.0.gpus.1: GPU 0 is listed twice" -- \
  validate --platform platforms/minimal.yaml --set 'workload.streams.0.gpus=[0, 0]'

# --- A DRAM organisation key a --set changed is named when the device density no longer adds up,
# --- not the preset's device_density_gbit line, which the user did not touch.
expect_bad density_rows "rows that no longer give the device density, by --set" \
  "famsim: error: --set devices.0.memory.organization.rows=1000: devices.0.memory.organization.rows: banks x rows x columns x device_width_bits = " \
  "Gbit, not the device_density_gbit of 16" -- \
  run --platform platforms/minimal.yaml --set devices.0.memory.organization.rows=1000 \
  $(out density_rows)

# --- A trace in another format than the one given, or than the default (ramulator): the first
# --- line's error says which format it is. Each line alone failed ("unknown command "0x40"").
printf '0x40 READ 10\n0x80 WRITE 20\n' >"$WORK/format.trace"
expect_bad format_default "a dramsim3 trace without --trace-format" \
  "famsim: error: $WORK/format.trace:1: unknown command \"0x40\"; expected LD or ST; the line is a request of the dramsim3 format, not of ramulator: expected --trace-format dramsim3 (trace_player.format) for this trace" -- \
  run "${DRAM[@]}" --trace "$WORK/format.trace" $(out format_default)
printf '10: read 0x40\n' >"$WORK/format.stl"
expect_bad format_other "a dramsys trace given as dramsim3" \
  "$WORK/format.stl:1: " "the line is a request of the dramsys format, not of dramsim3: expected --trace-format dramsys" -- \
  run "${DRAM[@]}" --trace "$WORK/format.stl" --trace-format dramsim3 $(out format_other)
# A bad line of the right format, or a bad line after good ones, gets no such hint.
printf 'LD 0x40\n0x80 READ 10\n' >"$WORK/format2.trace"
run_famsim format_later run "${DRAM[@]}" --trace "$WORK/format2.trace" --out "$WORK/out-format_later"
expect_rc 2 "a dramsim3 line after a ramulator one"
case "$OUT" in *"is a request of"*) fail "a later line's error blames the format: $OUT" ;; esac
pass "a later line in another format is only that line's error"

# --- A real-valued key took strtod's hex ("clock_mhz: 0x7BC" ran at 1980 MHz, "0x10" at 16)
# --- where the integer keys refuse it.
expect_bad hex_double "a hex clock" \
  "famsim: error: --set gpus.clock_mhz=0x7BC: gpus.clock_mhz: expected a number in [1, 100000], got '0x7BC'" -- \
  run --platform platforms/minimal.yaml --set gpus.clock_mhz=0x7BC $(out hex_double)

# --- A file that cannot be read says why: a typo in its name and a file without permission to
# --- read it read alike ("cannot read file").
expect_bad read_missing "a platform file that does not exist" \
  "famsim: error: $WORK/no-such-platform.yaml: cannot read file (No such file or directory)" -- \
  validate --platform "$WORK/no-such-platform.yaml"

# --- A numeric option given text: CLI::Range said "Value lots not in range 1 to 1024", as though
# --- lots were a number out of range.
expect_bad jobs_text "sweep --jobs that is not a number" \
  "famsim: error: --jobs: expected a whole number in [1, 1024], got 'lots'" -- \
  sweep traffic/sweeps/kv_decode_llama70b.yaml --jobs lots --out "$WORK/out-jobs_text"
expect_bad window_fraction "--max-outstanding that is not a whole number" \
  "famsim: error: --max-outstanding: expected a whole number in [1, 1048576], got '1.5'" -- \
  run "${DRAM[@]}" --trace "$WORK/format.trace" --trace-format dramsim3 --max-outstanding 1.5 \
  $(out window_fraction)
expect_bad progress_text "--progress that is not a number" \
  "famsim: error: --progress: expected a number of seconds in [0, 1000000], got 'often'" -- \
  run --platform platforms/minimal.yaml --progress often $(out progress_text)

# --- A --set that empties devices: the links left with nothing to reach were blamed at the
# --- platform file, not the --set that removed their devices.
expect_bad no_devices "devices emptied by --set" \
  "famsim: error: --set devices=[]: devices: the platform has no devices for links.gpu_device to reach; expected a device under devices, or no links.gpu_device" -- \
  validate --platform platforms/minimal.yaml --set 'devices=[]'

# --- A DRAM command log that could not be written whole (a full disk): its close went unchecked,
# --- so the timing checker read the short log as the run's. A file size limit stands in for the
# --- full disk (SIGXFSZ ignored: the write fails with EFBIG, as one fails with ENOSPC). The run
# --- is an internal error with the system's reason, as a stats.json that cannot be written is,
# --- and the earlier run's files stay as they were.
python3 -c 'print("\n".join("LD 0x%x" % (i * 65536) for i in range(2000)))' >"$WORK/rows.ram"
full_args=(run "${DRAM[@]}" --trace "$WORK/rows.ram" --trace-format ramulator --dram-log
  --out "$WORK/full")
run_famsim full_first "${full_args[@]}"
expect_rc 0 "the earlier run with a DRAM command log"
before=$(cat "$WORK/full/stats.json")
[ "$(wc -c <"$WORK/full/dram/memory.ch0.csv")" -gt 65536 ] ||
  fail "the DRAM command log is too short to pass the file size limit"
run_tool full_second bash -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' _ "$FAMSIM" "${full_args[@]}" \
  --seed 2
expect_rc 1 "a DRAM command log that could not be written whole"
expect_in_output "famsim: internal error: cannot write DRAM command log $WORK/full/.famsim-staging/dram/memory.ch0.csv: File too large" \
  "the log and the system's reason"
[ "$(cat "$WORK/full/stats.json")" = "$before" ] || fail "the earlier stats.json was changed"
[ "$(wc -c <"$WORK/full/dram/memory.ch0.csv")" -gt 65536 ] || fail "the earlier DRAM log was changed"
[ ! -e "$WORK/full/.famsim-staging" ] || fail "the failed run left its staging directory"
pass "a DRAM command log that could not be written whole is an error; the earlier run stays"

# --- An earlier run's file in --out that this user cannot remove (a plots/ folder another user
# --- made): publish() removed stats.json and its neighbours, then stopped at plots/ with an
# --- internal error after the whole run, losing the earlier results and this run's. Now bad input
# --- before anything runs, the earlier run's files left as they were. Root removes anything, so
# --- under root the run is made as nobody (setpriv), with plots/ root's.
printf 'LD 0x40\nST 0x80\n' >"$WORK/keep.ram"
keep_args=(run "${DRAM[@]}" --trace "$WORK/keep.ram" --trace-format ramulator
  --out "$WORK/keep")
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  # nobody must also reach the executable and the platform file: a checkout inside a directory
  # only root may enter (a clone straight into `mktemp -d`, mode 700) leaves it neither.
  if command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$FAMSIM" -a -r "${DRAM[1]}"; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  chmod 755 "$WORK"
  mkdir "$WORK/keep"
  [ ${#as_user[@]} -eq 0 ] || chown 65534:65534 "$WORK/keep"
  run_tool keep_first "${as_user[@]}" "$FAMSIM" "${keep_args[@]}"
  expect_rc 0 "the earlier run into the directory"
  before=$(cat "$WORK/keep/stats.json")
  mkdir "$WORK/keep/plots"
  touch "$WORK/keep/plots/bandwidth.png"
  [ ${#as_user[@]} -gt 0 ] || chmod 555 "$WORK/keep/plots"
  run_tool keep_second "${as_user[@]}" "$FAMSIM" "${keep_args[@]}" --seed 2
  [ ${#as_user[@]} -gt 0 ] || chmod 755 "$WORK/keep/plots"
  expect_rc 2 "--out holding an earlier run's plots/ this user cannot remove"
  expect_in_output "famsim: error: --out $WORK/keep: cannot remove $WORK/keep/plots: Permission denied; " \
    "the folder in the way and why"
  expect_in_output "a completed run replaces the earlier run's 'plots' there" "what it is for"
  [ "$(cat "$WORK/keep/stats.json")" = "$before" ] || fail "the earlier stats.json was changed"
  for f in config.yaml timeseries.csv timeline.json plots/bandwidth.png; do
    [ -e "$WORK/keep/$f" ] || fail "the earlier run's $f was removed"
  done
  [ ! -e "$WORK/keep/.famsim-staging" ] || fail "the refused run left its staging directory"
  pass "an earlier run's file this user cannot remove is bad input before the run"
else
  echo "skip: an unremovable earlier file in --out (root without setpriv, or a checkout nobody" \
    "may enter)"
fi

echo "cli.input_errors: all checks passed"
