#!/usr/bin/env bash
# scripts/report.py from the outside (README "Reports"): the report of a small minimal.yaml run is
# a Markdown file and one self-contained HTML page with the run's figures, it carries the
# bottleneck sentence and the platform's peak figures, it says so when stats.json lacks the newer
# sections, and bad input (no run directory, no or corrupt stats.json) exits 2 leaving nothing
# behind, while a timeseries.csv that is not famsim's costs only the figures over time, with a
# warning naming its line. Generator runs (kv_decode, weight_stream) get a section saying what the
# workload got, in words and units, for its scope, with what it assumes, and open with the answer in
# a line (the whole-model estimate or the simulated layers' figure said as such, the total over
# groups, the limiter), the simulated layers' rate kept out of it; a pattern run opens as before.
set -euo pipefail
CLI_TEST_NAME=report
source "$(dirname "$0")/lib.sh"

REPORT="$(dirname "$0")/../../scripts/report.py"
PY=/usr/bin/python3  # Debian's python3: the one with matplotlib (the report's shebang)

# 1 MiB in 128 B requests: 8192 reads, a fraction of a second. (`|| true`: run_famsim keeps the
# exit code in $RC for expect_rc instead of set -e ending the script without a message.)
RUN="$WORK/run"
run_famsim run run --platform platforms/minimal.yaml --out "$RUN" \
  --set workload.streams.0.total_bytes=1MiB || true
expect_rc 0 "minimal run"

report() {  # report NAME ARGS...: runs report.py, output in $WORK/NAME.log, exit code in $RC
  local name=$1
  shift
  run_tool "$name" "$REPORT" "$@"
}

# run_and_report NAME WHAT ARGS...: a minimal.yaml run with ARGS into $WORK/NAME, which must
# succeed, and its report, which must too.
run_and_report() {
  local name=$1 what=$2
  shift 2
  run_famsim "$name" run --platform platforms/minimal.yaml --out "$WORK/$name" "$@" || true
  expect_rc 0 "$what run"
  report "$name" "$WORK/$name"
  [ "$RC" -eq 0 ] || fail "report.py on the $what run: exit code $RC"
}

# check_report DIR WHAT [RUN_DIR]: the files are there, the HTML stands alone with at least 4
# figures, each figure the Markdown names is a PNG in DIR/plots, and both carry the run's
# bottlenecks.sentence (RUN_DIR/stats.json, RUN_DIR defaults to DIR) as text, when it has one.
check_report() {
  local dir=$1 what=$2 run=${3:-$1}
  [ -s "$dir/report.md" ] || fail "$what: no report.md"
  [ -s "$dir/report.html" ] || fail "$what: no report.html"
  if grep -Eqi '(src|href)="https?:' "$dir/report.html"; then
    fail "$what: report.html refers to something outside itself"
  fi
  local images
  images=$(grep -o 'data:image/png;base64,' "$dir/report.html" | wc -l || true)
  [ "$images" -ge 4 ] || fail "$what: report.html embeds $images PNG images, expected at least 4"
  local png
  for png in $(grep -o '](plots/[a-z_]*\.png)' "$dir/report.md" | sed 's/^](//; s/)$//'); do
    head -c 8 "$dir/$png" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" ||
      fail "$what: report.md shows $png, which is not a PNG"
  done
  "$PY" - "$dir" "$run" <<'PY' || fail "$what: the bottleneck sentence is missing from the report"
import html, json, re, sys
d, run = sys.argv[1:3]
sentence = (json.load(open(run + "/stats.json")).get("bottlenecks") or {}).get("sentence")
if sentence:
    md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())  # Markdown escapes
    page = html.unescape(open(d + "/report.html").read())
    assert sentence in md, "report.md"
    assert sentence in page, "report.html"
PY
}

report plain "$RUN"
[ "$RC" -eq 0 ] || fail "report.py on a minimal run: exit code $RC. Output:
$OUT"
check_report "$RUN" "minimal run"
case "$OUT" in *warning*) fail "report.py warns on a minimal run's own files: $OUT" ;; esac
for f in latency_cdf bandwidth_time latency_time utilization hop_breakdown; do
  head -c 8 "$RUN/plots/$f.png" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" ||
    fail "plots/$f.png is not a PNG"
done
# Peak figures worked out by hand from minimal.yaml: an NVLink4 link is 2 lanes x 106.25 Gb/s with
# 128b/136b-like coding (16/17) = 25.0 GB/s per direction; a DDR5-4800 sub-channel's bus runs at
# its tCK of 416 ps, 2 transfers of 32 bit a clock: 2 / 416 ps x 4 B = 19.23 GB/s, two of them
# 38.46 GB/s (as famsim validate says; the nominal 4800 MT/s would give 19.2). The run's read
# bandwidth appears with its unit.
"$PY" - "$RUN" <<'PY' || fail "report.md lacks the platform's peak figures or the run's bandwidth"
import json, sys
d = sys.argv[1]
md = open(d + "/report.md").read()
for text in ("25.0 GB/s per direction", "19.23 GB/s per channel", "38.46 GB/s in all",
             "2 channels", "1 GPU"):
    assert text in md, text
bw = json.load(open(d + "/stats.json"))["summary"]["read_bandwidth_gbps"]
assert f"{bw:.2f} GB/s" in md, bw
# minimal.yaml sets no DRAM controller parameters: README's default read queue of 64 bursts is
# listed among the defaults the run relied on.
assert "## Parameters left at their defaults" in md
assert "| `devices.0.memory.controller.read_queue` | `64` |" in md
# The memory channels table: minimal.yaml's one device memory of 2 DDR5 channels, both used, their
# bandwidths added; ddr5_4800_x4 with 2 ranks has 2 x 8 groups x 4 banks = 64 banks a channel.
s = json.load(open(d + "/stats.json"))
chans = [s["components"][f"fam0.memory.ch{i}"] for i in (0, 1)]
row = [l for l in md.splitlines() if l.startswith("| `fam0.memory` |")]
assert len(row) == 1, md
cells = [c.strip() for c in row[0].strip("|").split("|")]
assert cells[1] == "2 of 2", cells
# Channel spread: the busier channel's bytes over the mean of the two.
moved = [c["bytes"] for c in chans]
assert cells[2] == f"{max(moved) * 2 / sum(moved):.2f}", (cells, moved)
assert cells[3] == f"{chans[0]['bandwidth_gbps'] + chans[1]['bandwidth_gbps']:.2f}", cells
assert cells[8].endswith(" of 64"), cells
PY
pass "report of a minimal run"

# A memory that is not the limiter: its efficiency and banks-needed figures are said to be about
# the traffic it got. minimal.yaml with 8 LPDDR5X-8533 channels (1 rank, 16 banks each) and 256
# requests in flight: the link's response wire carries at most 25 x 128 / 144 = 22.22 GB/s of
# 128 B reads; each 32 B LPDDR5X burst of a random read opens its own row (the default mapping puts
# consecutive bursts in different bank groups) and a rank activates at most once per tRRD = 6 x
# 0.938 = 5.63 ns, so the memory could serve 8 x 32 B / 5.63 ns = 45.5 GB/s: the link binds, the
# activate rate about 22.22 / 45.5 = 49 % busy. One activate per burst needs tRC / tBL = 65 / 2 =
# 32.5 banks to keep a data bus busy, of the 16 a channel has. With 2 channels (11.4 GB/s of
# activates) the memory binds instead, and is said to.
run_famsim lp_link run --platform platforms/minimal.yaml --out "$WORK/lp_link" \
  --set workload.streams.0.total_bytes=1MiB --set devices.0.memory.preset=lpddr5x_8533 \
  --set devices.0.memory.organization.ranks=1 --set devices.0.memory.channels=8 \
  --set devices.0.capacity_gib=16 --set gpus.max_outstanding=256 || true
expect_rc 0 "minimal run on 8 LPDDR5X channels"
run_famsim lp_mem run --platform platforms/minimal.yaml --out "$WORK/lp_mem" \
  --set workload.streams.0.total_bytes=1MiB --set devices.0.memory.preset=lpddr5x_8533 \
  --set devices.0.memory.organization.ranks=1 --set devices.0.memory.channels=2 \
  --set devices.0.capacity_gib=4 --set gpus.max_outstanding=256 || true
expect_rc 0 "minimal run on 2 LPDDR5X channels"
for r in lp_link lp_mem; do
  report "$r" "$WORK/$r"
  [ "$RC" -eq 0 ] || fail "report.py on the $r run: exit code $RC"
done
"$PY" - "$WORK/lp_link" "$WORK/lp_mem" <<'PY' || fail "the memory table does not tie its figures to the limiter"
import json, re, sys
link, mem = sys.argv[1:3]
def md(d):
    return re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
def row(text):
    line = next(l for l in text.splitlines() if l.startswith("| `fam0.memory` |"))
    return [c.strip() for c in line.strip("|").split("|")]
lim = json.load(open(link + "/stats.json"))["bottlenecks"]["limiter"]
assert (lim["component"], lim["resource"]) == ("gpu0_link0", "response wire"), lim
text = md(link)
cells = row(text)
assert cells[-1] == "no", cells
assert cells[8].endswith(" of 16"), cells
para = next(l for l in text.splitlines() if l.startswith("**Not the limiter:**"))
assert para.startswith("**Not the limiter:** `fam0.memory` did not limit this run (the run's "
                       "limiter: `gpu0_link0 response wire`); the memory's busiest resource, "), para
assert "activate rate" in para and "below the 85% saturation threshold" in para, para
busy = float(re.search(r"was ([0-9.]+)% busy", para).group(1))
assert 40 <= busy <= 60, para  # about 49 % by hand
assert "32.5 banks needed of 16 means that at this run's bursts per activate its data bus could " \
    "not run at its peak, a rate this run did not ask of it." in para, para
lim = json.load(open(mem + "/stats.json"))["bottlenecks"]["limiter"]
assert lim["component"].startswith("fam0.memory.ch"), lim
text = md(mem)
assert row(text)[-1] == "yes", row(text)
assert "Not the limiter" not in text
PY
pass "the memory table says whether the memory limited the run, and what its figures mean when not"

# A memory that limited one phase but not the whole run: the lp_link run's stats.json given two
# phases by hand, the first limited by a channel of fam0.memory, the second by the link. The
# Limiter column says in how many phases, a paragraph names their spans, and the memory is not
# said to be "not the limiter".
cp -r "$WORK/lp_link" "$WORK/lp_phase"
"$PY" - "$WORK/lp_phase/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lim = s["bottlenecks"]["limiter"]
mem = {"component": "fam0.memory.ch1", "resource": "activate rate", "reason": "bandwidth",
       "utilization": 0.97}
s["bottlenecks"]["phases"] = {"phases": [
    {"start_ns": 0.0, "end_ns": 2000.0, "limiter": mem, "achieved_gbps": 11.0},
    {"start_ns": 2000.0, "end_ns": 50000.0, "limiter": lim, "achieved_gbps": 22.0}]}
json.dump(s, open(sys.argv[1], "w"))
PY
report lp_phase "$WORK/lp_phase"
[ "$RC" -eq 0 ] || fail "report.py on a memory that limited a phase: exit code $RC"
"$PY" - "$WORK/lp_phase" <<'PY' || fail "the memory table does not name a phase the memory limited"
import re, sys
text = re.sub(r"\\(.)", r"\1", open(sys.argv[1] + "/report.md").read())
line = next(l for l in text.splitlines() if l.startswith("| `fam0.memory` |"))
cells = [c.strip() for c in line.strip("|").split("|")]
assert cells[-1] == "in 1 of 2 phases", cells
para = next(l for l in text.splitlines() if l.startswith("**Limiter in some phases:**"))
assert "`fam0.memory` limited the run in the phase 0.0 - 2.0 \u00b5s" in para, para
assert "Not the limiter" not in text
PY
# The same phases in a run with no limiter over its whole length (nothing saturated: null).
cp -r "$WORK/lp_phase" "$WORK/lp_phase_none"
"$PY" - "$WORK/lp_phase_none/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["bottlenecks"]["limiter"] = None
json.dump(s, open(sys.argv[1], "w"))
PY
report lp_phase_none "$WORK/lp_phase_none"
[ "$RC" -eq 0 ] || fail "report.py on phases limited with no run limiter: exit code $RC: $OUT"
grep -q "limited the run in the phase 0.0 - 2.0" "$WORK/lp_phase_none/report.md" ||
  fail "a memory that limited a phase of a run with no limiter is not named"
grep -q "the run's limiter" "$WORK/lp_phase_none/report.md" &&
  fail "a run with no limiter names one"
pass "a memory that limited one phase is named with it"

# The memories' assumed values (stats.json assumptions, the report's assumptions). nvl8_fam, a few
# reads per GPU: each GPU's HBM is 5 stacks x 32 pseudo-channels of 32 bit at 6.4 Gb/s, 25.6 GB/s
# each, 160 x 25.6 = 4096 GB/s; the platform notes that an H100 SXM's is 3.35 TB/s. The presets
# mark as assumptions (platforms/presets/memory/*.yaml): hbm3_6400's array timings, CL 20 clocks
# among them; ddr5_4800_x4's tFAW of 40 clocks, tRTRS 2, tREFIsb 487.5 ns, tREFSBRD 18.75 ns and
# 4 postponed refreshes. A --set of tFAW_ck to 48 is the user's value, said as such. The LPDDR5X
# run above: CL 21.25 ns, CWL 11.25 ns, tCK 938 ps.
run_famsim nvl_assume run --platform platforms/nvl8_fam.yaml --out "$WORK/nvl_assume" \
  --set workload.streams.0.total_bytes=64KiB --set devices.0.memory.timing.tFAW_ck=48 || true
expect_rc 0 "nvl8_fam run"
report nvl_assume "$WORK/nvl_assume"
[ "$RC" -eq 0 ] || fail "report.py on the nvl8_fam run: exit code $RC"
"$PY" - "$WORK/nvl_assume" "$WORK/lp_link" <<'PY' || fail "the memories' assumptions"
import json, re, sys
nvl, lp = sys.argv[1:3]
mems = {m["memory"]: m for m in json.load(open(nvl + "/stats.json"))["assumptions"]}
hbm, dev = mems["gpus.local_memory"], mems["devices.0.memory"]
assert hbm["channels"] == 160 and abs(hbm["channel_peak_gbps"] - 25.6) < 1e-9, hbm
assert abs(hbm["peak_gbps"] - 4096) < 1e-6, hbm
values = {v["key"]: v for v in hbm["values"]}
assert values["timing.CL_ck"]["value"] == 20, values
assert "3.35 TB/s" in values["preset"]["why"], values["preset"]
values = {v["key"]: v["value"] for v in dev["values"]}
assert values == {"timing.tFAW_ck": 48, "timing.tRTRS_ck": 2, "timing.tREFIsb_ns": 487.5,
                  "timing.tREFSBRD_ns": 18.75, "timing.refresh_postpone_max": 4}, values
md = re.sub(r"\\(.)", r"\1", open(nvl + "/report.md").read())
items = md.split("## Assumptions and limits")[1]
assert "The platform gives each GPU's local memory a peak of 4,096.00 GB/s (160 HBM3 channels x " \
    "25.60 GB/s, preset hbm3_6400)" in items, items
assert "22 % above an H100 SXM's 670 GB/s per stack (3.35 TB/s over 5 stacks" in items, items
assert "Assumed for each GPU's local memory (preset hbm3_6400), not from a standard or a data " \
    "sheet: `timing.CL_ck = 20`, `timing.CWL_ck = 10`" in items, items
assert "Assumed for device fam0's memory (preset ddr5_4800_x4), not from a standard or a data " \
    "sheet: `timing.tFAW_ck = 48` (set by --set devices.0.memory.timing.tFAW_ck=48, in place of " \
    "the preset's assumed value)" in items, items
assert "`timing.tREFIsb_ns = 487.5`" in items and "`timing.tRTRS_ck = 2`" in items, items
assert "comes from the JEDEC parameters" not in md
# Where latencies start: the GPU's own path (SMs, caches, on-chip network) is not modelled.
assert "The GPU's inside (streaming multiprocessors, L1 and L2 caches" in items, items
md = re.sub(r"\\(.)", r"\1", open(lp + "/report.md").read())
assert "Assumed for device fam0's memory (preset lpddr5x_8533), not from a standard or a data " \
    "sheet: `timing.tCK_ps = 938`" in md, md
assert "`timing.CL_ns = 21.25`" in md and "`timing.CWL_ns = 11.25`" in md, md
assert "each GPU's local memory" not in md  # minimal.yaml's GPU has none
PY
pass "the report lists the memories' assumed values and the local HBM's peak against an H100's"

# A limiter whose like resources are unevenly loaded (bottlenecks.limiter.class_balance): the
# report gives their spread and the bound an even split would allow, as stats.json has them
# (here written into a copy of the minimal run's, whose limiter is its link's response wire).
mkdir "$WORK/balance"
cp "$RUN/stats.json" "$WORK/balance/"
"$PY" - "$WORK/balance/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lim = s["bottlenecks"]["limiter"]
lim["utilization"] = 1.0
lim["class_balance"] = {"members": 4, "min_utilization": 0.8, "even_utilization": 0.9,
                        "even_bound_gbps": 100.0, "even_bound_set_by": "gpu*_link* response wire"}
json.dump(s, open(sys.argv[1], "w"))
PY
report balance "$WORK/balance"
[ "$RC" -eq 0 ] || fail "report.py on a run with an uneven limiting class: exit code $RC"
"$PY" - "$WORK/balance" <<'PY' || fail "the report does not give the limiting class's spread"
import re, sys
md = re.sub(r"\\(.)", r"\1", open(sys.argv[1] + "/report.md").read())
text = ("The 4 like resources are unevenly loaded (80.0% to 100.0%): with the same traffic spread "
        "evenly each would be 90.0% busy and the analytic bound 100.00 GB/s, set by "
        "`gpu*_link* response wire`.")
assert text in md, [l for l in md.splitlines() if "Limiter" in l]
PY
if grep -q "unevenly loaded" "$RUN/report.md"; then
  fail "the minimal run's one link is called unevenly loaded"
fi
pass "report.py gives an unevenly loaded limiting class's spread and the bound an even split allows"

[ ! -e "$RUN/plots/mesh_links.png" ] || fail "a run without a mesh NoC has plots/mesh_links.png"

# A mesh NoC whose 1 x 3-flit VCs starve its links (README "Device mesh NoC"): the report draws
# the mesh's links, and the limiter it outlines is a mesh link the plot can place.
run_famsim mesh run --platform platforms/fam_mesh.yaml --out "$WORK/mesh" \
  --set workload.streams.0.total_bytes=256KiB --set devices.0.noc.vcs=1 \
  --set devices.0.noc.vc_buffer_flits=3 || true
expect_rc 0 "fam_mesh run"
report mesh "$WORK/mesh"
[ "$RC" -eq 0 ] || fail "report.py on a mesh run: exit code $RC. Output:
$OUT"
check_report "$WORK/mesh" "mesh run"
grep -qF "](plots/mesh_links.png)" "$WORK/mesh/report.md" || fail "report.md does not show mesh_links.png"
"$PY" - "$WORK/mesh/stats.json" "$(dirname "$REPORT")" <<'PY' || fail "the mesh limiter cannot be placed"
import json, sys
sys.path.insert(0, sys.argv[2])
import plot_run
s = json.load(open(sys.argv[1]))
lim = s["bottlenecks"]["limiter"]
assert lim["component"] == "fam0.noc", lim["component"]
m = plot_run.LINK_NAME.match(lim["resource"])
assert m, lim["resource"]
# The link it names is one the component lists, in that network.
links = s["components"]["fam0.noc"]["links"][m.group(1)]
ends = ([int(m.group(2)), int(m.group(3))], [int(m.group(4)), int(m.group(5))])
assert any((l["from"], l["to"]) == ends for l in links), ends
PY
pass "report of a mesh run draws its links and places the limiter on them"

# Plain words for a non-specialist (a review, 2026-12-07): with 30 % writes (posted) and the
# workload's size and mix changed by --set, the report says what the --set changed next to the
# workload file's description, why the writes' memory_service is 0, and, where the busiest window
# moved more than the analytic bound (32.8 against 30.4 GB/s here: stats.json says), why that is
# no contradiction.
run_and_report rw "minimal 30 % writes" --set workload.streams.0.read_fraction=0.7 \
  --set workload.streams.0.total_bytes=2MiB
"$PY" - "$WORK/rw" <<'PY' || fail "report.md's plain-words sentences: see above"
import json, re, sys
d = sys.argv[1]
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
s = json.load(open(d + "/stats.json"))
assert "before this run changed 2 of its parameters: streams.0.read_fraction 1.0 -> 0.7; " \
    "streams.0.total_bytes 16MiB -> 2MiB" in md, md
assert "The writes' memory_service is 0" in md
hops = {h["hop"]: h["mean"] for h in s["latency_breakdown_ns"]["write"]["hops"]}
assert hops["memory_service"] == 0, hops
peak, bound = s["timeseries"]["peak_window_bandwidth_gbps"], s["bottlenecks"]["analytic_bound_gbps"]
assert peak > bound, (peak, bound)
assert "That is above the analytic bound" in md
PY
# And only then: said in the first run's report exactly when its busiest window beat its bound.
"$PY" - "$RUN" <<'PY' || fail "the first run's report and its window against the bound"
import json, sys
s = json.load(open(sys.argv[1] + "/stats.json"))
above = s["timeseries"]["peak_window_bandwidth_gbps"] > s["bottlenecks"]["analytic_bound_gbps"]
assert ("That is above the analytic bound" in open(sys.argv[1] + "/report.md").read()) == above
assert "posted writes are answered" not in open(sys.argv[1] + "/report.md").read()
PY
pass "the report explains --set changes to the workload, posted writes' zeros and a window above the bound"

# A run with --dram-log whose check passed says so, with the commands checked (stats.json's
# count); every report ends with the terms it uses, defined.
run_and_report dl "minimal --dram-log" --set workload.streams.0.total_bytes=256KiB --dram-log
"$PY" - "$WORK/dl" "$RUN" <<'PY' || fail "the DRAM check's pass or the terms: see above"
import json, re, sys
d = sys.argv[1]
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
logs = json.load(open(d + "/stats.json"))["dram_timing_check"]["logs"]
n = sum(l["commands"] for l in logs.values())
assert f"DRAM timing check: passed ({n:,} DRAM commands in {len(logs)} command logs" in md, n
for r in (d, sys.argv[2]):
    text = open(r + "/report.md").read()
    assert "## Terms" in text and "**analytic bound**" in text and "**VC credits**" in text
assert "DRAM timing check" not in open(sys.argv[2] + "/report.md").read()
PY
pass "the report says a DRAM timing check passed, and defines its terms"

# A write phase, then a read phase (write_then_verify on minimal): the report's Phases table gives
# each phase's limiter, the link's request wire then its response wire, as stats.json has them.
run_and_report wv write_then_verify --workload traffic/write_then_verify.yaml
"$PY" - "$WORK/wv" "$RUN" <<'PY' || fail "report.md's Phases table does not match bottlenecks.phases"
import json, re, sys
d = sys.argv[1]
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
phases = json.load(open(d + "/stats.json"))["bottlenecks"]["phases"]["phases"]
assert len(phases) == 2, phases
table = md.split("### Phases")[1].split("\n#")[0]
rows = [l for l in table.splitlines() if l.startswith("|") and "gpu0_link0" in l]
assert len(rows) == 2, table
for row, p in zip(rows, phases):
    assert p["limiter"]["resource"] in row, (row, p)
    assert f"{p['start_ns'] / 1e3:,.1f} - {p['end_ns'] / 1e3:,.1f}" in row, (row, p)
assert "request wire" in rows[0] and "response wire" in rows[1], rows
# minimal.yaml's one link runs from gpu0 to the device's port logic.
assert "(gpu0 → fam0.port_logic)" in rows[0] and "(fam0.port_logic → gpu0)" in rows[1], rows
one = open(sys.argv[2] + "/report.md").read()
assert "### Phases" not in one and "found one limiter class for the whole run" in one
PY
pass "report of a run in two phases gives each phase's limiter; a one-phase run says so"

# Channel spread: minimal.yaml interleaves its 2 channels every 256 B (modulo), so 256 B reads at a
# 512 B stride all land on channel 0: the busiest channel moves 2.00 times the mean, 1 of 2 used,
# and the report says the traffic is uneven. The 1 MiB random run above is not flagged.
cat >"$WORK/stride.yaml" <<'EOF'
name: one_channel
streams:
  - name: reader
    gpus: [0]
    buffer: {bytes: 2MiB, location: device/fam0}
    pattern: strided
    access_bytes: 256
    stride_bytes: 512
    total_bytes: 256KiB
EOF
run_famsim stride run --platform platforms/minimal.yaml --workload "$WORK/stride.yaml" \
  --out "$WORK/stride" || true
expect_rc 0 "strided run"
report stride "$WORK/stride"
[ "$RC" -eq 0 ] || fail "report.py on the strided run: exit code $RC"
"$PY" - "$WORK/stride" "$RUN" <<'PY' || fail "the channel spread of a run on one channel"
import json, re, sys
d = sys.argv[1]
c = json.load(open(d + "/stats.json"))["components"]
assert (c["fam0.memory.ch0"]["bytes"], c["fam0.memory.ch1"]["bytes"]) == (256 * 1024, 0), c
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
row = next(l for l in md.splitlines() if l.startswith("| `fam0.memory` |"))
assert [x.strip() for x in row.split("|")[2:4]] == ["1 of 2", "2.00"], row
assert "`fam0.memory`'s busiest channel moved 2.00 times the mean over its 2 channels (1 used)" \
    in md, md
assert "Uneven channels" not in open(sys.argv[2] + "/report.md").read()
PY
pass "report.py gives each memory's channel spread and flags one channel taking the traffic"

# A run cut short by sim.max_time_ns: its summary must not say every request came back; it says
# how many were still out (issued - completed from stats.json).
run_famsim cut run --platform platforms/minimal.yaml --out "$WORK/cut" --set sim.max_time_ns=3000 ||
  true
expect_rc 0 "run cut short"
report cut "$WORK/cut"
[ "$RC" -eq 0 ] || fail "report.py on a run cut short: exit code $RC. Output:
$OUT"
"$PY" - "$WORK/cut" <<'PY' || fail "the conservation line of a run cut short"
import json, sys
s = json.load(open(sys.argv[1] + "/stats.json"))["conservation"]
out = s["issued"] - s["completed"]
assert s["truncated"] and out > 0, s
summary = open(sys.argv[1] + "/report.md").read().split("\n## ")[0]  # up to the first section
assert "every request came back once, intact)" not in summary, summary
assert f"{out} were still in flight" in summary, summary
PY
pass "report of a run cut short says requests were still in flight"

# --out puts the report and its plots elsewhere.
report elsewhere "$RUN" --out "$WORK/elsewhere"
[ "$RC" -eq 0 ] || fail "report.py --out: exit code $RC. Output:
$OUT"
check_report "$WORK/elsewhere" "--out" "$RUN"
pass "--out"

# A Python without matplotlib (made here by a PYTHONPATH directory whose matplotlib package fails
# to import, as a missing one does): the report is still written, text only, exit 0; its Figures
# section and stderr say the figures were left out and how to get them; no figure is named or
# embedded and no plots/ directory is made.
mkdir -p "$WORK/nompl/matplotlib"
echo 'raise ImportError("No module named matplotlib (the test hides it)")' \
  >"$WORK/nompl/matplotlib/__init__.py"
if PYTHONPATH="$WORK/nompl" "$PY" -c 'import matplotlib' 2>/dev/null; then
  fail "the test's PYTHONPATH does not hide matplotlib"
fi
run_tool nompl env PYTHONPATH="$WORK/nompl" "$REPORT" "$RUN" --out "$WORK/nompl_out"
[ "$RC" -eq 0 ] || fail "report.py without matplotlib: exit code $RC, expected 0. Output:
$OUT"
expect_in_output "warning: figures left out" "report.py without matplotlib"
expect_in_output "apt-get install python3-matplotlib" "report.py without matplotlib"
"$PY" - "$WORK/nompl_out" "$RUN" <<'PY' || fail "the text-only report without matplotlib"
import html, json, os, re, sys
d, run = sys.argv[1:3]
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
page = html.unescape(open(d + "/report.html").read())
for doc, name in ((md, "report.md"), (page, "report.html")):
    assert "the figures were left out because this Python" in doc, name
    assert "cannot import matplotlib" in doc, name
    assert "apt-get install python3-matplotlib" in doc, name
    assert ".png" not in doc, name  # no figure named, linked or embedded
# The rest of the report is there: the run's bottleneck sentence and the memory table.
assert json.load(open(run + "/stats.json"))["bottlenecks"]["sentence"] in md
assert "| `fam0.memory` |" in md
assert not os.path.exists(d + "/plots"), os.listdir(d)
PY
pass "report.py without matplotlib writes a text-only report that says how to get the figures"

# The newer sections, hand-made in the shape famsim writes (a slot pool limiting, with its
# occupancy histogram, and two changes from the preset), and their absence.
cp -r "$RUN" "$WORK/fake"
rm -rf "$WORK/fake/plots" "$WORK/fake/report.md" "$WORK/fake/report.html"
"$PY" - "$WORK/fake" <<'PY'
import json, sys
path = sys.argv[1] + "/stats.json"
s = json.load(open(path))
occ = {"capacity": 64, "mean": 63.5, "max": 64, "bucket_width": 8,
       "time_fraction": [0.01, 0, 0, 0, 0, 0, 0, 0.01, 0.98]}
window = {"name": "outstanding window", "type": "slots", "utilization": 0.99, "capacity": 64,
          "used": 63.5, "backpressure_ns": 0.0, "occupancy": occ}
s["components"]["gpu0"]["resources"] = [window]
limiter = {"component": "gpu0", "resource": "outstanding window", "class": "gpu*", "kind": "gpu",
           "type": "slots", "utilization": 0.99, "headroom": 0.01, "capacity": 64,
           "capacity_unit": "slots", "used": 63.5, "backpressure_ns": 0.0, "state": "limiting",
           "reason": "slots", "alike": [], "class_size": 1}
s["bottlenecks"] = {
    "sentence": "gpu0 outstanding window limits throughput: full 99.0% (63.5 of 64 slots in use "
                "on average; throughput is slots / latency). It holds back: fam*.memory.ch* "
                "read queue (2 full).",
    "saturation_threshold": 0.9, "achieved_gbps": 20.0, "analytic_bound_gbps": 25.0,
    "bound_set_by": "gpu0_link0 response wire", "achieved_fraction_of_bound": 0.8,
    "limiter": limiter, "blocks": [{"class": "fam*.memory.ch*", "resource": "read queue",
                                    "count": 2}],
    "ranked": [limiter], "resources": 1,
    "classes": [{"class": "gpu*", "resource": "outstanding window", "count": 1, "saturated": 1,
                 "max_utilization": 0.99, "mean_utilization": 0.99}]}
s["config_changes"] = {"base": "platforms/minimal.yaml (built-in)", "changes": [
    {"key": "workload.streams.0.total_bytes", "value": "1MiB", "base_value": "16MiB",
     "source": "--set workload.streams.0.total_bytes=1MiB"},
    {"key": "devices.0.memory.channels", "value": 8, "base_value": 2,
     "source": "my_platform.yaml"}]}
json.dump(s, open(path, "w"))
PY
report fake "$WORK/fake"
[ "$RC" -eq 0 ] || fail "report.py with bottlenecks and config_changes: exit code $RC. Output:
$OUT"
check_report "$WORK/fake" "bottlenecks and config_changes"
for f in utilization_by_class limiter_occupancy; do
  [ -s "$WORK/fake/plots/$f.png" ] || fail "no plots/$f.png for a slot-pool limiter"
done
for text in "platforms/minimal.yaml (built-in)" "devices.0.memory.channels" \
  "--set workload.streams.0.total_bytes=1MiB" "my_platform.yaml" "25.00 GB/s"; do
  grep -qF -- "$text" "$WORK/fake/report.md" || fail "report.md lacks '$text'"
done
pass "bottlenecks and config_changes"

cp -r "$WORK/fake" "$WORK/old"
"$PY" - "$WORK/old/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
del s["bottlenecks"], s["config_changes"]
json.dump(s, open(sys.argv[1], "w"))
PY
report old "$WORK/old"
[ "$RC" -eq 0 ] || fail "report.py without the newer sections: exit code $RC. Output:
$OUT"
for key in bottlenecks config_changes; do
  grep -qF "has no \`$key\` section" "$WORK/old/report.md" ||
    fail "report.md does not say that stats.json has no $key"
done
pass "a stats.json without bottlenecks and config_changes"

# An open-loop trace the platform cannot keep up with: the terminal summary and the report say by
# how much it fell behind, and that latencies are from issue. 2000 reads stamped at 0: the GPU
# issues at most one a cycle (505 ps at 1980 MHz) and 64 at a time, so the last goes out at least
# 1999 x 0.505 ns = 1 us late. A trace one read per microsecond is issued on time.
awk 'BEGIN { for (k = 0; k < 2000; k++) printf "0 0 R 0x%x 128\n", k * 128 }' >"$WORK/burst.trace"
awk 'BEGIN { for (k = 0; k < 20; k++) printf "%d 0 R 0x%x 128\n", k * 1000, k * 128 }' \
  >"$WORK/paced.trace"
for t in burst paced; do
  cat >"$WORK/$t.yaml" <<YAML
name: $t
streams:
  - replay: {file: $t.trace, bytes: 1MiB, location: device/fam0}
YAML
done
run_famsim run_burst run --platform platforms/minimal.yaml --workload "$WORK/burst.yaml" \
  --out "$WORK/run_burst" || true
expect_rc 0 "replay of the burst trace"
expect_in_output "trace: the platform fell behind the trace by up to" "the burst's summary"
expect_in_output "latencies are from issue, not from the trace timestamp" "the burst's summary"
"$PY" - "$WORK/run_burst/stats.json" <<'PY' || fail "the burst's issue_lag"
import json, sys
lag = json.load(open(sys.argv[1]))["issue_lag"]
assert lag["requests"] == 2000 and lag["behind"] is True, lag
assert lag["max_ns"] >= 1999 * 0.505, lag  # one request per 505 ps GPU cycle at best
PY
report burst "$WORK/run_burst"
[ "$RC" -eq 0 ] || fail "report.py on the burst replay: exit code $RC. Output:
$OUT"
grep -q "The platform fell behind the trace by up to" "$WORK/run_burst/report.md" ||
  fail "report.md of the burst replay does not say the platform fell behind the trace"
grep -q "latencies are from issue, not from the trace timestamp" "$WORK/run_burst/report.md" ||
  fail "report.md of the burst replay does not say latencies are from issue"
run_famsim run_paced run --platform platforms/minimal.yaml --workload "$WORK/paced.yaml" \
  --out "$WORK/run_paced" || true
expect_rc 0 "replay of the paced trace"
case "$OUT" in *"fell behind"*) fail "the paced replay's summary says it fell behind: $OUT" ;; esac
report paced "$WORK/run_paced"
[ "$RC" -eq 0 ] || fail "report.py on the paced replay: exit code $RC"
grep -q "timestamped requests went out on time" "$WORK/run_paced/report.md" ||
  fail "report.md of the paced replay does not say its requests went out on time"
! grep -q "fell behind" "$WORK/run_paced/report.md" ||
  fail "report.md of the paced replay says it fell behind"
pass "trace issue lag in the summary and the report"

# A run whose model checks failed (made here by editing stats.json: the model has no fault to
# show): the report says so at the top and lists each failure under Results.
mkdir "$WORK/faulty"
cp "$RUN/timeseries.csv" "$WORK/faulty/"
"$PY" - "$RUN/stats.json" "$WORK/faulty/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["report_probe_check"] = {"ok": False, "mismatches": ["fam0_link0: 'request wire': capacity "
                                                       "64 in the report, 32 in the probe"]}
s["dram_timing_check"] = {"ok": False, "logs": {"fam0.memory.ch0": {
    "commands": 10, "violations": 1, "first_violations": ["line 7: RD 2 ns after ACT (tRCD)"]}}}
json.dump(s, open(sys.argv[2], "w"))
PY
report faulty "$WORK/faulty"
[ "$RC" -eq 0 ] || fail "report.py on a run whose checks failed: exit code $RC"
"$PY" - "$WORK/faulty/report.md" <<'PY' || fail "report.md does not state the failed checks"
import re, sys
md = re.sub(r"\\(.)", r"\1", open(sys.argv[1]).read())
for title in ("Report/probe check: FAILED", "DRAM timing check: FAILED"):
    assert f"**{title}** (see Results)." in md, title
    assert f"**{title}:** a fault in the model itself" in md, title
assert "`fam0_link0: 'request wire': capacity 64 in the report, 32 in the probe`" in md, md
assert "`fam0.memory.ch0: line 7: RD 2 ns after ACT (tRCD)`" in md, md
PY
if grep -q "check: FAILED" "$RUN/report.md"; then
  fail "the report of a clean run names a failed check"
fi
pass "failed model checks are stated in the report"

# Bad input: exit code 2, one line naming the file, and no report files left behind.
expect_bad() {  # expect_bad NAME DIR TEXT: report.py DIR exits 2 naming TEXT, writing nothing
  report "$1" "$2"
  expect_bad_dir "$1" "$2" "$3" stats.json
}

expect_bad missing_dir "$WORK/no_such_run" "$WORK/no_such_run"
[ ! -e "$WORK/no_such_run" ] || fail "missing_dir: report.py created the run directory"
mkdir "$WORK/no_stats"
expect_bad missing_stats "$WORK/no_stats" "$WORK/no_stats/stats.json"
mkdir "$WORK/corrupt"
head -c 200 "$RUN/stats.json" >"$WORK/corrupt/stats.json"
expect_bad corrupt_stats "$WORK/corrupt" "$WORK/corrupt/stats.json"
mkdir "$WORK/not_stats"
echo '[1, 2, 3]' >"$WORK/not_stats/stats.json"
expect_bad not_stats "$WORK/not_stats" "$WORK/not_stats/stats.json"
pass "bad input"

# A timeseries.csv that is not the one famsim writes (timeseries.csv is optional: a window of 0
# writes none): the report is still written from stats.json, exit 0, without the figures over
# time, and says on stderr and in report.md which line of the file is wrong and what was expected.
# Each case is the minimal run's file with one fault put in by hand; line 1 is the header, so
# line 3 is the second window. COLS is the header's cell count, WINDOWS the rows stats.json says
# the file has.
TS="$RUN/timeseries.csv"
COLS=$(awk -F, 'NR == 1 { print NF }' "$TS")
WINDOWS=$("$PY" - "$RUN/stats.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["timeseries"]["windows"])
PY
)
[ "$WINDOWS" -gt 5 ] || fail "the minimal run has $WINDOWS windows, too few to cut the file short"
series_case() {  # series_case NAME: $WORK/NAME, a run directory with the minimal run's stats.json
  mkdir "$WORK/$1"
  cp "$RUN/stats.json" "$WORK/$1/"
}
series_case ts_empty
: >"$WORK/ts_empty/timeseries.csv"
series_case ts_header
{ echo "time,bw,lat"; tail -n +2 "$TS"; } >"$WORK/ts_header/timeseries.csv"
series_case ts_column
sed '1s/,read_gbps,/,read,/' "$TS" >"$WORK/ts_column/timeseries.csv"
series_case ts_text
sed '3s/^\([^,]*,[^,]*\),[^,]*/\1,abc/' "$TS" >"$WORK/ts_text/timeseries.csv"
series_case ts_nan
sed '3s/^\([^,]*,[^,]*\),[^,]*/\1,nan/' "$TS" >"$WORK/ts_nan/timeseries.csv"
series_case ts_short_row  # cut in the middle of line 6, after its first two cells
{ head -n 5 "$TS"; sed -n '6s/^\([^,]*,[^,]*\),.*/\1/p' "$TS" | tr -d '\n'; } \
  >"$WORK/ts_short_row/timeseries.csv"
series_case ts_long_row
sed '4s/$/,7/' "$TS" >"$WORK/ts_long_row/timeseries.csv"
series_case ts_cut  # cut at a line break: the header and 4 windows, every line whole
head -n 5 "$TS" >"$WORK/ts_cut/timeseries.csv"
series_case ts_header_only
head -n 1 "$TS" >"$WORK/ts_header_only/timeseries.csv"
series_case ts_extra_row  # the last window written twice: one row past the windows stats.json has
{ cat "$TS"; tail -n 1 "$TS"; } >"$WORK/ts_extra_row/timeseries.csv"
series_case ts_binary  # a PNG copied over it: its signature starts with byte 0x89
cp "$RUN/plots/latency_cdf.png" "$WORK/ts_binary/timeseries.csv"

expect_series_warning() {  # expect_series_warning NAME TEXT: report.py warns "FILE TEXT"
  local name=$1 file="$WORK/$1/timeseries.csv"
  local warning="$file$2; the figures over time are left out"
  report "$name" "$WORK/$name"
  [ "$RC" -eq 0 ] || fail "$name: exit code $RC, expected 0 (the report without the time series):
$OUT"
  [ "$(grep -c "warning" "$WORK/$name.log")" -eq 1 ] || fail "$name: not one warning: $OUT"
  grep -qxF "report: warning: $warning" "$WORK/$name.log" ||
    fail "$name: expected the warning 'report: warning: $warning', got: $OUT"
  grep -qxF "**Not drawn:** $warning" "$WORK/$name/report.md" ||
    fail "$name: report.md does not carry the warning '$warning'"
  [ -s "$WORK/$name/report.html" ] || fail "$name: no report.html"
  grep -qF "](plots/latency_cdf.png)" "$WORK/$name/report.md" ||
    fail "$name: the figures from stats.json are missing"
  if grep -qE "\]\(plots/(bandwidth|device_bandwidth|latency)_time\.png\)" \
    "$WORK/$name/report.md"; then
    fail "$name: a figure over time drawn from a bad timeseries.csv"
  fi
}
HEAD_WANTED="expected the header famsim run writes"
HEAD_WANTED+=" (window_start_ns,window_end_ns,...,latency_max_ns,...)"
NUMBER_WANTED="expected a finite number in every cell after the header"
CELLS_WANTED="expected $COLS, one per column of the header"
expect_series_warning ts_empty ": empty; $HEAD_WANTED"
expect_series_warning ts_header " line 1: 'time,bw,lat' is not famsim's header; $HEAD_WANTED"
expect_series_warning ts_column " line 1: the header lacks read_gbps; $HEAD_WANTED"
expect_series_warning ts_text " line 3: read_gbps is 'abc'; $NUMBER_WANTED"
expect_series_warning ts_nan " line 3: read_gbps is 'nan'; $NUMBER_WANTED"
expect_series_warning ts_short_row " line 6: 2 cells; $CELLS_WANTED"
expect_series_warning ts_long_row " line 4: $((COLS + 1)) cells; $CELLS_WANTED"
expect_series_warning ts_cut \
  " line 6: the file ends after 4 windows; expected $WINDOWS (stats.json timeseries.windows)"
expect_series_warning ts_header_only \
  " line 2: the file ends after 0 windows; expected $WINDOWS (stats.json timeseries.windows)"
expect_series_warning ts_extra_row " line $((WINDOWS + 2)): window $((WINDOWS + 1)), past the last;\
 expected $WINDOWS (stats.json timeseries.windows)"
expect_series_warning ts_binary \
  " line 1: not UTF-8 text (byte 0x89); expected the CSV text famsim run writes"
# A run that completed no request writes the header alone and stats.json says 0 windows: no
# figure over time, and nothing wrong to warn about.
series_case ts_no_windows
head -n 1 "$TS" >"$WORK/ts_no_windows/timeseries.csv"
"$PY" - "$WORK/ts_no_windows/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["timeseries"]["windows"] = 0
json.dump(s, open(sys.argv[1], "w"))
PY
report ts_no_windows "$WORK/ts_no_windows"
[ "$RC" -eq 0 ] || fail "ts_no_windows: exit code $RC: $OUT"
case "$OUT" in *warning*) fail "ts_no_windows: a warning for a run with no windows: $OUT" ;; esac
# plot_run.py, which draws the plots alone, takes the same file as bad input (exit 2, one line
# naming its line, no plots), not as a stats.json of the wrong shape.
run_tool plot_ts_text "$(dirname "$REPORT")/plot_run.py" "$WORK/ts_text" --out "$WORK/ts_plots"
expect_bad_dir plot_ts_text "$WORK/ts_plots" \
  "plot_run: $WORK/ts_text/timeseries.csv line 3: read_gbps is 'abc'; $NUMBER_WANTED; no plots"
pass "a timeseries.csv that is not famsim's: a report without the time figures, a warning"

# Every figure plot_run.py draws for the runs above (the minimal run; the slot-pool limiter's
# occupancy and by-class figures; the mesh links with the limiter outlined) keeps its text apart
# and on the figure: tests/support/figure_text.py draws each and reports any two texts whose boxes
# overlap or one cut off at the figure's edge.
for dir in "$RUN" "$WORK/fake" "$WORK/mesh"; do
  run_tool figure_text "$PY" "$(dirname "$0")/../support/figure_text.py" \
    "$(dirname "$REPORT")/plot_run.py" "$dir" --out "$WORK/figure_text_plots"
  [ "$RC" -eq 0 ] || fail "plot_run.py's figures of $dir: text overlaps or is cut off (exit $RC):
$OUT"
done
pass "plot_run.py's figures keep their text apart and on the figure"

# What the workload got: each generator stream's result in words and units, for its scope, with
# what it assumes. Three shrunk generator runs on nvl8_fam (one tensor-parallel group of 8 GPUs):
# a Llama-3-70B decode step of 1 of its 80 layers at batch 2, the same without an HBM tier
# (hbm_tokens 0, as kv_decode_qwen3_next.yaml has none), and a weight-streaming pass over 2
# layers of a shrunk Llama-3.2-1B (the workloads test's settings). The expected figures are worked
# out here from the configuration and stats.json's raw values, not taken from report.py.
S=workload.streams.0
run_famsim kv run --platform platforms/nvl8_fam.yaml --workload traffic/kv_decode_llama70b.yaml \
  --out "$WORK/kv" --set $S.kv_decode.layers=1 --set $S.kv_decode.steps=1 \
  --set $S.kv_decode.batch=2 || true
expect_rc 0 "kv_decode run"
run_famsim kv0 run --platform platforms/nvl8_fam.yaml --workload traffic/kv_decode_llama70b.yaml \
  --out "$WORK/kv0" --set $S.kv_decode.layers=1 --set $S.kv_decode.steps=1 \
  --set $S.kv_decode.batch=2 --set $S.kv_decode.hbm_tokens=0 --set $S.kv_decode.all_reduce=none \
  || true
expect_rc 0 "kv_decode run without an HBM tier"
run_famsim ws run --platform platforms/nvl8_fam.yaml --workload traffic/weight_stream.yaml \
  --out "$WORK/ws" --set $S.weight_stream.layers=2 --set $S.weight_stream.model.hidden_size=256 \
  --set $S.weight_stream.model.intermediate_size=512 || true
expect_rc 0 "weight_stream run"
for run in kv kv0 ws; do
  report "report_$run" "$WORK/$run"
  [ "$RC" -eq 0 ] || fail "report.py on the $run run: exit code $RC: $OUT"
done
"$PY" - "$WORK" <<'PY' || fail "the report does not say what the workload got"
import html, json, re, sys
w = sys.argv[1]

def texts(run):
    md = re.sub(r"\\(.)", r"\1", open(f"{w}/{run}/report.md").read())  # Markdown escapes
    page = html.unescape(re.sub(r"<[^>]+>", "", open(f"{w}/{run}/report.html").read()))
    return md, page

def section(md):
    assert "## What the workload got" in md, "no section"
    return md.split("## What the workload got", 1)[1].split("\n## ", 1)[0]

def us(ns):
    return f"{ns / 1e3:,.2f} \u00b5s"

def about(x):  # the opening line's rounding: whole from 100 up, else three digits
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"

# kv_decode: tokens per second per group = batch / step time, for the simulated layer; the
# whole-model estimate scales the step by 80 / 1 layers and adds the LM head once: its 262,668,288 B
# per GPU (below) at 4096 GB/s, 64,128 ns, more than its FLOPs for 2 tokens (0.75 us).
md, page = texts("kv")
r = json.load(open(f"{w}/kv/stats.json"))["workload"]["streams"]["decode"]["result"]
step = r["mean_step_ns"]
tps = 2 / (step * 1e-9)
whole = step * 80 + 64128
want = [
    "kv_decode, Llama-3-70B",
    "batch 2 on one tensor-parallel group of 8 GPUs",
    "the 1 simulated layer of the model's 80",
    f"{tps:,.1f} tokens/s per group",
    us(step),
    f"{2 / (whole * 1e-9):,.1f} tokens/s per group",
    f"{whole / 1e6:,.2f} ms" if whole >= 1e6 else us(whole),
    # One layer ran: the step is scaled, and the report says how.
    "the step time scaled by 80 / 1",
    # KV older than the newest 256 tokens is read from fam0, in MiB.
    f"KV read from device/fam0 | {r['read_bytes_kv_location'] / 2**20:,.2f} MiB",
    # Assumptions: the workload's 700 TFLOP/s; nvl8_fam's GPU memory peak, 4096 GB/s (README);
    # the LM head 128256 x 8192 x 2 B / 8 GPUs = 262,668,288 B = 250.50 MiB per GPU.
    "at 700 TFLOP/s per GPU",
    "at 4,096 GB/s (weights_gbps",
    "lower bound",
    "LM head",
    "250.50 MiB per GPU",
    "is counted once a step, after the model's last layer, 64.13 µs",
    # The shipped example all-reduces with ring: 2 (8 - 1) = 14 rounds of a 2 x 8192 x 2 B =
    # 32 KiB message; 2 all-reduces a layer, each GPU writing 14 x 32 KiB / 8 = 56 KiB: 8 x 2 x 56
    # KiB = 896 KiB in all.
    "all-reduce its output over the fabric with ring: one all-reduce after each layer's mixer and "
    "one after its FFN, 32.00 KiB (32,768 B) each, in 14 rounds of writes into the peers' memory",
    "All-reduce bytes written | 896.00 KiB (917,504 B)",
    # The same LM head time as a row: not in the step of the 1 simulated layer, added once to
    # the whole-model estimate.
    "LM head per step | 64.13 µs (64,128 ns)",
    "not in the step time above (the model's last layer was not simulated), added once to the "
    "whole-model estimate",
    # With hbm_tokens 256 new tokens go to HBM: what is written to fam0 are the blocks moved down.
    f"KV written to device/fam0 | {r['write_bytes_kv_location'] / 2**10:,.2f} KiB",
    "blocks moved down from HBM as they left the newest 256 tokens",
]
got = section(md)
for t in want:
    assert t in got, f"kv_decode: {t!r} not in the section:\n{got}"
    assert t.split(" | ")[-1] in page, f"kv_decode: {t!r} not in report.html"
# The report opens with the answer (a workload owner's review found it in the fourth bullet, under
# a sentence of resource names): the model, batch, context and where the KV lives as the workload
# file and the --set give them; the whole-model estimate worked out above, rounded to about three
# digits; the run's limiter with its bandwidth against the bound, from stats.json's bottlenecks.
# Then the platform and the bottleneck sentence. The simulated layer's rate, 80 times the model's,
# is not in the opening (nor in the bullets under it) but in the stream's section, named as such.
s = json.load(open(f"{w}/kv/stats.json"))
first = md.split("\n\n")[1]
assert first.startswith("> **In short:** Llama-3-70B decode, batch 2, context 1,024 to 4,096 "
                        "tokens, KV cache on fam0 (the newest 256 tokens in GPU HBM): "), first
assert whole >= 1e6, whole  # about 15 ms: 80 layers of a step of about 0.19 ms
assert (f"\u2248{about(2 / (whole * 1e-9))} tokens/s per 8-GPU group, a token every "
        f"\u2248{about(whole / 1e6)} ms for each sequence (whole-model estimate for all 80 "
        "layers)") in first, first
# Its 80 layers' KV (about 0.1 GiB a GPU at batch 2) and weights (17.6 GB) fit in a GPU's 80 GiB
# of HBM: the simulator's note says so, and the opening that the run shows the device's cost.
assert "each GPU's own HBM would hold all of the stream's data" in r["note"], r["note"]
assert ("; each GPU's own HBM would hold all this data, so this shows what keeping it off the "
        "GPU costs, not what the device gives (see the stream's note); ") in first, first
bn = s["bottlenecks"]
assert first.endswith(f"{bn['achieved_gbps']:.1f} GB/s achieved of an analytic bound of "
                      f"{bn['analytic_bound_gbps']:.1f} GB/s."), first
lim = bn.get("limiter")
if lim:  # nvl8_fam's one device has 8 fabric ports, each a link
    named = f"`{lim['component']} {lim['resource']}`"
    assert named in first, (named, first)
    if lim["kind"] == "link" and lim["component"].startswith("fam0_link"):
        assert "limited by fam0's 8 fabric links (" in first, first
else:  # the limiters of the run's phases, each named
    assert "no resource limited the run as a whole, though " in first, first
    for p in bn["phases"]["phases"]:
        if p["limiter"]:
            named = f"`{p['limiter']['component']} {p['limiter']['resource']}`"
            assert named in first, (named, first)
head = md.split("\n## ", 1)[0]
assert head.index("**In short:**") < head.index("Platform **nvl8_fam**") \
    < head.index("**The bottleneck in one sentence:** " + bn["sentence"][:40]), head
for t in (f"{tps:,.1f}", f"\u2248{about(tps)} tokens", "simulated"):
    assert t not in head, f"the opening has the simulated layer's rate ({t!r}):\n{head}"
assert page.index("In short:") < page.index("Platform nvl8_fam running"), "report.html"
assert f"\u2248{about(2 / (whole * 1e-9))} tokens/s per 8-GPU group" in page, "report.html"
# The whole model's estimate leads the stream's section; the simulated layer's figure follows,
# named as such.
assert (f"An estimated {2 / (whole * 1e-9):,.1f} tokens/s per group for the whole model (80 "
        "layers") in got, got
assert f"simulated: {tps:,.1f} tokens/s per group over the 1 simulated layer" in got, got
# The assumptions section states what the figures assume.
assumptions = md.split("## Assumptions and limits", 1)[1].split("\n## ", 1)[0]
for t in ("the all-reduce time is a lower bound", "LM head", "at 700 TFLOP/s per GPU", "lower bound"):
    assert "Workload results" in assumptions and t in assumptions, f"assumptions: {t!r}"

# Without an HBM tier the whole KV cache is on fam0: its rows say so, not "the newest — tokens",
# and the tier's results (0) are left out, with a sentence naming them. Batch 2 x 1 layer x 8 GPUs
# x 512 B of K and V per token (8 KV heads / 8 GPUs x head_dim 128 x 2 x 2 B) = 8,192 B written.
md, page = texts("kv0")
r = json.load(open(f"{w}/kv0/stats.json"))["workload"]["streams"]["decode"]["result"]
assert (r["read_bytes_hbm"], r["write_bytes_hbm"], r["blocks_moved_to_kv_location"]) == (0, 0, 0), r
got = section(md)
for t in ("| KV read from device/fam0 | "
          f"{r['read_bytes_kv_location'] / 2**20:,.2f} MiB ({r['read_bytes_kv_location']:,} B) | "
          "every cached token's KV that the attention layers read (no HBM tier",
          "| KV written to device/fam0 | 8.00 KiB (8,192 B) | the new tokens' KV",
          "No HBM tier (hbm_tokens is 0): the whole KV cache is on device/fam0, so the HBM tier's "
          "results `read_bytes_hbm`, `write_bytes_hbm` and `blocks_moved_to_kv_location` are 0 "
          "and not listed."):
    assert t in got, f"kv_decode without an HBM tier: {t!r} not in the section:\n{got}"
for t in ("\u2014 tokens", "KV read from HBM", "KV written to HBM", "KV blocks moved"):
    assert t not in got, f"kv_decode without an HBM tier: {t!r} in the section:\n{got}"
# This run sets all_reduce: none: the barrier alone, said so.
assert "the all-reduces themselves take no time and no fabric bandwidth here (all_reduce: none)" \
    in got, got

# weight_stream: 2 x 1,704,448 weights x 32768 tokens / 8 GPUs per layer (workloads test) at
# 700 TFLOP/s, rounded to the ps, for 2 layers: the compute per pass; the exposed transfer is the
# pass time beyond it.
md, page = texts("ws")
r = json.load(open(f"{w}/ws/stats.json"))["workload"]["streams"]["weights"]["result"]
compute = 2 * round(2 * 1704448 * 32768 / 8 / 700e12 * 1e12) / 1e3
exposed = r["mean_pass_ns"] - compute
got = section(md)
for t in ("weight_stream, Llama-3.2-1B", "one tensor-parallel group of 8 GPUs",
          "the 2 simulated layers of the model's 16", f"Compute per pass | {us(compute)}",
          f"Pass time | {us(r['mean_pass_ns'])}", f"Exposed transfer per pass | {us(exposed)}",
          f"({100 * exposed / r['mean_pass_ns']:.1f}% of it)",
          f"{r['bytes_read'] / 2**20:,.2f} MiB", "at 700 TFLOP/s per GPU",
          "weights are read as simulated requests",
          # 2 of the model's 16 identical layers: the estimate as stats.json gives it (its
          # accuracy against a whole-model run: workloads_cli_test.sh).
          f"Pass time, whole-model estimate | {us(r['mean_pass_ns_whole_model_estimate'])}",
          "Pass time is for the 2 simulated layers of the model's 16 only"):
    assert t in got, f"weight_stream: {t!r} not in the section:\n{got}"
assert "weights_gbps" not in got, "weight_stream: weights_gbps does not apply"
# Its opening: the whole model's pass (16 of 16 layers at the 2 simulated ones' pace: stats.json's
# estimate, whose accuracy workloads_cli_test.sh checks), and the share of the simulated pass that
# compute did not hide, worked out above.
first = md.split("\n\n")[1]
whole = r["mean_pass_ns_whole_model_estimate"]
assert 1e3 <= whole < 1e6, whole  # about 0.35 ms: the shrunk model's layers are small
assert first.startswith("> **In short:** Llama-3.2-1B weight streaming, 32,768 tokens a pass, "
                        f"weights on fam0: \u2248{about(whole / 1e3)} \u00b5s a pass per 8-GPU "
                        "group "
                        "(whole-model estimate for all 16 layers); "
                        f"{100 * exposed / r['mean_pass_ns']:.0f}% of the simulated pass is "
                        "weight transfer that compute did not hide; "), first

# The minimal run has no generator stream: no such section, and its report opens as before, with
# the bottleneck sentence.
md, page = texts("run")
assert "What the workload got" not in md and "What the workload got" not in page, "minimal run"
assert "In short" not in md and md.split("\n\n")[1].startswith("Platform **minimal**"), md
assert "> **In one sentence:** " in md and "The bottleneck in one sentence" not in md, md

# Every result key of these runs is one the report describes.
for run in ("kv", "kv0", "ws"):
    assert "not known to this report" not in texts(run)[0], f"{run}: a result key not described"
PY
pass "report of generator runs says what the workload got, for its scope, with its assumptions"

# Several tensor-parallel groups (kv_decode_qwen3_next.yaml's 4 of 2 GPUs): the opening gives a
# group's rate and the stream's total, groups x that rate, and so does the stream's section. The
# kv run's stats.json with its GPUs made 4 groups of 2 by hand.
mkdir "$WORK/kv_groups"
"$PY" - "$WORK/kv/stats.json" "$WORK/kv_groups/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
stream = s["workload"]["streams"]["decode"]
stream["result"]["tensor_parallel_groups"] = 4
stream["summary"]["tensor_parallel"] = 2
json.dump(s, open(sys.argv[2], "w"))
PY
report kv_groups "$WORK/kv_groups"
[ "$RC" -eq 0 ] || fail "report.py on 4 tensor-parallel groups: exit code $RC: $OUT"
"$PY" - "$WORK/kv_groups" <<'PY' || fail "the opening of a run of several groups lacks their total"
import json, re, sys
d = sys.argv[1]
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
x = json.load(open(d + "/stats.json"))["workload"]["streams"]["decode"]["result"][
    "tokens_per_second_per_group_whole_model_estimate"]
about = lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"  # noqa: E731
first = md.split("\n\n")[1]
for t in ("Llama-3-70B decode, batch 2 per group, ", f"\u2248{about(x)} tokens/s per 2-GPU group",
          f"; 4 groups: \u2248{about(4 * x)} tokens/s in all over the 8 GPUs; "):
    assert t in first, (t, first)
assert f"; its 4 groups together {4 * x:,.1f} tokens/s; simulated: " in md, md
PY
pass "the opening of a run of several groups gives their total"

# A decode with a sliding window on every other layer (513 tokens: the newest 512 cached ones are
# read) says so among the stream's assumptions, with the share of the simulated layers it covers.
run_famsim kvw run --platform platforms/nvl8_fam.yaml --workload traffic/kv_decode_llama70b.yaml \
  --out "$WORK/kvw" --set $S.kv_decode.steps=1 --set $S.kv_decode.batch=2 \
  --set $S.kv_decode.model.sliding_window.tokens=513 \
  --set "$S.kv_decode.model.sliding_window.layer_types=[sliding, full]" || true
expect_rc 0 "kv_decode run with a sliding window"
report report_kvw "$WORK/kvw"
[ "$RC" -eq 0 ] || fail "report.py on the sliding-window run: exit code $RC: $OUT"
grep -qF "Sliding-window attention of 513 tokens on 1 of the 2 simulated layers: each reads only the newest 512 cached tokens." \
  "$WORK/kvw/report.md" || fail "the report does not state the sliding window"
# With hbm_tokens 256 and a sliding layer the result counts the blocks dropped behind the window.
grep -qF "| KV blocks dropped behind the window | " "$WORK/kvw/report.md" ||
  fail "the report does not describe sliding_blocks_dropped"
! grep -q "not known to this report" "$WORK/kvw/report.md" ||
  fail "the sliding-window decode's report has a result key it does not describe"
pass "report of a sliding-window decode states the window"

# A model of layers of one part alone (Nemotron-H-8B's first 4: M-M-) says which the simulated
# layers are, and that its 2 FFN layers move neither KV nor state.
run_famsim kvb run --platform platforms/nvl8_fam.yaml --workload traffic/kv_decode_llama70b.yaml \
  --out "$WORK/kvb" --set $S.kv_decode.steps=1 --set $S.kv_decode.batch=2 \
  --set $S.kv_decode.layers=4 --set $S.kv_decode.model.preset=nemotron_h_8b || true
expect_rc 0 "kv_decode run of a block pattern"
report report_kvb "$WORK/kvb"
[ "$RC" -eq 0 ] || fail "report.py on the block-pattern run: exit code $RC: $OUT"
grep -qF "The model's layers each hold one part alone (block pattern M-M- for the simulated layers: M a linear-attention mixer, \\* attention, - a dense FFN, E experts): the 2 FFN layers keep no KV cache or state, and take only their compute time." \
  "$WORK/kvb/report.md" || fail "the report does not state the block pattern"
# Its 2 mixer layers' states (on kv_location, fam0: state_location is not given) read and written
# whole: batch 2 x 2 layers x 8 GPUs x the state summary gives, 1 step. No layer keeps KV: the KV
# rows (all 0) are left out, and the report says so.
"$PY" - "$WORK/kvb" <<'PY' || fail "the block-pattern decode's states or KV rows"
import json, re, sys
d = sys.argv[1]
stream = json.load(open(d + "/stats.json"))["workload"]["streams"]["decode"]
state = 2 * 2 * 8 * stream["summary"]["state_bytes_per_sequence_per_gpu_per_layer"]
assert stream["result"]["read_bytes_state"] == state == stream["result"]["write_bytes_state"], state
md = re.sub(r"\\(.)", r"\1", open(d + "/report.md").read())
for t in (f"| Linear-attention state read | {state / 2**20:,.2f} MiB ({state:,} B) | each "
          "sequence's recurrent and convolution state, read whole every step in each "
          "linear-attention layer, from device/fam0",
          f"| Linear-attention state written | {state / 2**20:,.2f} MiB ({state:,} B) |",
          "None of the simulated layers keeps a KV cache, so the KV results "
          "`read_bytes_kv_location`, `write_bytes_kv_location`, `read_bytes_hbm`, "
          "`write_bytes_hbm` and `blocks_moved_to_kv_location` are 0 and not listed."):
    assert t in md, t
assert "| KV read" not in md and "not known to this report" not in md, md
# Its 4 layers are 2 of the model's 52 layers' kinds: no whole-model estimate (the note says why).
# The opening gives the simulated layers' rate, batch 2 over the step, said to be for those only.
r = stream["result"]
assert "note" in r and "tokens_per_second_per_group_whole_model_estimate" not in r, r
rate = 2 / (r["mean_step_ns"] * 1e-9)
about = f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"
first = md.split("\n\n")[1]
assert first.startswith("> **In short:** Nemotron-H-8B decode, batch 2, context 1,024 to 4,096 "
                        "tokens, linear-attention states on fam0: over only 4 of the model's 52 "
                        f"layers, not the whole model, \u2248{about} tokens/s per 8-GPU "
                        "group"), first
assert "; no whole-model estimate (see the stream's note); " in first, first
PY
pass "report of a block-pattern decode states the layers' parts"

# The bandwidth figure marks each phase of the per-phase bottleneck analysis with its limiter, its
# legend beside the plot (it sat over the labels on the shipped kv_decode run). Three phases, the
# middle one cut to 4 us of the run's span: its label cannot fit, so the phases are numbered and
# the legend says which limiter each number stands for. Both keep their text apart.
mkdir -p "$WORK/phases"
"$PY" - "$WORK/kv" "$WORK/phases" <<'PY'
import json, shutil, sys
src, dst = sys.argv[1:]
shutil.copy(f"{src}/timeseries.csv", dst)
s = json.load(open(f"{src}/stats.json"))
end = s["sim"]["simulated_time_ns"]
a, b = end * 0.5, end * 0.5 + 4000.0
lim = {"component": "fam0_link4", "resource": "response wire"}
s["bottlenecks"]["phases"] = {"phases": [
    {"start_ns": 0.0, "end_ns": a, "limiter": lim},
    {"start_ns": a, "end_ns": b, "limiter": None},
    {"start_ns": b, "end_ns": end, "limiter": lim}]}
json.dump(s, open(f"{dst}/stats.json", "w"))
PY
for dir in "$WORK/kv" "$WORK/phases"; do
  run_tool figure_text "$PY" "$(dirname "$0")/../support/figure_text.py" \
    "$(dirname "$REPORT")/plot_run.py" "$dir" --out "$dir/figure_text_plots"
  [ "$RC" -eq 0 ] || fail "plot_run.py's figures of $dir: text overlaps or is cut off (exit $RC):
$OUT"
done
"$PY" - "$(dirname "$REPORT")" "$(dirname "$0")/../support" "$WORK/phases" <<'PY' ||
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import figure_text
import plot_run
seen = {}
def inspect(fig):
    ax = fig.axes[0]
    if ax.get_title() == "Bandwidth per window":
        seen["legend"] = [t.get_text() for t in ax.get_legend().get_texts()]
        seen["marks"] = [t.get_text() for t in ax.texts]
figure_text.on_save(inspect)
sys.argv = ["plot_run.py", sys.argv[3], "--out", sys.argv[3] + "/inspected"]
plot_run.main()
want = ["phase 1: fam0_link4 response wire", "phase 2: nothing saturated",
        "phase 3: fam0_link4 response wire"]
assert seen.get("marks") == ["1", "2", "3"], seen
assert seen["legend"][-3:] == want, seen
PY
  fail "a phase too narrow for its limiter's name is not numbered with a legend"
pass "the bandwidth figure's phase labels: beside the legend, numbered when one does not fit"

# A result key the report does not know (a future generator's) is listed by its raw name and
# value, never dropped; a stream's note is given. Hand-made from the kv_decode run's stats.json.
mkdir -p "$WORK/future"
"$PY" - "$WORK/kv/stats.json" "$WORK/future/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
streams = s["workload"]["streams"]
streams["decode"]["result"]["queue_depth_p42"] = 12.5
streams["decode"]["result"]["note"] = "a note from the generator"
streams["later"] = {"kind": "future_gen", "summary": {}, "result": {"widgets_done": 3}}
# An moe_experts stream's step figures (those of ai_generators_test's StepTimeAndExposedFetchByHand),
# on a model of 48 layers whose MoE layers are 24 (Llama 4 Maverick's every other).
streams["experts"] = {"kind": "moe_experts",
                      "summary": {"moe_layers_simulated": 2, "model_moe_layers": 24},
                      "result": {"mean_step_ns": 8800.0, "compute_ns_per_step": 800.0,
                                 "exposed_fetch_ns_per_step": 8000.0,
                                 "tokens_per_second_per_group": 227272.7, "hit_rate": 0.5,
                                 "expert_lookups": 16, "cache_misses": 8,
                                 "bytes_fetched": 393216, "moe_layers_simulated": 2,
                                 "model_layers": 48}}
# An expert-parallel moe_experts stream, gpt-oss-120b's in traffic/moe_gpt_oss_ep.yaml: 8 GPUs
# holding 16 of the 128 experts each, batch 4, top-4, 2 steps of 1 MoE layer. Its 2 x 16 = 32
# picks chose 25 distinct experts (12.5 a step), each looked up once: 20 hits, 5 misses of
# 13,219,200 B each; the busiest GPU read 2 of them, 26,438,400 B, against a mean of
# 5 x 13,219,200 / 8 = 8,262,000 B: 3.2 times it.
streams["experts_ep"] = {
    "kind": "moe_experts",
    "summary": {"moe_layers_simulated": 1, "model_moe_layers": 36, "batch": 4, "top_k": 4,
                "experts": 128, "expert_parallel": 8, "tensor_parallel": 1, "cache_experts": 8,
                "steps": 2, "expert_bytes_per_gpu": 13219200},
    "result": {"mean_step_ns": 355251.272, "compute_ns_per_step": 8098.044,
               "exposed_fetch_ns_per_step": 347153.228, "hit_rate": 0.8, "expert_lookups": 25,
               "cache_hits": 20, "cache_misses": 5, "evictions": 5, "bytes_fetched": 66096000,
               "mean_distinct_experts_per_layer": 12.5, "steps_done": 2,
               "tensor_parallel_groups": 1, "moe_layers_simulated": 1, "model_layers": 36,
               "expert_parallel": 8, "bytes_fetched_max_gpu": 26438400.0,
               "fetch_imbalance": 3.2}}
json.dump(s, open(sys.argv[2], "w"))
PY
report future "$WORK/future"
[ "$RC" -eq 0 ] || fail "report.py on a future generator's result: exit code $RC: $OUT"
"$PY" - "$WORK/future/report.md" <<'PY' || fail "a result key the report does not know is dropped"
import re, sys
md = re.sub(r"\\(.)", r"\1", open(sys.argv[1]).read())
got = md.split("## What the workload got", 1)[1].split("\n## ", 1)[0]
for t in ("| queue_depth_p42 | 12.5 |", "Stream later: future_gen", "| widgets_done | 3 |",
          "Note:** a note from the generator",
          # 8000 / 8800 ns exposed.
          "8.80 µs (8,800 ns), 8.00 µs (8,000 ns) (90.9%) of it expert fetches",
          "| Step time | 8.80 µs (8,800 ns) |", "| Exposed expert fetch per step | 8.00 µs",
          "| Compute per step | 800.0 ns |",
          # The model's MoE layers, not its layers.
          "the 2 simulated MoE layers of the model's 24"):
    assert t in got, f"{t!r} not in the section:\n{got}"
# The expert-parallel stream: a lookup is a distinct expert, not a token's pick; its group is
# expert-parallel; its imbalance keys are described, not listed by raw name.
ep = got.split("### Stream experts_ep", 1)[1].split("\n### ", 1)[0]
for t in ("**Scope:** batch 4 on one expert-parallel group of 8 GPUs (each GPU holds 16 of the "
          "128 experts of every MoE layer whole)",
          "The HBM expert cache hit 80.0% of 25 expert lookups (one per distinct expert a step's "
          "tokens picked in an MoE layer: 12.50 on average of the 16 picks)",
          "| Expert lookups | 25 | one per distinct expert the group's tokens picked in a step and "
          "MoE layer (4 tokens x top-4 = 16 picks, an expert several tokens picked looked up "
          "once)",
          "the share of the distinct experts looked up that the HBM cache (8 of its own experts "
          "on each of the group's 8 GPUs) held",
          "| Expert bytes read by the busiest GPU | 25.21 MiB (26,438,400 B) | the most one GPU "
          "of the expert-parallel group read from the device, 2 whole experts",
          "| Fetch imbalance | 3.20x the mean |",
          "no all-to-all dispatch or combine without all_to_all: direct"):
    assert t in ep, f"{t!r} not in the expert-parallel stream:\n{ep}"
assert "not known" not in ep and "tokens x top-k per step" not in ep, ep
# The opening gives each AI stream's answer after its name (the future generator's has none), the
# kv run's decode first; an MoE stream's step is said to cover its simulated MoE layers only.
first = md.split("\n\n")[1]
assert first.startswith("> **In short:** **Stream decode:** Llama-3-70B decode, batch 2"), first
for t in ("**Stream experts:** expert fetch: the cache held 50.0% of the experts looked up; a step "
          "over only 2 of the model's 24 MoE layers took \u22488.80 \u00b5s, 91% of it expert "
          "fetches compute did not hide. ",
          "**Stream experts_ep:** expert fetch, batch 4: the cache held 80.0% of the experts "
          "looked up; a step over only 1 of the model's 36 MoE layers took \u2248355 \u00b5s, "
          "98% of it expert fetches compute did not hide. "):
    assert t in first, (t, first)
assert "Stream later" not in first, first
# Then the run's limiter, once for every stream.
import json
bn = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/stats.json"))["bottlenecks"]
leads = ("Limited by ",) if bn.get("limiter") else ("No resource limited ", "Nothing saturated")
assert any(f"did not hide. {lead}" in first for lead in leads), first
assert first.count(" GB/s achieved of an analytic bound of ") == 1, first
assert first.endswith(f"{bn['achieved_gbps']:.1f} GB/s achieved of an analytic bound of "
                      f"{bn['analytic_bound_gbps']:.1f} GB/s."), first
PY
pass "a result key the report does not know is listed by its raw name and value"
