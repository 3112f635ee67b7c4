"""Which segments a pass rewrites into one (``LogCleaner.groupSegmentsBySize``, spec 8.1)."""

from __future__ import annotations

from collections.abc import Sequence

from kcompact_nb.core.model import INT_MAX, Segment


def group_segments_by_size(
    segments: Sequence[Segment],
    *,
    max_size_bytes: int,
    max_index_bytes: int,
    first_uncleanable_offset: int,
) -> list[list[Segment]]:
    """Greedy left-to-right groups bounded by ``segment.bytes``, ``segment.index.bytes`` and 32-bit offsets.

    Uses the segments' pre-pass sizes; limits are inclusive.
    """
    groups: list[list[Segment]] = []
    i = 0
    while i < len(segments):
        group = [segments[i]]
        log_bytes, offset_index, time_index = (
            segments[i].size_bytes,
            segments[i].offset_index_bytes,
            segments[i].time_index_bytes,
        )
        i += 1
        while i < len(segments):
            nxt = segments[i]
            last_offset = segments[i + 1].base_offset - 1 if i + 1 < len(segments) else first_uncleanable_offset - 1
            fits = (
                log_bytes + nxt.size_bytes <= max_size_bytes
                and offset_index + nxt.offset_index_bytes <= max_index_bytes
                and time_index + nxt.time_index_bytes <= max_index_bytes
                and (nxt.size_bytes == 0 or last_offset - group[0].base_offset <= INT_MAX)
            )
            if not fits:
                break
            group.append(nxt)
            log_bytes += nxt.size_bytes
            offset_index += nxt.offset_index_bytes
            time_index += nxt.time_index_bytes
            i += 1
        groups.append(group)
    return groups
