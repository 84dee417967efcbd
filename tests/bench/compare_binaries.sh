#!/usr/bin/env bash
# Checks that a change meant only for speed changes no result: runs the same configurations with
# two famsim executables and compares, byte for byte, stats.json (host-time fields left out), the
# DRAM command logs and the transaction logs. Prints one line per configuration; exits 1 if any
# differs. Not part of the test suite (it needs the earlier executable); run it before committing
# a speed change, e.g.
#   git stash; cmake --build build --target famsim; cp build/famsim /tmp/famsim.before; git stash pop
#   cmake --build build --target famsim; tests/bench/compare_binaries.sh /tmp/famsim.before build/famsim
# The configurations cover every block and policy a speed change is likely to touch: the switch
# and device crossbars under each queueing, arbitration and forwarding choice, links with flit
# errors and starved credits, peer traffic, the mesh NoC, the leaf-spine pod, an AI workload,
# mixed reads and writes under narrow phase windows, fetch-add atomics, a run cut off mid-traffic,
# and standalone DRAM channels on random and sequential traces under each scheduler, page policy,
# refresh mode and write answer (posted or on completion).
#
# With --kernels, one executable's two simulation kernels are compared instead (famsim against
# systemc): they run the events of one instant in different orders, so this finds any result that
# depends on that order (tests/cli/kernel_equivalence.sh checks a few of these configurations):
#   tests/bench/compare_binaries.sh --kernels build/famsim
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $1 == --kernels ]]; then
  before=$2
  after=$2
  before_args=(--set sim.kernel=famsim)
  after_args=(--set sim.kernel=systemc)
else
  before=$1
  after=$2
  before_args=()
  after_args=()
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/famsim-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 scripts/make_trace.py --format ramulator --pattern random --requests 200000 \
  --read-fraction 0.8 --address-bytes 8GiB --seed 1 -o "$work/random.trace"
# Fetch-adds: in the DRAM controller an atomic is a read and a write-back.
cat > "$work/atomics.yaml" <<'YAML'
name: atomics
streams:
  - name: fetch_add
    gpus: all
    buffer: {bytes: 1GiB, location: device/fam0}
    pattern: uniform_random
    access_bytes: 8
    atomic: {op: fetch_add}
    total_bytes: 64KiB
    max_outstanding: 64
YAML
python3 scripts/make_trace.py --format ramulator --pattern sequential --requests 200000 \
  --read-fraction 0.8 --address-bytes 8GiB --seed 1 -o "$work/sequential.trace"

N=platforms/nvl8_fam.yaml
S="--set workload.streams.0.total_bytes=1MiB"
cases=(
  "nvl8_read|--platform $N $S"
  "nvl8_write_verify|--platform $N --workload traffic/write_then_verify.yaml"
  "peer|--platform $N --workload traffic/peer_read.yaml --set workload.streams.0.total_bytes=512KiB"
  "voq|--platform $N $S --set switch.input_queues=voq --set devices.0.noc.input_queues=voq"
  "islip|--platform $N $S --set switch.arbiter=islip --set devices.0.noc.input_queues=voq --set devices.0.noc.arbiter=islip"
  "oldest_first|--platform $N $S --set switch.arbiter=oldest_first --set devices.0.noc.arbiter=oldest_first"
  "cut_through|--platform $N $S --set switch.forwarding=cut_through"
  "flit_errors|--platform $N $S --set links.gpu_switch.flit_error_rate=1e-3 --set links.gpu_switch.replay_buffer_flits=8"
  "credits|--platform $N $S --set links.switch_device.response_vc_credits=18 --set links.switch_device.credit_return_ns=200"
  "minimal|--platform platforms/minimal.yaml"
  "mesh|--platform platforms/fam_mesh.yaml --set workload.streams.0.total_bytes=256KiB"
  "pod|--platform platforms/ualink_pod64.yaml --workload traffic/pod_random_read.yaml --set workload.streams.0.total_bytes=64KiB"
  "mixed_phases|--platform $N $S --set workload.streams.0.read_fraction=0.7 --set sim.phase_window_ns=200"
  "atomics|--platform $N --workload $work/atomics.yaml"
  "nvl8_cut|--platform $N $S --set sim.max_time_ns=3000.1"
  "kv_decode|--platform $N --workload traffic/kv_decode_llama70b.yaml --set sim.max_time_ns=200000"
  "ddr4_random|--platform platforms/dram_ddr4.yaml --trace $work/random.trace --trace-format ramulator"
  "ddr4_sequential|--platform platforms/dram_ddr4.yaml --trace $work/sequential.trace --trace-format ramulator"
  "hbm3_random|--platform platforms/dram_hbm3.yaml --trace $work/random.trace --trace-format ramulator"
  "ddr4_on_completion|--platform platforms/dram_ddr4.yaml --trace $work/random.trace --trace-format ramulator --set memory.controller.write_response=on_completion"
  "ddr4_fcfs|--platform platforms/dram_ddr4.yaml --trace $work/random.trace --trace-format ramulator --set memory.controller.scheduler=fcfs"
  "ddr4_closed_page|--platform platforms/dram_ddr4.yaml --trace $work/sequential.trace --trace-format ramulator --set memory.controller.page_policy=closed"
  "ddr4_timeout_page|--platform platforms/dram_ddr4.yaml --trace $work/random.trace --trace-format ramulator --set memory.controller.page_policy=timeout"
  "ddr5_per_bank_refresh|--platform platforms/dram_ddr5.yaml --trace $work/random.trace --trace-format ramulator --set memory.controller.refresh=per_bank"
  "lpddr5x_per_bank_refresh|--platform platforms/dram_lpddr5x.yaml --trace $work/random.trace --trace-format ramulator --set memory.controller.refresh=per_bank"
)

fail=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<< "${c#*|}"
  for side in before after; do
    rc=0
    side_args="${side}_args[@]"
    "${!side}" run "${args[@]}" "${!side_args}" --dram-log --txn-log --out "$work/$name-$side" \
      > "$work/$name-$side.log" 2>&1 || rc=$?
    echo "$rc" > "$work/$name-$side.rc"
  done
  verdict=same
  cmp -s "$work/$name-before.rc" "$work/$name-after.rc" || verdict="exit codes differ"
  if [[ $verdict == same ]]; then
    verdict=$(python3 tests/support/same_run.py "$work/$name-before" "$work/$name-after") ||
      true
    [[ -n $verdict ]] || verdict=same
  fi
  echo "$name: $verdict"
  [[ $verdict == same ]] || fail=1
done
exit $fail
