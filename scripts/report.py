#!/usr/bin/python3
"""A readable report of one famsim run directory (the --out DIR of `famsim run`).

    scripts/report.py RUN_DIR [--out DIR]

Writes into DIR (default RUN_DIR):
  report.md     the report in Markdown, figures referenced as plots/<name>.png
  report.html   the same report as one self-contained page (inline CSS, figures embedded)
  plots/*.png   the figures (drawn by scripts/plot_run.py, whose functions this imports)
Sections: for an AI workload (kv_decode, weight_stream, moe_experts, prefill) first its answer in
a line (model, batch, context, where its data lives, the whole-model estimate or the simulated
figure with its layers, the total over groups, the limiter in plain words), then the run in one
sentence (the bottleneck), the platform, what differs from the preset,
results, what the workload got (each generator stream's result in words and units, its scope and
assumptions), where the latency goes per hop, the bottleneck, figures, assumptions and limits.

Exit codes: 0 written; 2 bad input (no RUN_DIR, stats.json missing or not famsim's JSON), with
nothing written; 1 internal error. Report files appear only when everything was written: they are
built in a temporary directory inside DIR and renamed into place at the end.
timeseries.csv is optional: one that is not what famsim writes (not UTF-8, empty, a header without
famsim's columns, a row of the wrong number of cells, a cell that is not a finite number, another
number of rows than stats.json's timeseries.windows) is a warning on stderr and in the report
naming the file, the line and what was expected; the report is written without the figures over
time (exit 0).
The figures need Debian's python3-matplotlib (scripts/setup.sh installs it): run it as
/usr/bin/python3. Under a Python without matplotlib the report is written without figures and says
so (a warning on stderr as well; exit 0).
"""
import argparse
import base64
import html
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile

PROG = "report"


class BadInput(Exception):
    """A one-line message naming the file and what was expected (exit code 2)."""


# --- Reading the run directory ------------------------------------------------------------------

def load_stats(run_dir):
    if not os.path.isdir(run_dir):
        raise BadInput(f"{run_dir}: no such directory; expected the --out directory of famsim run "
                       "(holding stats.json)")
    path = os.path.join(run_dir, "stats.json")
    try:
        with open(path, encoding="utf-8") as f:
            stats = json.load(f)
    except FileNotFoundError:
        raise BadInput(f"{path}: not found; expected the stats.json that famsim run writes "
                       "into its --out directory")
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError
        raise BadInput(f"{path}: not valid JSON ({e}); expected the stats.json that famsim run "
                       "writes")
    except OSError as e:
        raise BadInput(f"{path}: cannot be read ({e.strerror}); expected the stats.json that "
                       "famsim run writes")
    if not isinstance(stats, dict) or not ("sim" in stats or "summary" in stats):
        raise BadInput(f"{path}: a JSON document without the sim and summary sections; expected "
                       "the stats.json that famsim run writes")
    return stats


def get(d, *path, default=None):
    """d[path[0]][path[1]]... or `default` when a step is missing or of the wrong type."""
    for p in path:
        if isinstance(d, dict) and p in d:
            d = d[p]
        elif isinstance(d, list) and isinstance(p, int) and -len(d) <= p < len(d):
            d = d[p]
        else:
            return default
    return default if d is None else d


def as_list(x):
    return x if isinstance(x, list) else []


def as_dict(x):
    return x if isinstance(x, dict) else {}


def as_text(x):
    return DASH if x is None else x if isinstance(x, str) else json.dumps(x)


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def load_plot_run():
    """scripts/plot_run.py, from this script's own directory."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot_run.py")
    spec = importlib.util.spec_from_file_location("famsim_plot_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- Formatting numbers with their units ---------------------------------------------------------

DASH = "\u2014"


def fmt_int(x):
    return f"{int(x):,}" if number(x) else DASH


def plural(x, noun):
    """'1 round', '14 rounds'; a missing count as a dash."""
    return f"{fmt_int(x)} {noun}{'' if number(x) and int(x) == 1 else 's'}"


def fmt_num(x, digits=1):
    return f"{x:,.{digits}f}" if number(x) else DASH


def fmt_ns(x):
    return f"{x:,.1f} ns" if number(x) else DASH


def fmt_gbps(x):
    return f"{x:,.2f} GB/s" if number(x) else DASH


def fmt_pct(x, digits=1):
    return f"{100 * x:.{digits}f}%" if number(x) else DASH


def fmt_bytes(n):
    if not number(n):
        return DASH
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:,.2f} {unit} ({int(n):,} B)"
    return f"{int(n):,} B"


def fmt_time(ns):
    """A simulated or host time with a readable unit and the exact figure."""
    if not number(ns):
        return DASH
    for unit, size in (("s", 1e9), ("ms", 1e6), ("\u00b5s", 1e3)):
        if ns >= size:
            return f"{ns / size:,.2f} {unit} ({ns:,.0f} ns)"
    return f"{ns:,.1f} ns"


def phase_span(p):
    """A phase's span (bottlenecks.phases.phases entry), '0.0 - 960.0 \u00b5s', or None."""
    start, end = get(p, "start_ns"), get(p, "end_ns")
    return (f"{start / 1e3:,.1f} - {end / 1e3:,.1f} \u00b5s" if number(start) and number(end)
            else None)


def fmt_value(v):
    """A configuration value as written in YAML/JSON."""
    if v is None:
        return DASH
    if isinstance(v, str):
        return v
    return json.dumps(v)


# --- The document: a list of blocks rendered to Markdown and to HTML -----------------------------
# Inline text is a str (plain) or a list of str and (style, str) pairs, style "code" or "b".

def code(s):
    return ("code", str(s))


def bold(s):
    return ("b", str(s))


class Doc:
    def __init__(self):
        self.blocks = []

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, *inline):
        self.blocks.append(("p", list(inline)))

    def box(self, title, *inline):
        self.blocks.append(("box", title, list(inline)))

    def ul(self, items):
        self.blocks.append(("ul", [i if isinstance(i, list) else [i] for i in items]))

    def table(self, headers, rows, align=None):
        rows = [[c if isinstance(c, list) else [c] for c in r] for r in rows]
        self.blocks.append(("table", headers, rows, align or "l" * len(headers)))

    def figure(self, png, title, caption):
        self.blocks.append(("fig", png, title, caption))


_MD_SPECIAL = re.compile(r"([\\`*\[\]<>]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


def md_text(s, in_table=False):
    """Plain text for Markdown: special characters escaped, on one line (a line break in a
    description would end a table row or start a new block)."""
    s = " ".join(_MD_SPECIAL.sub(r"\\\1", s).split("\n"))
    return s.replace("|", "\\|") if in_table else s


def md_inline(parts, in_table=False):
    out = []
    for part in parts if isinstance(parts, list) else [parts]:
        if isinstance(part, tuple):
            style, s = part
            if style == "code":
                s = " ".join(s.split("\n"))
                s = s.replace("|", "\\|") if in_table else s
                tick = "``" if "`" in s else "`"
                out.append(f"{tick}{s}{tick}")
            else:  # whitespace outside the markers, or CommonMark does not see them
                core = s.strip()
                lead, trail = s[:len(s) - len(s.lstrip())], s[len(s.rstrip()):]
                out.append(f"{lead}**{md_text(core, in_table)}**{trail}" if core else s)
        else:
            out.append(md_text(part, in_table))
    return "".join(out)


def html_inline(parts):
    out = []
    for part in parts if isinstance(parts, list) else [parts]:
        if isinstance(part, tuple):
            tag = "code" if part[0] == "code" else "strong"
            out.append(f"<{tag}>{html.escape(part[1])}</{tag}>")
        else:
            out.append(html.escape(part))
    return "".join(out)


def render_markdown(doc, plots_rel):
    lines = []
    for b in doc.blocks:
        kind = b[0]
        if kind == "h":
            lines += ["#" * b[1] + " " + md_text(b[2]), ""]
        elif kind == "p":
            text = md_inline(b[1]).strip()
            # A paragraph (a configuration's description) must not start a heading, quote or list.
            numbered = re.match(r"\d+(?=[.)])", text)
            if numbered:
                text = numbered.group(0) + "\\" + text[numbered.end():]
            elif re.match(r"[#>+=-]", text):
                text = "\\" + text
            lines += [text, ""]
        elif kind == "box":
            lines += [f"> **{md_text(b[1])}** " + md_inline(b[2]), ""]
        elif kind == "ul":
            lines += ["- " + md_inline(i) for i in b[1]] + [""]
        elif kind == "table":
            _, headers, rows, align = b
            lines.append("| " + " | ".join(md_text(h, True) for h in headers) + " |")
            lines.append("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")
            for r in rows:
                lines.append("| " + " | ".join(md_inline(c, True) for c in r) + " |")
            lines.append("")
        elif kind == "fig":
            _, png, title, caption = b
            rel = "/".join(filter(None, [plots_rel, png]))
            lines += [f"![{md_text(title)}]({rel})", "", f"{md_text(caption)}", ""]
    return "\n".join(lines).rstrip() + "\n"


CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d1d1f;
       max-width: 1000px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.7em; border-bottom: 2px solid #ddd; padding-bottom: .2em; }
h2 { font-size: 1.3em; margin-top: 1.8em; border-bottom: 1px solid #eee; padding-bottom: .15em; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
code { background: #f3f3f5; padding: 0 .25em; border-radius: 3px; font-size: .92em; }
table { border-collapse: collapse; margin: .6em 0 1em; font-size: .9em; }
th, td { border: 1px solid #d8d8dc; padding: .25em .55em; vertical-align: top; }
th { background: #f3f3f5; text-align: left; }
td.r { text-align: right; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
.box { border-left: 5px solid #2a6fdb; background: #eef4fd; padding: .7em 1em; margin: 1em 0;
       font-size: 1.05em; }
.box strong.title { display: block; margin-bottom: .25em; }
figure { margin: 1.2em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: .9em; color: #555; }
"""


def render_html(doc, title, png_dir):
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{html.escape(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>"]
    for b in doc.blocks:
        kind = b[0]
        if kind == "h":
            out.append(f"<h{b[1]}>{html.escape(b[2])}</h{b[1]}>")
        elif kind == "p":
            out.append(f"<p>{html_inline(b[1]).strip()}</p>")
        elif kind == "box":
            out.append(f'<div class="box"><strong class="title">{html.escape(b[1])}</strong>'
                       f"<p>{html_inline(b[2])}</p></div>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{html_inline(i)}</li>" for i in b[1]) + "</ul>")
        elif kind == "table":
            _, headers, rows, align = b
            out.append("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>"
                                                      for h in headers) + "</tr></thead><tbody>")
            for r in rows:
                out.append("<tr>" + "".join(
                    f'<td{" class=r" if a == "r" else ""}>{html_inline(c)}</td>'
                    for c, a in zip(r, align)) + "</tr>")
            out.append("</tbody></table>")
        elif kind == "fig":
            _, png, title, caption = b
            with open(os.path.join(png_dir, png), "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(title)}" '
                       f'src="data:image/png;base64,{data}">'
                       f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


# --- The platform -------------------------------------------------------------------------------

LINK_ROLES = {
    "gpu_device": "GPU straight to device",
    "gpu_switch": "GPU to switch",
    "switch_device": "switch to device",
    "leaf_spine": "leaf switch to spine switch",
}


def link_gbps(link):
    """Data rate per direction: lanes x lane_gbps x encoding_efficiency / 8 (README "Links")."""
    lanes, lane = get(link, "lanes"), get(link, "lane_gbps")
    if not (number(lanes) and number(lane)):
        return None
    eff = get(link, "encoding_efficiency", default=1.0)
    return lanes * lane * (eff if number(eff) else 1.0) / 8


def link_count(name, link, cfg, components):
    gpus = get(cfg, "gpus", "count")
    if name in ("gpu_device", "gpu_switch") and number(gpus):
        per = get(link, "per_gpu", default=1)
        return int(per * gpus) if number(per) else None
    if name == "switch_device":
        devs = [d for d in as_list(get(cfg, "devices")) if isinstance(d, dict)]
        ports = [get(d, "fabric_ports", default=1) for d in devs]
        return int(sum(ports)) if devs and all(number(p) for p in ports) else None
    if name == "leaf_spine":
        n = sum(1 for c in components if re.search(r"(^|_)leaf\d+_spine\d+_link\d+$", c))
        return n or None
    return None


def memory_text(mem, modelled=None):
    """One line for a memory section (a device's, the standalone platform's or a GPU's HBM).
    `modelled`: the memory's entry of stats.json "assumptions", whose channel peak is the one the
    run used (a DRAM's bus at its tCK, which the nominal data rate only approximates: DDR5-4800's
    416 ps is 4807.7 MT/s), as famsim validate prints and efficiencies are taken against."""
    if not isinstance(mem, dict):
        return None
    parts = []
    std, preset = get(mem, "standard"), get(mem, "preset")
    if std or preset:
        parts.append(" ".join(filter(None, [str(std) if std else None,
                                            f"(preset {preset})" if preset else None])))
    channels = get(mem, "channels")
    if number(channels):
        parts.append(f"{channels} channel{'s' if channels != 1 else ''}")
    stacks = get(mem, "stacks")
    if number(stacks):
        per = get(mem, "channels_per_stack")
        parts.append(f"{stacks} stacks" + (f" of {per} channels" if number(per) else ""))
    rate, width = get(mem, "organization", "data_rate_mtps"), get(mem, "organization",
                                                                      "channel_width_bits")
    peak = get(modelled, "channel_peak_gbps") if isinstance(modelled, dict) else None
    if not number(peak) and number(rate) and number(width):
        peak = rate * width / 8 / 1000  # MT/s x bits / 8 = MB/s
    if number(peak):
        text = f"peak {peak:.2f} GB/s per channel"
        n = channels if number(channels) else None
        if n is None and number(stacks) and number(get(mem, "channels_per_stack")):
            n = stacks * get(mem, "channels_per_stack")
        if n:
            text += f", {peak * n:,.2f} GB/s in all"
        parts.append(text)
    ranks = get(mem, "organization", "ranks")
    if number(ranks):
        parts.append(f"{ranks} rank{'s' if ranks != 1 else ''}")
    il = get(mem, "interleave")
    if isinstance(il, dict) and il:
        parts.append("interleaved every " + (f"{il['granule_bytes']} B" if number(
            il.get("granule_bytes")) else "?") + (f" ({il['channel_select']} channel select)"
                                                  if il.get("channel_select") else ""))
    return ", ".join(parts) if parts else None


def platform_rows(cfg, components, modelled=None):
    """`modelled`: stats.json "assumptions" by memory key (devices.N.memory, ...)."""
    modelled = modelled or {}
    rows = []
    gpus = get(cfg, "gpus")
    if isinstance(gpus, dict):
        n = get(gpus, "count")
        text = f"{fmt_int(n)} GPU{'s' if n != 1 else ''}" if number(n) else "GPUs"
        extra = []
        if number(get(gpus, "clock_mhz")):
            extra.append(f"{gpus['clock_mhz']} MHz")
        if number(get(gpus, "request_bytes")):
            extra.append(f"{gpus['request_bytes']} B per request")
        if number(get(gpus, "max_outstanding")):
            extra.append(f"up to {gpus['max_outstanding']} requests in flight each")
        if number(get(gpus, "issue_width")):
            extra.append(f"issue {gpus['issue_width']} per cycle")
        if extra:
            text += ": " + ", ".join(extra)
        local = memory_text(get(gpus, "local_memory"), modelled.get("gpus.local_memory"))
        if local:
            text += f"; local memory {local}"
        rows.append(["GPUs", text])
    player = get(cfg, "trace_player")
    if isinstance(player, dict):
        row = ["replays the memory trace "] + ([code(player["file"])] if get(player, "file")
                                                else [])
        details = []
        if get(player, "format"):
            details.append(f"format {player['format']}")
        if get(player, "mode"):
            details.append(f"{player['mode']} loop")
        if number(get(player, "max_outstanding")):
            details.append(f"up to {player['max_outstanding']} requests in flight")
        if number(get(player, "request_bytes")):
            details.append(f"{player['request_bytes']} B per request")
        if details:
            row.append(" (" + ", ".join(details) + ")")
        rows.append(["Trace player", row])
    links = get(cfg, "links")
    if isinstance(links, dict):
        for name, link in links.items():
            if not isinstance(link, dict):
                continue
            count = link_count(name, link, cfg, components)
            text = [f"{LINK_ROLES.get(name, name)}: "]
            desc = []
            if count:
                desc.append(f"{count} link{'s' if count != 1 else ''}")
            if get(link, "preset"):
                desc.append(f"preset {link['preset']}")
            bw = link_gbps(link)
            if bw:
                desc.append(f"{bw:.1f} GB/s per direction ({fmt_num(link.get('lanes'), 0)} lanes "
                            f"x {link['lane_gbps']} Gb/s)")
            if number(get(link, "latency_ns")):
                desc.append(f"{link['latency_ns']} ns one way")
            if number(get(link, "flit_error_rate")) and link["flit_error_rate"] > 0:
                desc.append(f"flit error rate {link['flit_error_rate']}")
            text.append(", ".join(desc) if desc else "configured")
            rows.append([["Links ", code(name)], text])
    sw = get(cfg, "switch")
    if isinstance(sw, dict):
        desc = []
        planes = get(sw, "planes", default=1)
        desc.append(f"{planes} plane{'s' if planes != 1 else ''}")
        topo = get(sw, "topology", default="single")
        if topo == "leaf_spine":
            desc.append("each a leaf/spine network" + (f" with {sw['spines']} spines"
                                                      if number(get(sw, "spines")) else ""))
        else:
            desc.append("one switch chip each")
        if number(get(sw, "radix")):
            desc.append(f"{sw['radix']} ports per chip")
        clock, cycles, width = get(sw, "clock_mhz"), get(sw, "pipeline_cycles"), get(sw,
                                                                                     "port_bytes")
        if number(clock) and number(cycles):
            desc.append(f"{cycles / clock * 1000:.1f} ns pipeline ({cycles} cycles at {clock} MHz)")
        if number(clock) and number(width):
            desc.append(f"{width * clock / 1000:.1f} GB/s per port")
        for key in ("forwarding", "arbiter", "input_queues"):
            if get(sw, key):
                desc.append(f"{key.replace('_', ' ')} {sw[key]}")
        rows.append(["Switches", ", ".join(desc)])
    devices = []  # [names, description]: devices configured alike share a row
    for index, dev in enumerate(as_list(get(cfg, "devices"))):
        if not isinstance(dev, dict):
            continue
        desc = []
        if number(get(dev, "capacity_gib")):
            desc.append(f"{dev['capacity_gib']} GiB")
        if number(get(dev, "fabric_ports")):
            n = dev["fabric_ports"]
            desc.append(f"{n} fabric port{'s' if n != 1 else ''}")
        tags = get(dev, "port_logic", "tags_per_port")
        if number(tags):
            desc.append(f"{tags} tags (requests in flight) per port")
        noc = get(dev, "noc")
        if isinstance(noc, dict):
            kind = get(noc, "kind", default="crossbar")
            dims = get(noc, "dims")
            if kind == "mesh" and isinstance(dims, list):
                text = " x ".join(str(d) for d in dims) + " mesh NoC"
            else:
                text = f"{kind} NoC"
            width = get(noc, "width_bytes", default=get(noc, "link_bytes"))
            if number(width) and number(get(noc, "clock_mhz")):
                text += f" ({width * noc['clock_mhz'] / 1000:.1f} GB/s per port)"
            desc.append(text)
        mem = memory_text(get(dev, "memory"), modelled.get(f"devices.{index}.memory"))
        if mem:
            desc.append("memory " + mem)
        text = "; ".join(desc) or "configured"
        same = next((d for d in devices if d[1] == text), None)
        if same:
            same[0].append(as_text(get(dev, "name", default="?")))
        else:
            devices.append([[as_text(get(dev, "name", default="?"))], text])
    for names, text in devices:
        label = ["Device "] if len(names) == 1 else [f"{len(names)} devices alike: "]
        for i, name in enumerate(names):
            label += ([", "] if i else []) + [code(name)]
        rows.append([label, text])
    if "devices" not in cfg and isinstance(get(cfg, "memory"), dict):
        rows.append(["Memory", memory_text(cfg["memory"], modelled.get("memory")) or "configured"])
    return rows


# --- Sections -----------------------------------------------------------------------------------

def directions(stats):
    """(label, key) for reads and writes that completed requests or moved bytes."""
    out = []
    for label, key in (("Reads", "read"), ("Writes", "write")):
        count = get(stats, "summary", f"{key}_latency_ns", "count", default=0)
        moved = get(stats, "summary", f"{key}_bytes", default=0)
        if (number(count) and count > 0) or (number(moved) and moved > 0):
            out.append((label, key))
    return out


# summary.by_target: the classes of memory a request can go to, in the order famsim lists them,
# with the words the terminal summary uses for them.
TARGETS = [("device", "expansion device"), ("local_hbm", "local HBM"),
           ("peer_gpu", "peer GPU HBM"), ("standalone_memory", "standalone memory")]


def targets(stats):
    """(key, label, entry) of summary.by_target for each class that moved bytes; [] for a
    stats.json without the split (an older famsim)."""
    by = get(stats, "summary", "by_target")
    out = []
    for key, label in TARGETS:
        e = get(by, key)
        if isinstance(e, dict) and (e.get("read_bytes") or 0) + (e.get("write_bytes") or 0) > 0:
            out.append((key, label, e))
    return out


def target_split_text(stats):
    """A sentence saying where the bandwidth went and which figure is the expansion device's, or
    None when stats.json has no split or all the traffic went to a standalone memory."""
    if not isinstance(get(stats, "summary", "by_target"), dict):
        return None
    used = targets(stats)
    device = get(stats, "summary", "by_target", "device", default={})
    device_text = (f"expansion device's bandwidth is {fmt_gbps(get(device, 'bandwidth_gbps'))}"
                   f" (reads {fmt_gbps(get(device, 'read_bandwidth_gbps'))}, writes "
                   f"{fmt_gbps(get(device, 'write_bandwidth_gbps'))})")
    if len(used) > 1:
        parts = ", ".join(f"{label} {fmt_gbps(get(e, 'bandwidth_gbps'))}" for _, label, e in used)
        text = (f"The bandwidth above is the total over every target, "
                f"{fmt_gbps(get(stats, 'summary', 'bandwidth_gbps'))}: {parts}. ")
        if any(key == "device" for key, _, _ in used):
            return text + "The " + device_text + ", not the total."
        return text + "None of it went to an expansion device."
    if len(used) == 1 and used[0][0] == "device":
        return "All of it went to the expansion device: the " + device_text + "."
    if len(used) == 1 and used[0][0] in ("local_hbm", "peer_gpu"):
        return (f"All of it went to {used[0][1]}, none to an expansion device: these are not "
                "the device's figures.")
    return None


def writes_posted_at_memory(stats):
    """Whether the writes' memory_service is 0 in the per-hop breakdown: the memory answered them
    on acceptance (posted writes), their data reaching it later."""
    return any(isinstance(h, dict) and h.get("hop") == "memory_service" and h.get("mean") == 0
               for h in as_list(get(stats, "latency_breakdown_ns", "write", "hops")))


def posted_writes(stats):
    lat = get(stats, "summary", "write_latency_ns")
    return (number(get(lat, "count")) and lat["count"] > 0 and get(lat, "max") == 0)


def trace_lag(stats):
    """The sentence saying an open-loop trace's requests went out later than stamped, when the
    lag is material (stats.json issue_lag.behind); None otherwise or for an older stats.json."""
    lag = get(stats, "issue_lag")
    if isinstance(lag, dict) and lag.get("behind") is True and isinstance(lag.get("sentence"), str):
        s = lag["sentence"]
        return s[:1].upper() + s[1:] + "."
    return None


def one_sentence(stats):
    s = get(stats, "bottlenecks", "sentence")
    if isinstance(s, str) and s:
        return s
    return None


def section_header(doc, stats):
    sim, cfg = get(stats, "sim", default={}), get(stats, "config", default={})
    platform = as_text(get(sim, "platform", default=get(cfg, "name", default="unknown platform")))
    workload = as_text(get(sim, "workload",
                           default=get(cfg, "workload", "name", default="unknown workload")))
    doc.h(1, f"famsim run report: {platform}, {workload}")
    # An AI workload's run opens with its answer (tokens per second, pass time, hit rate) and what
    # limits it; the bottleneck sentence, in resource names, follows.
    answered = section_answer(doc, stats)
    intro = ["Platform ", bold(platform), " running workload ", bold(workload),
             f", seed {fmt_value(get(sim, 'seed', default=get(cfg, 'sim', 'seed')))}. "]
    if number(get(sim, "simulated_time_ns")):
        intro.append(f"Simulated time: {fmt_time(sim['simulated_time_ns'])}")
        start = get(sim, "active_from_ns")
        if number(start) and start > 0:
            active = fmt_time(sim["simulated_time_ns"] - start)
            intro.append(f", of which the statistics cover the {active} from the first request "
                         f"(at {fmt_time(start)})")
        intro.append(". ")
    if number(get(sim, "host_seconds")):
        intro.append(f"It took {sim['host_seconds']:,.2f} s of host (wall-clock) time")
        if number(get(sim, "requests_completed")):
            intro.append(f" for {fmt_int(sim['requests_completed'])} requests")
            if number(get(sim, "requests_per_host_second")):
                intro.append(f" ({fmt_int(sim['requests_per_host_second'])} per host second)")
        intro.append(". ")
    if get(sim, "truncated") is True:
        intro.append("The run was cut short by sim.max_time_ns (see Results).")
    doc.p(*intro)
    desc = get(cfg, "description")
    if isinstance(desc, str):
        doc.p(desc.strip())

    sentence = one_sentence(stats)
    title = "The bottleneck in one sentence:" if answered else "In one sentence:"
    if sentence:
        doc.box(title, sentence)
    else:
        doc.box(title, "this stats.json has no bottleneck analysis (no ",
                code("bottlenecks"), " section: it was written by an older famsim), so the report "
                "cannot name what limits the run; see the busiest components in the Bottleneck "
                "section.")

    facts = []
    for label, key in directions(stats):
        facts.append([f"{label}: ", bold(fmt_gbps(get(stats, "summary", f"{key}_bandwidth_gbps"))),
                      f", latency mean {fmt_ns(get(stats, 'summary', f'{key}_latency_ns', 'mean'))}"
                      f", p99 {fmt_ns(get(stats, 'summary', f'{key}_latency_ns', 'p99'))}."])
    split = target_split_text(stats)
    if split:
        facts.append(split)
    if trace_lag(stats):
        facts.append([bold("Trace lag: "), trace_lag(stats)])
    said = {name for name, _ in stream_answers(stats)}
    for name, stream in generator_streams(stats):  # what the other streams got, first of all
        if name in said:
            continue  # in the opening box; its figures in full under What the workload got
        f = stream_facts(stats, name, stream)
        lead = stream_lead(f, stream["result"])
        if lead:
            facts.append([bold(f"Stream {name} ({f['kind']}): "), lead.rstrip(".")
                          + " (see What the workload got)."])
    ok = get(stats, "conservation", "ok")
    in_flight = get(stats, "conservation", "issued", default=0) - get(
        stats, "conservation", "completed", default=0)
    if ok is True and get(stats, "conservation", "truncated") and in_flight > 0:
        # sim.max_time_ns cut the run short: the requests still out were accounted for, not lost.
        facts.append(f"Conservation check: passed for a run cut short by sim.max_time_ns: every "
                     f"request that came back came back once, intact; {in_flight} were still in "
                     "flight at the cut and are accounted for where they were.")
    elif ok is True:
        facts.append("Conservation check: passed (every request came back once, intact).")
    elif ok is False:
        facts.append([bold("Conservation check: FAILED"), " (see Results)."])
    for failed in model_check_failures(stats):
        facts.append([bold(failed[0]), " (see Results)."])
    timing = get(stats, "dram_timing_check")
    if isinstance(timing, dict) and timing.get("ok") is True:
        # An assurance worth stating when the run had --dram-log: its checker was written from
        # the JEDEC rules, apart from the controller.
        logs = as_dict(timing.get("logs"))
        commands = sum(get(l, "commands", default=0) or 0 for l in logs.values())
        facts.append(f"DRAM timing check: passed ({fmt_int(commands)} DRAM commands in "
                     f"{fmt_int(len(logs))} command logs, every one checked against the JEDEC "
                     "timing rules by a checker written apart from the controller).")
    if facts:
        doc.ul(facts)


def model_check_failures(stats):
    """[(title, detail lines)] for the run's other checks that failed: the DRAM command timing
    check (--dram-log) and the check that every block's report agrees with its per-phase probes.
    Either makes famsim exit 1; the results are written anyway."""
    out = []
    timing = get(stats, "dram_timing_check")
    if isinstance(timing, dict) and timing.get("ok") is False:
        lines = []
        for name, log in as_dict(timing.get("logs")).items():
            for v in as_list(get(log, "first_violations")):
                lines.append(f"{name}: {as_text(v)}")
        out.append(("DRAM timing check: FAILED", lines))
    probes = get(stats, "report_probe_check")
    if isinstance(probes, dict) and probes.get("ok") is False:
        out.append(("Report/probe check: FAILED",
                    [as_text(m) for m in as_list(probes.get("mismatches"))]))
    return out


def section_platform(doc, stats):
    doc.h(2, "Platform")
    cfg = get(stats, "config")
    if not isinstance(cfg, dict):
        doc.p("This stats.json has no ", code("config"), " section; see config.yaml in the run "
              "directory.")
        return
    modelled = {m.get("memory"): m for m in as_list(get(stats, "assumptions"))
                if isinstance(m, dict)}
    rows = platform_rows(cfg, as_dict(get(stats, "components")), modelled)
    wl = get(cfg, "workload")
    if isinstance(wl, dict):
        text = [bold(str(get(wl, "name", default="?")))]
        streams = get(wl, "streams")
        if isinstance(streams, list):
            text.append(f" ({len(streams)} stream{'s' if len(streams) != 1 else ''})")
        if isinstance(get(wl, "description"), str):
            text.append(": " + wl["description"].strip())
            # The description is the workload file's own text: say when --set changed the file.
            changed = [c for c in as_list(get(stats, "config_changes", "changes"))
                       if str(get(c, "key", default="")).startswith("workload.")]
            if changed:
                # Named here, not only below: the description may say 16 MiB of reads while the
                # run moved 2 MiB with 30 % writes.
                shown = "; ".join(
                    f"{str(c.get('key'))[len('workload.'):]} "
                    + (f"{fmt_value(c.get('base_value'))} -> " if c.get("base_value") is not None
                       else "set to ")
                    + fmt_value(c.get("value")) for c in changed[:4])
                more = f" and {len(changed) - 4} more" if len(changed) > 4 else ""
                text.append(" (as its file describes it, before this run changed "
                            f"{len(changed)} of its parameters: {shown}{more}; listed below)")
        rows.append(["Workload", text])
    if rows:
        doc.table(["Part", "Configuration"], rows)
    else:
        doc.p("The configuration names no GPUs, links, switches or devices that this report "
              "knows how to summarise; see config.yaml.")
    doc.p("Bandwidths are per direction and in GB/s (10^9 bytes per second); link bandwidth is "
          "lanes x lane rate x encoding efficiency / 8, memory channel bandwidth is data rate x "
          "channel width / 8. The full resolved configuration is in config.yaml.")


def section_changes(doc, stats):
    doc.h(2, "What differs from the preset")
    cc = get(stats, "config_changes")
    if not isinstance(cc, dict):
        doc.p("This stats.json has no ", code("config_changes"), " section (it was written by a "
              "famsim older than that key), so the report cannot tell which values differ from "
              "the platform preset. Compare config.yaml with the platform file by hand.")
        return
    base = as_text(cc["base"]) if get(cc, "base") else None
    changes = [c for c in as_list(get(cc, "changes")) if isinstance(c, dict)]
    n = f"{len(changes)} parameter{'s' if len(changes) != 1 else ''}"
    if base and not changes:
        doc.p("The run used ", code(base), " exactly as it is: no parameter was changed.")
    elif base:
        doc.p("The run started from ", code(base), f" and changed {n}:")
    elif not changes:
        doc.p("The run did not start from a built-in preset and its files chose no parameters "
              "that the report could list.")
    else:
        doc.p(f"The run did not start from a built-in preset: the table lists the {n} the "
              "user's own files (and any --set) chose.")
    if changes:
        with_base = bool(base) or any(c.get("base_value") is not None for c in changes)
        headers = ["Key", "Value"] + (["Preset value"] if with_base else []) + ["Source"]
        rows = []
        for c in changes:
            row = [code(as_text(c.get("key", "?"))), code(fmt_value(c.get("value")))]
            if with_base:
                bv = c.get("base_value")
                row.append(code(fmt_value(bv)) if bv is not None else "(not set)")
            row.append(code(as_text(c["source"])) if c.get("source") else DASH)
            rows.append(row)
        doc.table(headers, rows)
    if get(cc, "workload_source"):
        doc.p("The workload came from ", code(as_text(cc["workload_source"])), ".")


def section_results(doc, stats):
    doc.h(2, "Results")
    dirs = directions(stats)
    if not dirs:
        doc.p("No request completed in this run.")
    else:
        lat = {k: get(stats, "summary", f"{k}_latency_ns", default={}) for _, k in dirs}
        rows = [
            ["Requests completed"] + [fmt_int(get(lat[k], "count")) for _, k in dirs],
            ["Data moved"] + [fmt_bytes(get(stats, "summary", f"{k}_bytes")) for _, k in dirs],
            ["Bandwidth (payload)"] + [fmt_gbps(get(stats, "summary", f"{k}_bandwidth_gbps"))
                                       for _, k in dirs],
        ]
        for key, label in (("mean", "Latency mean"), ("min", "Latency min"),
                           ("p50", "Latency p50 (half the requests are faster)"),
                           ("p90", "Latency p90"), ("p99", "Latency p99 (1 in 100 is slower)"),
                           ("p999", "Latency p99.9 (1 in 1000 is slower)"),
                           ("max", "Latency max")):
            rows.append([label] + [fmt_ns(get(lat[k], key)) for _, k in dirs])
        doc.table(["Metric"] + [label for label, _ in dirs], rows, "l" + "r" * len(dirs))
        for label, key in dirs:
            l = lat[key]
            moved = fmt_bytes(get(stats, "summary", f"{key}_bytes")).split(" (")[0]
            text = (f"{label} moved {moved} at "
                    f"{fmt_gbps(get(stats, 'summary', f'{key}_bandwidth_gbps'))}")
            if number(get(l, "p50")) and get(l, "max"):
                text += (f"; half of them took {fmt_ns(l['p50'])} or less, 1 in 100 took longer "
                         f"than {fmt_ns(get(l, 'p99'))} and the slowest {fmt_ns(get(l, 'max'))}")
            doc.p(text + ".")
        used = targets(stats)
        if len(used) > 1:
            rows = [[label, fmt_bytes(get(e, "read_bytes")), fmt_bytes(get(e, "write_bytes")),
                     fmt_gbps(get(e, "bandwidth_gbps")),
                     fmt_ns(get(e, "latency_ns", "mean")), fmt_ns(get(e, "latency_ns", "p99"))]
                    for _, label, e in used]
            rows.append([bold("All targets"), fmt_bytes(get(stats, "summary", "read_bytes")),
                         fmt_bytes(get(stats, "summary", "write_bytes")),
                         fmt_gbps(get(stats, "summary", "bandwidth_gbps")),
                         fmt_ns(get(stats, "summary", "latency_ns", "mean")),
                         fmt_ns(get(stats, "summary", "latency_ns", "p99"))])
            doc.table(["Target", "Read", "Written", "Bandwidth", "Latency mean", "Latency p99"],
                      rows, "lrrrrr")
        split = target_split_text(stats)
        if split:
            doc.p(split + " The expansion device's figures are those of every memory-expansion "
                  "device together (what crossed the fabric to them); local HBM is the requesting "
                  "GPU's own memory and peer GPU HBM another GPU's, neither of them on a device.")
        section_devices(doc, stats)
        section_gpus(doc, stats)
        if posted_writes(stats):
            doc.p("Write latency is 0 ns: with posted writes (the memory controller's default, ",
                  code("write_response: posted"), ") a write is acknowledged as soon as the "
                  "controller accepts it, and on this platform nothing lies between the "
                  "requester and the controller.")
    doc.p("Latency is measured per request from issue at the GPU (or trace player) to the "
          "response's arrival there; bandwidth counts payload bytes over the active window, from "
          "the first request issued to the end.")
    lag = get(stats, "issue_lag")
    if trace_lag(stats):
        doc.p(bold("Trace lag: "), trace_lag(stats), " The trace's last "
              f"timestamp is {fmt_time(get(lag, 'last_timestamp_ns'))}; the run ended at "
              f"{fmt_time(get(stats, 'sim', 'simulated_time_ns'))}.")
    elif isinstance(lag, dict) and number(get(lag, "requests")):
        doc.p(f"The trace's {fmt_int(lag['requests'])} timestamped requests went out on time "
              f"(the largest issue lag is {fmt_ns(get(lag, 'max_ns'))}).")

    peak_bw = get(stats, "timeseries", "peak_window_bandwidth_gbps")
    if number(peak_bw):
        window = get(stats, "timeseries", "window_ns")
        bound = get(stats, "bottlenecks", "analytic_bound_gbps")
        above = ""
        if number(bound) and peak_bw > bound:
            # Not a contradiction, but it reads as one.
            above = (f" That is above the analytic bound ({fmt_gbps(bound)}, see Bottleneck), which "
                     "holds for the run's traffic as a whole: a window counts the responses that "
                     "arrived in it, which bunch up, and its mix of reads and writes differs from "
                     "the run's" + (" (posted writes are answered before their data reaches the "
                                    "memory)" if writes_posted_at_memory(stats) else "") + ".")
        doc.p(f"Over windows of {fmt_ns(window)}, the busiest window moved {fmt_gbps(peak_bw)} "
              f"and the worst window's p99 latency was "
              f"{fmt_ns(get(stats, 'timeseries', 'peak_window_p99_ns'))}.{above}")

    cons = get(stats, "conservation")
    if isinstance(cons, dict):
        if cons.get("ok") is True and cons.get("truncated") is True:
            doc.p(bold("Conservation check passed:"),
                  f" {fmt_int(cons.get('issued'))} requests issued, "
                  f"{fmt_int(cons.get('completed'))} completed and "
                  f"{fmt_int(cons.get('stuck_requests_total'))} still in flight when the run was "
                  "cut short, each held by a block with exactly one payload; "
                  f"{fmt_int(cons.get('duplicates', 0))} duplicates, "
                  f"{fmt_int(cons.get('data_mismatches', 0))} data mismatches.")
        elif cons.get("ok") is True:
            doc.p(bold("Conservation check passed:"), " "
                  f"{fmt_int(cons.get('issued'))} requests issued, "
                  f"{fmt_int(cons.get('completed'))} completed, "
                  f"{fmt_bytes(cons.get('bytes_requested'))} requested and "
                  f"{fmt_bytes(cons.get('bytes_delivered'))} delivered, "
                  f"{fmt_int(cons.get('duplicates', 0))} duplicates, "
                  f"{fmt_int(cons.get('leaked_payloads', 0))} leaked payloads, "
                  f"{fmt_int(cons.get('data_mismatches', 0))} data mismatches.")
        else:
            problems = [f"{k.replace('_', ' ')}: {fmt_int(cons[k])}"
                        for k in ("duplicates", "leaked_payloads", "data_mismatches",
                                  "stuck_requests_total") if number(cons.get(k)) and cons[k]]
            # Say where to look for what went wrong: the stuck requests, or the reads whose data
            # was wrong (a verifying stream reading what its writer never wrote, or a model fault).
            where = []
            if number(cons.get("stuck_requests_total")) and cons["stuck_requests_total"]:
                where.append("the stuck requests and the blocks holding them "
                             "(conservation.stuck_requests)")
            mismatches = cons.get("first_data_mismatches")
            if number(cons.get("data_mismatches")) and cons["data_mismatches"]:
                where.append("the first reads that did not return the data written "
                             "(conservation.first_data_mismatches)")
            doc.p(bold("Conservation check FAILED:"), " "
                  f"{fmt_int(cons.get('issued'))} requests issued, "
                  f"{fmt_int(cons.get('completed'))} completed"
                  + ("; " + "; ".join(problems) if problems else "")
                  + ". The results below may be wrong"
                  + ("; stats.json lists " + " and ".join(where) if where else "") + ".")
            if isinstance(mismatches, list) and mismatches:
                doc.p("A data mismatch is a model fault, unless a verifying stream read addresses "
                      "its writer never wrote (check that the writing stream covers all of the "
                      "buffer the reads touch). The first ones:")
                rows = []
                for m in mismatches[:10]:
                    if not isinstance(m, dict):
                        continue
                    rows.append(f"read {m.get('id')} (GPU {m.get('gpu')}, virtual address "
                                f"{m.get('virtual_address')}, {m.get('bytes')} B): "
                                f"{m.get('wrong_bytes')} wrong bytes, the first at offset "
                                f"{m.get('first_wrong_offset')}: read {m.get('read_byte')}, "
                                f"expected {m.get('expected_byte')}")
                doc.ul(rows)
    else:
        doc.p("This stats.json has no ", code("conservation"), " section.")
    for title, lines in model_check_failures(stats):
        doc.p(bold(title + ":"), " a fault in the model itself (famsim exited with code 1). "
              "The results below may be wrong; please report it with the run directory.")
        if lines:
            doc.ul([code(l) for l in lines[:20]])

    if get(stats, "sim", "truncated") is True:
        issued, done = get(cons, "issued"), get(cons, "completed")
        left = (issued - done) if number(issued) and number(done) else None
        limit = get(stats, "config", "sim", "max_time_ns")
        doc.p(bold("Truncated run: "), "the simulation stopped at sim.max_time_ns"
              + (f" = {fmt_time(limit)}" if number(limit) else "")
              + (f" with {fmt_int(left)} requests still in flight" if left is not None else "")
              + ". That is not a failure, but the figures cover only what completed by then, "
              "and the workload did not finish.")


def section_devices(doc, stats):
    """How the expansion devices shared the traffic (summary.by_memory, device_balance), when two
    or more carried some; nothing for one device or an older stats.json."""
    bal = get(stats, "summary", "device_balance")
    if not isinstance(bal, dict) or not number(get(bal, "devices_used")) or bal["devices_used"] < 2:
        return
    rows = []
    by = as_dict(get(stats, "summary", "by_memory"))
    peaks = as_dict(get(stats, "timeseries", "peak_window_by_device_gbps"))
    for t in as_list(get(stats, "address_layout")):  # in address order
        name = get(t, "target")
        e = by.get(name) if isinstance(name, str) else None
        if not isinstance(e, dict) or e.get("kind") != "device":
            continue
        rows.append([code(name), fmt_bytes(get(e, "read_bytes")), fmt_bytes(get(e, "write_bytes")),
                     fmt_pct(get(e, "share_of_bytes")), fmt_gbps(get(e, "bandwidth_gbps")),
                     fmt_gbps(peaks.get(name)), fmt_ns(get(e, "latency_ns", "mean")),
                     fmt_ns(get(e, "latency_ns", "p99"))])
    doc.table(["Device", "Read", "Written", "Share of all bytes", "Bandwidth",
               "Busiest window", "Latency mean", "Latency p99"], rows, "lrrrrrrr")
    ratio = lambda v: f"{v:.3f}" if number(v) else DASH  # noqa: E731
    carried = (f"{fmt_int(bal.get('devices_used'))} of {fmt_int(bal.get('devices'))} devices "
               "carried traffic")
    if number(bal.get("max_over_mean")) and bal.get("max_over_mean") == bal.get("min_over_mean"):
        doc.p(f"{carried}, each the same bytes.")  # a tie: busiest and least busy are one device
    else:
        doc.p(f"{carried}. The busiest, ", code(str(bal.get("busiest"))), ", moved "
              f"{ratio(bal.get('max_over_mean'))} times the mean device's bytes and the least "
              "busy, ", code(str(bal.get("least_busy"))),
              f", {ratio(bal.get('min_over_mean'))} times. Far from 1, the data is spread "
              "unevenly (how buffers are striped over the devices, or the address interleave), "
              "and the busiest device limits first.")
    by_window = get(stats, "timeseries", "device_balance_by_window")
    if isinstance(by_window, dict) and number(by_window.get("mean_max_over_mean")):
        mean = by_window["mean_max_over_mean"]
        window = get(stats, "timeseries", "window_ns")
        doc.p(f"Window by window ({fmt_ns(window)} each, over the "
              f"{fmt_int(by_window.get('windows'))} windows with at least "
              f"{fmt_int(by_window.get('min_requests_per_device'))} requests per device on "
              "average), the busiest device moved "
              f"{ratio(mean)} times the mean device's bytes on average (weighted by bytes) and "
              f"{ratio(by_window.get('max_max_over_mean'))} times at most.")
        if by_window.get("took_turns") is True:
            run_ratio = by_window.get("run_max_over_mean")
            doc.p(bold("The devices took turns: "), "at any one time, much of the traffic went to "
                  "one device while the others waited, although the run's totals are "
                  f"{ratio(run_ratio)} times the mean at most. The run got about one device's "
                  "bandwidth at a time, not all of theirs. Typical cause: every GPU walking a "
                  "buffer striped granule by granule (2 MiB, the finest stripe the address space "
                  "allows) in the same order at the same time. Buffers that start on different "
                  "devices (a pattern stream's ", code("buffer.stripe_start: by_gpu"), "), or "
                  "an access order that moves between granules sooner, spread it (see "
                  "'Bandwidth by device over time').")


def section_gpus(doc, stats):
    """How evenly the GPUs were served (summary.gpu_balance), with two or more GPUs active."""
    b = get(stats, "summary", "gpu_balance")
    if not isinstance(b, dict) or not number(get(b, "jain_index")):
        return
    ratio = lambda v: f"{v:.3f}" if number(v) else DASH  # noqa: E731
    doc.p(f"{fmt_int(b.get('gpus_active'))} of {fmt_int(b.get('gpus'))} GPUs completed requests. "
          "Over each one's own span (first issue to last completion) they got "
          f"{fmt_gbps(get(b, 'bandwidth_gbps', 'min'))} to "
          f"{fmt_gbps(get(b, 'bandwidth_gbps', 'max'))}; Jain's fairness index over those is "
          f"{ratio(b.get('jain_index'))} (1 when every GPU got the same). The least served, ",
          code(str(b.get("least_served"))), f", got {ratio(b.get('least_served_over_mean'))} "
          "times the mean; the highest mean latency was ", code(str(b.get("highest_latency"))),
          f"'s, {ratio(b.get('highest_latency_over_mean'))} times the mean of the GPUs' means. "
          "The last GPU's last completion came "
          f"{fmt_ns(b.get('finish_spread_ns'))} after the first GPU's. These compare the GPUs "
          "fairly only when the workload gives them like work and keeps them busy (no compute "
          "gaps, pacing or trace timestamps, which set a GPU's rate; the latencies still "
          "compare).")
    if b.get("uneven") is True:
        doc.p(bold("Uneven service: "), "if the GPUs had like work, some were served less "
              "(Jain's index below 0.95, or the least served GPU below 0.8 of the mean: the index "
              "barely moves for one GPU among many): arbitration (a switch's or a device port's "
              "policy) or their paths (a shared link, a longer route) favoured the others.")


# --- What the workload got (the generator streams' results) -------------------------------------

def tokens_per_s(x):
    return f"{x:,.1f} tokens/s per group" if number(x) else DASH


def group_words(groups, tp, parallel="tensor-parallel"):
    """'one tensor-parallel group of 8 GPUs', '8 tensor-parallel groups of 1 GPU each' (or
    expert-parallel groups)."""
    gpus = f"{fmt_int(tp)} GPU" + ("" if tp == 1 else "s") if number(tp) else "its GPUs"
    if groups == 1:
        return f"one {parallel} group of {gpus}"
    return f"{fmt_int(groups)} {parallel} groups of {gpus} each"


def layers_words(simulated, total, what="layer"):
    """'the 1 simulated layer of the model's 80', 'the 2 simulated MoE layers of the model's 58'."""
    if not number(simulated):
        return None
    s = "" if simulated == 1 else "s"
    text = f"the {fmt_int(simulated)} simulated {what}{s}"
    return text + (f" of the model's {fmt_int(total)}" if number(total) else "")


def stream_config(stats, name, kind):
    """The stream's generator configuration (config.workload.streams[i].KIND) or {}."""
    for s in as_list(get(stats, "config", "workload", "streams")):
        if get(s, "name") == name:
            return as_dict(get(s, kind))
    return {}


# Each generator's result keys in the order shown: (key, label, format, what it means). A label or
# meaning may use {fields} from stream_facts. Keys not listed here are still shown, by raw name.
RESULT_FIELDS = {
    "kv_decode": [
        ("tokens_per_second_per_group", "Tokens per second", tokens_per_s,
         "batch x steps over the group's time, for the simulated layers only"),
        ("mean_step_ns", "Decode step time", fmt_time,
         "one step over the simulated layers: the group's critical path (per step its slowest "
         "GPU), mean over steps and groups"),
        ("tokens_per_second_per_group_whole_model_estimate",
         "Tokens per second, whole-model estimate", tokens_per_s,
         "batch over the whole-model step time estimate"),
        ("mean_step_ns_whole_model_estimate", "Decode step time, whole-model estimate", fmt_time,
         "all {model_layers} layers from the {layers} simulated: with identical layers, the "
         "first layer as it ran (the pipeline's fill) and the others at the later simulated "
         "layers' mean pace; otherwise (whole cycles of the model's kinds of layer: "
         "sliding-window, chunked or full attention; linear or full; dense or MoE) the step time "
         "scaled by {model_layers} / {layers}, which scales the fill too and errs long by about "
         "the first layer's fetch for each further share. With all_reduce and prefetch_layers, "
         "from the steps before the run's last, which ends early (its last layers' all-reduces "
         "meet no next layer's fetch)"),
        ("mean_all_reduce_ns_per_step", "All-reduces per step", fmt_time,
         "the time the group's layers spent all-reducing after their compute, a step (in the "
         "step time)"),
        ("all_reduce_bytes_written", "All-reduce bytes written", fmt_bytes,
         "the all-reduces' writes into peers' memory, total over every GPU"),
        ("lm_head_ns_per_step", "LM head per step", fmt_time,
         "the LM head's time (2 x vocabulary / tensor_parallel x hidden x batch FLOPs, but no "
         "less than reading its shard at weights_gbps; 0 with compute.layer_ns), once a step "
         "after the model's last layer: {lm_head_where}"),
        ("steps_done", "Decode steps done", fmt_int,
         "steps every group completed ({steps} configured)"),
        ("read_bytes_kv_location", "KV read from {kv_location}", fmt_bytes,
         "{kv_location_reads}, total over every GPU"),
        ("read_bytes_hbm", "KV read from HBM", fmt_bytes,
         "the newest {hbm_tokens} tokens' KV, and each block that left them read once to be "
         "copied to {kv_location}, total over every GPU"),
        ("write_bytes_kv_location", "KV written to {kv_location}", fmt_bytes,
         "{kv_location_writes}, total over every GPU"),
        ("write_bytes_hbm", "KV written to HBM", fmt_bytes,
         "the new tokens' KV, total over every GPU"),
        ("blocks_moved_to_kv_location", "KV blocks moved to {kv_location}", fmt_int,
         "blocks that fell out of the newest {hbm_tokens} tokens, once per group, summed over "
         "groups (a block moved in any simulated layer counts once)"),
        ("sliding_blocks_dropped", "KV blocks dropped behind the window", fmt_int,
         "(block, layer) pairs that left HBM behind a sliding-window layer's window and were "
         "dropped, not moved to {kv_location} (no step reads them again), once per group, "
         "summed over groups"),
        ("chunked_blocks_dropped", "KV blocks dropped behind the chunk", fmt_int,
         "(block, layer) pairs that left HBM behind a chunked-attention layer's chunk and were "
         "dropped, not moved to {kv_location} (no step reads them again), once per group, "
         "summed over groups"),
        ("read_bytes_state", "Linear-attention state read", fmt_bytes,
         "each sequence's recurrent and convolution state, read whole every step in each "
         "linear-attention layer, from {state_location}, total over every GPU (not in the KV "
         "figures)"),
        ("write_bytes_state", "Linear-attention state written", fmt_bytes,
         "the same states written back whole every step, to {state_location}, total over every "
         "GPU"),
        ("read_bytes_index_keys", "Index keys read", fmt_bytes,
         "sparse attention's index keys, which the indexer reads to select tokens, and those of "
         "blocks moved down from HBM; a part of the KV read figures above, total over every GPU"),
        ("write_bytes_index_keys", "Index keys written", fmt_bytes,
         "the new tokens' index keys and those of blocks moved down from HBM; a part of the KV "
         "written figures above, total over every GPU"),
        ("selected_tokens_read", "Selected tokens read", fmt_int,
         "tokens whose KV the sparse attention read (the top-k it selected, or every cached "
         "token when there are no more), over steps, layers and sequences, once per group, "
         "summed over groups"),
    ],
    "weight_stream": [
        ("mean_pass_ns", "Pass time", fmt_time,
         "one pass over the simulated layers: the group's critical path, mean over passes and "
         "groups"),
        ("compute_ns_per_pass", "Compute per pass", fmt_time,
         "one GPU's compute for a pass, which is the group's (its GPUs compute side by side)"),
        ("exposed_transfer_ns_per_pass", "Exposed transfer per pass", fmt_time,
         "pass time minus compute: weight transfer that compute did not hide"),
        ("exposed_transfer_ns", "Exposed transfer, all passes", fmt_time,
         "the group's time beyond its compute over all passes, mean over groups"),
        ("mean_all_reduce_ns_per_pass", "All-reduces per pass", fmt_time,
         "the time the group's layers spent all-reducing after their compute, a pass (in the "
         "pass time and the exposed transfer)"),
        ("all_reduce_bytes_written", "All-reduce bytes written", fmt_bytes,
         "the all-reduces' writes into peers' memory, total over every GPU"),
        ("mean_pass_ns_whole_model_estimate", "Pass time, whole-model estimate", fmt_time,
         "all {model_layers} layers from the {layers} simulated: with identical layers, the "
         "first layer as it ran (the pipeline's fill) and the others at the later simulated "
         "layers' mean pace; otherwise (whole cycles of the model's kinds of layer: linear or "
         "full attention; dense or MoE) the pass time scaled by {model_layers} / {layers}, which "
         "scales the fill too and errs long by about the first layer's fetch for each further "
         "share. With all_reduce and prefetch_layers, from the passes before the run's last, "
         "which ends early (its last layers' all-reduces meet no next layer's fetch)"),
        ("passes_done", "Passes done", fmt_int,
         "passes every group completed ({steps} configured)"),
        ("bytes_read", "Weights read from {location}", fmt_bytes, "total over every GPU"),
    ],
    "moe_experts": [
        ("mean_step_ns", "Step time", fmt_time,
         "one step over {layers_scope}: the group's critical path, mean over steps and groups"),
        ("compute_ns_per_step", "Compute per step", fmt_time,
         "one GPU's compute for those layers, which is the group's"),
        ("exposed_fetch_ns_per_step", "Exposed expert fetch per step", fmt_time,
         "step time minus compute (and minus the all-to-all or all-reduces, with all_to_all or "
         "all_reduce): expert fetches and cache fills that compute did not hide"),
        ("mean_all_reduce_ns_per_step", "All-reduces per step", fmt_time,
         "the time the tensor-parallel group's MoE layers spent all-reducing their outputs over "
         "the fabric after their compute, a step (in the step time)"),
        ("all_reduce_bytes_written", "All-reduce bytes written", fmt_bytes,
         "the all-reduces' writes into peers' memory, total over every GPU"),
        ("mean_all_to_all_ns_per_step", "All-to-all per step", fmt_time,
         "the time the group's MoE layers spent dispatching tokens to the ranks holding their "
         "experts and combining the outputs back, after their compute, a step (in the step time)"),
        ("all_to_all_bytes_written", "All-to-all bytes written", fmt_bytes,
         "the dispatch and combine writes into peers' memory, total over every GPU"),
        ("tokens_per_second_per_group", "Tokens per second", tokens_per_s,
         "batch x steps over the group's time, for {layers_scope} only"),
        ("hit_rate", "Expert cache hit rate", fmt_pct,
         "cache hits / expert lookups: the share of the distinct experts looked up that the "
         "HBM cache ({cache_words}) held"),
        ("expert_lookups", "Expert lookups", fmt_int,
         "one per distinct expert the group's tokens picked in a step and MoE layer{picks}, "
         "summed over steps, MoE layers and groups{lookup_rank}"),
        ("cache_hits", "Cache hits", fmt_int, "read from HBM (no simulated transfer)"),
        ("cache_misses", "Cache misses", fmt_int, "each read whole from {location} into HBM"),
        ("evictions", "Evictions", fmt_int, "least recently used experts dropped from HBM"),
        ("bytes_fetched", "Expert bytes read from {location}", fmt_bytes,
         "whole experts, total over every GPU"),
        ("mean_distinct_experts_per_layer", "Distinct experts per MoE layer",
         lambda x: fmt_num(x, 2),
         "expert lookups per step and MoE layer of a group, mean: the distinct experts among "
         "its tokens' {pick_count} picks"),
        ("bytes_fetched_max_gpu", "Expert bytes read by the busiest GPU", fmt_bytes,
         "the most one GPU of the expert-parallel group read from {location}{max_gpu_experts}: "
         "the rank whose own experts missed its cache most"),
        ("fetch_imbalance", "Fetch imbalance", lambda x: f"{x:,.2f}x the mean" if number(x)
         else DASH,
         "the busiest GPU's expert bytes over the mean per GPU (1.00x: the ranks fetch evenly); "
         "the group's step waits for its busiest rank"),
        ("steps_done", "Decode steps done", fmt_int,
         "steps every group completed ({steps} configured)"),
    ],
    "prefill": [
        ("prompts_done", "Prompts done", fmt_int, "each prompt once, on one group"),
        ("input_tokens", "Input tokens", fmt_int, "over the prompts done"),
        ("reused_tokens", "Tokens reused from the prefix cache", fmt_int,
         "whose KV was read instead of computed and written"),
        ("reuse_fraction", "Prefix reuse", fmt_pct, "reused tokens / input tokens"),
        ("mean_all_reduce_ns_per_prompt", "All-reduces per prompt", fmt_time,
         "the time a prompt's layers spent all-reducing after their compute (in its prefill "
         "time), mean over GPUs"),
        ("all_reduce_bytes_written", "All-reduce bytes written", fmt_bytes,
         "the all-reduces' writes into peers' memory, total over every GPU"),
        ("cache_evictions", "Prefix cache evictions", fmt_int, "summed over groups"),
        ("mean_prompt_service_ns", "Prefill time per prompt", fmt_time,
         "from a prompt's arrival, or the end of its GPU's previous prompt if later, to its last "
         "simulated layer's compute end on its group's slowest GPU, mean over prompts; for "
         "{layers_scope} only"),
        ("max_prompt_service_ns", "Longest prefill time", fmt_time,
         "the same, the longest prompt"),
        ("mean_prompt_latency_ns", "Time from arrival per prompt", fmt_time,
         "from a prompt's arrival to the same end, mean over prompts: the prefill time and the "
         "wait behind the GPU's earlier prompts (the time to first token over {layers_scope}, "
         "without the LM head and the first decode step)"),
        ("max_prompt_latency_ns", "Longest time from arrival", fmt_time,
         "the same, the longest prompt"),
        ("read_bytes", "KV read", fmt_bytes,
         "cached prefixes' KV{prefill_parts}, total over every GPU"),
        ("write_bytes", "KV written", fmt_bytes,
         "new tokens' KV{prefill_parts}, total over every GPU"),
        ("read_bytes_state", "Linear-attention state read", fmt_bytes,
         "of the KV read: the state at the end of each prompt's last reused block, in each "
         "linear-attention layer, total over every GPU"),
        ("write_bytes_state", "Linear-attention state written", fmt_bytes,
         "of the KV written: the state at the end of each new block the cache keeps, in each "
         "linear-attention layer, total over every GPU"),
        ("read_bytes_index_keys", "Index keys read", fmt_bytes,
         "of the KV read: sparse attention's index keys of the reused blocks, total over every "
         "GPU"),
        ("write_bytes_index_keys", "Index keys written", fmt_bytes,
         "of the KV written: sparse attention's index keys of the new blocks, total over every "
         "GPU"),
    ],
    "replay": [
        ("accesses_replayed", "Accesses replayed", fmt_int, "trace lines, summed over GPUs"),
    ],
}
# Shown in the stream's scope sentence rather than as rows.
SCOPE_KEYS = ("tensor_parallel_groups", "layers_simulated", "moe_layers_simulated",
              "model_layers", "note", "expert_parallel")
# kv_decode's results of its HBM tier (hbm_tokens), and of its KV cache.
HBM_TIER_KEYS = ("read_bytes_hbm", "write_bytes_hbm", "blocks_moved_to_kv_location")
KV_KEYS = ("read_bytes_kv_location", "write_bytes_kv_location") + HBM_TIER_KEYS


class _Blank(dict):
    def __missing__(self, key):
        return DASH


def stream_facts(stats, name, stream):
    """What a stream's scope and labels need, from its summary, result and configuration."""
    kind = as_text(get(stream, "kind"))
    summary, result = as_dict(get(stream, "summary")), as_dict(get(stream, "result"))
    cfg = stream_config(stats, name, kind)
    model_cfg = as_dict(get(cfg, "model"))
    gpus = get(stream, "gpus")
    model = get(summary, "model", default=get(model_cfg, "name"))
    f = _Blank(name=name, kind=kind, model=as_text(model))
    f["gpus"] = len(gpus) if isinstance(gpus, dict) and gpus else None
    f["groups"] = get(result, "tensor_parallel_groups")
    f["tp"] = get(summary, "tensor_parallel", default=get(cfg, "tensor_parallel"))
    f["batch"] = get(summary, "batch", default=get(cfg, "batch"))
    f["steps"] = fmt_int(get(summary, "steps", default=get(summary, "passes",
                                                           default=get(cfg, "steps"))))
    f["layers"] = get(result, "layers_simulated", default=get(
        summary, "layers_simulated", default=get(summary, "moe_layers_simulated")))
    f["model_layers"] = get(result, "model_layers", default=get(model_cfg, "layers"))
    what = "layer"
    if kind == "moe_experts":
        what = "MoE layer"
        dense = get(model_cfg, "moe", "dense_layers")
        f["model_layers"] = get(summary, "model_moe_layers", default=(
            f["model_layers"] - dense if number(f["model_layers"]) and number(dense) else None))
    f["layers_scope"] = layers_words(f["layers"], f["model_layers"], what) or "the simulated layers"
    f["location"] = as_text(get(cfg, "location", default="the device"))
    # kv_decode's KV cache is on gpu_local unless kv_location says otherwise.
    f["kv_location"] = as_text(get(cfg, "kv_location", default="gpu_local" if cfg else
                                   "kv_location"))
    f["state_location"] = as_text(get(summary, "state_location", default=get(
        cfg, "state_location", default=f["kv_location"])))
    if kind == "kv_decode":
        f["kv_layers"] = get(summary, "kv_layers_simulated")
        kv_decode_facts(f, cfg, result)
    if kind == "moe_experts":
        moe_facts(f, cfg, summary, result)
    if kind == "prefill":
        parts = [what for key, what in (("read_bytes_state", "linear-attention states"),
                                        ("read_bytes_index_keys", "index keys"))
                 if key in result]
        f["prefill_parts"] = f" ({' and '.join(parts)} included, below)" if parts else ""
    return f


def kv_decode_facts(f, cfg, result):
    """kv_decode's words for where its KV is (the newest hbm_tokens tokens in HBM, or without
    hbm_tokens the whole KV cache on kv_location), the results that count what it lacks, and
    where its LM head's time went."""
    tokens = get(cfg, "hbm_tokens")
    tier = (number(tokens) and tokens > 0) or any(
        number(result.get(k)) and result[k] > 0 for k in HBM_TIER_KEYS)
    f["hbm_tokens"] = fmt_int(tokens) if number(tokens) else "hbm_tokens"
    # Results that count what the stream lacks are 0 and say nothing: left out of the table (those
    # that are 0), with the sentence "absent_why" + their keys under it.
    if f.get("kv_layers") == 0:
        f["absent"] = KV_KEYS
        f["absent_why"] = "None of the simulated layers keeps a KV cache, so the KV results "
    elif not tier:
        f["absent"] = HBM_TIER_KEYS
        f["absent_why"] = (f"No HBM tier (hbm_tokens {'is 0' if number(tokens) else 'is not set'})"
                           f": the whole KV cache is on {f['kv_location']}, so the HBM tier's "
                           "results ")
    if tier:
        f["kv_location_reads"] = f"KV cache blocks older than the newest {f['hbm_tokens']} tokens"
        f["kv_location_writes"] = (f"blocks moved down from HBM as they left the newest "
                                   f"{f['hbm_tokens']} tokens")
    else:
        f["kv_location_reads"] = ("every cached token's KV that the attention layers read (no "
                                  "HBM tier: the whole KV cache is here)")
        f["kv_location_writes"] = "the new tokens' KV"
    layers, model_layers = f["layers"], f["model_layers"]
    if number(layers) and number(model_layers) and layers < model_layers:
        f["lm_head_where"] = ("not in the step time above (the model's last layer was not "
                              "simulated)" + (", added once to the whole-model estimate"
                                              if "mean_step_ns_whole_model_estimate" in result
                                              else ""))
    else:
        f["lm_head_where"] = "in the step time above (the model's last layer was simulated)"


def moe_facts(f, cfg, summary, result):
    """moe_experts' words for its picks, its caches and (expert_parallel) its ranks."""
    batch, top_k = f["batch"], get(summary, "top_k", default=get(cfg, "model", "moe", "top_k"))
    f["ep"] = get(summary, "expert_parallel", default=get(cfg, "expert_parallel", default=1))
    f["experts"] = get(summary, "experts", default=get(cfg, "model", "moe", "experts"))
    if number(batch) and number(top_k):
        f["pick_count"] = fmt_int(batch * top_k)
        f["picks"] = (f" ({fmt_int(batch)} token{'' if batch == 1 else 's'} x top-{fmt_int(top_k)}"
                      f" = {f['pick_count']} picks, an expert several tokens picked looked up "
                      "once)")
    else:
        f["pick_count"], f["picks"] = "top-k", ""
    f["cache_experts"] = fmt_int(get(summary, "cache_experts", default=get(cfg, "cache_experts")))
    if number(f["ep"]) and f["ep"] > 1:
        f["cache_words"] = (f"{f['cache_experts']} of its own experts on each of the group's "
                            f"{fmt_int(f['ep'])} GPUs")
        f["lookup_rank"] = "; each by the GPU that holds the expert"
    else:
        f["cache_words"] = f"{f['cache_experts']} experts per group"
        f["lookup_rank"] = ""
    most, one = result.get("bytes_fetched_max_gpu"), get(summary, "expert_bytes_per_gpu")
    f["max_gpu_experts"] = ""
    if number(most) and number(one) and one > 0 and float(most / one).is_integer():
        n = int(most / one)
        f["max_gpu_experts"] = f", {n} whole expert" + ("" if n == 1 else "s")


def stream_scope(f):
    """'batch 8 on one tensor-parallel group of 8 GPUs, the 1 simulated layer of the model's
    80'."""
    parts = []
    if number(f["batch"]):
        parts.append(f"batch {fmt_int(f['batch'])}"
                     + (" tokens per pass" if f["kind"] == "weight_stream" else "") + " on ")
    if number(f["groups"]) and number(f["ep"]) and f["ep"] > 1:
        parts.append(group_words(f["groups"], f["ep"], "expert-parallel"))
        if number(f["experts"]):
            parts.append(f" (each GPU holds {fmt_int(f['experts'] // f['ep'])} of the "
                         f"{fmt_int(f['experts'])} experts of every MoE layer whole)")
    elif number(f["groups"]):
        parts.append(group_words(f["groups"], f["tp"]))
        if number(f["gpus"]) and f["groups"] != 1:
            parts.append(f" ({fmt_int(f['gpus'])} GPUs)")
    elif number(f["gpus"]):
        parts.append(f"{fmt_int(f['gpus'])} GPUs")
    if number(f["layers"]):
        parts.append(", " + layers_words(
            f["layers"], f["model_layers"], "MoE layer" if f["kind"] == "moe_experts" else "layer"))
    return "".join(parts)


def workload_assumptions(stats, f, stream):
    """The assumptions behind one stream's figures, in plain words (README "Workloads", Limits)."""
    kind, summary = f["kind"], as_dict(get(stream, "summary"))
    compute = as_dict(get(summary, "compute"))
    out = []
    tflops, wgbps = compute.get("tflops"), compute.get("weights_gbps")
    if number(compute.get("layer_ns")):
        out.append(f"Compute is a fixed {fmt_time(compute['layer_ns'])} per layer, as configured "
                   "(compute.layer_ns).")
    elif number(tflops):
        text = (f"Compute per layer is 2 x active parameters x tokens / tensor_parallel FLOPs at "
                f"{fmt_num(tflops, 0)} TFLOP/s per GPU, the configured effective throughput")
        if kind == "weight_stream":
            text += ("; the weights are read as simulated requests (the figures above), not "
                     "counted in the compute time.")
        elif number(wgbps) and wgbps > 0:
            text += (f", and no less than the time to read the layer's weight shard from the "
                     f"GPU's own HBM at {fmt_num(wgbps, 0)} GB/s (weights_gbps; by default the "
                     "GPU memory's peak). Those weight reads are a time, not simulated requests: "
                     "they take no bandwidth from the simulated HBM traffic, and at the peak "
                     "rate they are a lower bound.")
            read, comp = summary.get("weights_read_ns_first_layer"), summary.get(
                "compute_ns_first_layer")
            wbytes = summary.get("weight_bytes_first_layer_per_gpu")
            if number(read) and number(comp) and number(wbytes):
                text += (f" The first layer's shard, {fmt_bytes(wbytes).split(' (')[0]} per GPU, "
                         f"takes {fmt_time(read)} to read; its compute time is {fmt_time(comp)}, "
                         + ("so reading the weights, not the FLOPs, sets it."
                            if comp <= read else "so the FLOPs, not the weights, set it."))
        else:
            text += ("; weights_gbps is 0, so reading the layer's weights is left out of its "
                     "compute time, which then understates it at small batch.")
        out.append(text)
    if number(tflops) and kind in ("kv_decode", "prefill", "moe_experts"):
        per = "prompt" if kind == "prefill" else "decode step"
        text = f"The LM head (vocabulary x hidden weights, read once per {per}"
        model = as_dict(get(stream_config(stats, f["name"], kind), "model"))
        dtype = get(model, "unquantized_dtype_bytes", default=get(model, "weight_dtype_bytes"))
        vocab, hidden = get(model, "vocab_size"), get(model, "hidden_size")
        if number(vocab) and number(hidden) and number(dtype) and number(f["tp"]) and f["tp"] > 0:
            head = vocab * hidden * dtype / f["tp"]
            text += f": here {fmt_bytes(head).split(' (')[0]} per GPU"
            if number(wgbps) and wgbps > 0:
                text += (f", {fmt_time(head / wgbps).split(' (')[0]} to read at "
                         f"{fmt_num(wgbps, 0)} GB/s")
        if kind == "kv_decode":
            lm = as_dict(get(stream, "result")).get("lm_head_ns_per_step")
            out.append(text + ") is counted once a step, after the model's last layer"
                       + (f", {fmt_time(lm).split(' (')[0]} at the larger of its FLOPs and its "
                          "read" if number(lm) else "")
                       + ": in the step time when that layer was simulated, and added once to "
                       "the whole-model estimate. The attention-score FLOPs are not counted.")
        else:
            out.append(text + ") and the attention-score FLOPs are not counted: a real " + per
                       + " takes longer by at least the LM head's read.")
    if kind in ("kv_decode", "prefill"):
        window = get(as_dict(get(stream_config(stats, f["name"], kind), "model")), "sliding_window")
        tokens = window if number(window) else get(as_dict(window), "tokens")
        if number(tokens):
            sliding = summary.get("sliding_layers_simulated")
            which = (f"{fmt_int(sliding)} of the {fmt_int(f['layers'])} simulated layers"
                     if number(sliding) and number(f["layers"]) else "the model's sliding layers")
            out.append(f"Sliding-window attention of {fmt_int(tokens)} tokens on {which}: each "
                       f"reads only the newest {fmt_int(tokens - 1)} cached tokens"
                       + (" (prefill: of the reused prefix)" if kind == "prefill" else "")
                       + (". The prefix cache still holds every block of a sliding layer, as "
                          "if none that left the window were freed." if kind == "prefill" else
                          ". As vLLM frees the blocks behind the window, a sliding layer keeps "
                          "a ring of only the blocks a step can read or write on the KV "
                          "location (none when an HBM tier holds the window), and an HBM tier "
                          "drops, rather than moves, a block that leaves HBM behind the "
                          "window."))
    if kind in ("kv_decode", "prefill"):
        chunk = summary.get("attention_chunk_tokens")
        if number(chunk):
            out.append(f"Chunked attention of {fmt_int(chunk)} tokens on "
                       f"{fmt_int(summary.get('chunked_layers_simulated'))} of the "
                       f"{fmt_int(f['layers'])} simulated layers: each reads only the cached "
                       "tokens of the new token's own chunk (its position mod the chunk), none "
                       "when a chunk begins"
                       + (" (prefill: of the reused prefix, for the first new token)"
                          if kind == "prefill" else "") + ".")
        linear = summary.get("linear_layers_simulated")
        if number(linear) and linear > 0 and kind == "kv_decode":
            out.append(f"{fmt_int(linear)} of the {fmt_int(f['layers'])} simulated layers have "
                       "linear attention: no KV cache, but each sequence's state of "
                       f"{fmt_bytes(summary.get('state_bytes_per_sequence_per_gpu_per_layer'))} "
                       "per layer and GPU is read and written whole every step, on "
                       f"{summary.get('state_location')}; the state update's FLOPs are not "
                       "counted.")
        elif number(linear) and linear > 0:
            out.append(f"{fmt_int(linear)} of the {fmt_int(f['layers'])} simulated layers have "
                       "linear attention: each cached block keeps their state at its end "
                       f"({fmt_bytes(summary.get('state_bytes_per_block_per_gpu_per_layer'))} "
                       "per layer and GPU), so a prefix is reused only in whole blocks of "
                       f"{fmt_int(summary.get('block_tokens'))} tokens: the last reused block's "
                       "state is read, each new block's written.")
        pattern = summary.get("block_pattern_simulated")
        if isinstance(pattern, str) and pattern:
            ffn_only = sum(1 for c in pattern if c in "-E")
            out.append(f"The model's layers each hold one part alone (block pattern {pattern} for "
                       f"the simulated layers: M a linear-attention mixer, * attention, - a dense "
                       f"FFN, E experts): the {fmt_int(ffn_only)} FFN layers keep no KV cache or "
                       "state, and take only their compute time.")
    if kind in ("kv_decode", "prefill", "moe_experts", "weight_stream"):
        unit = {"weight_stream": "pass", "prefill": "prompt"}.get(kind, "step")
        text = "Compute is a fixed time per layer: no kernel launch gaps."
        algorithm = as_dict(summary.get("all_reduce")).get("algorithm", "none")
        if number(f["tp"]) and f["tp"] > 1 and algorithm != "none":
            text += (" The GPUs of a tensor-parallel group end each layer together, then "
                     f"all-reduce its output over the fabric with {algorithm}: one all-reduce "
                     + ("after each MoE layer's attention and one after its experts, "
                        if kind == "moe_experts" else
                        "after each layer's mixer and one after its FFN, ")
                     + (f"{fmt_bytes(summary.get('all_reduce_message_bytes'))} each"
                        if number(summary.get("all_reduce_message_bytes")) else
                        "each of "
                        f"{fmt_bytes(summary.get('all_reduce_message_bytes_per_token'))} per new "
                        "token of the prompt")
                     + ", in "
                     f"{plural(summary.get('all_reduce_rounds_each'), 'round')} of writes into the "
                     "peers' memory, each round starting when the group's previous round has "
                     "ended. The reductions' own reads and adds in HBM, the flags that signal a "
                     "round's arrival and kernel launches are not simulated, so the all-reduce "
                     "time is a lower bound.")
        elif number(f["tp"]) and f["tp"] > 1:
            text += (" The GPUs of a tensor-parallel group end each layer together, when the "
                     "slowest has its data and has computed (where its all-reduces would be), but "
                     "the all-reduces themselves take no time and no fabric bandwidth here "
                     "(all_reduce: none): a real tensor-parallel layer adds that communication to "
                     f"each {unit}; all_reduce: ring simulates it.")
        elif number(f["ep"]) and f["ep"] > 1 and summary.get("all_to_all") == "direct":
            text += (" The GPUs of an expert-parallel group end each MoE layer together, then "
                     "dispatch each token to the ranks holding the experts it picked and combine "
                     "the outputs back over the fabric (writes into the peers' memory, after the "
                     "layer's compute: the same sum as dispatch, experts, combine in turn); each "
                     "computes an even share of the layer however many tokens its experts serve.")
        elif number(f["ep"]) and f["ep"] > 1:
            text += (" The GPUs of an expert-parallel group end each MoE layer together, when the "
                     "slowest has fetched its experts and computed, but exchange no tokens (no "
                     "all-to-all dispatch or combine without all_to_all: direct) and each computes "
                     "an even share "
                     "of the layer however many tokens its experts serve.")
        out.append(text)
    if kind == "kv_decode" and "mean_step_ns_whole_model_estimate" in as_dict(
            get(stream, "result")):
        out.append(f"Step time and tokens per second are for {f['layers_scope']} only; a "
                   "whole-model estimate scales them to every layer, assuming each takes the simulated "
                   "layers' mean (identical layers, or whole cycles of the model's kinds of layer (sliding-window, chunked or full attention; linear or full; dense or MoE)).")
    if kind == "weight_stream" and "mean_pass_ns_whole_model_estimate" in as_dict(
            get(stream, "result")):
        out.append(f"Pass time is for {f['layers_scope']} only; a whole-model estimate scales it "
                   "to every layer, assuming each takes the simulated layers' mean (identical layers, or whole cycles of the model's kinds of layer (sliding-window, chunked or full attention; linear or full; dense or MoE)).")
    if kind == "prefill":
        out.append("A prompt's output tokens are not decoded (kv_decode does that); each GPU "
                   "keeps its own prefix cache.")
    if kind == "moe_experts":
        out.append("An expert cache hit costs no simulated transfer (the compute reads it from "
                   "HBM, within its weights' time: the expected distinct experts under uniform "
                   "routing, not the experts actually routed to).")
    return out


def generator_streams(stats):
    """[(name, stream)] for the workload's generator streams that have a result."""
    streams = as_dict(get(stats, "workload", "streams"))
    return [(n, s) for n, s in streams.items()
            if isinstance(s, dict) and isinstance(s.get("result"), dict) and s["result"]]


def section_workload(doc, stats):
    streams = generator_streams(stats)
    if not streams:
        return
    doc.h(2, "What the workload got")
    doc.p("Each generator stream's result (stats.json ", code("workload.streams.<name>.result"),
          "), in words. A stream's GPUs form tensor-parallel groups that do each unit of work "
          "(a decode step, a weight pass, an expert lookup) together, each GPU on its shard: a "
          "count counts the unit once per group, a time is the group's (per unit its slowest "
          "GPU, then the mean), and bytes are totals over every GPU of the stream.")
    for name, stream in streams:
        f = stream_facts(stats, name, stream)
        result = stream["result"]
        doc.h(3, f"Stream {name}: {f['kind']}" + (f", {f['model']}" if f["model"] != DASH
                                                  else ""))
        scope = stream_scope(f)
        if scope:
            doc.p(bold("Scope: "), scope, ".")
        lead = stream_lead(f, result)
        if lead:
            doc.p(lead)
        if isinstance(result.get("note"), str):
            doc.p(bold("Note: "), result["note"] + ".")
        rows = []
        known = RESULT_FIELDS.get(f["kind"], [])
        left_out = [k for k in f.get("absent", ()) if result.get(k) == 0]
        for key, label, fmt, meaning in known:
            if key in result and key not in left_out:
                rows.append([label.format_map(f), fmt(result[key]), meaning.format_map(f),
                             code(key)])
        names = {k for k, *_ in known}
        for key, value in result.items():
            if key in names or key in SCOPE_KEYS:
                continue
            rows.append([key, fmt_value(value), "not known to this report: its raw name and value",
                         code(key)])
        doc.table(["Result", "Value", "What it is", "stats.json key"], rows, "lrll")
        if left_out:
            listed = []
            for i, k in enumerate(left_out):
                listed += [", " if 0 < i < len(left_out) - 1 else " and " if i else "", code(k)]
            doc.p(f["absent_why"], *listed, " are 0 and not listed.")
        assumptions = workload_assumptions(stats, f, stream)
        if assumptions:
            doc.p(bold("What these figures assume:"))
            doc.ul(assumptions)


def stream_lead(f, r):
    """One sentence with the stream's headline figures, or None."""
    kind = f["kind"]
    if kind == "kv_decode" and number(r.get("tokens_per_second_per_group")):
        simulated = (f"{tokens_per_s(r['tokens_per_second_per_group'])} over "
                     f"{f['layers_scope']}, a decode step of {fmt_time(r.get('mean_step_ns'))}")
        groups = f["groups"] if number(f["groups"]) else 1

        def total(rate):  # with several groups, the stream's total: groups x a group's rate
            return (f"; its {fmt_int(groups)} groups together {rate * groups:,.1f} tokens/s"
                    if groups > 1 else "")

        whole = r.get("tokens_per_second_per_group_whole_model_estimate")
        if number(whole):
            # The whole model's figure first: the simulated layers' alone is not what the model
            # gets, and read first it would be taken for that.
            return (f"An estimated {tokens_per_s(whole)} for the whole model "
                    f"({fmt_int(f['model_layers'])} layers, assuming its other layers run like "
                    "the simulated ones), a step of "
                    f"{fmt_time(r.get('mean_step_ns_whole_model_estimate'))}{total(whole)}; "
                    f"simulated: {simulated}.")
        return simulated + total(r["tokens_per_second_per_group"]) + "."
    if kind == "weight_stream" and number(r.get("mean_pass_ns")):
        text = (f"A pass over {f['layers_scope']} took {fmt_time(r['mean_pass_ns'])} against "
                f"{fmt_time(r.get('compute_ns_per_pass'))} of compute")
        exposed = r.get("exposed_transfer_ns_per_pass")
        if number(exposed) and r["mean_pass_ns"] > 0:
            text += (f": {fmt_time(exposed)} per pass "
                     f"({fmt_pct(exposed / r['mean_pass_ns'])} of it) is weight transfer that "
                     "compute did not hide")
        whole = r.get("mean_pass_ns_whole_model_estimate")
        if number(whole):
            text = (f"An estimated {fmt_time(whole)} a pass for the whole model "
                    f"({fmt_int(f['model_layers'])} layers, assuming its other layers run like "
                    f"the simulated ones). Simulated: {text[0].lower()}{text[1:]}")
        return text + "."
    if kind == "moe_experts" and number(r.get("hit_rate")):
        distinct = r.get("mean_distinct_experts_per_layer")
        text = (f"The HBM expert cache hit {fmt_pct(r['hit_rate'])} of "
                f"{fmt_int(r.get('expert_lookups'))} expert lookups (one per distinct expert a "
                "step's tokens picked in an MoE layer"
                + (f": {fmt_num(distinct, 2)} on average of the {f['pick_count']} picks"
                   if number(distinct) and f["picks"] else "")
                + f"); the {fmt_int(r.get('cache_misses'))} misses read "
                f"{fmt_bytes(r.get('bytes_fetched')).split(' (')[0]} of experts from "
                f"{f['location']}.")
        imbalance = r.get("fetch_imbalance")
        if number(imbalance) and number(r.get("bytes_fetched_max_gpu")):
            text += (f" The busiest GPU of the expert-parallel group read "
                     f"{fmt_bytes(r['bytes_fetched_max_gpu']).split(' (')[0]} of them, "
                     f"{imbalance:,.2f}x the mean per GPU.")
        step, exposed = r.get("mean_step_ns"), r.get("exposed_fetch_ns_per_step")
        if number(step) and step > 0 and number(exposed):
            text += (f" A step over {f['layers_scope']} took {fmt_time(step)}, "
                     f"{fmt_time(exposed)} ({fmt_pct(exposed / step)}) of it expert fetches "
                     "that compute did not hide.")
        return text
    if kind == "prefill" and number(r.get("reuse_fraction")):
        return (f"{fmt_int(r.get('prompts_done'))} prompts, {fmt_int(r.get('input_tokens'))} "
                f"input tokens in all: {fmt_pct(r['reuse_fraction'])} of them reused from the "
                "prefix cache.")
    return None


# --- The answer first: an AI workload's figure, in a line a workload owner reads first -----------

def approx(x):
    """A figure rounded for the opening line: whole from 100 up, else three digits ('192',
    '1,979', '41.7', '3.00')."""
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def approx_time(ns):
    for unit, size in (("s", 1e9), ("ms", 1e6), ("\u00b5s", 1e3)):
        if ns >= size:
            return f"{approx(ns / size)} {unit}"
    return f"{approx(ns)} ns"


def place_words(loc):
    """Where a workload keeps its data, with its preposition: 'on fam0' (device/fam0), 'in GPU
    HBM' (gpu_local: each GPU's own), 'in GPU 3's HBM' (gpu/3), 'striped over fam0 and fam1' (a
    list of devices); None for a value that is none of these."""
    if isinstance(loc, list) and loc:
        names = [re.sub(r"^device/", "", str(l)) for l in loc]
        return "striped over " + (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1
                                  else names[0])
    if not isinstance(loc, str):
        return None
    if loc == "gpu_local":
        return "in GPU HBM"
    kind, _, name = loc.partition("/")
    if kind == "device" and name:
        return f"on {name}"
    if kind == "gpu" and name:
        return f"in GPU {name}'s HBM"
    return f"on {loc}"


def tokens_range(x):
    """'1,024 to 4,096 tokens' for {min, max}, '2,048 tokens' for a number, or None."""
    if number(x):
        return f"{fmt_int(x)} tokens"
    lo, hi = get(x, "min"), get(x, "max")
    if number(lo) and number(hi):
        return f"{fmt_int(lo)}" + (f" to {fmt_int(hi)}" if hi != lo else "") + " tokens"
    return None


def group_label(gpus):
    """'8-GPU group', 'one-GPU group'."""
    if not number(gpus):
        return "group"
    return "one-GPU group" if gpus == 1 else f"{fmt_int(gpus)}-GPU group"


def note_words(result, estimated):
    """What the opening line says of a result's note: that there is no whole-model estimate, or
    that the note qualifies the one given (a deployment whose weights do not fit, say)."""
    note = result.get("note")
    if not isinstance(note, str):
        return ""
    # The simulator's note that every GPU's own HBM would hold the data the run put elsewhere.
    hbm_holds = "each GPU's own HBM would hold all of the stream's data" in note
    hbm_words = ("; each GPU's own HBM would hold all this data, so this shows what keeping it "
                 "off the GPU costs, not what the device gives (see the stream's note)")
    if hbm_holds and note.startswith("each GPU's own HBM would hold"):
        return hbm_words  # that alone
    words = ("; the stream's note qualifies it" if estimated
             else "; no whole-model estimate (see the stream's note)")
    return words + (hbm_words.replace(" (see the stream's note)", "") if hbm_holds else "")


def model_doing(f, what):
    """'Llama-3-70B decode', or 'decode' for a stream whose model has no name."""
    return f"{f['model']} {what}" if f["model"] != DASH else what


def kv_decode_answer(f, cfg, summary, result):
    """'Llama-3-70B decode, batch 8, context 1,024 to 4,096 tokens, KV cache on fam0 (...):
    ≈192 tokens/s per 8-GPU group, a token every ≈41.7 ms for each sequence (whole-model estimate
    for all 80 layers)', with several groups their total; None without a rate."""
    groups = f["groups"] if number(f["groups"]) else 1
    scope = [model_doing(f, "decode")]
    if number(f["batch"]):
        scope.append(f"batch {fmt_int(f['batch'])}" + (" per group" if groups > 1 else ""))
    context = tokens_range(get(cfg, "context_tokens"))
    if context:
        scope.append(f"context {context}")
    if f.get("kv_layers") != 0:
        text = f"KV cache {place_words(get(cfg, 'kv_location', default='gpu_local'))}"
        hbm = get(cfg, "hbm_tokens")
        if number(hbm) and hbm > 0:
            text += (f" (the newest {fmt_int(hbm)} tokens "
                     f"{place_words(get(cfg, 'hbm_location', default='gpu_local'))})")
        scope.append(text)
    linear = summary.get("linear_layers_simulated")
    if number(linear) and linear > 0:
        state = get(summary, "state_location", default=get(
            cfg, "state_location", default=get(cfg, "kv_location", default="gpu_local")))
        scope.append(f"linear-attention states {place_words(state)}")
    layers, model_layers = f["layers"], f["model_layers"]
    rate, step = result.get("tokens_per_second_per_group"), result.get("mean_step_ns")
    whole = result.get("tokens_per_second_per_group_whole_model_estimate")
    group = group_label(f["tp"])
    if number(whole):
        rate, step = whole, result.get("mean_step_ns_whole_model_estimate")
        figure = (f"\u2248{approx(rate)} tokens/s per {group}"
                  + (f", a token every \u2248{approx_time(step)} for each sequence"
                     if number(step) and step > 0 else "")
                  + f" (whole-model estimate for all {fmt_int(model_layers)} layers)")
    elif number(rate) and number(layers) and number(model_layers) and layers >= model_layers:
        figure = (f"\u2248{approx(rate)} tokens/s per {group}"
                  + (f", a token every \u2248{approx_time(step)} for each sequence"
                     if number(step) and step > 0 else "")
                  + f" (all {fmt_int(model_layers)} layers simulated)")
    elif number(rate):
        # Not the model's rate: its scope goes first, and its step is no time per token.
        figure = (f"over only {fmt_int(layers)} of the model's {fmt_int(model_layers)} layers, "
                  f"not the whole model, \u2248{approx(rate)} tokens/s per {group}"
                  + (f" (a step over them \u2248{approx_time(step)})"
                     if number(step) and step > 0 else ""))
    else:
        return None
    if groups > 1:
        gpus = f" over the {fmt_int(f['gpus'])} GPUs" if number(f["gpus"]) else ""
        figure += f"; {fmt_int(groups)} groups: \u2248{approx(groups * rate)} tokens/s in all{gpus}"
    return ", ".join(scope) + ": " + figure + note_words(result, number(whole))


def weight_stream_answer(f, cfg, summary, result):
    """The pass time (the whole model's estimate, or the simulated layers' said as such) and the
    share of it compute did not hide."""
    scope = [model_doing(f, "weight streaming")]
    if number(f["batch"]):
        scope.append(f"{fmt_int(f['batch'])} tokens a pass")
    where = place_words(get(cfg, "location"))
    if where:
        scope.append(f"weights {where}")
    layers, model_layers = f["layers"], f["model_layers"]
    whole, simulated = result.get("mean_pass_ns_whole_model_estimate"), result.get("mean_pass_ns")
    group = group_label(f["tp"]) + (f" (each of {fmt_int(f['groups'])})"
                                    if number(f["groups"]) and f["groups"] > 1 else "")
    if number(whole):
        figure = (f"\u2248{approx_time(whole)} a pass per {group} (whole-model estimate for all "
                  f"{fmt_int(model_layers)} layers)")
    elif number(simulated) and number(layers) and number(model_layers) and layers >= model_layers:
        figure = (f"\u2248{approx_time(simulated)} a pass per {group} (all "
                  f"{fmt_int(model_layers)} layers simulated)")
    elif number(simulated):
        figure = (f"over only {fmt_int(layers)} of the model's {fmt_int(model_layers)} layers, "
                  f"not the whole model, \u2248{approx_time(simulated)} a pass per {group}")
    else:
        return None
    exposed = result.get("exposed_transfer_ns_per_pass")
    if number(exposed) and number(simulated) and simulated > 0:
        figure += (f"; {fmt_pct(exposed / simulated, 0)} of the simulated pass is weight "
                   "transfer that compute did not hide")
    return ", ".join(scope) + ": " + figure + note_words(result, number(whole))


def moe_answer(f, cfg, summary, result):
    """The expert cache's hit rate and the step over the simulated MoE layers, said as such:
    moe_experts gives no whole-model figure (its note says why)."""
    scope = [model_doing(f, "expert fetch")]
    if number(f["batch"]):
        scope.append(f"batch {fmt_int(f['batch'])}")
    where = place_words(get(cfg, "location"))
    if where:
        scope.append(f"experts {where} behind an HBM cache of {f['cache_words']}")
    hit = result.get("hit_rate")
    if not number(hit):
        return None
    figure = f"the cache held {fmt_pct(hit)} of the experts looked up"
    step, exposed = result.get("mean_step_ns"), result.get("exposed_fetch_ns_per_step")
    if number(step) and step > 0:
        figure += (f"; a step over only {fmt_int(f['layers'])} of the model's "
                   f"{fmt_int(f['model_layers'])} MoE layers took \u2248{approx_time(step)}")
        if number(exposed):
            figure += f", {fmt_pct(exposed / step, 0)} of it expert fetches compute did not hide"
    return ", ".join(scope) + ": " + figure + note_words(result, False)


def prefill_answer(f, cfg, summary, result):
    """The share of the input tokens the prefix cache served, and the prefill time per prompt."""
    scope = [model_doing(f, "prefill")]
    prompts = tokens_range(get(cfg, "input_tokens"))
    trace = get(cfg, "trace", "file")
    if number(get(cfg, "prompts")) and prompts:
        scope.append(f"{fmt_int(cfg['prompts'])} prompts of {prompts}")
    elif isinstance(trace, str) and number(result.get("prompts_done")):
        scope.append(f"{fmt_int(result['prompts_done'])} prompts of the trace {trace}")
    where = place_words(get(cfg, "location"))
    if where:
        scope.append(f"KV prefix cache {where}")
    reuse = result.get("reuse_fraction")
    if not number(reuse):
        return None
    figure = (f"{fmt_pct(reuse)} of the {fmt_int(result.get('input_tokens'))} input tokens "
              "reused from the prefix cache")
    service = result.get("mean_prompt_service_ns")
    if number(service):
        partial = (number(f["layers"]) and number(f["model_layers"])
                   and f["layers"] < f["model_layers"])
        # Over the simulated layers only: said with the figure, not after it, as decode's is.
        over = (f" over only {fmt_int(f['layers'])} of the model's {fmt_int(f['model_layers'])} "
                "layers, not the whole model" if partial else "")
        figure += f", \u2248{approx_time(service)} a prompt to prefill{over}"
        latency = result.get("mean_prompt_latency_ns")
        if number(latency) and latency > service:
            figure += (f" (\u2248{approx_time(latency)} from its arrival, with the wait behind "
                       "earlier prompts)")
    elif number(f["layers"]) and number(f["model_layers"]):
        figure += (f" (KV of {fmt_int(f['layers'])} of the model's {fmt_int(f['model_layers'])} "
                   "layers simulated)")
    return ", ".join(scope) + ": " + figure


# The generators that model an AI workload (README "Workloads") and their answers: a report of a
# run with one opens with the answer, before the bottleneck sentence (a workload owner's review
# found it in the fourth bullet, under a sentence of resource names).
ANSWERS = {"kv_decode": kv_decode_answer, "weight_stream": weight_stream_answer,
           "moe_experts": moe_answer, "prefill": prefill_answer}


def stream_answers(stats):
    """[(stream name, its answer in a line)] for the run's AI generator streams."""
    out = []
    for name, stream in generator_streams(stats):
        answer = ANSWERS.get(stream.get("kind"))
        if answer is None:
            continue
        f = stream_facts(stats, name, stream)
        text = answer(f, stream_config(stats, name, f["kind"]),
                      as_dict(get(stream, "summary")), stream["result"])
        if text:
            out.append((name, text))
    return out


def limiter_plain(stats, lim):
    """The limiter's class in plain words ("fam0's 8 fabric links"), or None."""
    devices = [d["name"] for d in as_list(get(stats, "config", "devices"))
               if isinstance(get(d, "name"), str)]

    def device_of(*names):
        for name in names:
            for dev in sorted(devices, key=len, reverse=True):
                if isinstance(name, str) and (name == dev or name.startswith((dev + ".",
                                                                               dev + "_"))):
                    return dev
        return None

    comp, kind, size = str(lim.get("component", "")), lim.get("kind"), lim.get("class_size")
    count = f"{fmt_int(size)} " if number(size) else ""
    dev = device_of(comp, lim.get("from"), lim.get("to"))
    owner = f"{dev}'s" if dev and len(devices) == 1 else "the expansion devices'"
    if kind == "link" and dev:
        return f"{owner} {count}fabric links"
    if kind == "link":
        ends = [e for e in (lim.get("from"), lim.get("to")) if isinstance(e, str)]
        if any(re.match(r"gpu\d", e) for e in ends):
            return f"the GPUs' {count}fabric links"
        return f"the {count}links between switches"
    words = {"device_port": "port logic", "noc": "on-chip network", "memory": "memory channels"}
    if kind in words and dev:
        return f"{owner} {words[kind]}"
    if kind == "memory" and re.match(r"gpu\d+_hbm", comp):
        return "the GPUs' own HBM"
    return {"switch": "the fabric switches", "hub": "the GPUs' memory hubs",
            "gpu": "the GPUs' outstanding windows",
            "trace_player": "the trace player's outstanding window"}.get(kind)


def limiter_words(stats):
    """The run's limiter in one clause ("limited by fam0's 8 fabric links (fam0_link4 response
    wire, 91.0% busy): 162.3 GB/s achieved of an analytic bound of 178.3 GB/s"), as inline parts,
    or None for a stats.json without the bottleneck analysis."""
    bn = get(stats, "bottlenecks")
    if not isinstance(bn, dict):
        return None
    achieved, bound = bn.get("achieved_gbps"), bn.get("analytic_bound_gbps")
    rate = ""
    if number(achieved):
        rate = f": {fmt_num(achieved)} GB/s achieved" + (
            f" of an analytic bound of {fmt_num(bound)} GB/s" if number(bound) else "")
    lim = bn.get("limiter")
    if isinstance(lim, dict) and lim.get("component"):
        named = f"{lim['component']} {lim.get('resource', '')}".strip()
        state = (f"{fmt_pct(lim.get('utilization'))} "
                 + ("full" if lim.get("type") == "slots" else "busy"))
        plain = limiter_plain(stats, lim)
        return [f"limited by {plain} (" if plain else "limited by ", code(named),
                f"{', ' if plain else ' ('}{state}){rate}"]
    if isinstance(bn.get("nothing_delivered"), dict):
        return ["no data was delivered (see the sentence below)"]
    # A limiter of some phases only (bottlenecks.phases) is named: "nothing saturated" alone
    # reads as a run with headroom throughout.
    phases = [p for p in as_list(get(bn, "phases", "phases")) if isinstance(p, dict)]
    held = {}  # limiter -> [how it held, the spans], in the order of the phases
    for p in phases:
        lim = get(p, "limiter")
        named = f"{get(lim, 'component', default='')} {get(lim, 'resource', default='')}".strip()
        if named and phase_span(p):
            how = "was full" if get(lim, "reason") == "slots" else "saturated"
            held.setdefault(named, [how]).append(phase_span(p))
    if not held:
        return ["nothing saturated, so the workload's own pace set the throughput" + rate]
    text = ["no resource limited the run as a whole, though "]
    for i, (named, (how, *spans)) in enumerate(list(held.items())[:2]):
        text += [" and " if i else "", code(named), f" {how} in " + ", ".join(spans)]
    return text + [rate]


def section_answer(doc, stats):
    """The opening box of an AI workload's run: each stream's answer and the run's limiter.
    Returns whether there was one."""
    answers = stream_answers(stats)
    if not answers:
        return False
    limit = limiter_words(stats)
    if len(answers) == 1:
        text = [answers[0][1]] + (["; "] + list(limit) if limit else []) + ["."]
    else:
        text = []
        for name, answer in answers:
            text += [bold(f"Stream {name}: "), answer + ". "]
        if limit:  # the run's, for every stream
            text += [limit[0][:1].upper() + limit[0][1:]] + list(limit[1:]) + ["."]
    doc.box("In short:", *text)
    return True


def section_hops(doc, stats):
    doc.h(2, "Where the time goes (per-hop latency)")
    br = get(stats, "latency_breakdown_ns")
    if not isinstance(br, dict):
        doc.p("This stats.json has no ", code("latency_breakdown_ns"), " section.")
        return
    doc.p("Each row is the time a request spends in one kind of block: on the way to the "
          "memory (request), waiting in the memory controller's queue (memory_queue: until "
          "the first DRAM command for it, behind other requests, a refresh or a timing "
          "constraint), being served by the DRAM (memory_service: from that command until its "
          "data has moved), ready but waiting for the way back to take the response (memory_response_wait: the "
          "response path pushing back), and on the way back (response). Means add up to the "
          "end-to-end mean; 'Share' is each mean over the end-to-end mean. p99 is per hop and "
          "does not add up. A path that "
          "crosses two blocks of a kind (e.g. two links through a switch) adds both into one row "
          "('Hops per request'). A block's time includes waiting for the next block to take "
          "the request, so queueing behind a saturated resource further on (the limiter, see "
          "Bottleneck) shows in the blocks before it as well as in its own.")
    limiter = get(stats, "bottlenecks", "limiter")
    if isinstance(limiter, dict) and limiter.get("component") and limiter.get("kind") in (
            "link", "switch", "hub", "device_port", "noc", "memory"):
        doc.p("In this run the limiter is ", code(as_text(limiter.get("component"))), " ",
              as_text(limiter.get("resource")), ": read the largest shares below with that "
              "in mind.")
    drawn = False
    for label, key in (("Reads", "read"), ("Writes", "write")):
        d = get(br, key)
        hops = [h for h in as_list(get(d, "hops")) if isinstance(h, dict)]
        e2e = get(d, "end_to_end", default={})
        if not hops or not number(get(e2e, "count")) or e2e["count"] == 0:
            continue
        drawn = True
        doc.h(3, label)
        if not get(e2e, "mean"):
            doc.p(f"{label} have no latency to break down (posted writes are acknowledged on "
                  "arrival at the controller).")
            continue
        top = sorted(hops, key=lambda h: -(get(h, "share", default=0) or 0))[:3]
        doc.p(f"A {label[:-1].lower()} took {fmt_ns(e2e['mean'])} on average from issue to "
              f"response (p99 "
              f"{fmt_ns(get(e2e, 'p99'))}, over {fmt_int(e2e['count'])} requests). The largest "
              "parts: " + ", ".join(f"{h.get('hop', '?')} {fmt_pct(h.get('share'))}" for h in top)
              + ".")
        rows = [[code(h.get("hop", "?")), fmt_num(h.get("mean")), fmt_pct(h.get("share")),
                 fmt_num(h.get("min")), fmt_num(h.get("above_min")),
                 fmt_num(h.get("p99")), fmt_int(h.get("requests")),
                 fmt_num(h.get("hops_per_request"), 2)] for h in hops]
        rows.append([bold("end to end"), fmt_num(e2e.get("mean")), "100.0%", "", "",
                     fmt_num(e2e.get("p99")), fmt_int(e2e["count"]), ""])
        doc.p("'Fastest' is the least time one request spent in the hop; on a run that starts on "
              "an idle platform that is close to the hop's unloaded time. 'Above fastest' is the "
              "time above what the hop would take were every pass as fast as the fastest: "
              "queueing, losing arbitration or being held back by the next block (or a longer "
              "path or bigger transfer than the fastest's).")
        partial = [h for h in hops if number(get(h, "requests")) and h["requests"] < e2e["count"]]
        if partial:
            # Spread over every request so that the means add up: a hop few requests cross can
            # show a mean below its fastest.
            doc.p("'Mean' and 'Above fastest' are per request of all "
                  f"{fmt_int(e2e['count'])}, so that the means add up to the end-to-end mean, "
                  "and 'Requests' is how many crossed the hop. Where only some did (here "
                  f"{len(partial)} of the {len(hops)} hops), the hop's time is spread over all "
                  "the requests, so its mean can be below its fastest; among the requests that "
                  f"crossed it, its mean is 'Mean' x {fmt_int(e2e['count'])} / 'Requests'.")
        doc.table(["Hop", "Mean (ns)", "Share", "Fastest (ns)", "Above fastest (ns)", "p99 (ns)",
                   "Requests", "Hops per request"], rows, "lrrrrrrr")
        if key == "write" and writes_posted_at_memory(stats):
            # A zero that reads as "writes never reach the DRAM" to someone new to posted writes.
            doc.p("The writes' memory_service is 0 (and their memory_queue only a wait for room "
                  "in the controller's queue): writes are posted (the "
                  "memory controller's default, ", code("write_response: posted"), "), answered "
                  "as soon as the controller takes them into its queue. Their data reaches the "
                  "DRAM later, which the memory channels' statistics (and the DRAM command log) "
                  "count; ", code("write_response: on_completion"), " times them to the end of "
                  "their data instead.")
        bad = get(d, "mismatched_requests", default=0)
        if number(bad) and bad:
            doc.p(bold("Warning: "), f"{fmt_int(bad)} requests' hop times did not add up to "
                  "their latency; the breakdown is not exact.")
    if not drawn:
        doc.p("No completed request has a per-hop breakdown.")


def wire_ends(entry):
    """' (gpu1 → plane3_switch)' for a link's wire or VC credits, whose bottleneck entries name the
    wire's ends (from, to): stats.json names a wire for the class of transactions its side
    starts, so a peer GPU's responses travel on its 'request wire'."""
    if not isinstance(entry, dict) or not isinstance(entry.get("from"), str) \
            or not isinstance(entry.get("to"), str):
        return ""
    return f" ({entry['from']} → {entry['to']})"


def ranked_row(i, r):
    unit = get(r, "capacity_unit", default="GB/s" if r.get("type") == "bandwidth" else "slots")
    digits = 2 if unit == "GB/s" else 1
    cap_digits = digits if unit == "GB/s" else 0
    used = f"{fmt_num(r.get('used'), digits)} / {fmt_num(r.get('capacity'), cap_digits)} {unit}"
    bound = get(r, "bound_gbps")
    resource = as_text(r.get("resource"))
    return [str(i), code(as_text(r.get("component"))),
            resource + wire_ends(r),
            as_text(r.get("type")), fmt_pct(r.get("utilization")), used,
            fmt_num(r.get("backpressure_ns")), as_text(r.get("state")),
            fmt_num(bound, 1) if number(bound) else DASH]


def section_bottleneck(doc, stats):
    doc.h(2, "Bottleneck")
    bn = get(stats, "bottlenecks")
    if not isinstance(bn, dict):
        doc.p("This stats.json has no ", code("bottlenecks"), " section: it was written by a "
              "famsim older than the bottleneck analysis. Below are the busiest components by "
              "their own utilisation instead; one near 100% is a candidate bottleneck, but this "
              "list cannot tell a saturated wire from a full queue that is only waiting for one.")
        comps = [(n, c) for n, c in as_dict(get(stats, "components")).items()
                 if isinstance(c, dict) and number(c.get("utilization"))]
        comps.sort(key=lambda nc: -nc[1]["utilization"])
        if comps:
            doc.table(["Component", "Utilisation", "Backpressure (ns)"],
                      [[code(n), fmt_pct(c["utilization"]), fmt_num(c.get("backpressure_ns"))]
                       for n, c in comps[:10]], "lrr")
        return
    if one_sentence(stats):
        doc.box("In one sentence:", bn["sentence"])
    threshold = get(bn, "saturation_threshold")
    achieved, bound = get(bn, "achieved_gbps"), get(bn, "analytic_bound_gbps")
    if number(bound):
        frac = get(bn, "achieved_fraction_of_bound",
                   default=achieved / bound if number(achieved) and bound else None)
        over = " over all targets together" if len(targets(stats)) > 1 else ""
        doc.p(bold("Achieved vs analytic bound: "),
              f"the run moved {fmt_gbps(achieved)}{over}; the analytic bound is "
              f"{fmt_gbps(bound)}, set "
              "by ", code(get(bn, "bound_set_by", default="?")),
              f", so the run reached {fmt_pct(frac)} of it. The bound is the throughput at which "
              "the first bandwidth resource would be busy 100% of the time if the traffic kept "
              "this run's split over the resources (achieved / that resource's utilisation).")
    elif number(achieved):
        doc.p(f"The run moved {fmt_gbps(achieved)}; no bandwidth resource was busy, so there is "
              "no analytic bound.")
    lim = get(bn, "limiter")
    if isinstance(lim, dict):
        unit = get(lim, "capacity_unit", default="")
        kind = get(lim, "type")
        text = [bold("Limiter: "), code(f"{get(lim, 'component', default='?')} "
                                        f"{get(lim, 'resource', default='')}".strip())]
        if get(lim, "kind"):
            what = ("a pool of slots" if kind == "slots" else "a bandwidth resource"
                    if unit in ("", "GB/s") else f"a server counted in {unit}")
            text.append(f" ({what} in a {lim['kind']} block)")
        if kind == "slots":
            text.append(f", full {fmt_pct(lim.get('utilization'))} on average: "
                        f"{fmt_num(lim.get('used'))} of {fmt_num(lim.get('capacity'), 0)} slots "
                        "in use. Nothing downstream is saturated, so throughput is slots / latency "
                        "(Little's law): more slots or less latency raise it.")
            if number(lim.get("littles_law_bound_gbps")):
                text.append(f" At the latency they see now, these slots hold the run's total "
                            f"(all its traffic, split as it is) to at most "
                            f"{fmt_gbps(lim['littles_law_bound_gbps'])}.")
            if number(lim.get("slots_for_analytic_bound")) and number(bound):
                text.append(f" The analytic bound of {fmt_gbps(bound)} would take about "
                            f"{fmt_num(lim['slots_for_analytic_bound'], 0)} slots in this pool "
                            "at that latency, or the latency cut in the same proportion.")
        elif get(lim, "advice"):
            # A server whose work is not bytes (a DRAM rank's activates): its own unit and what
            # it means.
            text.append(f", busy {fmt_pct(lim.get('utilization'))} of the time: "
                        f"{fmt_num(lim.get('used'), 2)} of {fmt_num(lim.get('capacity'), 2)} "
                        f"{unit}. {as_text(lim['advice'])}")
        else:
            text.append(f", busy {fmt_pct(lim.get('utilization'))} of the time: "
                        f"{fmt_num(lim.get('used'), 2)} of {fmt_num(lim.get('capacity'), 2)} "
                        f"{unit or 'GB/s'} on the wire (framing included).")
        if number(lim.get("backpressure_ns")) and lim["backpressure_ns"] > 0:
            text.append(f" It held back its upstream for {fmt_ns(lim['backpressure_ns'])} in total "
                        "(summed over ports, so it can exceed the run's length).")
        alike = as_list(get(lim, "alike"))
        if isinstance(alike, list) and alike:
            size = get(lim, "class_size")
            text.append(f" {len(alike)} more of the {fmt_int(size) if number(size) else '?'} "
                        f"like resources are {'full' if kind == 'slots' else 'saturated'} too: "
                        + ", ".join(map(str, alike[:8]))
                        + (", ..." if len(alike) > 8 else "") + ".")
        bal = get(lim, "class_balance")
        if isinstance(bal, dict) and number(bal.get("even_bound_gbps")):
            carried = (" that carried traffic" if number(lim.get("class_size"))
                       and number(bal.get("members")) and bal["members"] < lim["class_size"]
                       else "")
            text += [f" The {fmt_int(bal.get('members'))} like resources{carried} are unevenly "
                     "loaded "
                     f"({fmt_pct(bal.get('min_utilization'))} to "
                     f"{fmt_pct(lim.get('utilization'))}): with the same traffic spread evenly "
                     f"each would be {fmt_pct(bal.get('even_utilization'))} busy and the "
                     f"analytic bound {fmt_gbps(bal['even_bound_gbps'])}, set by ",
                     code(as_text(bal.get('even_bound_set_by'))),
                     ". How the traffic is split over them (address interleaving, routing, how "
                     "many ports each path has, or a workload that loads some initiators more) "
                     "costs that much."]
        doc.p(*text)
    elif isinstance(get(bn, "nothing_delivered"), dict):
        doc.p(bold("No limiter: "), "no data was delivered, so there is no throughput for a "
              "resource to limit (see the sentence above for why).")
    else:
        doc.p(bold("No limiter: "), "no bandwidth resource is busy at or above "
              f"{fmt_pct(threshold, 0)} and no slot pool is that full, so the workload's own pace "
              "(issue rate, compute gaps, dependencies) sets the throughput.")
    blocks = [b for b in as_list(get(bn, "blocks")) if isinstance(b, dict)]
    if blocks:
        doc.p("Pools held full behind the limiter (they fill because it does; enlarging them "
              "does not help): " + ", ".join(
                  f"{b.get('class', '?')} {b.get('resource', '')} ({fmt_int(b.get('count'))} "
                  "full)" for b in blocks) + ".")
    ranked = [r for r in as_list(get(bn, "ranked")) if isinstance(r, dict)]
    if ranked:
        total = get(bn, "resources")
        doc.p(f"The {min(10, len(ranked))} highest-ranked of "
              f"{fmt_int(total) if number(total) else 'the'} resources: the limiter first, then "
              "saturated bandwidth resources, full pools and the rest, busiest first. "
              "Utilisation is the busy fraction of a bandwidth resource or the mean fill of a "
              "slot pool; 'Bound' is the throughput the run could reach if that resource alone "
              "limited it. State: limiting (the bottleneck), saturated (a bandwidth resource at "
              f"or above {fmt_pct(threshold, 0)}), blocked (a full pool), ok.")
        doc.table(["#", "Component", "Resource", "Type", "Utilisation", "Used / capacity",
                   "Backpressure (ns)", "State", "Bound (GB/s)"],
                  [ranked_row(i + 1, r) for i, r in enumerate(ranked[:10])], "rlllrrrlr")
    section_phases(doc, bn)


def section_phases(doc, bn):
    """The limiter of each part of the run (bottlenecks.phases), when it changed."""
    ph = get(bn, "phases")
    phases = [p for p in as_list(get(ph, "phases")) if isinstance(p, dict)]
    if len(phases) < 2:
        if isinstance(ph, dict):
            doc.p(bold("Over time: "), "the per-phase analysis (windows of ",
                  fmt_time(get(ph, "window_ns")), ") found one limiter class for the whole run, "
                  "so the figures above hold throughout.")
        return
    doc.h(3, "Phases")
    doc.p("The run did not have one limiter throughout. Every resource's work was sampled in "
          f"windows of {fmt_time(get(ph, 'window_ns'))}; runs of windows with a limiter of one "
          "class are a phase, each analysed over its own span. A phase boundary can be up to one "
          "window from the true change, and a limiter lasting a single window is not told apart.")
    rows = []
    for p in phases:
        lim = get(p, "limiter")
        if isinstance(lim, dict):
            what = [code(f"{lim.get('component', '?')} {lim.get('resource', '')}".strip()),
                    wire_ends(lim),
                    f" ({'full' if lim.get('reason') == 'slots' else 'busy'} "
                    f"{fmt_pct(lim.get('utilization'))})"]
        else:
            what = ["nothing saturated: the workload's pace"]
        targets_text = ", ".join(f"{k} {fmt_gbps(v)}"
                                 for k, v in as_dict(get(p, "by_target_gbps")).items())
        rows.append([phase_span(p) or DASH,
                     fmt_gbps(get(p, "achieved_gbps")), targets_text or "-", what,
                     fmt_gbps(get(p, "analytic_bound_gbps"))])
    doc.table(["Span", "Achieved", "By target", "Limiter", "Bound"], rows, "lrlll")


def memory_groups(stats):
    """DRAM channels grouped by the memory they belong to ("fam0.memory" for "fam0.memory.ch3",
    "gpu2_hbm" for "gpu2_hbm.ch17"): {group: [(channel name, component)]}, components that report
    DRAM statistics only (row_hit_rate), in name order."""
    groups = {}
    for name, c in sorted(as_dict(get(stats, "components")).items()):
        if not isinstance(c, dict) or "row_hit_rate" not in c:
            continue
        group, _, channel = name.rpartition(".")
        groups.setdefault(group or name, []).append((channel or name, c))
    return groups


def mean_of(values):
    values = [v for v in values if number(v)]
    return sum(values) / len(values) if values else None


# A memory's busiest channel moving this many times the mean over its channels is worth a sentence.
UNEVEN_CHANNELS = 1.5


def section_memory(doc, stats):
    groups = memory_groups(stats)
    if not groups:
        return
    doc.h(2, "Memory channels")
    doc.p("Each memory's DRAM channels that carried traffic: their bandwidth together, and over "
          "those channels the mean efficiency (bandwidth over the channel's peak), row-buffer "
          "outcome of each burst (hit: the row was open; miss: no row open; conflict: another "
          "row had to be closed first), bank-level parallelism (banks with requests queued at "
          "once while any had, against the banks needed to keep the data bus busy at the run's "
          "bursts per activate, row cycle / (bursts per activate x tBL)), read and write queue "
          "fill, and read latency at the controller (queue and DRAM service). Channel spread is "
          "the busiest channel's bytes over the mean over all the memory's channels, used or not: "
          "1.00 when the address interleave spreads the traffic evenly, the channel count when "
          "one channel takes it all. Limiter says whether the memory is what limited the run (see "
          "Bottleneck); the figures of one that is not describe how it served the traffic it got; "
          "one that limited some phases only is named with them.")
    # Many like memories (every GPU's HBM) make one row: "gpu*_hbm (8 memories)".
    classes = {}
    for group in groups:
        classes.setdefault(re.sub(r"\d+", "*", group), []).append(group)
    merged, member_groups = {}, {}
    for cls, members in classes.items():
        if len(members) > 4:
            name = f"{cls} ({len(members)} memories)"
            merged[name] = [ch for g in members for ch in groups[g]]
            member_groups[name] = members
        else:
            merged.update({g: groups[g] for g in members})
            member_groups.update({g: [g] for g in members})
    # Whether each memory limited the run (stats.json bottlenecks.limiter names a component, a
    # channel "fam0.memory.ch3" for a memory): the efficiency and banks-needed figures of a memory
    # that did not are about how it served the traffic it got, not a memory problem.
    bn = get(stats, "bottlenecks")
    limiter = get(bn, "limiter")
    limiter_component = str(limiter.get("component", "")) if isinstance(limiter, dict) else ""
    # The phases (bottlenecks.phases.phases) each memory limited: a memory that held back one
    # phase but not the run as a whole is named with those phases' spans, not as "no".
    phases = as_list(get(bn, "phases", "phases"))
    phase_limits = []  # (limiter component, span)
    for p in phases:
        c = get(p, "limiter", "component")
        if isinstance(c, str) and c:
            phase_limits.append((c, phase_span(p)))

    def of_group(component, group):
        return any(component == g or component.startswith(g + ".") for g in member_groups[group])

    rows = []
    uneven = []
    not_limiting = []
    limited_phases = []
    for group, channels in merged.items():
        busy = [c for _, c in channels if (c.get("bytes") or 0) > 0]
        if not busy:
            continue
        moved = [c.get("bytes") for _, c in channels]
        spread = (max(moved) * len(moved) / sum(moved)
                  if all(number(b) for b in moved) and sum(moved) > 0 else None)
        if number(spread) and spread >= UNEVEN_CHANNELS:
            uneven.append((group, spread, len(busy), len(channels)))
        blp = [as_dict(c.get("bank_parallelism")) for c in busy]
        bws = [c.get("bandwidth_gbps") for c in busy]
        banks = [b.get("banks") for b in blp if number(b.get("banks"))]

        def direction(count_key, value):  # over the channels that saw that direction, else a dash
            return fmt_num(mean_of(value(c) for c in busy if (c.get(count_key) or 0) > 0))

        limits = None  # unknown: a stats.json without the bottleneck analysis
        spans = []  # the phases it limited, when it did not limit the whole run
        if isinstance(bn, dict):
            limits = of_group(limiter_component, group)
            if not limits:
                spans = [span for c, span in phase_limits if of_group(c, group) and span]
        if spans:
            limited_phases.append((group, spans))
        elif limits is False:
            # The memory's busiest bandwidth resource over all its channels: how far it was from
            # saturating.
            busiest = max(((r.get("utilization"), ch, r.get("name"))
                           for ch, c in channels for r in as_list(c.get("resources"))
                           if isinstance(r, dict) and r.get("type") == "bandwidth"
                           and number(r.get("utilization"))), default=None)
            not_limiting.append((group, busiest, mean_of(c.get("efficiency") for c in busy),
                                 mean_of(b.get("banks_to_fill_data_bus") for b in blp),
                                 max(banks) if banks else None))

        rows.append([
            code(group), f"{len(busy)} of {len(channels)}",
            f"{spread:.2f}" if number(spread) else DASH,
            fmt_num(sum(bws), 2) if all(number(b) for b in bws) else DASH,
            fmt_pct(mean_of(c.get("efficiency") for c in busy)),
            fmt_pct(mean_of(c.get("row_hit_rate") for c in busy)),
            fmt_pct(mean_of(c.get("row_miss_rate") for c in busy)),
            fmt_pct(mean_of(c.get("row_conflict_rate") for c in busy)),
            fmt_num(mean_of(b.get("mean_while_busy") for b in blp)) + " / "
            + fmt_num(mean_of(b.get("banks_to_fill_data_bus") for b in blp)) + " of "
            + (fmt_int(max(banks)) if banks else DASH),
            direction("reads", lambda c: get(c, "read_queue", "mean")),
            direction("writes", lambda c: get(c, "write_queue", "mean")),
            direction("reads", lambda c: get(c, "read_latency_ns", "mean")),
            DASH if limits is None else "yes" if limits
            else f"in {len(spans)} of {len(phases)} phases" if spans else "no"])
    if not rows:
        doc.p("No DRAM channel carried traffic.")
        return
    doc.table(["Memory", "Channels used", "Channel spread", "GB/s", "Efficiency", "Row hits",
               "Row misses", "Row conflicts", "Banks busy / needed", "Read queue (mean)",
               "Write queue (mean)", "Read latency (ns)", "Limiter"], rows, "llrrrrrrrrrrl")
    threshold = get(bn, "saturation_threshold")
    for group, busiest, efficiency, needed, banks in not_limiting:
        text = [bold("Not the limiter: "), code(group), " did not limit this run"]
        if limiter_component:
            named = f"{limiter_component} {limiter.get('resource', '')}".strip()
            text += [" (the run's limiter: ", code(named), ")"]
        else:
            text.append(" (nothing in it saturated)")
        if busiest:
            util, ch, name = busiest
            text.append(f"; the memory's busiest resource, {ch} {name}, was {fmt_pct(util)} busy")
            if number(threshold) and util < threshold:
                text.append(f", below the {fmt_pct(threshold, 0)} saturation threshold")
        text.append(". Its figures describe how it served the traffic the run brought it, not "
                    "what held the run back: an efficiency of "
                    f"{fmt_pct(efficiency)} is the share of its peak that traffic used")
        if number(needed) and number(banks) and needed > banks:
            text.append(f", and {fmt_num(needed)} banks needed of {fmt_int(banks)} means that at "
                        "this run's bursts per activate its data bus could not run at its peak, "
                        "a rate this run did not ask of it")
        doc.p(*text, ".")
    for group, spans in limited_phases:
        # A run with nothing saturated over its whole length has no limiter (null) to name.
        named = (f"{limiter_component} {limiter.get('resource', '')}".strip()
                 if limiter_component else None)
        doc.p(bold("Limiter in some phases: "), code(group), " limited the run in "
              + ("the phase " if len(spans) == 1 else f"{len(spans)} phases, ") + ", ".join(spans)
              + " (see Phases), though not over the whole run",
              *([" (the run's limiter: ", code(named), ")"] if named else []),
              ". Its figures are over the whole run: they mix the phases it held back with those "
              "it did not.")
    for group, spread, used, count in uneven:
        doc.p(bold("Uneven channels: "), code(group), f"'s busiest channel moved {spread:.2f} "
              f"times the mean over its {count} channels ({used} used). The address interleave "
              "(the memory's interleave.granule_bytes and channel_select) or the access pattern "
              "(a stride that is a multiple of channels x granule, say) concentrates the traffic: "
              "that channel limits the memory before the others are busy.")
    # The same spread window by window (timeseries.channel_balance_by_window): even over the run
    # can still mean one channel at a time.
    turns = {get(t, "device"): t for t in as_list(get(stats, "bottlenecks", "channel_turns"))}
    by_window = as_dict(get(stats, "timeseries", "channel_balance_by_window"))
    for device, w in by_window.items():
        if not isinstance(w, dict) or not number(w.get("mean_max_over_mean")):
            continue
        doc.p(code(device), f"'s {fmt_int(w.get('channels'))} channels window by window "
              f"({fmt_ns(w.get('window_ns'))} each, over the {fmt_int(w.get('windows'))} windows "
              f"with at least {fmt_int(w.get('min_requests_per_channel'))} requests per channel "
              "on average): the busiest channel moved "
              f"{w['mean_max_over_mean']:.3f} times the mean channel's bytes on average (weighted "
              f"by bytes) and {fmt_num(w.get('max_max_over_mean'), 3)} times at most, against "
              f"{fmt_num(w.get('run_max_over_mean'), 3)} over the whole run.")
        if w.get("took_turns") is True:
            t = turns.get(device)
            doc.p(bold("The channels took turns: "), "at any one time most of the traffic went to "
                  "a few channels while the others waited, although the run's totals are even, "
                  "so the run got about those channels' bandwidth, not all of theirs. "
                  + (t["sentence"] if isinstance(t, dict) and isinstance(t.get("sentence"), str)
                     else ""))


FIGURES = [  # file, title, how to read it
    ("latency_cdf.png", "Latency CDF",
     "Latency CDF: the fraction of requests (y) that completed within a given latency (x, log "
     "scale). A steep curve means predictable latency; a long tail to the right means some "
     "requests wait much longer than most."),
    ("bandwidth_time.png", "Bandwidth over time",
     "Bandwidth per time window: read and write GB/s over the simulated time. A flat line is a "
     "steady state; ramps at the ends are the start and the drain. When more than one kind of "
     "memory carried traffic, dashed lines split it by target (expansion device, local HBM, "
     "peer GPU HBM)."),
    ("device_bandwidth_time.png", "Bandwidth by device over time",
     "Each expansion device's bandwidth (read + write) per time window. Lines that rise and fall "
     "in turn show the load moving from device to device (a buffer striped granule by granule "
     "and walked in step) even when the devices' totals are even; with more than eight devices, "
     "the band from the least to the most loaded device around the mean."),
    ("latency_time.png", "Latency over time",
     "Latency per time window: p50, p99 and max of the requests completing in each window."),
    ("hop_breakdown.png", "Per-hop latency breakdown",
     "Where the time goes: the mean latency of reads and writes, split by the kind of block the "
     "request spent it in."),
    ("utilization.png", "Utilisation of every resource",
     "Utilisation of the busiest resources: busy time of a bandwidth resource or mean fill of a "
     "slot pool (or a component's own utilisation where it lists no resources)."),
    ("utilization_by_class.png", "Utilisation by class",
     "Utilisation by class of like resources (e.g. all device links' response wires; a block's "
     "per-port resources merged into one bar): the "
     "busiest member (light) and the class mean (dark); the dashed line is the saturation "
     "threshold."),
    ("limiter_occupancy.png", "Occupancy of the limiting pool",
     "Occupancy of the limiting slot pool: the share of the run it spent at each number of slots "
     "in use. Time piled up at the capacity (dashed) means the pool was full."),
    ("mesh_links.png", "Mesh NoC links",
     "Every directed link of the device's mesh NoC on its grid (node x,y; north at the top), "
     "coloured by flits per cycle (1 = busy every cycle), the request network on the left and "
     "the response network on the right; the limiter's link, when it is one (its wire or the VC "
     "credits of the router input it feeds), is outlined in red. A hot column or row shows where "
     "XY routing concentrates the traffic."),
]


def draw_figures(plot_run, stats, run_dir, png_dir):
    """Draws what the run has data for; returns [(file, caption)] and warnings."""
    drawn, warnings = [], []

    def attempt(name, draw):
        try:
            if draw(os.path.join(png_dir, name)) is not False:
                drawn.append(name)
        except (AttributeError, KeyError, TypeError, ValueError, IndexError,
                ZeroDivisionError) as e:  # a stats.json of an unexpected shape
            warnings.append(f"{name} not drawn: {type(e).__name__}: {e}")

    attempt("latency_cdf.png", lambda out: plot_run.latency_cdf(stats, out))
    # timeseries.csv is optional (sim.timeseries_window_ns 0 writes none): one that is not what
    # famsim writes costs the figures over time, not the report, and is named with its line.
    try:
        rows = plot_run.read_series(run_dir, get(stats, "timeseries", "windows"))
    except plot_run.BadSeries as e:
        rows = []
        warnings.append(f"{e}; the figures over time are left out")
    if rows:
        attempt("bandwidth_time.png", lambda out: plot_run.bandwidth_time(rows, out))
        attempt("device_bandwidth_time.png",
                lambda out: plot_run.device_bandwidth_time(rows, out))
        attempt("latency_time.png", lambda out: plot_run.latency_time(rows, out))
    attempt("hop_breakdown.png", lambda out: plot_run.hop_breakdown(stats, out))
    attempt("utilization.png", lambda out: plot_run.utilization(stats, out))
    attempt("utilization_by_class.png", lambda out: plot_run.utilization_by_class(stats, out))
    attempt("limiter_occupancy.png", lambda out: plot_run.limiter_occupancy(stats, out))
    attempt("mesh_links.png", lambda out: plot_run.mesh_links(stats, out))
    return [f for f in FIGURES if f[0] in drawn], warnings


# How to get the figures when matplotlib is missing (Debian's package, as scripts/setup.sh).
MATPLOTLIB_INSTALL = "apt-get install python3-matplotlib"


def section_figures(doc, figures, warnings, missing_plots=None):
    doc.h(2, "Figures")
    if missing_plots:
        doc.p(bold("No figures: "), f"the figures were left out because {missing_plots}. "
              "Install it with ", code(MATPLOTLIB_INSTALL), " (scripts/setup.sh does) and run "
              "report.py again with /usr/bin/python3.")
    elif not figures:
        doc.p("No figure could be drawn from this run directory.")
    for png, title, caption in figures:
        doc.figure(png, title, caption)
    for w in warnings:
        doc.p(bold("Not drawn: "), w)


def memory_assumption_items(stats):
    """Per memory of the run (stats.json assumptions): for the GPUs' local memory, the peak the
    platform gives it; then the values its preset or platform file marks as assumptions rather
    than figures from a standard or a data sheet, with the values the run used, grouped by note."""
    items = []
    for mem in as_list(get(stats, "assumptions")):
        if not isinstance(mem, dict):
            continue
        what = as_text(mem.get("what") or mem.get("memory") or "a memory")
        preset_name = as_text(mem["preset"]) if mem.get("preset") else None
        values = [v for v in as_list(mem.get("values")) if isinstance(v, dict)]
        if mem.get("memory") == "gpus.local_memory" and number(mem.get("peak_gbps")):
            text = [f"The platform gives {what} a peak of {fmt_gbps(mem['peak_gbps'])} "
                    f"({fmt_int(mem.get('channels'))} {as_text(mem.get('standard', ''))} channels "
                    f"x {fmt_gbps(mem.get('channel_peak_gbps'))}"
                    f"{', preset ' + preset_name if preset_name else ''}); GPU-local and peer "
                    "results bound by it scale with that figure."]
            for v in values:
                if v.get("key") == "preset":
                    text += [" Assumed: ", as_text(v.get("why", "")), "."]
            items.append(text)
        groups = {}  # note -> [value texts], in the order stats.json lists them
        for v in values:
            if v.get("key") == "preset" and mem.get("memory") == "gpus.local_memory":
                continue  # said above, next to the peak
            shown = [code(f"{as_text(v.get('key', '?'))} = {fmt_value(v.get('value'))}")]
            if v.get("value_from") and v.get("value_from") != v.get("note_from"):
                shown.append(f" (set by {as_text(v['value_from'])}, in place of the preset's "
                             "assumed value)")
            groups.setdefault(as_text(v.get("why", "")), []).append(shown)
        if not groups:
            continue
        text = [f"Assumed for {what}{' (preset ' + preset_name + ')' if preset_name else ''}, "
                "not from a standard or a data sheet: "]
        for g, (why, shown) in enumerate(groups.items()):
            text += ["; "] if g else []
            for i, part in enumerate(shown):
                text += ([", "] if i else []) + part
            text.append(f" ({why})")
        items.append(text + ["."])
    return items


def section_assumptions(doc, stats):
    doc.h(2, "Assumptions and limits")
    items = [
        "famsim is a cycle-approximate transaction-level model (SystemC/TLM), not RTL: blocks "
        "model their timing, queues and arbitration, not every wire and gate. Use it to compare "
        "designs and find limits, not to sign off a chip's exact numbers.",
        "DRAM timing comes from the memory presets (platforms/presets/memory), which take it "
        "from the JEDEC standards and the data sheets and simulator presets they cite; the "
        "values a preset could not take from a standard or a data sheet are marked there as "
        "assumptions, and those of the memories this run used are listed below with their "
        "values. Parameters marked [assumption] in the platform files (switch and device "
        "micro-architecture, clocks, buffer sizes) are not published figures either.",
        "The analytic bound assumes every bandwidth resource could run at 100% of its configured "
        "bandwidth with this run's own traffic split. DRAM under random access cannot reach its "
        "peak (row misses, refresh, bus turnarounds), so the bound is optimistic where a memory "
        "channel sets it.",
        "The bottleneck rule: the limiter is the busiest bandwidth resource if it is busy at or "
        "above the saturation threshold; otherwise the full slot pool a request enters latest on "
        "its round trip (out: a GPU's outstanding window, switch input buffers, device tags, NoC "
        "buffers, memory queues; back: NoC, device, switch response buffers; a link's VC credits "
        "just before the block the link feeds, on the way out or back); otherwise nothing "
        "saturates and the workload's pace sets the throughput.",
        "Statistics cover the window from the first request issued to the end of the run; time "
        "before the first request does not dilute bandwidth or utilisation.",
        "Latency percentiles come from log-spaced histograms (bins about 0.5% wide; per-hop p99s "
        "and per-window percentiles are coarser); counts, means, minima and maxima are exact.",
        "timeline.json is a sample (every Nth request of each GPU, capped), not every request.",
    ]
    sim, cfg = get(stats, "sim", default={}), get(stats, "config", default={})
    if isinstance(get(cfg, "gpus"), dict):
        items.append(
            "A request's latency runs from where it leaves the GPU (its memory and fabric ports) "
            "and back. The GPU's inside (streaming multiprocessors, L1 and L2 caches, the on-chip "
            "network to its memory controllers) is not modelled, so every latency here is below "
            "what a load instruction sees, which adds the GPU's own cache and network path: "
            "compare memories and paths by their differences, not against software-visible "
            "figures.")
    items += memory_assumption_items(stats)
    if get(sim, "truncated") is True:
        items.append("This run was truncated: it describes the first part of the workload only, "
                     "with requests still in flight at the end.")
    limit = get(cfg, "sim", "max_time_ns")
    if number(limit) and limit > 0:
        items.append(f"sim.max_time_ns = {fmt_time(limit)} caps the simulated time.")
    seed = get(sim, "seed", default=get(cfg, "sim", "seed"))
    if seed is not None:
        items.append(f"Results are for seed {seed}: another seed draws other random addresses "
                     "and gaps, and moves the numbers a little; run several seeds to see the "
                     "spread. The same seed and configuration give identical results.")
    tl = get(stats, "timeline")
    if isinstance(tl, dict) and number(tl.get("sample_every")):
        items.append(f"The timeline holds {fmt_int(tl.get('requests'))} requests, every "
                     f"{fmt_int(tl['sample_every'])}th of each GPU.")
    ts = get(stats, "timeseries")
    if isinstance(ts, dict) and number(ts.get("window_ns")):
        items.append(f"Time series windows are {fmt_ns(ts['window_ns'])} long "
                     f"({fmt_int(ts.get('windows'))} windows).")
    if posted_writes(stats):
        items.append("Writes are posted: their latency ends when the memory controller accepts "
                     "them, not when the DRAM has written them.")
    tx = get(stats, "transaction_log")
    if isinstance(tx, dict):
        items.append(f"Every completed request ({fmt_int(tx.get('transactions'))}) is listed in "
                     f"{as_text(tx.get('file', 'transactions.csv'))}, with its addresses and "
                     "times.")
    seen = []
    for name, stream in generator_streams(stats):
        for text in workload_assumptions(stats, stream_facts(stats, name, stream), stream):
            if text not in seen:
                seen.append(text)
    items += ["Workload results (What the workload got): "
              + (t if t[1:2].isupper() else t[:1].lower() + t[1:]) for t in seen]
    for key, what in (("bottlenecks", "bottleneck analysis"),
                      ("config_changes", "list of changes from the preset"),
                      ("assumptions", "list of the memories' assumed values")):
        if key not in stats:
            items.append(f"This stats.json predates the {what} ({key}); rerun with a current "
                         "famsim to get it.")
    doc.ul(items)


# The report's words a reader new to the field may not know, each in plain terms (a review read
# as a manager found them undefined): where they first appear, the text leans on these.
TERMS = [
    ("GB/s", "10^9 bytes per second of simulated time."),
    ("p50, p90, p99", "percentiles: the latency that 50, 90 or 99 % of the requests stayed under; "
     "p99 is the tail."),
    ("request wire, response wire", "the two directions of a link. A wire is named for the "
     "transactions its side starts: the request wire carries requests (and the data of writes) "
     "away from the side that issues them, the response wire carries the answers (and the data of "
     "reads) back."),
    ("utilisation, saturated", "the share of the time a resource was busy; saturated when at least "
     "the saturation threshold (85 % by default)."),
    ("pool, slots", "a resource made of a fixed number of entries (buffer places, tags, credits, a "
     "GPU's outstanding window); its slots are the entries, and it is full when none is free, so "
     "whatever needs one waits."),
    ("outstanding window", "the most requests a GPU (or trace player) keeps in flight at once "
     "(max_outstanding); when it is full the GPU waits for an answer before it issues again."),
    ("collectives window", "the requests a GPU's collectives (a tensor-parallel group's all-reduce "
     "or an expert-parallel all-to-all) keep in flight, apart from the fetches' outstanding "
     "window (the stream's max_outstanding, within the GPU's)."),
    ("VC credits", "a link's receive buffer as its sender counts it: a credit per buffer unit of a "
     "virtual channel (VC, the request or response lane of a wire). The sender stops when it has "
     "none left, until the far end passes messages on and the credits travel back."),
    ("tags", "the requests a device port may have open in the device at once (tags_per_port)."),
    ("analytic bound", "the throughput at which the first bandwidth resource would be busy all the "
     "time if the traffic kept this run's split over the resources; no run with that split can go "
     "faster."),
    ("Little's law", "throughput = requests in flight / latency: with a fixed number of slots, a "
     "longer latency means less throughput."),
    ("row hit, miss, conflict", "a DRAM burst to the row already open in its bank (fast); to a bank "
     "with no row open (an activate first); to a bank with another row open (a precharge and an "
     "activate first)."),
    ("posted write", "a write the memory controller answers as soon as it takes it into its "
     "queue; its data reaches the DRAM later."),
    ("Jain's fairness index", "(sum of x)^2 / (n x sum of x^2) over n GPUs' bandwidths x: 1 when all "
     "got the same, 1/n when one got everything."),
]


def section_terms(doc):
    doc.h(2, "Terms")
    doc.p("What the words of this report mean, in plain terms (README has the details).")
    doc.table(["Term", "Meaning"], [[bold(t), m] for t, m in TERMS])


def section_defaults(doc, stats):
    defaults = get(stats, "config_defaults")
    if not isinstance(defaults, dict) or not defaults:
        return
    doc.h(2, "Parameters left at their defaults")
    doc.p(f"The configuration did not set these {fmt_int(len(defaults))} parameters; the run used "
          "famsim's defaults for them (stats.json config_defaults). With the configuration "
          "(config.yaml) they are every parameter of the run. A value of 0 or empty can mean "
          "\"none\" or \"derived from other parameters\" (README, Configuration).")
    doc.table(["Key", "Default"],
              [[code(as_text(k)), code(fmt_value(v))] for k, v in sorted(defaults.items())])


def build(stats, figures, warnings, missing_plots=None):
    doc = Doc()
    section_header(doc, stats)
    section_platform(doc, stats)
    section_changes(doc, stats)
    section_results(doc, stats)
    section_workload(doc, stats)
    section_hops(doc, stats)
    section_bottleneck(doc, stats)
    section_memory(doc, stats)
    section_figures(doc, figures, warnings, missing_plots)
    section_assumptions(doc, stats)
    section_terms(doc)
    section_defaults(doc, stats)
    return doc


def write_report(run_dir, out_dir, stats, plot_run, missing_plots=None):
    """Everything is written into a temporary directory inside out_dir, then renamed into place,
    so a failure leaves no partial report behind. Without plot_run (matplotlib missing) the
    report has no figures, and says why in `missing_plots`."""
    plots_dir = os.path.join(out_dir, "plots")
    tmp = tempfile.mkdtemp(prefix=".report-", dir=out_dir)
    try:
        tmp_png = os.path.join(tmp, "plots")
        os.mkdir(tmp_png)
        if plot_run is None:
            figures, warnings = [], []
        else:
            figures, warnings = draw_figures(plot_run, stats, run_dir, tmp_png)
        doc = build(stats, figures, warnings, missing_plots)
        title = doc.blocks[0][2]
        with open(os.path.join(tmp, "report.md"), "w", encoding="utf-8") as f:
            f.write(render_markdown(doc, "plots"))
        with open(os.path.join(tmp, "report.html"), "w", encoding="utf-8") as f:
            f.write(render_html(doc, title, tmp_png))
        if figures:
            os.makedirs(plots_dir, exist_ok=True)
        for png, *_ in figures:
            os.replace(os.path.join(tmp_png, png), os.path.join(plots_dir, png))
        for name in ("report.md", "report.html"):
            os.replace(os.path.join(tmp, name), os.path.join(out_dir, name))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for w in warnings:
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    return [os.path.join(out_dir, "report.md"), os.path.join(out_dir, "report.html")] + [
        os.path.join(plots_dir, f[0]) for f in figures]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", help="the --out directory of famsim run")
    ap.add_argument("--out", help="where report.md, report.html and plots/ go (default RUN_DIR)")
    a = ap.parse_args()
    try:
        stats = load_stats(a.run_dir)
        out_dir = a.out or a.run_dir
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as e:
            raise BadInput(f"{out_dir}: cannot create the output directory ({e.strerror})")
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    try:
        plot_run = load_plot_run()
    except ImportError as e:
        # A text-only report rather than none: the figures are the only part that needs
        # matplotlib. The report and stderr say what was left out and how to get it.
        plot_run = None
        missing_plots = f"this Python ({sys.executable}) cannot import matplotlib ({e})"
        print(f"{PROG}: warning: figures left out: {missing_plots}; install it with "
              f"`{MATPLOTLIB_INSTALL}` and run report.py again with /usr/bin/python3",
              file=sys.stderr)
    else:
        missing_plots = None
    for path in write_report(a.run_dir, out_dir, stats, plot_run, missing_plots):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
