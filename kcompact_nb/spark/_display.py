"""A small, ordered, bounded pandas view of a DataFrame for notebooks (a bounded ``toPandas``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas
from pyspark.sql import DataFrame
from pyspark.sql.types import BinaryType

from kcompact_nb.core import KcompactError
from kcompact_nb.spark._people_table import PeopleTable

DISPLAY_ORDER = ("topic", "partition", "offset", "segment_base_offset", "start_offset", "key")
"""Columns a table is ordered by, those present in this order, unless ``order_by`` is given."""
DEFAULT_DISPLAY_LIMIT = 20


def table(
    df: DataFrame, *, limit: int = DEFAULT_DISPLAY_LIMIT, order_by: Sequence[str] | None = None, decode: bool = True
) -> Any:
    """The first ``limit`` rows of ``df`` in a total order, as a pandas DataFrame shown in human units.

    It is ``toPandas`` of at most ``limit`` rows, as a :class:`PeopleTable`: its values are exact (bytes,
    milliseconds) and computations on it use them; it shows sizes in KiB/MiB, times in ISO 8601 and
    durations as ``7 d 1 ms``, without the index, every column whole (``.for_people()`` is that text).

    Parameters
    ----------
    limit : rows collected to the driver; the rest never leave Spark.
    order_by : columns to sort by; default the present columns of :data:`DISPLAY_ORDER`
        (``topic, partition, offset`` for records), so the same data always shows the same rows.
    decode : show binary columns (``key``, ``value``) as UTF-8 text (invalid bytes replaced); null stays null.
    """
    order = list(order_by) if order_by is not None else [c for c in DISPLAY_ORDER if c in df.columns]
    if not order:
        raise KcompactError(f"table: no column to order by; pass order_by (present: {df.columns})")
    if limit < 0:
        raise KcompactError(f"table: limit must be at least 0, got {limit}")
    frame: Any = df.orderBy(*order).limit(limit).toPandas()
    if decode:
        for field in df.schema.fields:
            if isinstance(field.dataType, BinaryType):
                texts = [None if v is None else bytes(v).decode("utf-8", "replace") for v in frame[field.name]]
                frame[field.name] = pandas.Series(texts, index=frame.index, dtype=object)  # keeps null as None
    return PeopleTable(frame)
