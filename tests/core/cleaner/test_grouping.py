"""Segment grouping for a pass (spec 8.1, ``groupSegmentsBySize``): sizes, index sizes, 32-bit offsets."""

from __future__ import annotations

from kcompact_nb.core import Segment
from kcompact_nb.core.cleaner._grouping import group_segments_by_size

INT_MAX = 2_147_483_647


def seg(base: int, size: int, offset_entries: int = 0, time_entries: int = 0) -> Segment:
    s = Segment(base, created_ms=0)
    s.size_bytes = size
    s.offset_index = [(base, 0)] * offset_entries
    s.time_index = [(0, base)] * time_entries
    return s


def groups(segments, *, max_size=1000, max_index=1000, first_uncleanable=10**6):
    return [
        [s.base_offset for s in g]
        for g in group_segments_by_size(
            segments, max_size_bytes=max_size, max_index_bytes=max_index, first_uncleanable_offset=first_uncleanable
        )
    ]


def test_size_limit_is_inclusive():
    assert groups([seg(0, 500), seg(10, 500), seg(20, 1)]) == [[0, 10], [20]]
    assert groups([seg(0, 0), seg(10, 1000), seg(20, 0)]) == [[0, 10, 20]]


def test_offset_and_time_index_sizes_bound_groups():
    # 8-byte offset entries: 60 + 70 entries = 1040 bytes > 1000
    assert groups([seg(0, 1, offset_entries=60), seg(10, 1, offset_entries=70)]) == [[0], [10]]
    # 12-byte time entries: 40 + 44 = 1008 bytes > 1000
    assert groups([seg(0, 1, time_entries=40), seg(10, 1, time_entries=44)]) == [[0], [10]]
    assert groups([seg(0, 1, time_entries=40), seg(10, 1, time_entries=43)]) == [[0, 10]]


def test_32_bit_relative_offsets_bound_groups_except_for_empty_segments():
    """The next segment's estimated last offset (next base - 1, or first uncleanable - 1) must stay within
    Int.MaxValue of the group's base; an empty segment joins regardless."""
    far = INT_MAX + 1
    assert groups([seg(0, 1), seg(10, 1), seg(far + 5, 1)], first_uncleanable=far + 20) == [[0], [10], [far + 5]]
    assert groups([seg(0, 1), seg(10, 1)], first_uncleanable=far + 1) == [[0], [10]]
    assert groups([seg(0, 1), seg(10, 0)], first_uncleanable=far + 1) == [[0, 10]]
    assert groups([seg(0, 1), seg(10, 1)], first_uncleanable=INT_MAX + 1) == [[0, 10]]
