"""Which part of the log each segment is in for the cleaner: clean, cleanable, uncleanable or active (spec 4)."""

from __future__ import annotations

from typing import NamedTuple

from kcompact_nb.core._log import PartitionLog
from kcompact_nb.core._log_to_clean import LogToClean, log_to_clean

CLEAN = "clean"
CLEANABLE = "cleanable"
UNCLEANABLE = "uncleanable"
ACTIVE = "active"


class SegmentRegion(NamedTuple):
    """A segment as the offsets ``[base_offset, end_offset)`` it covers (up to the next segment), its bytes and region.

    A segment holding the first dirty offset (after a partial pass) counts as cleanable. ``codecs`` names
    the compression codecs of its batches (``none`` included), ``size_estimated`` whether its size is an
    estimate (:attr:`Segment.size_estimated`).
    """

    base_offset: int
    end_offset: int
    size_bytes: int
    region: str
    codecs: tuple[str, ...] = ()
    size_estimated: bool = False

    @property
    def size_label(self) -> str:
        """``192 bytes`` or ``~192 bytes (estimated)``, with the codecs of a compressed segment (``zstd``)."""
        size = f"~{self.size_bytes} bytes (estimated)" if self.size_estimated else f"{self.size_bytes} bytes"
        compressed = [c for c in self.codecs if c != "none"]
        return f"{size}, {'/'.join(compressed)}" if compressed else size


def segment_regions(log: PartitionLog, *, now_ms: int) -> tuple[LogToClean, list[SegmentRegion]]:
    """The cleaner's ranges at ``now_ms`` and every segment with its region."""
    ltc = log_to_clean(log, now_ms=now_ms)
    bases = [s.base_offset for s in log.segments]
    ends = bases[1:] + [max(log.log_end_offset, bases[-1] + 1)]
    regions = []
    for segment, end in zip(log.segments, ends):
        if segment is log.active_segment:
            region = ACTIVE
        elif end <= ltc.first_dirty_offset:
            region = CLEAN
        elif segment.base_offset < ltc.first_uncleanable_offset:
            region = CLEANABLE
        else:
            region = UNCLEANABLE
        codecs = tuple(sorted({b.compression for b in segment.batches}))
        regions.append(SegmentRegion(segment.base_offset, end, segment.size_bytes, region, codecs, segment.size_estimated))
    return ltc, regions
