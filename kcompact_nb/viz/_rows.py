"""Offset-bucketed summaries in any of their shapes (core rows, dicts, a pandas DataFrame) as numpy columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy

from kcompact_nb.core import OFFSET_BUCKET_COLUMNS

BucketRows = Sequence[Any] | Any
"""``offset_buckets`` rows, dicts with :data:`OFFSET_BUCKET_COLUMNS`, or a DataFrame with those columns."""


def bucket_columns(rows: BucketRows) -> dict[str, numpy.ndarray]:
    """Column name -> array for the numeric bucket columns, ordered by ``start_offset``.

    Raises ``ValueError`` naming the missing and the present columns.
    """
    records = as_dicts(rows)
    present = set(records[0]) if records else set(OFFSET_BUCKET_COLUMNS)
    missing = [c for c in OFFSET_BUCKET_COLUMNS if c not in present]
    if missing:
        raise ValueError(f"bucket rows lack columns {missing}; present: {sorted(present)}")
    records.sort(key=lambda r: int(r["start_offset"]))
    numeric = [c for c in OFFSET_BUCKET_COLUMNS if c not in ("topic", "partition")]
    return {c: numpy.array([int(r[c]) for r in records], dtype=numpy.int64) for c in numeric}


def as_dicts(rows: BucketRows) -> list[Mapping[str, Any]]:
    if hasattr(rows, "to_dict"):  # a pandas DataFrame, without importing pandas
        return list(rows.to_dict(orient="records"))
    return [r._asdict() if hasattr(r, "_asdict") else dict(r) for r in rows]
