#!/usr/bin/env bash
# The mesh NoC from the command line: the fam_mesh preset validates (printing the mesh shape) and
# runs with every request accounted for; the same mesh can replace nvl8_fam's crossbar by one
# --set; bad mesh keys are rejected with exit 2 naming the key.
# Run from the repository root (ctest does): bash tests/cli/mesh_cli_test.sh path/to/famsim
set -u

CLI_TEST_NAME=cli-mesh
source "$(dirname "$0")/lib.sh"
PLATFORM=platforms/fam_mesh.yaml
[ -f "$PLATFORM" ] || { echo "FAIL: run from the repository root ($PLATFORM not found)" >&2; exit 2; }

# --- validate prints the mesh. ------------------------------------------------------------------
run_famsim validate validate --platform "$PLATFORM"
expect_rc 0 "famsim validate on $PLATFORM"
expect_in_output "noc: mesh 4 x 4 (16 routers, 48 directed links per network" "validate prints the mesh shape"
expect_in_output "uniform XY traffic (every node to every node) saturates at 1.000 flits/cycle per node" "validate prints the 4b/k bound (4 x 1 / 4)"
expect_in_output "fabric ports at [0,0] [0,0] [0,1] [0,1] [0,2] [0,2] [0,3] [0,3]" "validate prints the port placement"
pass "validate prints the mesh shape, its bound and the placement"

# 1 VC of 3 flits: a 128 B read response is 1 + 128 / 64 = 3 flits, sent at E, competing at the
# next router from E + 1 link + 2 router cycles, gone from its buffer 2 cycles after that grant,
# credits back 1 cycle later: E + 6. One packet per VC per 6 cycles: 3 / 6 = 0.50 flits per cycle.
# The preset's 4 x 8-flit VCs hold 4 x 2 packets per round trip (24 flits in 6 cycles): no cap.
if grep -q "short of the credit round trip" "$WORK/validate.log"; then
  fail "validate reports a credit-round-trip cap on the preset's 4 x 8-flit VCs"
fi
run_famsim validate_cap validate --platform "$PLATFORM" --set devices.0.noc.vcs=1 \
  --set devices.0.noc.vc_buffer_flits=3
expect_rc 0 "famsim validate with 1 x 3-flit VCs"
expect_in_output "a 3-flit packet (128 B of data) has its credits back 6 cycles after it is sent, so 1 x 3-flit VCs carry at most 0.50 flits per cycle per link" \
  "validate prints the cap of VC buffers short of the credit round trip"
pass "validate prints the credit-round-trip cap (0.50 flits/cycle) only where the buffers are short"

# The placement's own bound: the ports sit two to a node down the west column, a controller on
# each node. Responses go west along a row, then along column 0: [0,1]->[0,2] carries rows 0-1's 8
# controllers to rows 2-3's 4 ports, 32 of the 128 port-controller pairs. With 16 B links a 128 B
# read response is 1 + 8 = 9 flits, and a link sends one flit per cycle at 1499.25 MHz (667 ps):
# at most 128 B x 1.49925 GHz / 9 / 0.25 = 85.29 GB/s of read data, a quarter of the 1.000
# flits/cycle per node of uniform traffic (a results audit measured a bound of 84.9 GB/s).
run_famsim validate_placement validate --platform "$PLATFORM" --set devices.0.noc.link_bytes=16 \
  --set devices.0.noc.vc_buffer_flits=18
expect_rc 0 "famsim validate with 16 B mesh links"
expect_in_output "the busiest response link [0,1]->[0,2] carries 0.250 of the responses, so the mesh returns at most 85.29 GB/s of read data" \
  "validate prints the placement's bound"
pass "validate prints the bound of the device's own placement"

# --- A run through the mesh: every request counted. -------------------------------------------
# 8 GPUs each read 256 KiB in 128 B requests: 8 x 2048 = 16384 requests, 8 x 256 KiB = 2 MiB of
# read data, and each request crosses the mesh once as a request and once as a response.
check_run() {  # check_run STATS WHAT
  python3 - "$1" <<'PY' || fail "$2: see above"
import json, sys
s = json.load(open(sys.argv[1]))
def want(what, got, expected):
    if got != expected:
        sys.exit(f"{what} is {got!r}, expected {expected!r}")
want("conservation.ok", s["conservation"]["ok"], True)
want("sim.requests_completed", s["sim"]["requests_completed"], 16384)
want("summary.read_bytes", s["summary"]["read_bytes"], 2097152)
noc = s["components"]["fam0.noc"]
want("fam0.noc requests", noc["requests"], 16384)
want("fam0.noc responses", noc["responses"], 16384)
want("fam0.noc bytes", noc["bytes"], 2097152.0)
want("fam0.noc dims", noc["dims"], [4, 4])
for k in ("utilization", "backpressure_ns", "busiest_link", "links", "router_stall_ns"):
    if k not in noc:
        sys.exit(f"fam0.noc has no {k}")
PY
}
run_famsim run run --platform "$PLATFORM" --set workload.streams.0.total_bytes=256KiB --out "$WORK/run"
expect_rc 0 "famsim run on $PLATFORM"
check_run "$WORK/run/stats.json" "fam_mesh run"
pass "fam_mesh run: 16384 requests through the mesh, conservation ok"

# The same mesh in nvl8_fam, by one override of the whole noc map.
run_famsim override run --platform platforms/nvl8_fam.yaml --out "$WORK/override" \
  --set 'devices.0.noc={kind: mesh, dims: [4, 4], clock_mhz: 1500, router_cycles: 2, link_bytes: 64}' \
  --set workload.streams.0.total_bytes=256KiB
expect_rc 0 "nvl8_fam with its noc replaced by a mesh"
check_run "$WORK/override/stats.json" "nvl8_fam with a mesh"
pass "nvl8_fam with --set devices.0.noc={kind: mesh, ...} runs through the mesh"

# --- Bad mesh keys: exit 2, the key named. ----------------------------------------------------
bad() {  # bad NAME WHAT NEEDLE SET
  run_famsim "$1" validate --platform "$PLATFORM" --set "$4"
  expect_rc 2 "$2"
  expect_in_output "$3" "$2"
  pass "$2"
}
bad zero_dim "a zero mesh dimension" "devices.0.noc.dims" "devices.0.noc.dims=[0,4]"
bad one_dim "dims with one entry" "devices.0.noc.dims: expected [cols, rows]" "devices.0.noc.dims=[4]"
# The entry the --set wrote is named with the --set, not the file's line of the list.
bad outside "a port outside the mesh" \
  "famsim: error: --set devices.0.noc.port_nodes.3=[4,0]: devices.0.noc.port_nodes.3: port_nodes entry 3 [4, 0] is outside" \
  "devices.0.noc.port_nodes.3=[4,0]"
bad count "a placement list of the wrong length" "devices.0.noc.port_nodes: expected 8 entries" \
  "devices.0.noc.port_nodes=[[0,0]]"
bad pair "a coordinate without y" "devices.0.noc.controller_nodes" "devices.0.noc.controller_nodes.0=[1]"
bad small_vc "a VC buffer smaller than a packet" "devices.0.noc.vc_buffer_flits: expected at least 3 flits" \
  "devices.0.noc.vc_buffer_flits=2"
bad crossbar_key "a crossbar key on a mesh" "unknown key 'devices.0.noc.pipeline_cycles'" \
  "devices.0.noc.pipeline_cycles=4"
bad router0 "router_cycles 0" "devices.0.noc.router_cycles" "devices.0.noc.router_cycles=0"
# The same entry written in the file: the file, the line and the entry.
line=$(grep -n 'port_nodes: \[\[0, 0\], \[0, 0\], \[0, 1\], \[0, 1\]' "$PLATFORM" | cut -d: -f1)
sed 's/port_nodes: \[\[0, 0\], \[0, 0\], \[0, 1\], \[0, 1\]/port_nodes: [[0, 0], [0, 0], [0, 1], [4, 1]/' \
  "$PLATFORM" >"$WORK/outside.yaml"
run_famsim file validate --platform "$WORK/outside.yaml"
expect_rc 2 "a port outside the mesh in the file"
expect_in_output "famsim: error: $WORK/outside.yaml:$line: devices.0.noc.port_nodes.3: port_nodes entry 3 [4, 1] is outside" \
  "a port outside the mesh in the file"
pass "the error names the file, the line and the entry"
echo "mesh cli: all passed"
