"""Produced batches into a partition log, as the broker appends a producer's batch (``UnifiedLog.appendAsLeader``).

The records are packed by column (keys numbered in the log's :class:`KeyRegistry`, values left as byte spans): a
forecast's millions of records cost no object each. The topic's ``compression.type`` decides what is stored
(``stored_compression``), ``LogAppendTime`` stamps the batch with the append time, and the log rolls first when
``shouldRoll`` says so (``PartitionLog.append_batch``). Values are zero bytes unless the batch is compressed:
then ``value_compressibility`` of each value repeats and the rest is random, what the codec sees.
"""

from __future__ import annotations

import mmap
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import numpy

from kcompact_nb.core.forecasting._events import ProducedBatch, TxnMarker
from kcompact_nb.core.forecasting._keys import key_bytes
from kcompact_nb.core.model import AppendInfo, PartitionLog, stored_compression
from kcompact_nb.record import KeyRegistry, PackedRecords, RecordBatch, TimestampType, compressed

_ZERO_PAGES: list[mmap.mmap] = []


def _zeros(length: int) -> bytes:
    """Zero bytes to slice values from: an anonymous mapping, whose untouched pages cost no memory (a folded
    record's value may be as long as a segment, and only the spans a pass keeps are ever copied out)."""
    if not _ZERO_PAGES or len(_ZERO_PAGES[0]) < length:
        _ZERO_PAGES[:] = [mmap.mmap(-1, max(length, 1 << 20))]
    return cast("bytes", _ZERO_PAGES[0])


@dataclass
class Appender:
    """Appends one topic's produced batches to its partition logs (``now_ms`` is the start plus the batch's time)."""

    key_width: int
    compressibility: float
    start_ms: int
    rng: numpy.random.Generator
    registries: dict[int, KeyRegistry] = field(default_factory=dict)
    written_bytes: int = 0
    """Bytes of every batch appended so far, markers included: what producers wrote, before any cleaning."""
    _keys: dict[int, bytes] = field(default_factory=dict)

    def append(self, log: PartitionLog, batch: ProducedBatch) -> AppendInfo:
        """Append ``batch`` to ``log``; a batch without offsets takes the next ones."""
        built = self.stored_batch(log, batch)
        info = log.append_batch(built, now_ms=self.start_ms + batch.append_ms)
        self.written_bytes += built.size_bytes
        if built.has_producer_id:
            log.producer_state.on_data_batch(built)
        return info

    def stored_batch(self, log: PartitionLog, batch: ProducedBatch, codec: str | None = None) -> RecordBatch:
        """``batch`` as ``log`` would store it (the topic's codec, or ``codec``), not appended."""
        now_ms = self.start_ms + batch.append_ms
        stored, level = stored_compression(log.config, batch.compression)
        codec = stored if codec is None else codec
        records = self._records(log, batch, codec != "none")
        first, last = records.offsets[0], records.offsets[-1]
        log_append = log.config.message_timestamp_type == TimestampType.LOG_APPEND_TIME.value
        built = RecordBatch.build(
            records,
            base_offset=first if batch.base_offset is None else batch.base_offset + self._shift(log, batch),
            last_offset=last if batch.last_offset is None else batch.last_offset + self._shift(log, batch),
            checked=True,
            log_append_time_ms=now_ms if log_append else None,
            producer_id=batch.producer_id,
            producer_epoch=batch.producer_epoch,
            base_sequence=batch.base_sequence,
            is_transactional=batch.transactional,
            compression=codec,
        )
        if codec == "none":
            return built
        return compressed(built, log.encoder, level=level, kafka_version=log.broker.version)

    def append_marker(self, log: PartitionLog, marker: TxnMarker) -> AppendInfo:
        """Write the transaction marker (``UnifiedLog.appendAsLeader`` of a control batch)."""
        info = log.append_end_txn_marker(
            marker.producer_id, marker.producer_epoch, commit=marker.commit, now_ms=self.start_ms + marker.append_ms
        )
        self.written_bytes += log.segments[-1].batches[-1].size_bytes
        return info

    def _records(self, log: PartitionLog, batch: ProducedBatch, compress: bool) -> PackedRecords:
        registry = self.registries.setdefault(id(log), KeyRegistry())
        keys = tuple(map(self._key, batch.key_ids.tolist()))
        key_ids = registry.ids(keys)
        if batch.offsets is None:
            offsets = array("q", range(log.log_end_offset, log.log_end_offset + len(batch)))
        else:
            offsets = array("q", (batch.offsets + self._shift(log, batch)).tolist())
        timestamps = array("q", (batch.timestamps + self.start_ms).tolist())
        lengths = batch.value_lengths
        data, starts = self._values(lengths, compress and batch.folded < 0)
        return PackedRecords.from_spans(
            offsets,
            timestamps,
            key_ids,
            registry,
            data,
            array("q", starts.tolist()),
            array("q", lengths.tolist()),
            True,
        )

    @staticmethod
    def _shift(log: PartitionLog, batch: ProducedBatch) -> int:
        """How far a batch with offsets of its own moves up so it starts at or after the log end (a marker took
        an offset the folded stream planned for records)."""
        base = batch.base_offset if batch.base_offset is not None else 0
        return max(0, log.log_end_offset - base)

    def _key(self, key_id: int) -> bytes:
        key = self._keys.get(key_id)
        if key is None:
            key = self._keys[key_id] = key_bytes(key_id, self.key_width)
        return key

    def _values(self, lengths: numpy.ndarray, content: bool) -> tuple[bytes | Callable[[], bytes], numpy.ndarray]:
        """The bytes the values are spans of, and each one's start: zero bytes (made when read), or content."""
        sizes = numpy.maximum(lengths, 0)
        if not content:
            longest = int(sizes.max(initial=0))
            return (lambda: _zeros(longest)), numpy.zeros(len(lengths), dtype=numpy.int64)
        starts = numpy.concatenate(([0], numpy.cumsum(sizes)[:-1])).astype(numpy.int64)
        random_part = numpy.round(sizes * (1 - self.compressibility)).astype(numpy.int64)
        data = numpy.zeros(int(sizes.sum()), dtype=numpy.uint8)
        noise = self.rng.integers(0, 256, int(random_part.sum()), dtype=numpy.uint8)
        marks = numpy.repeat(starts - numpy.concatenate(([0], numpy.cumsum(random_part)[:-1])), random_part)
        data[numpy.arange(int(random_part.sum())) + marks] = noise
        return data.tobytes(), starts
