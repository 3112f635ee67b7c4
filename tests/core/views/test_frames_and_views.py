"""Frames of a partition (passes, scenario steps) and what they show: lifetimes, dirtiness, offset maps, pass diffs."""

from __future__ import annotations

import itertools
from pathlib import Path

from kcompact_nb.core import (
    Frame,
    OffsetMapSpec,
    Timeline,
    copy_log,
    dirtiness_series,
    filthiest,
    log_to_clean,
    offset_map_view,
    pass_diff,
    pass_frames,
    record_lifetimes,
    segment_regions,
)
from kcompact_nb.core.cleaner import CleanerManager
from kcompact_nb.core.views._next_pass import superseded_count
from kcompact_nb.scenario import load_scenario, scenario_frames
from tests.conftest import compacted_log, offsets_in_log, rec

SCENARIOS = Path(__file__).resolve().parents[3] / "data" / "samples" / "scenarios"
DAY = 86_400_000
WEEK = 7 * DAY


def fruit_frames():
    return Timeline(scenario_frames(SCENARIOS / "fruit-prices.json")).compute_all()


def six_keys_twice():
    """Keys k0-k5 written twice (offsets 0-11), then a roll: every first write is a duplicate.

    min.cleanable.dirty.ratio 0.1: after a partial pass the segment counts as clean and dirty
    (ratio 0.5, spec 5), which Kafka's default 0.5 would not clean again.
    """
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    return log


def test_copy_log_leaves_the_original_untouched_by_a_pass():
    log = six_keys_twice()
    frames = list(pass_frames(log, now_ms=0))
    assert offsets_in_log(log) == list(range(12))
    assert [offsets_in_log(f.log) for f in frames] == [list(range(12)), list(range(6, 12))]
    assert frames[1].passes[0].end_offset == 12 and log.cleaner_checkpoint is None
    clone = copy_log(log)
    clone.append([rec("k9")], now_ms=0)
    assert log.log_end_offset == 12 and clone.log_end_offset == 13


def test_a_small_offset_map_gives_one_frame_per_partial_pass():
    """4 slots at load factor 0.9 hold 3 keys: the dirty range [0, 12) takes four passes; the first
    two remove nothing, since the later writes of their keys are beyond their end offsets (spec 6.3)."""
    frames = Timeline(pass_frames(six_keys_twice(), now_ms=0, offset_map=OffsetMapSpec(slots=4))).compute_all()
    assert [f.passes[0].end_offset for f in frames[1:]] == [3, 6, 9, 12]
    assert [f.passes[0].map_full for f in frames[1:]] == [True, True, True, False]
    assert [len(offsets_in_log(f.log)) for f in frames] == [12, 12, 12, 9, 6]
    assert frames[1].label.startswith("pass 1: cleaned [0, 3) of [0, 12)") and frames[1].label.endswith(
        "offset map full"
    )
    view = offset_map_view(frames[1].passes[0], frames[1].log)
    assert [(e.key, e.offset) for e in view.entries] == [(b"k0", 0), (b"k1", 1), (b"k2", 2)]
    assert (view.capacity, view.slots, view.end_offset, view.map_full) == (3, 4, 3, True)
    assert view.missed_keys == ((b"k3", 3), (b"k4", 4), (b"k5", 5))


def test_timeline_computes_frames_on_demand_and_keeps_them():
    timeline = Timeline(pass_frames(six_keys_twice(), now_ms=0, offset_map=OffsetMapSpec(slots=4)))
    assert len(timeline) == 0
    assert timeline.frame(2).index == 2 and len(timeline) == 3 and not timeline.exhausted
    assert timeline.frame(1) is timeline.frames[1]
    assert len(timeline.compute_all()) == 5 and timeline.exhausted


def test_scenario_frames_one_per_step_with_the_passes_of_the_partition():
    frames = fruit_frames()
    assert len(frames) == 19  # the start and 18 steps
    assert [f.index for f in frames if f.passes] == [8, 17]
    assert frames[6].label == "step 5 append: offsets 4-4, rolled"
    assert frames[8].label == "step 7 clean: [0, 4) cleaned"
    assert offsets_in_log(frames[-1].log) == [4, 6, 7, 8]
    assert frames[14].now_ms == 2 * WEEK + 2


def test_scenario_frames_under_an_override():
    frames = Timeline(
        scenario_frames(SCENARIOS / "fruit-prices.json", topic_config={"min.cleanable.dirty.ratio": 0.9})
    ).compute_all()
    assert [f.index for f in frames if f.passes] == [8]  # 0.667 is not above 0.9: no second pass
    assert frames[-1].log.config.min_cleanable_dirty_ratio == 0.9


def test_lifetimes_of_the_fruit_prices_tombstone_and_key():
    frames = fruit_frames()
    (grape,) = record_lifetimes(frames, tombstones=True)
    assert (grape.offset, grape.appeared_ms, grape.stamped_ms, grape.horizon_ms) == (2, 0, WEEK + 1, WEEK + 1 + DAY)
    assert (grape.removed_frame, grape.removed_ms) == (17, 2 * WEEK + 2)
    limes = record_lifetimes(frames, key=b"lime")
    assert [(life.offset, life.removed_frame) for life in limes] == [(1, 8), (3, 17), (4, None)]
    assert limes[0].survives(7) and not limes[0].survives(8)


def test_dirtiness_series_marks_rolls_passes_and_duplicates():
    points = dirtiness_series(fruit_frames())
    assert [p.frame for p in points if p.rolled] == [6, 15]
    assert [(p.frame, p.pass_ms) for p in points if p.pass_ms] == [(8, (WEEK + 1,)), (17, (2 * WEEK + 2,))]
    assert points[15].cleanable_ratio == 309 / (154 + 309)
    assert [points[i].duplicates for i in (7, 8, 16, 17)] == [3, 1, 3, 1]
    assert all(p.deadline_ms is None for p in points)  # max.compaction.lag.ms is unset


def test_dirtiness_series_counts_each_frames_duplicates_as_the_frame_alone_does():
    """The series counts a frame's superseded records again only when its batches, aborted transactions or config
    changed: on every sample scenario (steps that move the clock, append, roll, clean, abort a transaction; KIP-280's
    strategies), as written and under a what-if's shorter segment.ms and lower dirty ratio (more rolls and passes), its
    counts are those of each frame's log counted on its own."""
    what_if = {"segment.ms": 6 * 3_600_000, "min.cleanable.dirty.ratio": 0.1}
    for path in sorted(SCENARIOS.glob("*.json")):
        scenario = load_scenario(path)
        for topic, overrides in itertools.product(scenario.topics, (None, what_if)):
            frames = Timeline(scenario_frames(scenario, topic=topic, topic_config=overrides)).compute_all()
            counts = [p.duplicates for p in dirtiness_series(frames)]
            assert counts == [superseded_count(f.log) for f in frames], (path.name, topic, overrides)
            assert len(set(counts)) > 1, (path.name, topic, overrides)


def test_deadline_is_the_first_instant_the_engine_finds_the_log_overdue():
    """KIP-354 (docs/cleaner-rules.md 5.3): a dirty segment is overdue once now - max.compaction.lag.ms is past its
    first batch's timestamp, so at 200 + 1000 + 1, not at 1200 (issue #36); an unrolled active segment never is."""
    log = compacted_log(max_compaction_lag_ms=1000, min_cleanable_dirty_ratio=0.99)
    log.append([rec("a", timestamp=100)], now_ms=100)
    log.roll(now_ms=100)
    log.cleaner_checkpoint = 1
    log.append([rec("b", timestamp=200)], now_ms=200)
    (active_only,) = dirtiness_series(list(pass_frames(log, now_ms=300)))
    assert active_only.deadline_ms is None
    log.roll(now_ms=200)
    (point,) = dirtiness_series(list(pass_frames(log, now_ms=300)))
    assert point.deadline_ms == 1201
    assert not log_to_clean(log, now_ms=1200).eligible and log_to_clean(log, now_ms=1201).eligible


def test_pass_diff_names_removed_records_and_batches():
    frames = fruit_frames()
    diff = pass_diff(frames[7].log, frames[8].log, frames[8].passes[0])
    assert (diff.segments_before, diff.segments_after) == (((0, 305), (4, 77)), ((0, 154), (4, 77)))
    assert diff.groups == ((0,),)
    assert (diff.removed_offsets, diff.removed_batches, diff.rewritten_batches) == ((0, 1), (0, 1), (2,))
    assert diff.log_end_offset == 5


def test_regions_and_filthiest():
    frames = fruit_frames()
    _, regions = segment_regions(frames[15].log, now_ms=frames[15].now_ms)
    assert [(r.base_offset, r.end_offset, r.region) for r in regions] == [
        (0, 4, "clean"),
        (4, 8, "cleanable"),
        (8, 9, "active"),
    ]
    considered = [log_to_clean(f.log, now_ms=f.now_ms) for f in (frames[6], frames[15], frames[17])]
    assert filthiest(considered) is considered[0]
    assert filthiest(considered[2:]) is None


def test_a_record_is_removed_by_the_pass_whose_offset_map_outranks_it_not_the_first_that_reaches_it():
    """One step, two passes through a 3-key map: the first reads k0@0 but maps k0 at 0 and stops at 3 (spec
    6.3); the second maps k0@4 and removes k0@0. Its lifetime ends at the second pass."""
    log = compacted_log(min_cleanable_dirty_ratio=0.01)
    for key in ("k0", "k1", "k2", "k3", "k0", "k3"):
        log.append([rec(key, timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    work = copy_log(log)
    small = OffsetMapSpec(slots=3, load_factor=1.0)
    passes = tuple(CleanerManager(work.broker).clean_log(work, now_ms=t, offset_map=small) for t in (10, 20))
    assert [(p.first_dirty_offset, p.end_offset) for p in passes] == [(0, 3), (3, 6)]
    frames = [Frame(0, "start", 0, log), Frame(1, "two passes", 20, work, passes)]
    k0 = [(life.offset, life.removed_ms) for life in record_lifetimes(frames, key=b"k0")]
    assert k0 == [(0, 20), (4, None)]
