"""One record as Kafka stores it (``DefaultRecord``, spec 2.5): offset, timestamp, key, value, headers."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from kcompact_nb.record._record_sizes import Header


class Record(NamedTuple):
    """One record as stored: absolute offset and timestamp, raw key, value and headers.

    ``timestamp`` is the stored (producer) timestamp; in a ``LogAppendTime`` batch consumers
    read the batch's ``max_timestamp`` instead (see :meth:`RecordBatch.read_timestamp`).
    A tombstone has a key and ``value is None``; an empty value is not a tombstone.
    """

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()

    @property
    def is_tombstone(self) -> bool:
        return self.key is not None and self.value is None


record_from_tuple = partial(tuple.__new__, Record)
"""A :class:`Record` from a tuple of its five fields, faster than ``Record._make`` (no length check)."""
