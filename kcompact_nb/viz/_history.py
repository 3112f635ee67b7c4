"""Records over time: one key's history under each strategy (KIP-280), and the tombstone timeline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kcompact_nb.core import RecordLifetime
from kcompact_nb.viz._palette import AWAITING_HORIZON, COLORS, KEPT, SUPERSEDED, TOMBSTONE


def key_history_figure(histories: Mapping[str, Sequence[RecordLifetime]], *, title: str | None = None) -> go.Figure:
    """One panel per strategy label: the key's records at (offset, record timestamp), those still
    stored at the last frame filled, removed ones crossed (hover: value, when removed).

    Out-of-order producers show as a later offset with an earlier timestamp; only ``offset`` is
    Kafka's strategy, ``timestamp`` and ``header`` are KIP-280's (never released).
    """
    labels = list(histories)
    fig = make_subplots(rows=1, cols=max(len(labels), 1), subplot_titles=labels, shared_yaxes=True)
    for column, label in enumerate(labels, start=1):
        lives = histories[label]
        kept = [life for life in lives if life.removed_frame is None]
        removed = [life for life in lives if life.removed_frame is not None]
        fig.add_trace(_records(f"{label}: survives", kept, COLORS[KEPT], "circle"), row=1, col=column)
        fig.add_trace(_records(f"{label}: removed", removed, COLORS[SUPERSEDED], "x"), row=1, col=column)
        fig.update_xaxes(title_text="offset", dtick=1, row=1, col=column)
    fig.update_yaxes(title_text="record timestamp (ms)", row=1, col=1)
    fig.update_layout(title=title or "Key history by strategy")
    return fig


def _records(name: str, lives: Sequence[RecordLifetime], color: str, symbol: str) -> go.Scatter:
    text = [_describe(life) for life in lives]
    return go.Scatter(
        name=name, x=[life.offset for life in lives], y=[life.timestamp for life in lives], mode="markers+text",
        text=[_value(life.value) for life in lives], textposition="top center", hovertext=text,
        marker={"color": color, "symbol": symbol, "size": 14}, hovertemplate="%{hovertext}<extra></extra>",
    )  # fmt: skip


def _describe(life: RecordLifetime) -> str:
    removed = "still stored" if life.removed_ms is None else f"removed at {life.removed_ms} ms (step {life.removed_frame})"
    return f"offset {life.offset}, timestamp {life.timestamp}, value {_value(life.value)}: {removed}"


def _value(value: bytes | None) -> str:
    return "null" if value is None else value.decode("utf-8", "replace")


def tombstone_timeline_figure(lifetimes: Sequence[RecordLifetime], *, now_ms: int, title: str | None = None) -> go.Figure:
    """One row per tombstone: written -> first stamped by a pass -> delete horizon -> removed.

    Phases still running end at ``now_ms``. The horizon is the stamping pass's time plus
    ``delete.retention.ms`` (spec 7.4).
    """
    rows = [life for life in lifetimes if life.is_tombstone]
    names = [f"{_value(life.key)} @ {life.offset}" for life in rows]
    phases = (
        ("written -> stamped", [(life.appeared_ms, _or(life.stamped_ms, life.removed_ms, now_ms)) for life in rows], AWAITING_HORIZON),
        ("stamped -> horizon", [_phase(life.stamped_ms, life.horizon_ms, life.removed_ms, now_ms) for life in rows], TOMBSTONE),
        ("horizon -> removed", [_phase(life.horizon_ms, life.removed_ms, None, now_ms) for life in rows], SUPERSEDED),
    )
    fig = go.Figure([_phase_bar(name, names, spans, COLORS[color]) for name, spans, color in phases])
    fig.add_trace(go.Scatter(name="removed", x=[life.removed_ms for life in rows], y=names, mode="markers", marker={"symbol": "x", "size": 12, "color": COLORS[SUPERSEDED]}))
    fig.update_layout(title=title or "Tombstone timeline", barmode="overlay", xaxis={"title": "simulated time (ms)"})
    return fig


def _or(*values: int | None) -> int:
    return next(v for v in values if v is not None)


def _phase(start: int | None, end: int | None, cut: int | None, now_ms: int) -> tuple[int, int] | None:
    """``[start, end)`` clipped to the removal time; ``None`` when the phase has not begun."""
    if start is None:
        return None
    stop = _or(end, now_ms) if cut is None else min(_or(end, cut), cut)
    return start, max(stop, start)


def _phase_bar(name: str, names: list[str], spans: Sequence[tuple[int, int] | None], color: str) -> go.Bar:
    base = [None if s is None else s[0] for s in spans]
    length = [None if s is None else s[1] - s[0] for s in spans]
    return go.Bar(name=name, y=names, base=base, x=length, orientation="h", marker={"color": color})
