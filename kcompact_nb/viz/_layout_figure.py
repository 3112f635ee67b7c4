"""The partition layout in Kafka's terms: the log tail and the log head split at the cleaner point, segments
sized by bytes, and every record (or, for big partitions, offset buckets) with what the next pass does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from kcompact_nb.core import (
    LayoutScale,
    LayoutView,
    LogPart,
    OffsetMapSpec,
    PartitionLog,
    SegmentRegion,
    Simulation,
    StoredSegment,
    Strategy,
    format_instant_ms,
    layout_view,
    log_parts,
    offset_buckets,
    regions_of,
    segment_regions,
)
from kcompact_nb.viz._axes import size_unit
from kcompact_nb.viz._buckets import bucket_bars, ranges_of, segments_of
from kcompact_nb.viz._cells import batch_bars, record_cells
from kcompact_nb.viz._figure import assemble, legend_below
from kcompact_nb.viz._frame import (
    Marks,
    Rows,
    axes_layout,
    header_items,
    layout_items,
    plan_header,
    segment_axis_title,
    segment_bars,
    segment_boundaries,
)
from kcompact_nb.viz._labels import PLOT_WIDTH_PX
from kcompact_nb.viz._rows import BucketRows, bucket_columns

SEGMENTS_PX, BATCHES_PX, RECORDS_PX, BUCKETS_PX, GAP_PX = 130, 26, 62, 190, 10
LEGEND_PX = 110


def layout_figure(
    source: PartitionLog | BucketRows,
    *,
    now_ms: int | None = None,
    color_by: str = "fate",
    max_records: int = 20_000,
    bucket_count: int = 200,
    title: str | None = None,
    scale: LayoutScale | None = None,
    offset_map: OffsetMapSpec | None = None,
    strategy: Strategy | None = None,
    show_batches: bool | None = None,
    segments: BucketRows | None = None,
    ranges: Any = None,
    buckets: BucketRows | None = None,
    simulation: Simulation | None = None,
) -> go.Figure:
    """Brackets naming the log tail and log head (cleanable, uncleanable, active segment) over the segments
    (bars over the offsets they cover, as tall as their bytes) and the records at their offsets.

    Parameters
    ----------
    source
        A :class:`PartitionLog`, or offset-bucketed rows (``offset_buckets`` or Spark's, same columns).
    now_ms
        The broker time for the cleaner's ranges and tombstone horizons (default: the log's last
        segment modification time).
    color_by
        ``"fate"``: what the next pass does to each record (see :func:`kcompact_nb.core.next_pass`);
        ``"key"``: one color per key.
    max_records
        Above this many stored records a log is drawn from ``bucket_count`` offset buckets.
    scale
        Draw on this scale (offsets and segment bytes; see :func:`kcompact_nb.core.layout_scale`), widened
        to fit the data: before and after a pass, or every step of a stepper, alike.
    offset_map, strategy
        The next pass's offset map (default: the broker's dedupe buffer) and strategy (default: the topic's).
    simulation
        The broker the log belongs to: its cleaner runs forward over all its logs (see
        :func:`kcompact_nb.core.next_pass`).
    show_batches
        A row of batches (bytes each) under the segments; default: when some batch holds several offsets.
    segments, ranges
        For bucket rows: the partition's segments (rows with ``segment_base_offset`` and ``size_bytes``,
        as Spark's ``load_segments``) and its cleanable range (a ``LogToClean`` or a row with
        ``first_dirty_offset`` and ``first_uncleanable_offset``, as Spark's ``dirtiness``).
    buckets
        With a :class:`PartitionLog`: its offset buckets, computed elsewhere (for a partition streamed from
        its segment files, :func:`kcompact_nb.io.partition_offset_buckets`; its log holds no records), drawn
        under the log's segments and cleanable range without reading a record.
    """
    if isinstance(source, PartitionLog):
        now = source.active_segment.last_modified_ms if now_ms is None else now_ms
        if buckets is None and any(isinstance(s, StoredSegment) for s in source.segments):
            raise ValueError(
                f"{source.name}: its segments stay in their files (a scanned partition); draw it from offset buckets: "
                "layout_figure(log, buckets=kcompact_nb.io.partition_offset_buckets(scanned, bucket_count=200))"
            )
        if buckets is None and sum(len(b.records) for b in source.batches()) <= max_records:
            view = layout_view(source, now_ms=now, offset_map=offset_map, strategy=strategy, simulation=simulation)
            return _record_figure(view, title=title, scale=scale, color_by=color_by, show_batches=show_batches)
        ltc, regions = segment_regions(source, now_ms=now)
        rows = offset_buckets(source, bucket_count=bucket_count) if buckets is None else buckets
        name = title or f"{source.name} at {format_instant_ms(now)}"
        return _bucket_figure(
            rows, regions, ltc.first_dirty_offset, ltc.first_uncleanable_offset, title=name, scale=scale
        )
    regions, first_dirty, first_uncleanable = _bucket_frame(source, segments, ranges)
    return _bucket_figure(source, regions, first_dirty, first_uncleanable, title=title or "Offset buckets", scale=scale)


def _title(view: LayoutView) -> str:
    return f"{view.name} at {format_instant_ms(view.now_ms)}"


def _subtitle(view: LayoutView) -> str:
    ltc = view.log_to_clean
    verdict = "eligible for cleaning" if ltc.eligible else "not eligible"
    return (
        f"dirty ratio {ltc.cleanable_ratio:.2f} "
        f"vs min.cleanable.dirty.ratio {ltc.min_cleanable_dirty_ratio:g}: {verdict}"
        f" · log start offset {view.log_start_offset:,}, log end offset {view.log_end_offset:,}"
    )


def _span(first: int, end: int, scale: LayoutScale | None) -> tuple[int, int]:
    if scale is None:
        return first, end
    return min(first, scale.first_offset), max(end, scale.end_offset)


def _record_figure(
    view: LayoutView, *, title: str | None, scale: LayoutScale | None, color_by: str, show_batches: bool | None
) -> go.Figure:
    end = max(view.log_end_offset, view.segments[-1].end_offset if view.segments else view.log_end_offset)
    first, end = _span(view.log_start_offset, end, scale)
    px_per_unit = PLOT_WIDTH_PX / max(end - first, 1)
    marks = Marks(view.cleaner_point, view.first_uncleanable_offset, view.pass_end_offset if view.stops_early else None)
    rows = Rows()
    labels = plan_header(rows, view.parts, marks, px_per_unit=px_per_unit, first=first, end=end)
    rows.add("segments", SEGMENTS_PX)
    batches = show_batches if show_batches is not None else any(b.last_offset > b.base_offset for b in view.batches)
    if batches:
        rows.add("gap1", GAP_PX / 2)
        rows.add("batches", BATCHES_PX)
    rows.add("gap2", GAP_PX)
    rows.add("records", RECORDS_PX)
    max_bytes = None if scale is None else scale.max_segment_bytes
    traces = segment_bars(
        view.segments, px_per_unit=px_per_unit, yaxis="y", bar_px=SEGMENTS_PX - 10, max_bytes=max_bytes
    )
    cartesian: list[tuple[str, str, dict[str, object]]] = [("segments", "y", _segments_axis(view.segments, max_bytes))]
    if batches:
        traces.append(batch_bars(view.batches, px_per_unit=px_per_unit, yaxis="y2"))
        cartesian.append(("batches", "y2", _lane_axis("batches")))
    traces += record_cells(view, px_per_unit=px_per_unit, yaxis="y3", lane_px=RECORDS_PX, color_by=color_by)
    cartesian.append(("records", "y3", _lane_axis("records")))
    layout, notes = axes_layout(rows, first=first, end=end, cartesian=cartesian)
    boundaries = segment_boundaries(view.segments, rows=rows, top_row="segments", bottom_row="records")
    shapes, header_notes = header_items(rows, view.parts, labels, bottom_row="records")
    layout.update(layout_items(shapes=[*boundaries, *shapes], annotations=[*notes, *header_notes]))
    layout.update(barmode="overlay", bargap=0, legend=legend_below(plot_px=rows.plot_px), showlegend=True)
    return assemble(
        traces,
        layout,
        title=title or _title(view),
        subtitle=_subtitle(view),
        height=int(rows.plot_px) + 90 + 50 + LEGEND_PX,
        bottom=50 + LEGEND_PX,
    )


def _segments_axis(segments: Sequence[SegmentRegion], max_bytes: int | None) -> dict[str, object]:
    """Bytes from 0, reaching at least ``max_bytes`` (a shared scale) without ever fixing the range."""
    axis: dict[str, object] = {
        "title": {"text": segment_axis_title(segments, max_bytes)},
        "rangemode": "tozero",
        "showgrid": True,
    }
    if max_bytes is not None:
        unit = size_unit(max(max_bytes, *(s.size_bytes for s in segments), 1))
        axis["autorangeoptions"] = {"include": [0, max_bytes / unit.bytes]}
    return axis


def _lane_axis(title: str) -> dict[str, object]:
    return {
        "range": [0, 1],
        "showticklabels": False,
        "showgrid": False,
        "zeroline": False,
        "fixedrange": True,
        "lane": title,
    }


def _bucket_frame(
    source: BucketRows, segments: BucketRows | None, ranges: Any
) -> tuple[list[SegmentRegion], int | None, int | None]:
    columns = bucket_columns(source)
    end = int(columns["end_offset"].max()) if len(columns["end_offset"]) else 0
    first_dirty, first_uncleanable = ranges_of(ranges) if ranges is not None else (None, None)
    if segments is None:
        return [], first_dirty, first_uncleanable
    bases, sizes = segments_of(segments)
    fd = first_dirty if first_dirty is not None else (bases[0] if bases else 0)
    fu = first_uncleanable if first_uncleanable is not None else fd
    return regions_of(bases, sizes, end, fd, fu), first_dirty, first_uncleanable


def _bucket_figure(
    source: BucketRows,
    regions: list[SegmentRegion],
    first_dirty: int | None,
    first_uncleanable: int | None,
    *,
    title: str,
    scale: LayoutScale | None,
) -> go.Figure:
    columns = bucket_columns(source)
    starts, ends = columns["start_offset"], columns["end_offset"]
    first = int(starts.min()) if len(starts) else 0
    end = int(ends.max()) if len(ends) else 1
    if regions:
        end = max(end, regions[-1].end_offset)
    first, end = _span(first, end, scale)
    px_per_unit = PLOT_WIDTH_PX / max(end - first, 1)
    parts: list[LogPart] = []
    if first_dirty is not None and first_uncleanable is not None:
        parts = _bucket_parts(first, end, regions, first_dirty, first_uncleanable)
    rows = Rows()
    labels = plan_header(
        rows, parts, Marks(first_dirty, first_uncleanable), px_per_unit=px_per_unit, first=first, end=end
    )
    traces: list[dict[str, Any]] = []
    cartesian: list[tuple[str, str, dict[str, object]]] = []
    max_bytes = None if scale is None else scale.max_segment_bytes
    if regions:
        rows.add("segments", SEGMENTS_PX)
        rows.add("gap", GAP_PX)
        traces += segment_bars(
            regions, px_per_unit=px_per_unit, yaxis="y", bar_px=SEGMENTS_PX - 10, max_bytes=max_bytes
        )
        cartesian.append(("segments", "y", _segments_axis(regions, max_bytes)))
    rows.add("records", BUCKETS_PX)
    traces += bucket_bars(columns, first_uncleanable=first_uncleanable, yaxis="y3")
    cartesian.append(("records", "y3", {"title": {"text": "records per bucket"}, "rangemode": "tozero"}))
    layout, notes = axes_layout(rows, first=first, end=end, cartesian=cartesian)
    boundaries = segment_boundaries(regions, rows=rows, top_row="segments", bottom_row="records") if regions else []
    shapes, header_notes = header_items(rows, parts, labels, bottom_row="records")
    layout.update(layout_items(shapes=[*boundaries, *shapes], annotations=[*notes, *header_notes]))
    layout.update(barmode="stack", bargap=0, legend=legend_below(plot_px=rows.plot_px), showlegend=True)
    width = int(ends[0] - starts[0]) if len(starts) else 0
    subtitle = f"{int(columns['records'].sum()):,} records in {len(starts):,} buckets of {width:,} offsets"
    return assemble(
        traces,
        layout,
        title=title,
        subtitle=subtitle,
        height=int(rows.plot_px) + 90 + 50 + LEGEND_PX,
        bottom=50 + LEGEND_PX,
    )


def _bucket_parts(
    first: int, end: int, regions: list[SegmentRegion], first_dirty: int, first_uncleanable: int
) -> list[LogPart]:
    if regions:
        return log_parts(first, regions, first_dirty, first_uncleanable)
    spans = [
        LogPart("clean", first, first_dirty, 0),
        LogPart("head", first_dirty, end, 0),
        LogPart("cleanable", first_dirty, first_uncleanable, 1),
    ]
    return [p for p in spans if p.end > p.start]
