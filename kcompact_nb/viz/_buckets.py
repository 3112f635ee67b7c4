"""Offset buckets as stacked bars (records by fate), and the segment and range rows that frame them."""

from __future__ import annotations

from typing import Any

import numpy

from kcompact_nb.core import LogToClean
from kcompact_nb.viz._cells import OUTCOME_GROUP
from kcompact_nb.viz._figure import bar
from kcompact_nb.viz._palette import BEYOND, COLORS, KEPT, SUPERSEDED, WAITING
from kcompact_nb.viz._rows import BucketRows, as_dicts

BUCKET_LABELS = {
    "live": "latest of their key",
    "superseded": "superseded: a later record of their key exists",
    "beyond": "superseded, beyond the cleanable range: kept",
    "tombstones": "tombstones (latest of their key)",
}


def bucket_bars(
    columns: dict[str, numpy.ndarray], *, first_uncleanable: int | None, yaxis: str
) -> list[dict[str, Any]]:
    """Stacked bars per bucket: live, superseded (split at the first uncleanable offset when known), tombstones."""
    starts, ends = columns["start_offset"], columns["end_offset"]
    middle, width = (starts + ends - 1) / 2, ends - starts
    superseded = columns["superseded"]
    beyond = numpy.zeros_like(superseded)
    if first_uncleanable is not None:
        outside = starts >= first_uncleanable
        beyond, superseded = numpy.where(outside, superseded, 0), numpy.where(outside, 0, superseded)
    parts = (
        ("live", columns["live"], COLORS[KEPT]),
        ("superseded", superseded, COLORS[SUPERSEDED]),
        ("beyond", beyond, COLORS[BEYOND]),
        ("tombstones", columns["tombstones"], COLORS[WAITING]),
    )
    bars = []
    for name, counts, color in parts:
        if not counts.any():
            continue
        bars.append(
            bar(
                name=BUCKET_LABELS[name],
                x=middle,
                width=width,
                y=counts,
                marker={"color": color, "line": {"width": 0}},
                customdata=numpy.column_stack([starts, ends - 1]),
                legendgroup=OUTCOME_GROUP,
                yaxis=yaxis,
                xaxis="x",
                legendgrouptitle={"text": "records per bucket"},
                hovertemplate="offsets %{customdata[0]:,}-%{customdata[1]:,}: %{y:,} "
                + BUCKET_LABELS[name]
                + "<extra></extra>",
            )
        )
    return bars


def segments_of(rows: BucketRows) -> tuple[list[int], list[int]]:
    """Base offsets and bytes of segment rows (``segment_base_offset`` or ``base_offset``, ``size_bytes``), by base."""
    records = as_dicts(rows)
    if not records:
        return [], []
    base = "segment_base_offset" if "segment_base_offset" in records[0] else "base_offset"
    missing = [c for c in (base, "size_bytes") if c not in records[0]]
    if missing:
        raise ValueError(f"segment rows lack columns {missing}; present: {sorted(records[0])}")
    ordered = sorted(records, key=lambda r: int(r[base]))
    return [int(r[base]) for r in ordered], [int(r["size_bytes"]) for r in ordered]


def ranges_of(ranges: Any) -> tuple[int, int]:
    """``(first_dirty_offset, first_uncleanable_offset)`` of a ``LogToClean``, a mapping, a row or a one-row table."""
    if isinstance(ranges, LogToClean):
        return ranges.first_dirty_offset, ranges.first_uncleanable_offset
    records = as_dicts(ranges if hasattr(ranges, "to_dict") or isinstance(ranges, list) else [ranges])
    if len(records) != 1:
        raise ValueError(f"ranges must describe one partition, got {len(records)} rows; filter to the partition drawn")
    row = records[0]
    missing = [c for c in ("first_dirty_offset", "first_uncleanable_offset") if c not in row]
    if missing:
        raise ValueError(f"ranges lack columns {missing}; present: {sorted(row)}")
    return int(row["first_dirty_offset"]), int(row["first_uncleanable_offset"])
