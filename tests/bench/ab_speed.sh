#!/usr/bin/env bash
# Compares the speed of two famsim executables on `famsim bench`, in a way that the host's drift
# and the first run's costs do not decide:
#   tests/bench/ab_speed.sh BEFORE AFTER [ROUNDS [RUNS]] [-- BENCH ARGS...]
# Each round runs a block of RUNS (default 4) benches with each executable, in the order ABBA
# (BEFORE, AFTER, AFTER, BEFORE), ROUNDS (default 2) times. The first run of every block is left
# out: with famsim's heap on huge pages (sc_main/huge_pages.h), a run right after another
# executable's paid 0.3 s of clearing fresh huge pages that the next runs, reusing the pages the
# one before freed, did not (2026-12-06, on a virtual machine whose host likely takes back free
# memory). Single runs alternated A, B, A, B charged that cost to every run. Wall clock on a
# shared host still varies from block to block: three calls on the same two executables gave
# +4.3 %, -0.7 % and +1.3 % (2026-12-06), so a difference under about 3 % needs several calls.
#
# Prints, per executable, the mean simulation seconds (the bench's own `simulation_seconds`, the
# run without elaboration and teardown), the requests per host second that gives, mean elapsed
# and user seconds (/usr/bin/time), and the blocks' means in order, then AFTER's change.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,16p' "$0" >&2
  exit 2
fi
before=$1
after=$2
shift 2
rounds=2
runs=4
if [[ $# -gt 0 && $1 != -- ]]; then rounds=$1; shift; fi
if [[ $# -gt 0 && $1 != -- ]]; then runs=$1; shift; fi
[[ $# -gt 0 && $1 == -- ]] && shift
bench_args=("$@")
if ! [[ $rounds =~ ^[1-9][0-9]*$ && $runs =~ ^[1-9][0-9]*$ && $runs -ge 2 ]]; then
  echo "ab_speed.sh: ROUNDS must be at least 1 and RUNS at least 2" >&2
  exit 2
fi
for exe in "$before" "$after"; do
  [[ -x $exe ]] || { echo "ab_speed.sh: $exe is not an executable" >&2; exit 2; }
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
block=0
for ((r = 0; r < rounds; ++r)); do
  for which in A B B A; do
    exe=$before
    [[ $which == B ]] && exe=$after
    for ((i = 1; i <= runs; ++i)); do
      out=$( { /usr/bin/time -f '%e %U' "$exe" bench "${bench_args[@]}" >"$log.json"; } 2>&1 )
      sim=$(grep -o '"simulation_seconds":[0-9.e+-]*' "$log.json" | cut -d: -f2)
      requests=$(grep -o '"requests":[0-9]*' "$log.json" | cut -d: -f2)
      [[ -n $sim && -n $requests ]] || { echo "ab_speed.sh: $exe bench gave no figures" >&2; exit 1; }
      echo "$which $block $i $sim $requests ${out##*$'\n'}" >>"$log"
    done
    block=$((block + 1))
  done
done
rm -f "$log.json"
awk -v before="$before" -v after="$after" '
  $3 > 1 {
    n[$1]++; sim[$1] += $4; req[$1] = $5; el[$1] += $6; user[$1] += $7
    bs[$2] += $4; bn[$2]++; bw[$2] = $1
  }
  END {
    for (k = 0; k in bn; ++k) blocks[bw[k]] = blocks[bw[k]] sprintf(" %.3f", bs[k] / bn[k])
    name["A"] = before; name["B"] = after
    for (w = 0; w < 2; ++w) {
      x = w ? "B" : "A"
      printf "%s %s: %d runs, simulation %.3f s (%.0f requests per host second), elapsed %.3f s, user %.3f s; blocks:%s\n",
             x, name[x], n[x], sim[x] / n[x], req[x] / (sim[x] / n[x]), el[x] / n[x], user[x] / n[x], blocks[x]
    }
    printf "B against A: simulation %+.1f %%, elapsed %+.1f %%\n",
           100 * (sim["B"] / n["B"] / (sim["A"] / n["A"]) - 1), 100 * (el["B"] / n["B"] / (el["A"] / n["A"]) - 1)
  }' "$log"
