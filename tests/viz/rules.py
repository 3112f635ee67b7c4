"""Checks on a figure's JSON for each class of defect a reader would see: stacked labels, hidden data,
raw-millisecond time axes, legends for nothing, fractional offsets, labels off the plot.

Each check returns a list of problems (empty when the figure is fine), so a failing test names them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import plotly.graph_objects as go

from kcompact_nb.viz._labels import CHAR_PX, PLOT_WIDTH_PX

KAFKA_TERMS = ("log tail", "log head", "cleaner point", "active segment")


def _values(data: Any) -> list[float]:
    if data is None:
        return []
    out = []
    for v in data:
        if v is None or isinstance(v, str):
            continue
        f = float(v)
        if not math.isnan(f):
            out.append(f)
    return out


def _axis_key(ref: str | None, letter: str) -> str:
    suffix = (ref or letter)[1:]
    return f"{letter}axis{suffix}"


def _extent(trace: Any, letter: str) -> list[float]:
    """Data coordinates a trace occupies along ``letter`` (bars: base to base + length, and widths across)."""
    horizontal = getattr(trace, "orientation", None) == "h"
    values = _values(getattr(trace, letter, None))
    if trace.type == "bar":
        along = "x" if horizontal else "y"
        if letter == along:
            base = trace.base if trace.base is not None else [0] * len(values)
            base = list(base) if not isinstance(base, (int, float)) else [base] * len(values)
            return [b for b in _values(base)] + [b + v for b, v in zip(_values(base), values, strict=False)]
        width = trace.width
        if width is None:
            width = 0.8
        widths = [float(width)] * len(values) if isinstance(width, (int, float)) else [float(w) for w in width]
        return [v - w / 2 for v, w in zip(values, widths, strict=False)] + [
            v + w / 2 for v, w in zip(values, widths, strict=False)
        ]
    return values


def fixed_ranges_exclude_no_data(fig: go.Figure) -> list[str]:
    """No axis with an explicit range leaves out data drawn on it."""
    layout = fig.layout.to_plotly_json()
    problems = []
    for trace in fig.data:
        if trace.type in ("table",):
            continue
        for letter in ("x", "y"):
            key = _axis_key(getattr(trace, f"{letter}axis", None), letter)
            target = layout.get(key, {}).get("matches")
            rng = layout.get(key, {}).get("range") or (
                layout.get(_axis_key(target, letter), {}).get("range") if target else None
            )
            if rng is None or layout.get(key, {}).get("type") == "date":
                continue
            low, high = min(rng), max(rng)
            outside = [v for v in _extent(trace, letter) if v < low - 1e-9 or v > high + 1e-9]
            if outside:
                problems.append(f"{key} range {rng} leaves out {trace.name!r} at {outside[:3]}")
    return problems


def matched_groups_all_autorange(fig: go.Figure) -> list[str]:
    """plotly.js stops autoranging every group of matched axes once one group has a fixed range: then no group may."""
    layout = fig.layout.to_plotly_json()
    axes = {k: v for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*", k)}
    groups: dict[str, set[str]] = {}
    for name, axis in axes.items():
        target = axis.get("matches")
        if target:
            root = _axis_key(target, target[0])
            groups.setdefault(root, {root}).add(name)
    if len(groups) < 2:
        return []
    fixed = [root for root, members in groups.items() if any(axes.get(m, {}).get("range") is not None for m in members)]
    free = [root for root in groups if root not in fixed]
    return (
        [f"matched groups {fixed} have a fixed range while {free} autorange: plotly.js leaves those at [-1, 4]"]
        if fixed and free
        else []
    )


def _x_range(fig: go.Figure) -> list[float] | None:
    """The offset axis's range: explicit, else what autorange would span (the data's extent)."""
    explicit = fig.layout.xaxis.range
    if explicit is not None:
        return list(explicit)
    values = [
        v for t in fig.data if (getattr(t, "xaxis", None) or "x") == "x" and t.type != "table" for v in _extent(t, "x")
    ]
    return [min(values), max(values)] if values else None


def no_stacked_labels(fig: go.Figure) -> list[str]:
    """No two annotations overlap: same references, rows closer than a line, estimated text extents crossing."""
    layout = fig.layout.to_plotly_json()
    layout.setdefault("xaxis", {})["range"] = _x_range(fig)
    placed = []
    for a in layout.get("annotations", []):
        if a.get("xref", "x") == "x" and a.get("yref") == "paper" or a.get("xref") == "paper":
            placed.append(_box(a, layout))
    problems = []
    for i, first in enumerate(placed):
        for second in placed[i + 1 :]:
            if first is None or second is None:
                continue
            same_row = abs(first[2] - second[2]) < 12 and first[4] == second[4]
            if same_row and first[0] < second[1] - 2 and second[0] < first[1] - 2:
                problems.append(f"labels {first[3]!r} and {second[3]!r} overlap")
    return problems


def _box(annotation: dict[str, Any], layout: dict[str, Any]) -> tuple[float, float, float, str, str] | None:
    """(left px, right px, y px, text, y reference) in the planned plot width, or None when not placeable."""
    text = re.sub(r"<[^>]+>", "", str(annotation.get("text", "")))
    width = (
        max((len(line) for line in text.split("\n")), default=0)
        * CHAR_PX
        * (annotation.get("font", {}).get("size") or 12)
    )
    if annotation.get("xref") == "paper":
        x = float(annotation.get("x", 0)) * PLOT_WIDTH_PX
    else:
        rng = layout.get("xaxis", {}).get("range")
        if rng is None:
            return None
        x = (float(annotation["x"]) - rng[0]) / (rng[1] - rng[0]) * PLOT_WIDTH_PX
    if annotation.get("showarrow"):  # the text stands ax px from the point its arrow marks
        x += float(annotation.get("ax") or 0)
    anchor = annotation.get("xanchor", "center")
    left = {"left": x, "right": x - width}.get(anchor, x - width / 2)
    height = float(layout.get("height") or 450)
    y = float(annotation.get("y", 0)) * height + float(annotation.get("yshift", 0))
    return left, left + width, y, text, str(annotation.get("yref", "paper"))


def labels_inside_the_plot(fig: go.Figure) -> list[str]:
    """Labels on the offset axis stay within its range (a label crossing an edge is clipped or covers the axis)."""
    layout = fig.layout.to_plotly_json()
    rng = _x_range(fig)
    if rng is None:
        return []
    layout.setdefault("xaxis", {})["range"] = rng
    problems = []
    for a in layout.get("annotations", []):
        if a.get("xref") != "x" or a.get("yref") != "paper":
            continue
        box = _box(a, layout)
        if box is not None and (box[0] < -4 or box[1] > PLOT_WIDTH_PX + 4):
            problems.append(f"label {box[3]!r} runs off the plot ({box[0]:.0f}-{box[1]:.0f} px of {PLOT_WIDTH_PX})")
    return problems


def legend_only_for_drawn_traces(fig: go.Figure) -> list[str]:
    """Every legend entry belongs to a trace that draws something."""
    problems = []
    for trace in fig.data:
        if trace.type == "table" or trace.showlegend is False:
            continue
        points = [v for v in (trace.x if trace.x is not None else []) if v is not None]
        if not points:
            problems.append(f"legend entry {trace.name!r} draws nothing")
    return problems


def no_raw_ms_time_axis(fig: go.Figure) -> list[str]:
    """No axis a person reads is in milliseconds: time axes are dates or name h/d/min/s units."""
    layout = fig.layout.to_plotly_json()
    problems = []
    for name, axis in layout.items():
        if not re.fullmatch(r"[xy]axis\d*", name):
            continue
        title = (axis.get("title") or {}).get("text") or ""
        if re.search(r"\(ms\b|\bms\)|milli", title):
            problems.append(f"{name} titled {title!r} is in milliseconds")
    return problems


def integer_offset_ticks(fig: go.Figure) -> list[str]:
    """Axes titled "offset" tick at whole offsets."""
    layout = fig.layout.to_plotly_json()
    problems = []
    for name, axis in layout.items():
        if not re.fullmatch(r"xaxis\d*", name) or ((axis.get("title") or {}).get("text") or "") != "offset":
            continue
        dtick = axis.get("dtick")
        if (
            dtick is None
            or float(dtick) != int(dtick)
            or dtick < 1
            or float(axis.get("tick0", 0)) != int(axis.get("tick0", 0))
        ):
            problems.append(f"{name}: offsets need whole ticks, got dtick={dtick} tick0={axis.get('tick0')}")
    return problems


def kafka_terms(fig: go.Figure, terms: Iterable[str] = KAFKA_TERMS) -> list[str]:
    """The figure names the parts of the log as Kafka does."""
    text = " ".join(re.sub(r"<[^>]+>", "", str(a.text)) for a in fig.layout.annotations).lower()
    return [f"missing Kafka term {term!r}" for term in terms if term not in text]


def fits_1280(fig: go.Figure) -> list[str]:
    width = fig.layout.width
    return [] if width is None or width <= 1280 else [f"figure is {width} px wide"]


ALL_RULES = (
    fixed_ranges_exclude_no_data,
    matched_groups_all_autorange,
    no_stacked_labels,
    labels_inside_the_plot,
    legend_only_for_drawn_traces,
    no_raw_ms_time_axis,
    integer_offset_ticks,
    fits_1280,
)


def problems(fig: go.Figure) -> list[str]:
    return [p for rule in ALL_RULES for p in rule(fig)]
