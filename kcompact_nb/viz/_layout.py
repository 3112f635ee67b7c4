"""The partition layout: segments along the offset axis sized by bytes, the cleaner's ranges, and records."""

from __future__ import annotations

from collections.abc import Sequence

import numpy
import plotly.graph_objects as go

from kcompact_nb.core import ClassifiedRecord, PartitionLog, SegmentRegion, offset_buckets, record_fates, segment_regions
from kcompact_nb.viz._grid import in_row, stacked_figure
from kcompact_nb.viz._lines import marker_line
from kcompact_nb.viz._palette import (
    ACTIVE,
    COLORS,
    EMPTY_BATCH,
    FATES,
    KEPT,
    LABELS,
    REGIONS,
    SUPERSEDED,
    TOMBSTONE,
    key_color,
)
from kcompact_nb.viz._rows import BucketRows, bucket_columns

RECORDS_ROW = 2


def layout_figure(
    source: PartitionLog | BucketRows,
    *,
    now_ms: int | None = None,
    color_by: str = "fate",
    max_records: int = 20_000,
    bucket_count: int = 200,
    title: str | None = None,
) -> go.Figure:
    """Segments (bars over the offsets they cover, height = bytes) above the records or offset buckets.

    Parameters
    ----------
    source
        A :class:`PartitionLog`, or offset-bucketed rows (``offset_buckets`` or Spark's, same columns).
    now_ms
        The broker time for the cleaner's ranges and tombstone horizons (default: the log's last
        segment modification time).
    color_by
        ``"fate"`` (kept, superseded, tombstone, awaiting horizon) or ``"key"``.
    max_records
        Above this many stored records a log is drawn from ``bucket_count`` offset buckets.
    """
    if not isinstance(source, PartitionLog):
        fig = go.Figure(_bucket_traces(source))
        fig.update_layout(title=title or "offset buckets", barmode="stack", bargap=0)
        fig.update_xaxes(title_text="offset")
        fig.update_yaxes(title_text="records per bucket")
        return fig
    now = source.active_segment.last_modified_ms if now_ms is None else now_ms
    fig = stacked_figure([0.45, 0.55], gap=0.06)
    ltc, regions = segment_regions(source, now_ms=now)
    fig.add_traces(in_row(segment_traces(regions), 1))
    bucketed = sum(len(b.records) for b in source.batches()) > max_records
    if bucketed:
        traces: Sequence[go.Bar | go.Scatter] = _bucket_traces(offset_buckets(source, bucket_count=bucket_count))
    else:
        traces = record_traces(source, now_ms=now, color_by=color_by)
    fig.add_traces(in_row(traces, RECORDS_ROW))
    _style(fig, title or f"{source.name} at {now} ms", bucketed=bucketed)
    marker_line(fig, ltc.first_dirty_offset, label=f"first dirty {ltc.first_dirty_offset}", color=COLORS[KEPT])
    marker_line(fig, ltc.first_uncleanable_offset, label=f"first uncleanable {ltc.first_uncleanable_offset}", color=COLORS[ACTIVE], dash="dot")
    return fig


def segment_traces(regions: Sequence[SegmentRegion]) -> list[go.Bar]:
    """One bar trace per region: x = middle of the segment's offsets, width = offsets covered, y = bytes;
    the hover gives the size (marked when estimated) and the codecs of a compressed segment."""
    traces = []
    for region in REGIONS:
        chosen = [r for r in regions if r.region == region]
        traces.append(
            go.Bar(
                name=LABELS[region],
                legendgroup="segments",
                x=[(r.base_offset + r.end_offset) / 2 for r in chosen],
                width=[r.end_offset - r.base_offset for r in chosen],
                y=[r.size_bytes for r in chosen],
                customdata=[r.base_offset for r in chosen],
                hovertext=[r.size_label for r in chosen],
                marker={"color": COLORS[region], "line": {"color": "white", "width": 1}},
                hovertemplate="segment %{customdata}<br>%{hovertext}<extra>" + region + "</extra>",
            )
        )
    return traces


def record_traces(log: PartitionLog, *, now_ms: int, color_by: str = "fate") -> list[go.Scatter]:
    """Records on one lane at their offsets (gaps left by compaction stay empty), plus empty batches."""
    records = record_fates(log, now_ms=now_ms)
    empty = [b.base_offset for b in log.batches() if not b.records]
    traces = _by_fate(records) if color_by == "fate" else [_by_key(records)]
    traces.append(_lane(numpy.array(empty, dtype=numpy.int64), LABELS[EMPTY_BATCH], COLORS[EMPTY_BATCH], symbol="square-open"))
    return traces


def _by_fate(records: Sequence[ClassifiedRecord]) -> list[go.Scatter]:
    offsets = numpy.fromiter((r.offset for r in records), dtype=numpy.int64, count=len(records))
    fates = numpy.array([r.fate.value for r in records], dtype=object)
    return [_lane(offsets[fates == fate], LABELS[fate], COLORS[fate]) for fate in FATES]


def _by_key(records: Sequence[ClassifiedRecord]) -> go.Scatter:
    order: dict[bytes | None, int] = {}
    colors = [key_color(order.setdefault(r.key, len(order))) for r in records]
    offsets = numpy.fromiter((r.offset for r in records), dtype=numpy.int64, count=len(records))
    lane = _lane(offsets, "records by key", colors)
    lane.hovertext = [("<no key>" if r.key is None else r.key.decode("utf-8", "replace")) for r in records]
    lane.hovertemplate = "offset %{x}<br>key %{hovertext}<extra></extra>"
    return lane


def _lane(offsets: numpy.ndarray, name: str, color: str | list[str], *, symbol: str = "square") -> go.Scatter:
    return go.Scatter(
        name=name,
        legendgroup="records",
        x=offsets,
        y=numpy.zeros(len(offsets), dtype=numpy.int8),
        mode="markers",
        marker={"color": color, "symbol": symbol, "size": 9},
        hovertemplate="offset %{x}<extra>" + name + "</extra>",
    )


def _bucket_traces(rows: BucketRows) -> list[go.Bar]:
    """Stacked bars per offset bucket: live, superseded and tombstone record counts."""
    columns = bucket_columns(rows)
    middle = (columns["start_offset"] + columns["end_offset"]) / 2
    width = columns["end_offset"] - columns["start_offset"]
    parts = ((KEPT, "live"), (SUPERSEDED, "superseded"), (TOMBSTONE, "tombstones"))
    return [
        go.Bar(name=LABELS[fate], x=middle, width=width, y=columns[column], marker={"color": COLORS[fate]}, legendgroup="records")
        for fate, column in parts
    ]


def _style(fig: go.Figure, title: str, *, bucketed: bool) -> None:
    fig.update_layout(title=title, barmode="stack", bargap=0, legend={"orientation": "h", "y": -0.2}, margin={"t": 70})
    fig.update_layout(
        xaxis={"showticklabels": False},
        xaxis2={"title": {"text": "offset"}},
        yaxis={"title": {"text": "bytes"}},
        yaxis2={"title": {"text": "records per bucket" if bucketed else ""}, "showticklabels": bucketed},
    )
