#!/usr/bin/env bash
# The two simulation kernels (sim.kernel: famsim, the decoupled timing wheel; systemc, one
# SC_METHOD per block) must give identical results: same stats.json apart from host-time fields
# and the kernel setting itself, and the same transaction log and DRAM command logs byte for byte.
# The kernels run the events of one instant in different orders, so this is the check that no
# block's result depends on that order. Run under load on every platform kind (switched, direct,
# mesh, leaf/spine pod, standalone DRAM) and both directions, so buffers fill and hand-shakes
# coincide with clock edges.
#   tests/cli/kernel_equivalence.sh path/to/famsim
set -euo pipefail
famsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

compare() {  # two run directories: nothing printed when they hold the same results
  python3 tests/support/same_run.py "$1" "$2"
}

run() {  # name, then famsim run arguments
  local name=$1
  shift
  for k in famsim systemc; do
    "$famsim" run "$@" --txn-data --dram-log --set sim.kernel=$k --out "$tmp/$name-$k" >/dev/null
  done
  compare "$tmp/$name-famsim" "$tmp/$name-systemc" ||
    { echo "FAIL: kernels differ on $name"; exit 1; }
  echo "ok: $name"
}

# The comparison itself sees a difference: two seeds give different results.
"$famsim" run --seed 1 --set workload.streams.0.total_bytes=64KiB --out "$tmp/seed1" >/dev/null
"$famsim" run --seed 2 --set workload.streams.0.total_bytes=64KiB --out "$tmp/seed2" >/dev/null
if compare "$tmp/seed1" "$tmp/seed2" >/dev/null; then
  echo "FAIL: the comparison finds no difference between two seeds"
  exit 1
fi
echo "ok: the comparison tells two seeds apart"

run nvl8_random_read --seed 3 --set workload.streams.0.total_bytes=256KiB
run minimal_write_verify --platform platforms/minimal.yaml --workload traffic/write_then_verify.yaml
# Clock edges that coincide and one-entry buffers: backpressure hand-shakes at the same instant as
# issue decisions (the case where a missed GPU wake-up once showed up as a difference).
run coinciding_edges --platform platforms/minimal.yaml --workload traffic/write_then_verify.yaml \
  --set links.gpu_device.lane_gbps=64 --set links.gpu_device.encoding_efficiency=1 \
  --set gpus.clock_mhz=1000 --set links.gpu_device.tx_queue_entries=1 --set gpus.issue_width=4 \
  --set devices.0.noc.input_buffer=1 --set devices.0.noc.output_buffer=1 \
  --set devices.0.port_logic.tags_per_port=2
run fam_mesh_mixed --platform platforms/fam_mesh.yaml --seed 4 \
  --set workload.streams.0.total_bytes=128KiB --set workload.streams.0.read_fraction=0.5 \
  --set devices.0.noc.vcs=1 --set devices.0.noc.vc_buffer_flits=3
run truncated --seed 5 --set sim.max_time_ns=3000
# Peer traffic: GPU 0 reads GPU 1's HBM through the switch and GPU 1's memory hub.
run nvl8_peer_read --seed 3 --workload traffic/peer_read.yaml \
  --set workload.streams.0.total_bytes=256KiB
# Pod leaf/spine switches (VOQ + iSLIP, cut-through), one plane: a link takes a message back
# (END_REQ / END_RESP) exactly on a switch edge, at the same instant as the switch's own wake-up.
# The switch once woke a second time at such an edge and matched again (an input sending twice
# at one edge), so its grants depended on which of the two ran first.
run pod_one_plane --platform platforms/ualink_pod64.yaml --workload traffic/pod_random_read.yaml \
  --set switch.planes=1 --set links.gpu_switch.per_gpu=1 \
  --set workload.streams.0.total_bytes=128KiB --set workload.streams.1.total_bytes=128KiB \
  --set workload.streams.2.total_bytes=128KiB --set workload.streams.3.total_bytes=128KiB
# Under saturation (8 GPUs, 512 requests in flight each): many requests complete at the same
# picosecond, so the transaction log's order within an instant is exercised, and DRAM queues
# reach their maximum at instants where a burst also leaves.
run nvl8_write_verify --workload traffic/write_then_verify.yaml \
  --set workload.streams.0.buffer.bytes=1MiB
# The mesh with its default buffers: injection channels fill, and controllers take messages back
# on mesh edges.
run fam_mesh_loaded --platform platforms/fam_mesh.yaml --set workload.streams.0.total_bytes=256KiB
# Four planes of leaf/spine switches with FIFO inputs: head-of-line blocking is counted at edges
# where messages also arrive.
run pod_four_planes --platform platforms/ualink_pod64.yaml --workload traffic/pod_random_read.yaml \
  --set workload.streams.0.total_bytes=64KiB --set workload.streams.1.total_bytes=64KiB \
  --set workload.streams.2.total_bytes=64KiB --set workload.streams.3.total_bytes=64KiB
# The per-phase analysis samples at window boundaries: a run cut off exactly at a boundary (32
# windows of 5 us: the window doubles there), and an idle gap (link credits back but not yet
# collected), cut off in the gap.
run cut_at_a_boundary --platform platforms/minimal.yaml --workload traffic/write_then_verify.yaml \
  --set sim.max_time_ns=160000
run idle_gap_cut --platform platforms/minimal.yaml --workload tests/cli/data/idle_gap.yaml \
  --set sim.max_time_ns=300000
run idle_gap --platform platforms/minimal.yaml --workload tests/cli/data/idle_gap.yaml
# An AI workload with local HBM and compute gaps, cut at a time limit.
run kv_decode --workload traffic/kv_decode_llama70b.yaml --set sim.max_time_ns=100000
# A standalone DDR4 channel on a random trace (reads and writes, posted writes).
python3 scripts/make_trace.py --format ramulator --pattern random --requests 50000 \
  --read-fraction 0.8 --address-bytes 8GiB --seed 1 -o "$tmp/random.trace" >/dev/null
run ddr4_random_trace --platform platforms/dram_ddr4.yaml --trace "$tmp/random.trace" \
  --trace-format ramulator
# Clocks that line up: DDR4-3200 (tCK 625 ps) behind a NoC at 1600 MHz, so the controllers'
# cycles fall on NoC edges. With small DRAM queues and half writes, a posted write is accepted at
# the instant a read finishes (both answers leave at once: the read goes first in either order of
# events), and the mesh's injection channels fill and are offered room at edges where they grant.
ALIGNED="--set devices.0.capacity_gib=256 --set devices.0.memory.preset=ddr4_3200
  --set devices.0.noc.clock_mhz=1600 --set workload.streams.0.total_bytes=256KiB"
# shellcheck disable=SC2086
run nvl8_aligned_clocks_small_queues $ALIGNED --set devices.0.memory.controller.read_queue=8 \
  --set devices.0.memory.controller.write_queue=8 --set workload.streams.0.read_fraction=0.5
# shellcheck disable=SC2086
run fam_mesh_aligned_clocks --platform platforms/fam_mesh.yaml $ALIGNED
