#!/usr/bin/env bash
# Simulation speed on the reference load: nvl8_fam under saturating random reads (every GPU keeps
# 512 requests in flight), with both kernels. Prints one JSON line per run. Speed is measured
# here, never asserted in tests.
#   tests/bench/run_bench.sh [famsim-executable] [extra famsim bench arguments...]
set -euo pipefail
cd "$(dirname "$0")/../.."
exe=${1:-build/famsim}
shift || true
for kernel in famsim systemc; do
  "$exe" bench --set sim.kernel=$kernel "$@"
done
