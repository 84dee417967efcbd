#!/usr/bin/env bash
# Simulation speed, measured here and never asserted in tests. Prints one JSON line per run.
#  1. The reference load: nvl8_fam under saturating random reads (every GPU keeps 512 requests in
#     flight), with both kernels.
#     The same load with the device's memory ideal (devices.0.memory.model=ideal: the DDR5 bus
#     and tRCD + CL, no bank state; the skeleton issue's first-cut memory controller): the fabric
#     and the device's front end alone, the DRAM model's share of the time being the difference.
#     The same load with 30 % writes (read_fraction 0.7): the write path and the backing store,
#     whose memory grows with the pages writes touch (4 KiB pages took 1.3 GiB here, 256-byte
#     ones 164 MiB).
#  2. DRAM alone: 5-million-request random and sequential traces (reads:writes 8:2, Ramulator 2
#     format) replayed on one DDR4-3200 channel (platforms/dram_ddr4.yaml).
#  3. The yardstick: a bare SystemC AT hop (tests/bench/sc_hop_bench.cpp, no famsim code) with as
#     many requests in flight as the reference load and with one, when build/tests/sc_hop_bench
#     has been built (cmake --build build --target sc_hop_bench).
#   tests/bench/run_bench.sh [famsim-executable] [extra famsim bench arguments...]
#   FAMSIM_BENCH_DRAM_REQUESTS=N changes the trace length (default 5000000).
set -euo pipefail
cd "$(dirname "$0")/../.."
exe=${1:-build/famsim}
shift || true
for kernel in famsim systemc; do
  "$exe" bench --set sim.kernel=$kernel "$@"
done
"$exe" bench --set devices.0.memory.model=ideal "$@"
"$exe" bench --set workload.streams.0.read_fraction=0.7 "$@"

n=${FAMSIM_BENCH_DRAM_REQUESTS:-5000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for pattern in random sequential; do
  python3 scripts/make_trace.py --format ramulator --pattern "$pattern" --requests "$n" \
    --read-fraction 0.8 --address-bytes 8GiB --seed 1 -o "$work/$pattern.trace"
  "$exe" run --platform platforms/dram_ddr4.yaml --trace "$work/$pattern.trace" \
    --trace-format ramulator --out "$work/out-$pattern" > /dev/null
  python3 - "$work/out-$pattern/stats.json" "$pattern" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sim"]
print(json.dumps({"platform": s["platform"], "trace": sys.argv[2] + " 8:2",
                  "requests": s["requests_completed"], "host_seconds": s["host_seconds"],
                  "requests_per_host_second": s["requests_per_host_second"],
                  "peak_rss_mib": s["peak_rss_mib"],
                  "bandwidth_gbps": d["summary"]["bandwidth_gbps"]}))
PY
done

if [[ -x build/tests/sc_hop_bench ]]; then
  for in_flight in 4096 1; do
    build/tests/sc_hop_bench 12 "$in_flight" 2> /dev/null | grep '^{'
  done
fi
