"""Records over time: one key's history under each strategy (KIP-280), and the tombstone lifecycle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import RecordLifetime, format_duration_ms
from kcompact_nb.viz._axes import TimeAxis, time_axis
from kcompact_nb.viz._figure import FONT_SIZE, finish, legend_below, legend_once
from kcompact_nb.viz._labels import PLOT_WIDTH_PX, merged, row_count, stacked
from kcompact_nb.viz._palette import COLORS, DUE, INK, KEPT, LABELS, PASS, REMOVED, UNSTAMPED, WAITING

ROW_PX, LABEL_PX = 34, 17
SURVIVES, REMOVED_BY_PASS = "still stored after the last step", "removed by a pass"


def key_history_figure(histories: Mapping[str, Sequence[RecordLifetime]], *, title: str | None = None) -> go.Figure:
    """One panel per strategy label: the key's records at (offset, record timestamp), those still
    stored at the last step filled, removed ones crossed (hover: value, when removed).

    Out-of-order producers show as a later offset with an earlier timestamp; only ``offset`` is
    Kafka's strategy, ``timestamp`` and ``header`` are KIP-280's (never released).
    """
    labels = list(histories)
    lives = [life for label in labels for life in histories[label]]
    axis = time_axis([life.timestamp for life in lives])
    fig = make_subplots(
        rows=1, cols=max(len(labels), 1), subplot_titles=labels, shared_yaxes=True, horizontal_spacing=0.05
    )
    for column, label in enumerate(labels, start=1):
        chosen = histories[label]
        kept = [life for life in chosen if life.removed_frame is None]
        removed = [life for life in chosen if life.removed_frame is not None]
        fig.add_trace(_records(SURVIVES, kept, COLORS[KEPT], "circle", axis), row=1, col=column)
        fig.add_trace(_records(REMOVED_BY_PASS, removed, COLORS[REMOVED], "x", axis), row=1, col=column)
        offsets = [life.offset for life in chosen]
        fig.update_xaxes(title_text="offset", dtick=1, tickformat=",d", row=1, col=column)
        if offsets:
            fig.update_xaxes(range=[min(offsets) - 0.6, max(offsets) + 0.6], row=1, col=column)
    fig.update_yaxes(title_text=axis.layout(title="record timestamp")["title"]["text"], row=1, col=1)
    fig.update_yaxes(**axis.whole_ticks([life.timestamp for life in lives]))
    if axis.wall_clock:
        fig.update_yaxes(type="date")
    fig.update_layout(legend={"orientation": "h", "y": -0.25}, showlegend=True)
    legend_once(fig.data)
    subtitle = (
        "text: the record's value · only offset is Kafka's strategy; "
        "timestamp and header are KIP-280's (not in Apache Kafka)"
    )
    return finish(
        fig, title=title or "One key's records under each strategy", subtitle=subtitle, height=440, top=110, bottom=110
    )


def _records(name: str, lives: Sequence[RecordLifetime], color: str, symbol: str, axis: TimeAxis) -> go.Scatter:
    return go.Scatter(
        name=name,
        x=[life.offset for life in lives],
        y=[axis.x(life.timestamp) for life in lives],
        mode="markers+text",
        text=[_value(life.value) for life in lives],
        textposition="middle right",
        cliponaxis=False,
        hovertext=[_describe(life) for life in lives],
        textfont={"size": FONT_SIZE},
        marker={"color": color, "symbol": symbol, "size": 14},
        hovertemplate="%{hovertext}<extra></extra>",
    )


def _describe(life: RecordLifetime) -> str:
    removed = (
        "still stored"
        if life.removed_ms is None
        else f"removed at {_when(life.removed_ms)} (step {life.removed_frame})"
    )
    return f"offset {life.offset}, timestamp {_when(life.timestamp)}, value {_value(life.value)}: {removed}"


def _when(ms: int) -> str:
    return time_axis([ms]).text(ms)


def _value(value: bytes | None) -> str:
    return "null" if value is None else value.decode("utf-8", "replace")


PHASES = (
    ("appended: no pass has stamped its delete horizon yet", UNSTAMPED),
    ("delete.retention.ms after the stamping pass: guaranteed to lagging consumers", WAITING),
    ("past its delete horizon: the first pass that reaches it removes it", DUE),
)


def tombstone_timeline_figure(
    lifetimes: Sequence[RecordLifetime],
    *,
    now_ms: int,
    passes_ms: Sequence[int] = (),
    title: str | None = None,
) -> go.Figure:
    """The lifecycle of each tombstone, one row each: appended, stamped by a pass with its delete horizon
    (pass time + ``delete.retention.ms``), the horizon, and the pass that removes it (spec 7.4).

    Until it is removed a consumer reading the partition still sees the delete; Kafka guarantees that
    for ``delete.retention.ms`` after the pass that stamps it. Phases still running end at ``now_ms``.
    ``passes_ms`` are the times of every cleaner pass, drawn as lines across the rows (a pass between
    stamping and the horizon keeps the tombstone).
    """
    rows = [life for life in lifetimes if life.is_tombstone]
    times = [
        t
        for life in rows
        for t in (life.appeared_ms, life.stamped_ms, life.horizon_ms, life.removed_ms)
        if t is not None
    ]
    axis = time_axis([*times, *passes_ms, now_ms])
    low, high = axis.x(min([*times, *passes_ms, now_ms])), axis.x(max([*times, *passes_ms, now_ms]))
    px_per_unit = PLOT_WIDTH_PX / max(high - low, 1e-9)
    fig = go.Figure()
    y = 0.0
    ticks: list[tuple[float, str]] = []
    for life in reversed(rows):
        events = _events(life, axis)
        labels = stacked(merged(events), px_per_unit=px_per_unit, font_size=FONT_SIZE - 1, bounds=(low, high))
        fig.add_traces(_phase_bars(life, axis, now_ms, y))
        for label in labels:
            fig.add_annotation(
                x=label.x,
                y=y + 0.5,
                yshift=4 + label.row * LABEL_PX,
                xanchor=label.anchor,
                yanchor="bottom",
                text=label.text,
                showarrow=False,
                font={"size": FONT_SIZE - 1, "color": COLORS[INK]},
                name="event",
            )
        fig.add_trace(_event_marks(life, axis, y))
        ticks.append((y, f"{_value(life.key)} @ offset {life.offset}"))
        y += 1 + (row_count(labels) * LABEL_PX + 10) / ROW_PX
    if passes_ms:
        fig.add_trace(_pass_lines(passes_ms, axis, top=y - 0.3))
    legend_once(fig.data)
    plot_px = max(int(y * ROW_PX) + 60, 150)
    fig.update_layout(
        barmode="overlay",
        xaxis=axis.layout(),
        legend={**legend_below(plot_px=plot_px, offset_px=56), "traceorder": "normal"},
        yaxis={
            "tickmode": "array",
            "tickvals": [t for t, _ in ticks],
            "ticktext": [s for _, s in ticks],
            "range": [-0.7, y],
            "showgrid": False,
            "zeroline": False,
            "fixedrange": True,
        },
    )
    retention = {
        life.horizon_ms - life.stamped_ms
        for life in rows
        if life.horizon_ms is not None and life.stamped_ms is not None
    }
    subtitle = (
        f"delete.retention.ms {', '.join(format_duration_ms(r) for r in sorted(retention))}: " if retention else ""
    ) + "until a pass removes it, a consumer reading the partition still sees the delete"
    return finish(
        fig, title=title or "Tombstone lifecycle", subtitle=subtitle, height=plot_px + 100 + 130, top=100, bottom=130
    )


def _pass_lines(passes_ms: Sequence[int], axis: TimeAxis, *, top: float) -> go.Scatter:
    """One dotted line per cleaner pass, from below the first row to above the last."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    texts: list[str | None] = []
    for t in passes_ms:
        xs += [axis.x(t), axis.x(t), None]
        ys += [-0.5, top, None]
        texts += [f"cleaner pass at {axis.text(t)}"] * 2 + [None]
    return go.Scatter(
        name=LABELS[PASS],
        x=xs,
        y=ys,
        mode="lines",
        line={"color": COLORS[PASS], "width": 1.5, "dash": "dot"},
        hovertext=texts,
        hovertemplate="%{hovertext}<extra></extra>",
    )


def _events(life: RecordLifetime, axis: TimeAxis) -> list[tuple[float, str]]:
    events = [(axis.x(life.appeared_ms), "appended")]
    if life.stamped_ms is not None:
        events.append((axis.x(life.stamped_ms), "pass stamps the horizon"))
    if life.horizon_ms is not None:
        events.append((axis.x(life.horizon_ms), "delete horizon"))
    if life.removed_ms is not None:
        events.append((axis.x(life.removed_ms), "removed by a pass"))
    return events


def _event_marks(life: RecordLifetime, axis: TimeAxis, y: float) -> go.Scatter:
    points = [
        (life.appeared_ms, "circle", "appended"),
        (life.stamped_ms, "triangle-down", "stamped"),
        (life.horizon_ms, "diamond", "delete horizon"),
        (life.removed_ms, "x", "removed"),
    ]
    shown = [(t, s, n) for t, s, n in points if t is not None]
    return go.Scatter(
        name="events",
        x=[axis.x(t) for t, _, _ in shown],
        y=[y] * len(shown),
        mode="markers",
        showlegend=False,
        marker={
            "symbol": [s for _, s, _ in shown],
            "size": 13,
            "color": COLORS[INK],
            "line": {"color": "white", "width": 1},
        },
        hovertext=[f"{n} at {axis.text(t)}" for t, _, n in shown],
        hovertemplate="%{hovertext}<extra></extra>",
    )


def _phase_bars(life: RecordLifetime, axis: TimeAxis, now_ms: int, y: float) -> list[go.Bar]:
    end = now_ms if life.removed_ms is None else life.removed_ms
    stamped = end if life.stamped_ms is None else min(life.stamped_ms, end)
    horizon = end if life.horizon_ms is None else min(life.horizon_ms, end)
    spans = ((life.appeared_ms, stamped), (stamped, horizon), (horizon, end))
    bars = []
    for (name, color), (start, stop) in zip(PHASES, spans, strict=False):
        if stop <= start:
            continue
        bars.append(
            go.Bar(
                name=name,
                y=[y],
                base=[axis.x(start)],
                x=[axis.x(stop) - axis.x(start)],
                orientation="h",
                width=0.55,
                marker={"color": COLORS[color], "line": {"width": 0}},
                legendgroup=name,
                hovertext=[
                    f"{name}: {axis.text(start)} to {axis.text(stop)} ({format_duration_ms(stop - start, max_units=2)})"
                ],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    return bars
