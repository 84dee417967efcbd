#!/usr/bin/env bash
# Compares the speed of two famsim executables on `famsim bench` by running them at the same time,
# one on each of two cores, so that both meet the same host (its other tenants' load on the shared
# last-level cache and memory, which moves a run's time by up to 30 % on a virtual machine):
#   tests/bench/ab_pair.sh BEFORE AFTER [PAIRS [CORE CORE]] [-- BENCH ARGS...]
# Each pair runs BEFORE on one core and AFTER on the other (taskset), the cores swapped from pair
# to pair (default 16 pairs on cores 0 and 1). Prints the median and mean of the pairs' ratios
# AFTER / BEFORE of the bench's own `simulation_seconds`, their spread, and each executable's mean.
# An executable against itself gave a median of 0.996 and a mean of 0.998 over 16 pairs of the
# full bench (2026-12-07), where single pairs ranged over 0.93-1.06: trust a change of about 2 % or
# more. The two runs share the last-level cache and the memory bandwidth, so a change that trades
# memory traffic for waiting (a prefetch) may gain less here than alone: the same two executables
# gave -2.0 and -2.9 % here (mean, median) and -7.7 % in ab_speed.sh. Needs two idle cores; with
# fewer, use ab_speed.sh.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
before=$1
after=$2
shift 2
pairs=16
cores=(0 1)
if [[ $# -gt 0 && $1 != -- ]]; then pairs=$1; shift; fi
if [[ $# -gt 1 && $1 != -- ]]; then cores=("$1" "$2"); shift 2; fi
[[ $# -gt 0 && $1 == -- ]] && shift
bench_args=("$@")
if ! [[ $pairs =~ ^[1-9][0-9]*$ ]]; then
  echo "ab_pair.sh: PAIRS must be a positive number" >&2
  exit 2
fi
for exe in "$before" "$after"; do
  [[ -x $exe ]] || { echo "ab_pair.sh: $exe is not an executable" >&2; exit 2; }
done
command -v taskset >/dev/null || { echo "ab_pair.sh: needs taskset (util-linux)" >&2; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
seconds() {
  local s
  s=$(grep -o '"simulation_seconds":[0-9.e+-]*' "$1" | cut -d: -f2)
  [[ -n $s ]] || { echo "ab_pair.sh: $2 bench gave no figures" >&2; exit 1; }
  echo "$s"
}
for ((i = 0; i < pairs; ++i)); do
  a=${cores[i % 2]}
  b=${cores[1 - i % 2]}
  taskset -c "$a" "$before" bench "${bench_args[@]}" >"$dir/a.json" &
  pid_a=$!
  taskset -c "$b" "$after" bench "${bench_args[@]}" >"$dir/b.json" &
  pid_b=$!
  wait "$pid_a" "$pid_b"
  sa=$(seconds "$dir/a.json" "$before")
  sb=$(seconds "$dir/b.json" "$after")
  echo "$sa $sb" >>"$dir/pairs"
done
awk '{ print $2 / $1, $1, $2 }' "$dir/pairs" | sort -g | awk -v before="$before" -v after="$after" '
  { r[NR] = $1; sum += $1; a += $2; b += $3 }
  END {
    median = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
    printf "A %s: mean simulation %.3f s\nB %s: mean simulation %.3f s\n", before, a / NR, after, b / NR
    printf "B / A over %d pairs: median %.4f, mean %.4f, range %.4f-%.4f (B against A: %+.1f %% by the median)\n",
           NR, median, sum / NR, r[1], r[NR], 100 * (median - 1)
  }'
