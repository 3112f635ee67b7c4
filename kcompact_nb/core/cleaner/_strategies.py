"""Compaction strategies: which record of a key wins (spec 7.4 for ``offset``, spec 14 for KIP-280).

Only ``offset`` is Apache Kafka's behaviour. ``timestamp`` and ``header`` implement KIP-280, which
was accepted but never released; the simulator adds them so their effect can be studied.
A strategy ranks records; for each key the highest rank wins. Ranks of one strategy must be
mutually comparable and must end with the offset, so that ties go to the later record.
"""

from __future__ import annotations

import struct
from typing import Any, Protocol

from kcompact_nb.core.cleaner._offset_map import OFFSET_ENTRY_BYTES, VERSIONED_ENTRY_BYTES
from kcompact_nb.core.model import TopicConfig
from kcompact_nb.record import Record, RecordBatch


class Strategy(Protocol):
    """A compaction strategy; implement this to plug in your own (it is never Kafka's behaviour)."""

    name: str
    entry_bytes: int
    """Offset-map bytes per key: 24 for offsets only, 32 when a version is cached."""
    retains_log_end_record: bool
    """KIP-280 "retain LEO record": the record at log end offset - 1 is never removed."""
    ranks_by_offset: bool
    """True when :meth:`rank` is the record's offset (Kafka's rule): the pass then compares offsets
    directly, and may take its whole-batch fast paths."""

    def rank(self, batch: RecordBatch, record: Record) -> Any:
        """A comparable value; the highest wins, so it should end with ``record.offset``."""
        ...

    def is_malformed(self, record: Record) -> bool:
        """A record whose version cannot be read (counted, then ranked as having none)."""
        ...


def rank_offset(rank: Any) -> int:
    """The offset a rank names: ranks end with it (a strategy's versioned ranks are tuples)."""
    return int(rank[-1]) if isinstance(rank, tuple) else int(rank)


class OffsetStrategy:
    """Kafka's rule: the latest offset wins, timestamps never decide (spec 12.1)."""

    name = "offset"
    entry_bytes = OFFSET_ENTRY_BYTES
    retains_log_end_record = False
    ranks_by_offset = True

    def rank(self, batch: RecordBatch, record: Record) -> Any:
        return record.offset

    def is_malformed(self, record: Record) -> bool:
        return False


class TimestampStrategy:
    """KIP-280 ``timestamp``: the highest record timestamp wins; equal timestamps, the highest offset."""

    name = "timestamp"
    entry_bytes = VERSIONED_ENTRY_BYTES
    retains_log_end_record = True
    ranks_by_offset = False

    def rank(self, batch: RecordBatch, record: Record) -> Any:
        return (batch.read_timestamp(record), record.offset)

    def is_malformed(self, record: Record) -> bool:
        return False


class HeaderStrategy:
    """KIP-280 ``header``: the version is the last header named ``header``, an 8-byte big-endian long.

    Highest version wins, then highest offset; a record with a version beats one without; a
    header value that is not exactly 8 bytes counts as absent (and as malformed).
    """

    name = "header"
    entry_bytes = VERSIONED_ENTRY_BYTES
    retains_log_end_record = True
    ranks_by_offset = False

    def __init__(self, header: str) -> None:
        self.header = header

    def version(self, record: Record) -> int | None:
        found: bytes | None = None
        present = False
        for name, value in record.headers:
            if name == self.header:
                found, present = value, True
        if not present or found is None or len(found) != 8:
            return None
        return int(struct.unpack(">q", found)[0])

    def rank(self, batch: RecordBatch, record: Record) -> Any:
        version = self.version(record)
        return (0, 0, record.offset) if version is None else (1, version, record.offset)

    def is_malformed(self, record: Record) -> bool:
        values = [value for name, value in record.headers if name == self.header]
        return bool(values) and (values[-1] is None or len(values[-1]) != 8)


def strategy_for(config: TopicConfig) -> Strategy:
    """The strategy named by ``compaction.strategy`` (and ``compaction.strategy.header``)."""
    if config.compaction_strategy == "timestamp":
        return TimestampStrategy()
    if config.compaction_strategy == "header":
        return HeaderStrategy(config.compaction_strategy_header)
    return OffsetStrategy()
