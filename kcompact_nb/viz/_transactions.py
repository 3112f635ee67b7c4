"""Transactions in a partition, before and after a pass: data batches (committed, aborted, open), their
COMMIT/ABORT markers, and the empty batch a live producer keeps (spec 7.3)."""

from __future__ import annotations

import plotly.graph_objects as go

from kcompact_nb.core import LayoutView, OffsetMapSpec, PartitionLog, format_instant_ms, layout_view
from kcompact_nb.viz._cells import batch_bars, record_cells
from kcompact_nb.viz._figure import FONT_SIZE, finish, legend_below, legend_once
from kcompact_nb.viz._frame import Rows, axes
from kcompact_nb.viz._labels import PLOT_WIDTH_PX
from kcompact_nb.viz._palette import COLORS, INK

BATCHES_PX, RECORDS_PX, STAGE_PX, GAP_PX = 40, 62, 30, 6


def transaction_figure(
    before: PartitionLog,
    after: PartitionLog | None = None,
    *,
    now_ms: int,
    offset_map: OffsetMapSpec | None = None,
    title: str | None = None,
) -> go.Figure:
    """Batches (with their transaction state) over records (what the next pass does to each), for the log
    ``before`` a pass and, when given, ``after`` it, on one offset axis.

    Aborted data is dropped by a pass; a batch emptied that way stays as a 61-byte header when it is the
    last batch of a producer that is still alive (Kafka keeps its producer state); markers stay until their
    delete horizon passes with no data of their transaction left.
    """
    stages = [("before the pass", layout_view(before, now_ms=now_ms, offset_map=offset_map))]
    if after is not None:
        stages.append(("after the pass", layout_view(after, now_ms=now_ms, offset_map=offset_map)))
    first = min(view.log_start_offset for _, view in stages)
    end = max(max(view.log_end_offset, view.active_base_offset + 1) for _, view in stages)
    px_per_unit = PLOT_WIDTH_PX / max(end - first, 1)
    rows = Rows()
    fig = go.Figure()
    cartesian: list[tuple[str, str, dict[str, object]]] = []
    lane = {"range": [0, 1], "showticklabels": False, "showgrid": False, "zeroline": False, "fixedrange": True}
    for index, (_name, view) in enumerate(stages):
        rows.add(f"stage{index}", STAGE_PX)
        rows.add(f"batches{index}", BATCHES_PX)
        rows.add(f"gap{index}", GAP_PX)
        rows.add(f"records{index}", RECORDS_PX)
        batches_axis, records_axis = f"y{2 * index + 1}", f"y{2 * index + 2}"
        fig.add_trace(
            batch_bars(view.batches, px_per_unit=px_per_unit, yaxis=batches_axis.replace("y1", "y"), lane_px=BATCHES_PX)
        )
        fig.add_traces(record_cells(view, px_per_unit=px_per_unit, yaxis=records_axis, lane_px=RECORDS_PX))
        cartesian += [
            (f"batches{index}", batches_axis.replace("y1", "y"), {**lane, "lane": "batches"}),
            (f"records{index}", records_axis, {**lane, "lane": "records"}),
        ]
    axes(fig, rows, first=first, end=end, cartesian=cartesian)
    for index, (name, view) in enumerate(stages):
        low = rows.span(f"stage{index}")[0]
        fig.add_annotation(
            x=0,
            y=low,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            name=name,
            text=f"<b>{name}</b>: {_summary(view)}",
            font={"size": FONT_SIZE, "color": COLORS[INK]},
        )
    legend_once(fig.data)
    fig.update_layout(barmode="overlay", bargap=0, legend=legend_below(plot_px=rows.plot_px))
    heading = title or f"Transactions in {before.name} at {format_instant_ms(now_ms)}"
    subtitle = (
        "aborted data: dropped by a pass · its batch stays empty (61 B) while it is its live producer's last batch"
    )
    return finish(fig, title=heading, subtitle=subtitle, height=int(rows.plot_px) + 100 + 150, top=100, bottom=150)


def _summary(view: LayoutView) -> str:
    states = [b.transaction for b in view.batches if b.transaction is not None]
    counts = {s: states.count(s) for s in dict.fromkeys(states)}
    parts = [f"{n} {s}" for s, n in counts.items()]
    empty = sum(1 for b in view.batches if b.record_count == 0)
    if empty:
        parts.append(f"{empty} empty batch{'es' if empty > 1 else ''}")
    return ", ".join(parts) or "no transactions"
