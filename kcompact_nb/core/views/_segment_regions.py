"""Which part of the log each segment is in for the cleaner: clean, cleanable, uncleanable or active (spec 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from kcompact_nb.core.cleaner import LogToClean, log_to_clean
from kcompact_nb.core.model import PartitionLog, format_bytes

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
        """``2,324 B`` or ``~2,324 B (estimated)``, with the codecs of a compressed segment (``, zstd``)."""
        size = format_bytes(self.size_bytes)
        size = f"~{size} (estimated)" if self.size_estimated else size
        compressed = [c for c in self.codecs if c != "none"]
        return f"{size}, {'/'.join(compressed)}" if compressed else size


def segment_regions(log: PartitionLog, *, now_ms: int) -> tuple[LogToClean, list[SegmentRegion]]:
    """The cleaner's ranges at ``now_ms`` and every segment with its region."""
    ltc = log_to_clean(log, now_ms=now_ms)
    return ltc, log_regions(log, ltc)


def log_regions(log: PartitionLog, ltc: LogToClean) -> list[SegmentRegion]:
    """Every segment of ``log`` with its region under the ranges ``ltc``.

    Each also carries its codecs and whether its size is estimated.
    """
    bases, sizes = [s.base_offset for s in log.segments], [s.size_bytes for s in log.segments]
    regions = regions_of(bases, sizes, log.log_end_offset, ltc.first_dirty_offset, ltc.first_uncleanable_offset)
    return [
        region._replace(codecs=tuple(sorted(s.codecs)), size_estimated=s.size_estimated)
        for region, s in zip(regions, log.segments, strict=False)
    ]


def regions_of(
    bases: Sequence[int],
    sizes: Sequence[int],
    log_end_offset: int,
    first_dirty_offset: int,
    first_uncleanable_offset: int,
) -> list[SegmentRegion]:
    """Segments given by base offsets (ascending, the last one active) and bytes, with their regions.

    The same rule for a :class:`PartitionLog` and for segment tables (Spark's ``load_segments``): a
    segment ends where the next begins; the active segment at ``max(log end offset, base + 1)``.
    """
    if not bases:
        return []
    ends = [*bases[1:], max(log_end_offset, bases[-1] + 1)]
    regions = []
    for index, (base, end, size) in enumerate(zip(bases, ends, sizes, strict=False)):
        if index == len(bases) - 1:
            region = ACTIVE
        elif end <= first_dirty_offset:
            region = CLEAN
        elif base < first_uncleanable_offset:
            region = CLEANABLE
        else:
            region = UNCLEANABLE
        regions.append(SegmentRegion(base, end, size, region))
    return regions
