"""What the next pass does to each record, and the layout a figure draws: whole logs in, outcomes out.

Outcomes come from running Kafka's pass on a copy (``Cleaner.doClean``), so each expectation below is a
rule of spec 4 (the cleanable range), 6 (the offset map), 7.3 (transactions) or 7.4 (tombstones).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb.core import (
    LayoutScale,
    LogPart,
    OffsetMapSpec,
    Outcome,
    RecordKind,
    Timeline,
    TopicConfig,
    layout_scale,
    layout_view,
    log_parts,
    next_pass,
    pass_frames,
    regions_of,
)
from kcompact_nb.core.views import offset_gaps, transaction_states
from kcompact_nb.io import read_log_dir
from kcompact_nb.scenario import scenario_frames
from tests.conftest import compacted_log, offsets_in_log, rec

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"
NOW_MS = 1_767_225_660_000


@pytest.fixture(scope="module")
def fruit():
    return Timeline(scenario_frames(SAMPLES / "scenarios" / "fruit-prices.json")).compute_all()


def outcomes(log, now_ms, **kw):
    return [(r.offset, r.kind.value, r.outcome) for r in next_pass(log, now_ms=now_ms, **kw).records]


def test_before_the_first_pass_superseded_records_split_by_where_their_newer_record_lies(fruit):
    """Frame 6: cleanable [0, 4), active segment 4. Lime 3 is superseded by lime 4 in the active segment,
    which the offset map never holds (spec 4.2, 6.2): the pass keeps it. The tombstone is stamped, not removed."""
    frame = fruit[6]
    assert outcomes(frame.log, frame.now_ms) == [
        (0, "data", Outcome.REMOVED),
        (1, "data", Outcome.REMOVED),
        (2, "tombstone", Outcome.WAITING),
        (3, "data", Outcome.NEWER_BEYOND),
        (4, "data", Outcome.KEPT),
    ]
    by_offset = {r.offset: r for r in next_pass(frame.log, now_ms=frame.now_ms).records}
    assert (by_offset[0].superseded_by, by_offset[0].reason) == (
        2,
        "superseded by offset 2, its key's entry in the pass's offset map",
    )
    assert by_offset[3].reason == (
        "its newer record, offset 4, is not in the pass's offset map: "
        "in the active segment, never cleaned (it rolls only when records are appended)"
    )
    assert by_offset[2].reason == (
        "the pass stamps its delete horizon: t = 8 d 1 ms (pass time + delete.retention.ms, 1 d)"
    )


def test_after_the_first_pass_the_stamped_tombstone_waits_for_its_horizon(fruit):
    frame = fruit[8]  # checkpoint 4 = first uncleanable offset: the cleanable range is empty, no pass runs
    view = next_pass(frame.log, now_ms=frame.now_ms)
    assert view.result is None and view.end_offset == 4
    assert [(r.offset, r.outcome) for r in view.records] == [
        (2, Outcome.WAITING),
        (3, Outcome.BEYOND),
        (4, Outcome.KEPT),
    ]
    assert view.records[0].reason == "delete horizon t = 8 d 1 ms, 1 d from now"
    assert (view.records[1].superseded_by, view.records[1].reason) == (
        4,
        "nothing is cleanable, so no pass runs: the log head is uncleanable from 4: "
        "the active segment, never cleaned (it rolls only when records are appended)",
    )


def test_a_tombstone_past_its_horizon_outside_any_pass_is_due_and_removed_by_the_next_pass_over_it():
    log = compacted_log(delete_retention_ms=0, min_cleanable_dirty_ratio=0.01)
    log.append([rec("a", "1", timestamp=0)], now_ms=0)
    log.append([rec("a", None, timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    first = Timeline(pass_frames(log, now_ms=10)).compute_all()[1].log  # stamps the tombstone: horizon 10 + 0
    assert outcomes(first, 10) == [(1, "tombstone", Outcome.DUE)]
    log2 = first
    log2.append([rec("b", "1", timestamp=20)], now_ms=20)
    log2.roll(now_ms=20)
    assert outcomes(log2, 20) == [(1, "tombstone", Outcome.REMOVED), (2, "data", Outcome.KEPT)]


def test_records_beyond_a_full_offset_map_are_kept_and_say_so():
    """Spec 6.3: a 4-slot map at load factor 0.75 holds 3 keys; the pass stops at offset 3."""
    log = compacted_log(min_cleanable_dirty_ratio=0.01)
    for key in ("k0", "k1", "k2", "k3", "k0", "k3"):
        log.append([rec(key, timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    view = next_pass(log, now_ms=0, offset_map=OffsetMapSpec(slots=4, load_factor=0.75))
    assert view.end_offset == 3
    # k0@0 is rewritten but its newer k0@4 lies past the map's end; k3@3 is past the end itself.
    assert [(r.offset, r.outcome, r.superseded_by) for r in view.records] == [
        (0, Outcome.NEWER_BEYOND, 4),
        (1, Outcome.KEPT, None),
        (2, Outcome.KEPT, None),
        (3, Outcome.BEYOND, 5),
        (4, Outcome.KEPT, None),
        (5, Outcome.KEPT, None),
    ]
    assert view.records[3].reason == "at or above offset 3, where the pass stops: its offset map is full"


def test_under_kip_280_a_clean_record_that_outranks_the_mapped_one_becomes_the_entry():
    """Spec 14: the pass maps k@2 (timestamp 50); reading the log tail it meets k@0 (60), then k@1 (90), each
    outranking the entry, which each replaces. k@0 stays (the entry was lower when it was read); k@2 goes,
    superseded by the entry the pass ends with, k@1, though that one lies below the cleaner point."""
    log = compacted_log(compaction_strategy="timestamp", min_cleanable_dirty_ratio=0.1)
    for timestamp in (60, 90, 50):
        log.append([rec("k", timestamp=timestamp)], now_ms=100)
    log.roll(now_ms=100)
    log.append([rec("z", timestamp=100)], now_ms=100)
    log.cleaner_checkpoint = 2
    view = next_pass(log, now_ms=200)
    assert [(r.offset, r.outcome, r.superseded_by) for r in view.records] == [
        (0, Outcome.NEWER_BEYOND, 1),
        (1, Outcome.KEPT, None),
        (2, Outcome.REMOVED, 1),
        (3, Outcome.KEPT, None),
    ]
    assert view.records[0].reason == (
        "its key's entry in the offset map became offset 1 only after the pass read it "
        "(KIP-280: a clean record that outranks the mapped one replaces its entry)"
    )
    assert view.records[2].reason == "superseded by offset 1, its key's entry in the pass's offset map"


def test_aborted_transaction_data_is_removed_and_markers_stay_real_kafka_sample():
    """The transactional sample written by Kafka 4.4.0: y0, y1 aborted (spec 7.3)."""
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "segment.ms": 100, "delete.retention.ms": 0})
    before = read_log_dir(SAMPLES / "kafka" / "transactional" / "before", config=config).logs["txn-0"]
    records = next_pass(before, now_ms=NOW_MS).records
    assert [(r.offset, r.kind, r.outcome, r.marker) for r in records] == [
        (0, RecordKind.DATA, Outcome.KEPT, None),
        (1, RecordKind.DATA, Outcome.KEPT, None),
        (2, RecordKind.MARKER, Outcome.KEPT, "COMMIT"),
        (3, RecordKind.ABORTED, Outcome.REMOVED, None),
        (4, RecordKind.ABORTED, Outcome.REMOVED, None),
        (5, RecordKind.MARKER, Outcome.KEPT, "ABORT"),
        (6, RecordKind.DATA, Outcome.KEPT, None),
    ]
    assert transaction_states(before) == {0: "committed", 2: "COMMIT", 3: "aborted", 5: "ABORT"}
    after = read_log_dir(SAMPLES / "kafka" / "transactional" / "after", config=config).logs["txn-0"]
    view = layout_view(after, now_ms=NOW_MS)
    assert [(b.base_offset, b.last_offset, b.size_bytes, b.record_count, b.transaction) for b in view.batches] == [
        (0, 1, 97, 2, "committed"),
        (2, 2, 78, 1, "COMMIT"),
        (3, 4, 61, 0, "aborted"),
        (5, 5, 78, 1, "ABORT"),
        (6, 6, 73, 1, None),
    ]
    assert view.gaps == ((3, 5),)


def test_the_next_pass_never_modifies_the_log(fruit):
    log = fruit[6].log
    before = (offsets_in_log(log), log.cleaner_checkpoint, [s.size_bytes for s in log.segments])
    next_pass(log, now_ms=fruit[6].now_ms)
    assert (offsets_in_log(log), log.cleaner_checkpoint, [s.size_bytes for s in log.segments]) == before


def test_layout_view_names_the_parts_of_the_log_in_kafkas_terms():
    """compaction-basic after Kafka's pass: log tail [0, 31), log head [31, 32): the active segment."""
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "segment.ms": 100, "delete.retention.ms": 0})
    after = read_log_dir(SAMPLES / "kafka" / "compaction-basic" / "after", config=config).logs["basic-0"]
    view = layout_view(after, now_ms=NOW_MS)
    assert (view.cleaner_point, view.first_uncleanable_offset, view.active_base_offset, view.log_end_offset) == (
        31,
        31,
        31,
        32,
    )
    assert view.parts == (LogPart("clean", 0, 31, 0), LogPart("head", 31, 32, 0), LogPart("active", 31, 32, 1))
    assert view.gaps == ((0, 24), (26, 27))
    assert [(s.base_offset, s.end_offset, s.region) for s in view.segments] == [(0, 31, "clean"), (31, 32, "active")]
    assert {r.offset: r.outcome for r in view.records}[24] is Outcome.BEYOND  # k0@24, newer k0@31 active: no pass


def test_log_parts_split_the_head_at_the_first_uncleanable_offset():
    segments = regions_of([0, 10, 20, 30], [100, 100, 100, 10], 33, 5, 20)
    assert [(s.base_offset, s.end_offset, s.region) for s in segments] == [
        (0, 10, "cleanable"),  # holds the cleaner point 5: counted as cleanable (spec 4.3)
        (10, 20, "cleanable"),
        (20, 30, "uncleanable"),
        (30, 33, "active"),
    ]
    assert log_parts(0, segments, 5, 20) == [
        LogPart("clean", 0, 5, 0),
        LogPart("head", 5, 33, 0),
        LogPart("cleanable", 5, 20, 1),
        LogPart("uncleanable", 20, 30, 1),
        LogPart("active", 30, 33, 1),
    ]


def test_offset_gaps():
    assert offset_gaps([2, 3, 7], 0, 10) == [(0, 2), (4, 7), (8, 10)]
    assert offset_gaps([], 5, 5) == []
    assert offset_gaps([0, 1], 0, 2) == []


def test_layout_scale_fits_every_log(fruit):
    scale = layout_scale(fruit[6].log, fruit[17].log)
    assert scale == LayoutScale(0, 9, 305)  # frame 6's segment 0 (4 records) is the largest
    with pytest.raises(ValueError, match="at least one log"):
        layout_scale()


def test_superseded_by_names_the_offset_map_entry_not_the_newest_record_in_the_log(fruit_log):
    """Notebook 00's log (issue 26): cleanable [0, 24), active segment from 24. The pass maps k0, k1, k2 at 21,
    22, 23; those entries remove offsets 0-20, not the newest records 27-29 in the active segment, which no
    pass maps. 21-23 stay: their newer records are in the active segment; 24-26 are never reached."""
    view = next_pass(fruit_log, now_ms=0)
    assert (view.log_to_clean.first_uncleanable_offset, view.end_offset) == (24, 24)
    assert {r.offset: r.superseded_by for r in view.records if r.outcome is Outcome.REMOVED} == {
        offset: 21 + offset % 3 for offset in range(21)
    }
    assert view.records[0].reason == "superseded by offset 21, its key's entry in the pass's offset map"
    assert [(r.offset, r.outcome, r.superseded_by) for r in view.records[21:]] == [
        *((offset, Outcome.NEWER_BEYOND, offset + 6) for offset in (21, 22, 23)),
        *((offset, Outcome.BEYOND, offset + 3) for offset in (24, 25, 26)),
        *((offset, Outcome.KEPT, None) for offset in (27, 28, 29)),
    ]
    assert view.records[21].reason == (
        "its newer record, offset 27, is not in the pass's offset map: "
        "in the active segment, never cleaned (it rolls only when records are appended)"
    )
