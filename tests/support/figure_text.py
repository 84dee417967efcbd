#!/usr/bin/python3
"""Runs a plotting script and checks the text of every figure it saves, without judging pixels.

    tests/support/figure_text.py SCRIPT ARGS...
    (or imported: on_save(inspect) hands a test every figure before it is saved)

SCRIPT runs as it would from the command line, with matplotlib's Figure.savefig wrapped: before
each figure is written, it is drawn and the box of every piece of text on it (titles, axis labels,
the tick labels of ticks inside the axes, text placed on the plot, each legend as one box) is
compared with every other and with the figure's edges. One line per problem goes to stderr:

    figure_text: NAME.png: 'a label' overlaps 'another label'
    figure_text: NAME.png: 'a label' is cut off at the figure's edge

Exit code 1 when there is any problem, else the script's own. The boxes are the upright rectangles
around the text (around rotated text too): a problem reported may be two rotated labels whose
rectangles touch while their glyphs do not, never the other way round. A figure saved with
bbox_inches="tight" grows to hold every artist, so nothing on it is checked against the edges.
This checker shares no code with the scripts it runs: what it calls a problem comes from the
figure matplotlib drew, not from the scripts' own idea of where their labels went.
"""
import os
import runpy
import sys

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.text import Text  # noqa: E402

# Boxes that share less than this (pixels, each way) touch at an edge or an anti-aliased corner:
# not an overlap a reader would see.
TOLERANCE_PX = 1.0

problems = []


def tick_labels(fig):
    """The tick label Texts of every axis and the subset drawn (ticks inside the view limits)."""
    every, drawn = set(), []
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            span = (hi - lo) or 1.0
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                for label, on in ((tick.label1, tick.label1.get_visible()),
                                  (tick.label2, tick.label2.get_visible())):
                    every.add(id(label))
                    loc = tick.get_loc()
                    if (on and loc is not None and lo - 1e-9 * span <= loc <= hi + 1e-9 * span
                            and label.get_text().strip()):
                        drawn.append(label)
    return every, drawn


def boxes(fig, renderer):
    """[(description, Bbox in display pixels)] of the text drawn on fig."""
    every_tick, drawn_ticks = tick_labels(fig)
    legends = fig.findobj(Legend)
    in_legend = {id(t) for lg in legends for t in lg.findobj(Text)}
    out = []
    for t in fig.findobj(Text):
        if (id(t) in every_tick or id(t) in in_legend or not t.get_visible()
                or not t.get_text().strip()):
            continue
        out.append((repr(t.get_text()), t.get_window_extent(renderer)))
    for t in drawn_ticks:
        out.append((repr(t.get_text()), t.get_window_extent(renderer)))
    for lg in legends:
        if lg.get_visible():
            labels = ", ".join(t.get_text() for t in lg.get_texts())
            out.append((f"the legend ({labels})", lg.get_window_extent(renderer)))
    return out


def overlap(a, b):
    dx = min(a.x1, b.x1) - max(a.x0, b.x0)
    dy = min(a.y1, b.y1) - max(a.y0, b.y0)
    return dx > TOLERANCE_PX and dy > TOLERANCE_PX


def check(fig, name, tight):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = boxes(fig, renderer)
    for i, (a, box_a) in enumerate(found):
        for b, box_b in found[i + 1:]:
            if overlap(box_a, box_b):
                problems.append(f"{name}: {a} overlaps {b}")
    if not tight:
        w, h = fig.bbox.width, fig.bbox.height
        for a, box in found:
            if (box.x0 < -TOLERANCE_PX or box.y0 < -TOLERANCE_PX or box.x1 > w + TOLERANCE_PX
                    or box.y1 > h + TOLERANCE_PX):
                problems.append(f"{name}: {a} is cut off at the figure's edge")


original_savefig = Figure.savefig


def checked_savefig(self, fname, *args, **kwargs):
    check(self, os.path.basename(str(fname)), kwargs.get("bbox_inches") == "tight")
    return original_savefig(self, fname, *args, **kwargs)


def on_save(inspect):
    """For a test that calls a script's drawing function itself: inspect(figure) is called with
    every figure just before it is saved (the functions close their figures once saved)."""
    def inspected_savefig(self, *args, **kwargs):
        inspect(self)
        return original_savefig(self, *args, **kwargs)
    Figure.savefig = inspected_savefig


def main():
    if len(sys.argv) < 2:
        print("usage: figure_text.py SCRIPT ARGS...", file=sys.stderr)
        return 2
    Figure.savefig = checked_savefig
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    for p in problems:
        print(f"figure_text: {p}", file=sys.stderr)
    return 1 if problems else code


if __name__ == "__main__":
    sys.exit(main())
