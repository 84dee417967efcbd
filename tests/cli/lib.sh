# Helpers shared by the command-line tests (sourced): argument check, a scratch directory and the
# run/expect functions. The sourcing script sets CLI_TEST_NAME first, and CLI_TEST_NO_FAMSIM=1
# when it tests a script and takes no famsim argument.
#   run_famsim NAME ARGS...  runs famsim; output (stdout and stderr) in $WORK/NAME.log and $OUT,
#                            exit code in $RC; under `timeout $CLI_TIMEOUT_S` when that is set
#                            (exit code 124 when it runs out), for input that once hung famsim
#   run_tool NAME TOOL ARGS...  the same for any other program (a script under scripts/)
#   expect_rc WANT WHAT      expect_in_output TEXT WHAT      pass WHAT      fail WHAT
#   expect_exit2 NAME WHAT NEEDLE... -- ARGS...  run_famsim ARGS exits 2 naming every NEEDLE
#   expect_bad_dir NAME DIR TEXT KEEP...  the last run_tool exited 2 with one line naming TEXT
#                            and left nothing in DIR but the files named KEEP
if [ "${CLI_TEST_NO_FAMSIM:-0}" != 1 ]; then
  if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 path/to/famsim (run from the repository root)" >&2
    exit 2
  fi
  FAMSIM=$1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/famsim-${CLI_TEST_NAME:-cli}.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
pass() { echo "ok: $*"; }

run_famsim() {
  local name=$1
  shift
  ${CLI_TIMEOUT_S:+timeout "$CLI_TIMEOUT_S"} "$FAMSIM" "$@" >"$WORK/$name.log" 2>&1
  RC=$?
  OUT=$(cat "$WORK/$name.log")
}

expect_rc() {  # expect_rc WANT WHAT
  [ "$RC" -eq "$1" ] || fail "$2: exit code $RC, expected $1. Output:
$OUT"
}

expect_in_output() {  # expect_in_output TEXT WHAT
  case "$OUT" in
    *"$1"*) ;;
    *) fail "$2: the output does not contain '$1'. Output:
$OUT" ;;
  esac
}

run_tool() {  # run_tool NAME TOOL ARGS...
  local name=$1
  shift
  RC=0
  "$@" >"$WORK/$name.log" 2>&1 || RC=$?
  OUT=$(cat "$WORK/$name.log")
}

expect_bad_dir() {  # expect_bad_dir NAME DIR TEXT KEEP...
  local name=$1 dir=$2 text=$3
  shift 3
  [ "$RC" -eq 2 ] || fail "$name: exit code $RC, expected 2. Output:
$OUT"
  case "$OUT" in
    *"$text"*) ;;
    *) fail "$name: the message does not name '$text': $OUT" ;;
  esac
  [ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "$name: more than one line: $OUT"
  if [ -e "$dir" ]; then
    local keep=() k left
    for k in "$@"; do keep+=(! -name "$k"); done
    left=$(find "$dir" -mindepth 1 "${keep[@]}")
    [ -z "$left" ] || fail "$name: left behind: $left"
  fi
}

# expect_exit2 NAME WHAT NEEDLE... -- FAMSIM_ARGS...: runs famsim with FAMSIM_ARGS and expects exit
# code 2 and every NEEDLE in its output.
expect_exit2() {
  local name=$1 what=$2
  shift 2
  local needles=()
  while [ "$1" != "--" ]; do
    needles+=("$1")
    shift
  done
  shift
  run_famsim "$name" "$@"
  expect_rc 2 "$what"
  for n in "${needles[@]}"; do expect_in_output "$n" "$what"; done
}
