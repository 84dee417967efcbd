# Helpers shared by the command-line tests (sourced): argument check, a scratch directory and the
# run/expect functions. The sourcing script sets CLI_TEST_NAME first.
#   run_famsim NAME ARGS...  runs famsim; output (stdout and stderr) in $WORK/NAME.log and $OUT,
#                            exit code in $RC
#   expect_rc WANT WHAT      expect_in_output TEXT WHAT      pass WHAT      fail WHAT
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 path/to/famsim (run from the repository root)" >&2
  exit 2
fi
FAMSIM=$1

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
  "$FAMSIM" "$@" >"$WORK/$name.log" 2>&1
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
