#!/usr/bin/env bash
# Host time of the shipped AI workloads at full size on nvl8_fam (a benchmark: prints, never
# asserts). Usage: scripts/bench_workloads.sh [path/to/famsim]   (run from the repository root)
set -euo pipefail
FAMSIM=${1:-build/famsim}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/famsim-bench-wl.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
printf '%-28s %10s %12s %14s %10s\n' workload host_s requests req_per_s rss_mib
for wl in kv_decode_llama70b prefill_prefix_reuse weight_stream moe_deepseek_v3 mooncake_prefill; do
  "$FAMSIM" run --platform platforms/nvl8_fam.yaml --workload "traffic/$wl.yaml" \
    --out "$OUT/$wl" >/dev/null
  python3 - "$OUT/$wl/stats.json" "$wl" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sim"]
print(f"{sys.argv[2]:<28} {s['host_seconds']:10.2f} {s['requests_completed']:12d} "
      f"{s['requests_per_host_second']:14.0f} {s['peak_rss_mib']:10.0f}")
PY
done
