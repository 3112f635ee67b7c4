"""A block's batch headers read as numpy columns, and checked as the segment reader checks each batch's."""

from __future__ import annotations

from typing import Any

import numpy

from kcompact_nb.record import FramedBlock
from kcompact_nb.record import batch_header as L


class BlockHeaders:
    """The header fields of a block's batches, int64 columns read with numpy at their byte positions in a v2
    batch (``DefaultRecordBatch``: baseOffset 0, length 8, partitionLeaderEpoch 12, attributes 21, lastOffsetDelta 23,
    baseTimestamp 27, maxTimestamp 35, producerId 43, producerEpoch 51, baseSequence 53, recordsCount 57;
    big-endian)."""

    def __init__(self, block: FramedBlock) -> None:
        data, self.starts = block.data, numpy.array(block.starts, numpy.int64)
        self.ends = self.starts + L.LOG_OVERHEAD + _field(data, self.starts + 8, ">i4")
        self.base_offsets = _field(data, self.starts, ">i8")
        self.attributes = _field(data, self.starts + L.ATTRIBUTES_POSITION, ">i2")
        self.last_deltas = _field(data, self.starts + 23, ">i4")
        self.base_timestamps = _field(data, self.starts + 27, ">i8")
        self.max_timestamps = _field(data, self.starts + 35, ">i8")
        self.counts = _field(data, self.starts + 57, ">i4")
        self.leader_epochs = _field(data, self.starts + 12, ">i4")
        self.producer_ids = _field(data, self.starts + 43, ">i8")
        self.producer_epochs = _field(data, self.starts + 51, ">i2")
        self.base_sequences = _field(data, self.starts + 53, ">i4")
        self.last_offsets = self.base_offsets + self.last_deltas

    def floors(self, next_offset: int) -> Any:
        """Each batch's lowest offset when the block's first may start at ``next_offset``."""
        return numpy.concatenate(([next_offset], self.last_offsets[:-1] + 1))

    def valid(self, floors: Any, *, base_offset: int | None, end_offset: int | None) -> bool:
        """Whether every batch passes the segment reader's ``check_header`` in a segment of ``base_offset`` whose
        offsets lie below ``end_offset`` (``floors``: each batch's lowest offset); False too when offsets come within
        2^31 of ``Long.MAX_VALUE`` (past int64 here)."""
        if len(self.starts) and self.base_offsets.max() >= L.LONG_MAX - L.INT_MAX - 1:
            return False
        ok = (self.last_deltas >= 0) & (self.base_offsets >= floors) & (self.counts >= 0)
        if end_offset is not None:
            ok &= self.last_offsets < end_offset
        if base_offset is not None:
            ok &= self.last_offsets - base_offset <= L.INT_MAX
        return bool(ok.all())


def _field(data: bytes, positions: Any, dtype: str) -> Any:
    """The big-endian integers of ``dtype`` at byte ``positions`` of ``data``, as int64."""
    size = numpy.dtype(dtype).itemsize
    windows = numpy.ndarray((len(data) - size + 1,), dtype, data, 0, (1,))
    return windows[positions].astype(numpy.int64)
