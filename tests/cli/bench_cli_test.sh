#!/usr/bin/env bash
# famsim bench's --mib-per-gpu on a workload file (--workload F): it sizes F's first stream when
# that is an access pattern, as it does the built-in workload; without it F runs as written.
# (A generator first stream, and a --set of the same size, are refused: cli.input_errors.) Request counts worked out by hand:
# minimal.yaml has 1 GPU splitting accesses into 128 B requests.
#   bench_cli_test.sh path/to/famsim   (from the repository root)
set -u
CLI_TEST_NAME=bench
source "$(dirname "$0")/lib.sh"
[ -f platforms/minimal.yaml ] || { echo "FAIL: run from the repository root" >&2; exit 2; }

# Two streams: the first reads 64 KiB, the second (after it) 32 KiB of the same buffer.
cat >"$WORK/two.yaml" <<'YAML'
name: two_streams
streams:
  - name: first
    buffer: {bytes: 4MiB, location: device/fam0}
    total_bytes: 64KiB
  - name: second
    buffer: {from_stream: first}
    total_bytes: 32KiB
    start_after: [first]
YAML

# json_field KEY: KEY of the JSON object famsim printed (in $OUT), as Python prints it.
json_field() {
  printf '%s\n' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# bench NAME WANT WHAT ARGS...: famsim bench ARGS exits 0 having completed WANT requests.
bench() {
  local name=$1 want=$2 what=$3
  shift 3
  run_famsim "$name" bench --platform platforms/minimal.yaml "$@"
  expect_rc 0 "$what"
  local got
  got=$(json_field requests) ||
    fail "$what: no JSON with requests in: $OUT"
  [ "$got" = "$want" ] || fail "$what: $got requests, expected $want"
  pass "$what: $want requests"
}

# As written: 64 KiB / 128 B + 32 KiB / 128 B = 512 + 256.
bench as_written 768 "--workload F without --mib-per-gpu runs F as written" \
  --workload "$WORK/two.yaml"
# --mib-per-gpu 1 sizes the first stream only: 1 MiB / 128 B + 256 = 8192 + 256.
bench sized 8448 "--mib-per-gpu 1 sizes the workload file's first stream" \
  --workload "$WORK/two.yaml" --mib-per-gpu 1
# --mib-per-gpu on the built-in workload as before: 1 GPU reading 2 MiB in 128 B requests.
bench builtin 16384 "--mib-per-gpu 2 on the platform's default workload" --mib-per-gpu 2

# The JSON names the --set overrides next to the workload's name, in the order given, and none
# when there were none.
bench overridden 8192 "--set read_fraction with --mib-per-gpu 1" --mib-per-gpu 1 \
  --set workload.streams.0.read_fraction=0.7 --set sim.seed=3
got=$(json_field overrides)
[ "$got" = "['workload.streams.0.read_fraction=0.7', 'sim.seed=3']" ] ||
  fail "overrides: got $got"
pass "bench lists its --set overrides"
bench plain 8192 "no --set" --mib-per-gpu 1
got=$(json_field overrides)
[ "$got" = "[]" ] || fail "overrides without --set: got $got"
pass "bench without --set lists no overrides"
# Whether the heap was on huge pages: a boolean, and false when the environment switches it off
# (true depends on the machine and the build: tests/unit/huge_pages_test.cpp checks that).
got=$(json_field heap_huge_pages)
[ "$got" = True ] || [ "$got" = False ] || fail "heap_huge_pages: got '$got', expected a boolean"
export FAMSIM_HUGE_PAGES=0
bench no_huge_pages 8192 "FAMSIM_HUGE_PAGES=0" --mib-per-gpu 1
unset FAMSIM_HUGE_PAGES
got=$(json_field heap_huge_pages)
[ "$got" = False ] || fail "heap_huge_pages with FAMSIM_HUGE_PAGES=0: got '$got', expected False"
pass "bench says whether the heap was on huge pages"
# Any other value than 0 or 1 is refused, naming the variable: exit 2, nothing run.
export FAMSIM_HUGE_PAGES=off
run_famsim bad_huge_pages bench --platform platforms/minimal.yaml --mib-per-gpu 1
unset FAMSIM_HUGE_PAGES
expect_rc 2 "FAMSIM_HUGE_PAGES=off"
case "$OUT" in
  *"FAMSIM_HUGE_PAGES is 'off'"*"expected 0"*) pass "FAMSIM_HUGE_PAGES=off refused by name" ;;
  *) fail "FAMSIM_HUGE_PAGES=off: message does not name the variable and its values: $OUT" ;;
esac

echo "cli.bench: all checks passed"
