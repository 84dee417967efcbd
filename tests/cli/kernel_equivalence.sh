#!/usr/bin/env bash
# The two simulation kernels (sim.kernel: famsim, the decoupled timing wheel; systemc, one
# SC_METHOD per block) must give identical results: same stats.json apart from host-time fields
# and the kernel setting itself. Run on the switched reference platform and on a write-then-verify
# workload, so every block and both directions are exercised.
#   tests/cli/kernel_equivalence.sh path/to/famsim
set -euo pipefail
famsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

compare() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def strip(d, path=""):
    if isinstance(d, dict):
        return {k: strip(v, path + "." + k) for k, v in d.items()
                if k not in ("host_seconds", "requests_per_host_second", "peak_rss_mib")
                and path + "." + k != ".config.sim"}
    if isinstance(d, list):
        return [strip(v, path) for v in d
                if not (path == ".config_changes.changes" and v.get("key") == "sim.kernel")]
    return d
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for k in a:
        if a.get(k) != b.get(k):
            print("differs in", k)
    sys.exit(1)
PY
}

run() {  # name, then famsim run arguments
  local name=$1
  shift
  for k in famsim systemc; do
    "$famsim" run "$@" --set sim.kernel=$k --out "$tmp/$name-$k" >/dev/null
  done
  compare "$tmp/$name-famsim/stats.json" "$tmp/$name-systemc/stats.json" ||
    { echo "FAIL: kernels differ on $name"; exit 1; }
  echo "ok: $name"
}

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
