"""A block's batch headers read as numpy columns, and checked as the segment reader checks each batch's."""

from __future__ import annotations

from typing import Any

import numpy

from kcompact_nb.record import FramedBlock
from kcompact_nb.record import batch_header as L

_HEADER = numpy.dtype(
    {
        "names": ["base_offset", "length", "leader_epoch", "attributes", "last_delta", "base_timestamp",
                  "max_timestamp", "producer_id", "producer_epoch", "base_sequence", "count"],
        "formats": [">i8", ">i4", ">i4", ">i2", ">i4", ">i8", ">i8", ">i8", ">i2", ">i4", ">i4"],
        "offsets": [0, 8, 12, L.ATTRIBUTES_POSITION, 23, 27, 35, 43, 51, 53, 57],
        "itemsize": L.RECORD_BATCH_OVERHEAD,
    }
)  # fmt: skip
"""A v2 batch header (``DefaultRecordBatch``), big-endian, the fields read at their byte positions: baseOffset 0,
length 8, partitionLeaderEpoch 12, attributes 21, lastOffsetDelta 23, baseTimestamp 27, maxTimestamp 35, producerId 43,
producerEpoch 51, baseSequence 53, recordsCount 57 (magic 16 and the CRC 17 are the framing's)."""


class BlockHeaders:
    """The header fields of a block's batches as int64 columns, all read in one numpy gather of their headers."""

    def __init__(self, block: FramedBlock) -> None:
        data, self.starts = block.data, numpy.array(block.starts, numpy.int64)
        windows = numpy.ndarray((len(data) - _HEADER.itemsize + 1,), _HEADER, data, 0, (1,))
        headers = windows[self.starts]  # every batch is at least a header long
        self.ends = self.starts + L.LOG_OVERHEAD + headers["length"]
        self.base_offsets = headers["base_offset"].astype(numpy.int64)
        self.attributes = headers["attributes"].astype(numpy.int64)
        self.last_deltas = headers["last_delta"].astype(numpy.int64)
        self.base_timestamps = headers["base_timestamp"].astype(numpy.int64)
        self.max_timestamps = headers["max_timestamp"].astype(numpy.int64)
        self.counts = headers["count"].astype(numpy.int64)
        self.leader_epochs = headers["leader_epoch"].astype(numpy.int64)
        self.producer_ids = headers["producer_id"].astype(numpy.int64)
        self.producer_epochs = headers["producer_epoch"].astype(numpy.int64)
        self.base_sequences = headers["base_sequence"].astype(numpy.int64)
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
