#!/usr/bin/env bash
# famsim installed (cmake --install) and used from a user's own sc_main: the installed command runs
# from anywhere, and the installed copy of sc_main/examples/cosim (share/famsim/examples/cosim)
# builds against the installed package alone
# (find_package(famsim), no source tree) and runs. Expected values worked out by hand from the
# examples' arguments and the platforms:
# - device_dma on minimal.yaml (1 fabric port, 2 channels, modulo interleave at 256 B), 8 KiB in
#   128 B requests: 64 write and 64 read requests; the channels move 8 KiB each way, 4 KiB each;
#   every byte read back is the one the engine wrote (its own pattern).
# - foreign_memory on its external_memory.yaml (2 GPUs, each writing 1 MiB then reading it back in
#   128 B requests over 8 channels of MyMemory): 2 x 2 x 8192 = 32768 requests, 4 MiB delivered,
#   4096 requests per channel (the modulo interleave spreads every 2 KiB over the 8). With
#   MyMemory's data bus at 1 GB/s per channel, 8 GB/s in all (the fabric carries over 40), the
#   run moves at most 8 GB/s and, as the memory is then the limit, at least 90 % of it.
#   install_test.sh path/to/famsim   (from the repository root; famsim in its build directory)
set -u
CLI_TEST_NAME=install
source "$(dirname "$0")/lib.sh"
[ -f sc_main/examples/cosim/CMakeLists.txt ] || { echo "FAIL: run from the repository root" >&2; exit 2; }
BUILD=$(cd "$(dirname "$FAMSIM")" && pwd)
PREFIX=$WORK/prefix
SRC=$PWD

run_tool install cmake --install "$BUILD" --prefix "$PREFIX"
expect_rc 0 "cmake --install"
for f in bin/famsim lib/libfamsim.a lib/cmake/famsim/famsimConfig.cmake lib/pkgconfig/famsim.pc \
         include/famsim/models/cosim/tlm_bridge.h include/famsim/sc_main/simulation.h \
         share/famsim/platforms/minimal.yaml share/famsim/traffic/models/deepseek_v3.yaml \
         share/famsim/scripts/report.py share/famsim/examples/cosim/device_dma.cpp \
         share/famsim/examples/cosim/external_memory.yaml; do
  [ -e "$PREFIX/$f" ] || fail "cmake --install did not install $f"
done
[ -x "$PREFIX/share/famsim/scripts/report.py" ] || fail "report.py is not executable once installed"
pass "cmake --install: command, library, headers, package files, presets, scripts"

# The installed command reads the installed platform files from any directory, their presets
# (link, memory) compiled in.
(cd "$WORK" && "$PREFIX/bin/famsim" validate --platform "$PREFIX/share/famsim/platforms/nvl8_fam.yaml" \
  >"$WORK/validate.log" 2>&1)
RC=$?
OUT=$(cat "$WORK/validate.log")
expect_rc 0 "installed famsim validate, from another directory"
expect_in_output "platform nvl8_fam: valid" "installed famsim validate"
pass "installed famsim validates the installed nvl8_fam.yaml from another directory"

# The examples against the installed package only (the source tree is not on any include path:
# the package's target gives the installed headers).
run_tool configure cmake -S "$PREFIX/share/famsim/examples/cosim" -B "$WORK/examples" -G Ninja \
  -DCMAKE_PREFIX_PATH="$PREFIX" ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"}
expect_rc 0 "configuring the installed examples/cosim with find_package(famsim)"
run_tool build cmake --build "$WORK/examples"
expect_rc 0 "building the installed examples/cosim against the installed famsim"
grep -q -- "$SRC" "$WORK/examples/build.ninja" &&
  fail "the examples' build reads files from the source tree $SRC"
pass "the installed examples/cosim build against the installed package"

cd "$WORK"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
run_tool dma "$WORK/examples/device_dma" --platform "$SRC/platforms/minimal.yaml" --bytes 8192 \
  --window 8 --stats "$WORK/dma.json"
expect_rc 0 "device_dma on minimal.yaml"
expect_in_output "write: 8192 B in 64 requests" "device_dma's writes"
expect_in_output "read: 8192 B in 64 requests" "device_dma's reads"
expect_in_output "verified 8192 B: every byte read back as written" "device_dma's read-back"
python3 - "$WORK/dma.json" <<'PY' || fail "device_dma's famsim statistics"
import json, sys
c = json.load(open(sys.argv[1]))
for ch in ("fam0.memory.ch0", "fam0.memory.ch1"):
    s = c[ch]
    assert (s["read_bytes"], s["write_bytes"]) == (4096, 4096), (ch, s["read_bytes"], s["write_bytes"])
assert c["bridge0"]["requests"] == 128, c["bridge0"]["requests"]
PY
pass "device_dma: 64 writes and 64 reads, 4 KiB each way on each channel, every byte as written"

# Its logs, for an RTL test bench: --dram-log writes a command log per channel that famsim's own
# checker passes (minimal.yaml's DDR5 has 2 ranks, which the log's spec line records: checked
# with the preset alone it is bad input naming the --set), and --txn-log one line per request,
# 128, each with its DRAM service times.
run_tool dmalogs "$WORK/examples/device_dma" --platform "$SRC/platforms/minimal.yaml" --bytes 8192 \
  --window 8 --stats "$WORK/dma2.json" --dram-log "$WORK/dma-dram" --txn-log "$WORK/dma-txn.csv"
expect_rc 0 "device_dma with its logs"
[ -f "$WORK/dma-dram/fam0.memory.ch0.csv" ] && [ -f "$WORK/dma-dram/fam0.memory.ch1.csv" ] ||
  fail "device_dma --dram-log wrote no log per channel: $(ls "$WORK/dma-dram" 2>&1)"
run_famsim dmacheck check-dram-log --preset ddr5_4800_x4 "$WORK"/dma-dram/*.csv
expect_rc 2 "check-dram-log with the preset's 1 rank on device_dma's 2-rank logs"
expect_in_output "add --set organization.ranks=2" "the --set the logs need"
run_famsim dmacheck2 check-dram-log --preset ddr5_4800_x4 --set organization.ranks=2 \
  "$WORK"/dma-dram/*.csv
expect_rc 0 "check-dram-log on device_dma's logs"
python3 - "$WORK/dma-txn.csv" <<'PY' || fail "device_dma's transaction log"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 128, len(rows)
assert sum(r["op"] == "write" for r in rows) == 64, [r["op"] for r in rows][:4]
for r in rows:
    assert r["memory_done_ps"] not in ("", "-") and r["service_start_ps"] not in ("", "-"), r
PY
pass "device_dma --dram-log and --txn-log: logs an RTL test bench can compare against"

# The same example built without CMake, from pkg-config's famsim.pc alone (P/lib/pkgconfig): its
# flags name the installed headers and library, not the source tree, and the program runs.
run_tool pc_flags env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs famsim
expect_rc 0 "pkg-config --cflags --libs famsim"
PC_FLAGS=$OUT
case "$PC_FLAGS" in *"-std=c++17"*) ;; *) fail "famsim.pc's flags lack -std=c++17: $PC_FLAGS" ;; esac
case "$PC_FLAGS" in *"-I$PREFIX/lib/pkgconfig/../../include/famsim"*) ;;
  *) fail "famsim.pc's flags do not name the installed headers: $PC_FLAGS" ;; esac
run_tool pc_requires env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --print-requires famsim
for r in "systemc >= 2.3.4" yaml-cpp fmt "nlohmann_json >= 3.10"; do
  expect_in_output "$r" "famsim.pc's Requires"
done
run_tool pc_build ${CXX:-c++} -O0 "$PREFIX/share/famsim/examples/cosim/device_dma.cpp" \
  $PC_FLAGS -o "$WORK/device_dma_pc"
expect_rc 0 "building device_dma with famsim.pc's flags ($PC_FLAGS)"
run_tool pc_dma "$WORK/device_dma_pc" --platform "$SRC/platforms/minimal.yaml" --bytes 8192 \
  --window 8
expect_rc 0 "device_dma built with famsim.pc"
expect_in_output "verified 8192 B: every byte read back as written" "device_dma built with famsim.pc"
pass "device_dma builds from famsim.pc alone (no CMake) and reads back what it wrote"

run_tool dma_bad "$WORK/examples/device_dma" --window 0
expect_rc 2 "device_dma --window 0"
expect_in_output "--window: expected a whole number from 1 to 4096, got '0'" "device_dma --window 0"
run_tool dma_big "$WORK/examples/device_dma" --platform "$SRC/platforms/minimal.yaml" \
  --bytes 137438953472
expect_rc 2 "device_dma --bytes beyond the device"
expect_in_output "do not fit in fam0's 68719476736 B" "device_dma --bytes beyond the device"
pass "device_dma: bad arguments exit 2 naming them"

run_tool foreign "$WORK/examples/foreign_memory" --gbps 1 --stats "$WORK/foreign.json"
expect_rc 0 "foreign_memory on external_memory.yaml"
expect_in_output "conservation ok: 32768 requests answered once, 4194304 B delivered; MyMemory served 32768 requests" \
  "foreign_memory's counts"
python3 - "$WORK/foreign.json" <<'PY' || fail "foreign_memory's stats.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["conservation"]["ok"] is True
for ch in range(8):
    c = s["components"][f"fam0.memory.ch{ch}"]
    assert c["requests"] == 4096, (ch, c["requests"])
gbps = s["summary"]["read_bandwidth_gbps"] + s["summary"]["write_bandwidth_gbps"]
assert 0.9 * 8 <= gbps <= 8 * 1.0000001, gbps
PY
pass "foreign_memory: 32768 requests, 4096 on each channel, 8 GB/s of MyMemory's bus at most"

run_tool foreign_bad "$WORK/examples/foreign_memory" --platform "$SRC/platforms/minimal.yaml"
expect_rc 2 "foreign_memory on a platform without an external memory"
expect_in_output "no memory has model: external" "foreign_memory without an external memory"
pass "foreign_memory: a platform without an external memory exits 2"
