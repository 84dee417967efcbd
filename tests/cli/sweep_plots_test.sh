#!/usr/bin/env bash
# scripts/plot_sweep.py from the outside, on hand-made sweep directories in the shape `famsim
# sweep` writes (results.csv, sensitivity.csv, sweep.json; no simulation needed):
#   - a 1-D sweep over devices.0.memory.channels with a failed point and a limiter change: the
#     tornado and parameter figures are PNGs, summary.md names the most sensitive parameter with
#     the doubling figure worked out by hand, and lists the failed point with its error;
#   - a 2-D grid with a categorical parameter, no sensitivity rows and no sweep.json: still drawn;
#   - bad input (no directory, no or malformed results.csv, corrupt sweep.json) exits 2 with one
#     line naming the file and writes nothing.
# Run from the repository root: bash tests/cli/sweep_plots_test.sh [path/to/famsim (unused)]
set -euo pipefail

PLOT="$(dirname "$0")/../../scripts/plot_sweep.py"
CHECK="$(dirname "$0")/../support/figure_text.py"

CLI_TEST_NAME=sweep-plots
CLI_TEST_NO_FAMSIM=1
source "$(dirname "$0")/lib.sh"

plot() {  # plot NAME ARGS...: runs plot_sweep.py, output in $WORK/NAME.log, exit code in $RC;
  # under tests/support/figure_text.py, so text that overlaps or is cut off is exit code 1
  local name=$1
  shift
  run_tool "$name" /usr/bin/python3 "$CHECK" "$PLOT" "$@"
}

is_png() {  # is_png FILE WHAT
  [ -s "$1" ] || fail "$2: no $1"
  head -c 8 "$1" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a" || fail "$2: $1 is not a PNG"
}

# --- A 1-D sweep over the channel count ----------------------------------------------------------
# Channels 2 (failed: the capacity does not fit), 4, 8 (base), 16, 32. Bandwidth 70, 140, 175, 178
# GB/s, p99 latency 9000, 5000, 4000, 3900 ns; the memory channels limit up to 8 channels, the
# device links from 16 on.
#
# Sensitivity, by hand (arc elasticity (dM / mean M) / (dP / mean P), averaged over both sides;
# low = 4, high = 16 around the base 8):
#   bandwidth: low  (140 - 70) / 105 = 2/3 over (8 - 4) / 6 = 2/3       -> 1
#              high (175 - 140) / 157.5 = 2/9 over (16 - 8) / 12 = 2/3  -> 1/3
#              mean 2/3 = 0.6667; doubling at constant elasticity: 2^(2/3) - 1 = 58.7% -> "+59%";
#              measured: 4 gives (70 - 140) / 140 = -50.0%, 16 gives (175 - 140) / 140 = +25.0%
#   p99:       low  (5000 - 9000) / 7000 = -4/7 over 2/3                 -> -6/7
#              high (4000 - 5000) / 4500 = -2/9 over 2/3                 -> -1/3
#              mean -(6/7 + 1/3) / 2 = -25/42 = -0.5952
SWEEP="$WORK/channels"
mkdir -p "$SWEEP"
METRICS="bandwidth_gbps,read_bandwidth_gbps,write_bandwidth_gbps,latency_mean_ns,latency_p99_ns,\
read_latency_mean_ns,read_latency_p99_ns,achieved_fraction_of_bound,limiter,limiter_utilization,\
simulated_time_ns,host_seconds"
cat >"$SWEEP/results.csv" <<EOF
point,status,error,devices.0.memory.channels,$METRICS
0,failed,"exit code 1: 128.00 GiB do not fit in 2 channels, lower the capacity",2,,,,,,,,,,,,
1,ok,,4,70,69.9,0.1,3000,9000,3000,9000,0.99,fam*.memory.ch* data bus,0.97,4000000,20.5
2,ok,,8,140,139.8,0.2,2000,5000,2000,5000,0.98,fam*.memory.ch* data bus,0.95,2000000,21.0
3,ok,,16,175,174.7,0.3,1500,4000,1500,4000,0.99,fam*_link* response wire,0.998,1600000,22.1
4,ok,,32,178,177.7,0.3,1450,3900,1450,3900,0.998,fam*_link* response wire,0.998,1570000,23.4
EOF
cat >"$SWEEP/sensitivity.csv" <<EOF
parameter,metric,base_value,low_value,high_value,metric_base,metric_low,metric_high,elasticity
devices.0.memory.channels,bandwidth_gbps,8,4,16,140,70,175,0.6666666666666666
devices.0.memory.channels,latency_p99_ns,8,4,16,5000,9000,4000,-0.5952380952380952
EOF
cat >"$SWEEP/sweep.json" <<EOF
{"name": "channels_1d", "description": "Channel count alone.", "mode": "grid",
 "parameters": ["devices.0.memory.channels"], "groups": [["devices.0.memory.channels"]],
 "base": {"devices.0.memory.channels": "8"}, "points": 5, "ok": 4, "failed": 1,
 "one_dimensional": true, "results": "results.csv", "sensitivity": "sensitivity.csv"}
EOF

plot channels "$SWEEP"
[ "$RC" -eq 0 ] || fail "plot_sweep.py on a 1-D sweep: exit code $RC. Output:
$OUT"
for f in tornado_bandwidth_gbps tornado_latency_p99_ns \
  devices_0_memory_channels_vs_bandwidth_gbps devices_0_memory_channels_vs_latency_p99_ns; do
  is_png "$SWEEP/plots/$f.png" "1-D sweep"
done
MD="$SWEEP/plots/summary.md"
[ -s "$MD" ] || fail "1-D sweep: no summary.md"
SENTENCE="Doubling \`devices.0.memory.channels\` around its base (8) changes bandwidth by about"
for text in "channels_1d" "5 points" "4 ok, 1 failed" \
  "point 0 (devices.0.memory.channels=2): exit code 1: 128.00 GiB do not fit in 2 channels, lower" \
  "$SENTENCE +59% (elasticity 0.67). Measured: 4 gives 70 GB/s (-50.0%) and 16 gives" \
  "16 gives 175 GB/s (+25.0%)."; do
  grep -qF -- "$text" "$MD" || fail "summary.md lacks '$text':
$(cat "$MD")"
done
# Every figure summary.md shows is one of the PNGs next to it.
grep -o '](.*\.png)' "$MD" | sed 's/^](//; s/)$//' | while read -r png; do
  is_png "$SWEEP/plots/$png" "summary.md's figure"
done
pass "1-D sweep with a failed point and a limiter change"

# A second plot removes the figures the first wrote and it does not (its manifest lists them), and
# leaves a file of the user's. With the device's bandwidth below the total (GPU memory carried the
# rest), the summary says the ranked bandwidth is over every target.
echo stale >"$SWEEP/plots/devices_0_old_vs_bandwidth_gbps.png"
echo devices_0_old_vs_bandwidth_gbps.png >>"$SWEEP/plots/.plot_sweep-files"
echo mine >"$SWEEP/plots/mine.png"
/usr/bin/python3 - "$SWEEP/results.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[0].append("device_bandwidth_gbps")
for r in rows[1:]:
    r.append(str(float(r[4]) * 0.9) if r[1] == "ok" else "")
csv.writer(open(sys.argv[1], "w", newline="")).writerows(rows)
PY
plot replot "$SWEEP"
[ "$RC" -eq 0 ] || fail "second plot_sweep.py: exit code $RC. Output:
$OUT"
[ ! -e "$SWEEP/plots/devices_0_old_vs_bandwidth_gbps.png" ] || fail "a stale figure was left"
[ -e "$SWEEP/plots/mine.png" ] || fail "the user's file was removed"
grep -qF "Bandwidth here is over every target" "$MD" || fail "summary.md does not say the bandwidth is over every target:
$(cat "$MD")"
grep -qF "one value at every point" "$MD" && fail "summary.md names unchanged results sweep.json does not list"
pass "a second plot removes its earlier figures only, and says what the bandwidth is over"

# The workload results sweep.json lists as unchanged at every point are named, with their values.
/usr/bin/python3 - "$SWEEP/sweep.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["unchanged_workload_results"] = {"decode.model_layers": 80, "decode.steps_done": 1}
json.dump(s, open(sys.argv[1], "w"))
PY
plot unchanged "$SWEEP"
[ "$RC" -eq 0 ] || fail "plot_sweep.py with unchanged results: exit code $RC. Output:
$OUT"
grep -qF "one value at every point are not ranked: \`decode.model_layers\` (80), \`decode.steps_done\` (1)." "$MD" ||
  fail "summary.md does not name the unchanged results:
$(cat "$MD")"
pass "the workload results no point changed are named in summary.md"

# The same sweep with the per-side elasticities famsim sweep writes: 1 below the base and 1/3 above
# (worked out above) are a kink, 2^1 - 1 = +100% against 2^(1/3) - 1 = +26% per doubling, which
# summary.md says instead of the averaged +59%. A metric no parameter moved (a workload's fixed
# layer count; elasticity written as -0) gets no tornado figure.
KINK="$WORK/kink"
mkdir -p "$KINK"
cp "$SWEEP/results.csv" "$SWEEP/sweep.json" "$KINK/"
cat >"$KINK/sensitivity.csv" <<EOF
parameter,metric,base_value,low_value,high_value,metric_base,metric_low,metric_high,elasticity,elasticity_low,elasticity_high
devices.0.memory.channels,bandwidth_gbps,8,4,16,140,70,175,0.6666666666666666,1,0.3333333333333333
devices.0.memory.channels,decode.layers_simulated,8,4,16,2,2,2,-0,-0,0
EOF
plot kink "$KINK"
[ "$RC" -eq 0 ] || fail "plot_sweep.py with per-side elasticities: exit code $RC. Output:
$OUT"
text="1. \`devices.0.memory.channels\` has a kink at its base (8): per doubling, bandwidth changes by about +100% below it and +26% above it (elasticities 1.00 and 0.33, 0.67 averaged)."
grep -qF -- "$text" "$KINK/plots/summary.md" || fail "summary.md lacks '$text':
$(cat "$KINK/plots/summary.md")"
is_png "$KINK/plots/tornado_bandwidth_gbps.png" "kink"
[ ! -e "$KINK/plots/tornado_decode_layers_simulated.png" ] ||
  fail "a tornado figure for a metric no parameter moved"
pass "a kink at the base is named, and a metric nothing moved gets no tornado"

# A base at the top of the values swept: measured below it only (16 channels the base, 8 the
# one neighbour; 132.6 against 158.4 GB/s, elasticity 0.2564 as written here, log2(158.4 / 132.6);
# famsim sweep's own, an arc elasticity, would differ a little). summary.md
# gives the halving measured, 2^-0.2564 - 1 = -16%, and no gain from doubling, which nothing
# measured (a review read "doubling changes bandwidth by about +20%" past a limiter).
ONE="$WORK/one_sided"
mkdir -p "$ONE"
cp "$SWEEP/results.csv" "$SWEEP/sweep.json" "$ONE/"
sed -i 's/"devices.0.memory.channels": "8"/"devices.0.memory.channels": "16"/' "$ONE/sweep.json"
cat >"$ONE/sensitivity.csv" <<EOF
parameter,metric,base_value,low_value,high_value,metric_base,metric_low,metric_high,elasticity,elasticity_low,elasticity_high
devices.0.memory.channels,bandwidth_gbps,16,8,,158.4,132.6,,0.25643,0.25643,
EOF
plot one_sided "$ONE"
[ "$RC" -eq 0 ] || fail "plot_sweep.py with a one-sided row: exit code $RC. Output:
$OUT"
text="1. \`devices.0.memory.channels\` was measured only below its base (16): per halving from the base, bandwidth changes by about -16% (elasticity 0.26). Measured: 8 gives 133 GB/s (-16.3%). Above the base nothing was measured"
grep -qF -- "$text" "$ONE/plots/summary.md" || fail "summary.md lacks '$text':
$(cat "$ONE/plots/summary.md")"
grep -qF "Doubling \`devices.0.memory.channels\`" "$ONE/plots/summary.md" &&
  fail "summary.md reads a doubling from a side not measured"
pass "a parameter measured on one side of its base only is said so, with no change beyond it"

# The tornado's labels, on rows built so the old layout put them on each other: b.y changes
# bandwidth +7.1% below its base and +8.6% above it (150 and 152 against 140), so both labels sat
# at nearly the same place right of zero; a.x moves it -0.7% and +0.7%, c.z -99% and -0.07%.
# tests/support/figure_text.py draws the figure and reports any two texts whose boxes overlap or
# one cut off at the figure's edge. The x axis is a percent change: its label names the metric
# without its unit, then the base point's value once with it (140 GB/s, from the table below).
TORN="$WORK/tornado_labels"
mkdir -p "$TORN"
cat >"$TORN/results.csv" <<EOF
point,status,error,a.x,b.y,c.z,bandwidth_gbps,latency_p99_ns
0,ok,,8,8,1024,140,5000
EOF
cat >"$TORN/sensitivity.csv" <<EOF
parameter,metric,base_value,low_value,high_value,metric_base,metric_low,metric_high,elasticity
a.x,bandwidth_gbps,8,4,16,140,139,141,0.0107
b.y,bandwidth_gbps,8,4,16,140,150,152,-0.05
c.z,bandwidth_gbps,1024,512,16384,140,1.4,139.9,1.2
EOF
run_tool tornado_labels /usr/bin/python3 "$CHECK" "$PLOT" "$TORN"
[ "$RC" -eq 0 ] || fail "tornado labels overlap or are cut off (exit code $RC):
$OUT"
is_png "$TORN/plots/tornado_bandwidth_gbps.png" "tornado labels"
/usr/bin/python3 - "$(dirname "$PLOT")" "$TORN" "$(dirname "$CHECK")" <<'PY' ||
import sys
sys.path[:0] = [sys.argv[1], sys.argv[3]]
import figure_text
import plot_sweep
labels = []
figure_text.on_save(lambda fig: labels.append(fig.axes[0].get_xlabel()))
plot_sweep.tornado(plot_sweep.Sweep(sys.argv[2]), "bandwidth_gbps", sys.argv[2] + "/t.png")
want = "bandwidth, all targets: change from the base point (%)\nbase point: 140 GB/s"
if labels != [want]:
    sys.exit(f"x label {labels!r}, expected {[want]!r}")
PY
  fail "the tornado's x label"
pass "tornado labels clear of each other and of the parameter names; the x label a percent change"

# --out puts everything elsewhere.
plot elsewhere "$SWEEP" --out "$WORK/elsewhere"
[ "$RC" -eq 0 ] || fail "--out: exit code $RC. Output:
$OUT"
is_png "$WORK/elsewhere/tornado_bandwidth_gbps.png" "--out"
[ -s "$WORK/elsewhere/summary.md" ] || fail "--out: no summary.md"
pass "--out"

# --- A 1-D sweep over a pattern's name: no order between the values, so no line joins them ------
# Each figure is checked as drawn: a Line2D with a line style and two or more distinct x joins
# points. The pattern sweep's figures must have none; the channel sweep's bandwidth figure has one,
# through its ok points 4, 8, 16, 32 (point 0, channels 2, failed: a cross, not on the line).
PAT="$WORK/pattern"
mkdir -p "$PAT"
cat >"$PAT/results.csv" <<EOF
point,status,error,workload.streams.0.pattern,$METRICS
0,ok,,sequential,140,140,0,2000,5000,2000,5000,0.98,fam*.memory.ch* data bus,0.95,2000000,21
1,ok,,uniform_random,120,120,0,2300,6100,2300,6100,0.9,fam*.memory.ch* data bus,0.93,2300000,21
2,ok,,zipf,130,130,0,2100,5600,2100,5600,0.93,fam*.memory.ch* bank,0.9,2150000,21
EOF
plot pattern "$PAT"
[ "$RC" -eq 0 ] || fail "plot_sweep.py on a categorical 1-D sweep: exit code $RC. Output:
$OUT"
/usr/bin/python3 - "$(dirname "$PLOT")" "$PAT" "$SWEEP" "$(dirname "$CHECK")" <<'PY' ||
import sys
sys.path[:0] = [sys.argv[1], sys.argv[4]]
import figure_text
import plot_sweep
joined = []
figure_text.on_save(lambda fig: joined.append(
    [sorted(set(map(float, line.get_xdata()))) for line in fig.axes[0].get_lines()
     if line.get_linestyle() not in ("None", "none", "", " ")
     and len(set(map(float, line.get_xdata()))) > 1]))
pattern = plot_sweep.Sweep(sys.argv[2])
for metric in ("bandwidth_gbps", "latency_p99_ns"):
    assert plot_sweep.parameter_line(pattern, pattern.groups[0], metric, sys.argv[2] + "/p.png")
channels = plot_sweep.Sweep(sys.argv[3])
assert plot_sweep.parameter_line(channels, channels.groups[0], "bandwidth_gbps",
                                 sys.argv[3] + "/c.png")
if joined != [[], [], [[4.0, 8.0, 16.0, 32.0]]]:
    sys.exit(f"lines joining points (pattern bandwidth, pattern p99, channels bandwidth): "
             f"{joined}; expected none, none and one through 4, 8, 16, 32")
PY
  fail "lines between points"
pass "a categorical parameter's points are not joined by a line; a numeric one's are"

# --- A 2-D grid, one parameter categorical, without sensitivity.csv and sweep.json ---------------
GRID="$WORK/grid"
IL=devices.0.memory.interleave
mkdir -p "$GRID"
cat >"$GRID/results.csv" <<EOF
point,status,error,$IL.channel_select,$IL.granule_bytes,$METRICS
0,ok,,modulo,256,150,150,0,2000,5000,2000,5000,0.9,fam*.memory.ch* data bus,0.95,2000000,20
1,ok,,modulo,4096,120,120,0,2500,6000,2500,6000,0.8,fam*.memory.ch* bank,0.9,2400000,20
2,failed,boom,xor,256,,,,,,,,,,,,
3,ok,,xor,4096,,,,,,,,,,,,
EOF
# Only the header: no parameter had a numeric neighbour of its base with both points ok.
head -1 "$SWEEP/sensitivity.csv" >"$GRID/sensitivity.csv"
plot grid "$GRID"
[ "$RC" -eq 0 ] || fail "plot_sweep.py on a grid without sensitivity rows: exit code $RC. Output:
$OUT"
for f in devices_0_memory_interleave_channel_select_vs_bandwidth_gbps \
  devices_0_memory_interleave_granule_bytes_vs_bandwidth_gbps; do
  is_png "$GRID/plots/$f.png" "grid"
done
[ ! -e "$GRID/plots/tornado_bandwidth_gbps.png" ] || fail "grid: a tornado without sensitivity rows"
for text in "3 ok, 1 failed" "\`sensitivity.csv\` has no \`bandwidth_gbps\` rows" \
  "Not ranked: \`$IL.channel_select\` (its values are not numbers"; do
  grep -qF -- "$text" "$GRID/plots/summary.md" || fail "grid: summary.md lacks '$text':
$(cat "$GRID/plots/summary.md")"
done
pass "a grid with a categorical parameter, an ok point without metrics, no sensitivity rows"

# --- Bad input: exit code 2, one line naming the file, nothing written ----------------------------
expect_bad() {  # expect_bad NAME DIR TEXT: plot_sweep.py DIR exits 2 naming TEXT, writing nothing
  plot "$1" "$2"
  expect_bad_dir "$1" "$2" "$3" results.csv sweep.json
}

expect_bad missing_dir "$WORK/no_such_sweep" "$WORK/no_such_sweep"
[ ! -e "$WORK/no_such_sweep" ] || fail "missing_dir: plot_sweep.py created the directory"
mkdir "$WORK/no_results"
expect_bad missing_results "$WORK/no_results" "$WORK/no_results/results.csv"
mkdir "$WORK/not_results"
printf 'a,b\n1,2\n' >"$WORK/not_results/results.csv"
expect_bad not_results "$WORK/not_results" "$WORK/not_results/results.csv"
mkdir "$WORK/corrupt_json"
cp "$SWEEP/results.csv" "$WORK/corrupt_json/"
head -c 40 "$SWEEP/sweep.json" >"$WORK/corrupt_json/sweep.json"
expect_bad corrupt_json "$WORK/corrupt_json" "$WORK/corrupt_json/sweep.json"
# The header alone (a table cut off after it): a sweep has at least one point.
mkdir "$WORK/header_only"
head -n 1 "$SWEEP/results.csv" >"$WORK/header_only/results.csv"
expect_bad header_only "$WORK/header_only" "a header and no points"
pass "bad input"

# --- plot_run.py: a stats.json not of famsim's shape, or an --out that cannot be a directory, is
# --- bad input (exit 2, one line) and leaves no plots. ------------------------------------------
PLOT_RUN="$(dirname "$0")/../../scripts/plot_run.py"
mkdir -p "$WORK/run_list" "$WORK/run_shape"
echo '[1, 2]' >"$WORK/run_list/stats.json"
run_tool run_list "$PLOT_RUN" "$WORK/run_list"
expect_bad_dir run_list "$WORK/run_list" "not a famsim stats.json" stats.json
# The right sections, one of the wrong type deeper down: found while drawing, after some plots.
echo '{"sim": {}, "summary": {"read_latency_histogram": 5}, "components": {}}' \
  >"$WORK/run_shape/stats.json"
run_tool run_shape "$PLOT_RUN" "$WORK/run_shape"
expect_bad_dir run_shape "$WORK/run_shape" "not the shape famsim writes" stats.json plots
[ -z "$(ls -A "$WORK/run_shape/plots")" ] || fail "run_shape: plots left: $(ls "$WORK/run_shape/plots")"
touch "$WORK/a_file"
run_tool run_out_file "$PLOT_RUN" "$WORK/run_shape" --out "$WORK/a_file/sub"
expect_bad_dir run_out_file "$WORK/a_file" "cannot create the output directory"
pass "plot_run.py bad input"

# --- plot_run.py: utilization.png keeps every label on the figure. A hand-made stats.json: 300
# --- components listing no resources (a title of "2 resources and 300 components listing none"),
# --- one with a 150-character resource name, and two names of 84 characters that differ only at
# --- character 45 ("link 1" and "link 2"), so that keeping the same start and end of each would
# --- give one label to two bars.
LONG="$WORK/run_long_names"
mkdir -p "$LONG"
/usr/bin/python3 - "$LONG/stats.json" <<'PY'
import json, sys
components = {f"node{i}": {"utilization": 0.5} for i in range(300)}
components["gpu_cluster_alpha_0_with_a_longer_name"] = {"resources": [
    {"name": f"link {k} response wire to the plane_switch_east", "utilization": 0.9 - k / 10,
     "type": "bandwidth"} for k in (1, 2)]}
components["a" * 70] = {"resources": [{"name": "b" * 79, "utilization": 0.95, "type": "slots"}]}
json.dump({"sim": {}, "summary": {}, "components": components}, open(sys.argv[1], "w"))
PY
run_tool run_long_names /usr/bin/python3 "$CHECK" "$PLOT_RUN" "$LONG"
[ "$RC" -eq 0 ] || fail "utilization.png: a label overlaps another or is cut off (exit code $RC):
$OUT"
/usr/bin/python3 - "$(dirname "$PLOT_RUN")" "$LONG" "$(dirname "$CHECK")" <<'PY' ||
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[3]]
import figure_text
import plot_run
stats = json.load(open(sys.argv[2] + "/stats.json"))
seen = []
figure_text.on_save(lambda fig: seen.append([t.get_text() for t in fig.axes[0].get_yticklabels()]))
plot_run.utilization(stats, sys.argv[2] + "/u.png", top=40)
labels = seen[0]
# 40 bars: the 3 named resources and 37 of the components; each its own label.
if len(labels) != 40 or len(set(labels)) != 40:
    sys.exit(f"{len(labels)} labels, {len(set(labels))} distinct; expected 40 and 40: {labels}")
long_name = "a" * 70 + " " + "b" * 79
short = [t for t in labels if t.startswith("aaa")]
if len(short) != 1 or len(short[0]) >= len(long_name) or "\u2026" not in short[0]:
    sys.exit(f"the 150-character name is labelled {short!r}; expected it cut with an ellipsis")
PY
  fail "utilization.png's bar labels"
pass "plot_run.py utilization.png: every label on the figure, each bar its own label"

# --- plot_run.py: latency_time.png leaves a gap at a window in which no request completed. ------
# timeseries.csv writes 0 ns for such a window (it has no latency to give), and a line through it
# read as a latency of zero. Windows 0, 1 and 3 complete requests at 500/900/1000 ns (p50/p99/max);
# window 2 completes none: every latency line is drawn at 500, 900 or 1000 at 0, 1 and 3 us, and
# has no value (NaN) at 2 us.
GAP="$WORK/run_gap"
mkdir -p "$GAP"
echo '{"sim": {}, "summary": {}, "components": {}, "timeseries": {"windows": 4}}' >"$GAP/stats.json"
{
  echo "window_start_ns,window_end_ns,read_gbps,write_gbps,requests,latency_mean_ns,\
latency_p50_ns,latency_p90_ns,latency_p99_ns,latency_max_ns"
  echo "0,1000,10,0,80,520,500,800,900,1000"
  echo "1000,2000,10,0,80,520,500,800,900,1000"
  echo "2000,3000,0,0,0,0,0,0,0,0"
  echo "3000,4000,10,0,80,520,500,800,900,1000"
} >"$GAP/timeseries.csv"
run_tool run_gap /usr/bin/python3 "$CHECK" "$PLOT_RUN" "$GAP"
[ "$RC" -eq 0 ] || fail "plot_run.py on a run with an empty window: exit code $RC. Output:
$OUT"
/usr/bin/python3 - "$(dirname "$PLOT_RUN")" "$GAP" "$(dirname "$CHECK")" <<'PY' ||
import math, sys
sys.path[:0] = [sys.argv[1], sys.argv[3]]
import figure_text
import plot_run
drawn = []
figure_text.on_save(lambda fig: drawn.extend(
    (line.get_label(), list(line.get_xdata()), list(line.get_ydata()))
    for line in fig.axes[0].get_lines()))
plot_run.latency_time(plot_run.read_series(sys.argv[2], 4), sys.argv[2] + "/l.png")
want = {"p50": 500, "p99": 900, "max": 1000}
assert sorted(label for label, _, _ in drawn) == sorted(want), drawn
for label, xs, ys in drawn:
    if list(xs) != [0, 1, 2, 3] or ys[:2] + ys[3:] != [want[label]] * 3 or not math.isnan(ys[2]):
        sys.exit(f"{label}: drawn at {xs} as {ys}; expected {want[label]} at 0, 1 and 3 us, "
                 "nothing at 2")
PY
  fail "latency_time.png's empty window"
pass "plot_run.py latency_time.png: no line through a window without latency"
