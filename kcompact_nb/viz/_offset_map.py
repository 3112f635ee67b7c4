"""The offset map of one pass: its entries by offset, its fill against capacity, and where the pass stopped."""

from __future__ import annotations

import numpy
import plotly.graph_objects as go

from kcompact_nb.core import OffsetMapView
from kcompact_nb.viz._grid import in_row, stacked_figure
from kcompact_nb.viz._palette import CLEANABLE, COLORS, KEPT, LABELS, MISSED, UNCLEANABLE


def offset_map_figure(view: OffsetMapView, *, title: str | None = None) -> go.Figure:
    """Top: "Buffer utilization", entries against the load-factor capacity and the slots
    (``log.cleaner.dedupe.buffer.size`` / entry bytes). Bottom: each key's winning offset, the keys
    a full map missed, the cleanable range shaded and the pass's end offset marked."""
    fig = stacked_figure([0.25, 0.75], gap=0.15)
    fig.update_layout(xaxis2={"matches": None})
    fig.add_traces(in_row(fill_traces(view), 1))
    fig.add_traces(in_row(entry_traces(view), 2))
    fig.add_shape(
        type="rect", x0=view.first_dirty_offset, x1=view.first_uncleanable_offset, xref="x2", y0=0, y1=1, yref="y2 domain",
        fillcolor=COLORS[CLEANABLE], opacity=0.15, line_width=0, name="cleanable range",
    )  # fmt: skip
    stop = "pass stopped: map full" if view.map_full else "end offset"
    fig.add_shape(
        type="line", x0=view.end_offset, x1=view.end_offset, xref="x2", y0=0, y1=1, yref="y2 domain",
        line={"color": COLORS[MISSED], "dash": "dash"}, name=stop,
    )  # fmt: skip
    fig.add_annotation(x=view.end_offset, y=1, yref="y2 domain", xref="x2", text=f"{stop} ({view.end_offset})", showarrow=False)
    percent = 100 * view.utilization
    fig.update_layout(title=title or f"Offset map: {len(view.entries)} keys, Buffer utilization: {percent:.1f}%", barmode="stack")
    fig.update_layout(
        xaxis={"title": {"text": "keys"}},
        xaxis2={"title": {"text": "offset"}},
        yaxis={"showticklabels": False},
        yaxis2={"title": {"text": "entry (by offset)"}},
    )
    return fig


def fill_traces(view: OffsetMapView) -> list[go.Bar]:
    """Stacked horizontal bars: entries, free keys below the load factor, and the load-factor reserve."""
    used = len(view.entries)
    parts = [("entries", used, COLORS[KEPT])]
    if view.capacity is not None and view.slots is not None:
        parts += [("free (up to the load factor)", view.capacity - used, COLORS[CLEANABLE])]
        parts += [("reserve (above the load factor)", view.slots - view.capacity, COLORS[UNCLEANABLE])]
    return [go.Bar(name=name, x=[count], y=["offset map"], orientation="h", marker={"color": color}) for name, count, color in parts]


def entry_traces(view: OffsetMapView) -> list[go.Scatter]:
    """One point per map entry at its offset (hover: key, version), then one per missed key at its first offset."""
    keys = [_text(e.key) + ("" if e.version is None else f" version {e.version}") for e in view.entries]
    offsets = numpy.fromiter((e.offset for e in view.entries), dtype=numpy.int64, count=len(view.entries))
    missed_offsets = numpy.array([offset for _, offset in view.missed_keys], dtype=numpy.int64)
    in_map = _points("in the map", offsets, numpy.arange(len(offsets)), keys, COLORS[KEPT])
    missed = _points(
        LABELS[MISSED], missed_offsets, numpy.arange(len(offsets), len(offsets) + len(missed_offsets)),
        [_text(k) for k, _ in view.missed_keys], COLORS[MISSED],
    )  # fmt: skip
    return [in_map, missed]


def _points(name: str, x: numpy.ndarray, y: numpy.ndarray, text: list[str], color: str) -> go.Scatter:
    return go.Scatter(
        name=name, x=x, y=y, hovertext=text, mode="markers", marker={"color": color, "size": 7},
        hovertemplate="%{hovertext}<br>offset %{x}<extra>" + name + "</extra>",
    )  # fmt: skip


def _text(key: bytes) -> str:
    return key.decode("utf-8", "replace")
