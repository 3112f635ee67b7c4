"""Figures carry the right offsets, counts, colors and shapes (assertions on fig.data / fig.layout, not pixels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb import (
    OffsetMapSpec,
    Timeline,
    dirtiness_series,
    log_to_clean,
    offset_buckets,
    offset_map_view,
    pass_diff,
    pass_frames,
    record_lifetimes,
)
from kcompact_nb.scenario import scenario_frames
from kcompact_nb.viz import (
    COLORS,
    LABELS,
    cleaner_stats_figure,
    dirty_ratio_figure,
    dirty_ratio_timeline_figure,
    key_color,
    key_history_figure,
    layout_figure,
    offset_map_figure,
    pass_diff_figure,
    tombstone_timeline_figure,
    what_if_figure,
)
from tests.conftest import compacted_log, rec

SCENARIOS = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios"
WEEK, DAY = 604_800_000, 86_400_000


@pytest.fixture(scope="module")
def fruit():
    return Timeline(scenario_frames(SCENARIOS / "fruit-prices.json")).compute_all()


def trace(fig, name):
    (found,) = [t for t in fig.data if t.name == name]
    return found


def test_layout_after_the_first_pass(fruit):
    """Frame 8: segment 0 is clean (154 B over offsets 0-3), segment 4 active; 0 and 1 are gone."""
    frame = fruit[8]
    fig = layout_figure(frame.log, now_ms=frame.now_ms)
    clean, active = trace(fig, LABELS["clean"]), trace(fig, LABELS["active"])
    assert (list(clean.x), list(clean.width), list(clean.y), clean.marker.color) == ([2.0], [4], [154], COLORS["clean"])
    assert (list(active.x), list(active.y), active.marker.color) == ([4.5], [77], COLORS["active"])
    assert list(trace(fig, LABELS["cleanable"]).x) == []
    assert list(trace(fig, LABELS["superseded"]).x) == [3]
    assert list(trace(fig, LABELS["awaiting horizon"]).x) == [2]
    kept = trace(fig, LABELS["kept"])
    assert (list(kept.x), kept.marker.color) == ([4], COLORS["kept"])
    assert [(s.name, s.x0) for s in fig.layout.shapes] == [("first dirty 4", 4), ("first uncleanable 4", 4)]


def test_layout_before_the_first_pass_shows_the_cleanable_range(fruit):
    frame = fruit[6]
    fig = layout_figure(frame.log, now_ms=frame.now_ms)
    cleanable = trace(fig, LABELS["cleanable"])
    assert (list(cleanable.x), list(cleanable.y), cleanable.marker.color) == ([2.0], [305], COLORS["cleanable"])
    assert list(trace(fig, LABELS["superseded"]).x) == [0, 1, 3]
    assert [s.x0 for s in fig.layout.shapes] == [0, 4]


def test_layout_by_key_colors_each_key_and_marks_empty_batches():
    log = compacted_log()
    for key in ("a", "b", "a", "c"):
        log.append([rec(key)], now_ms=0)
    fig = layout_figure(log, now_ms=0, color_by="key")
    records = trace(fig, "records by key")
    assert list(records.marker.color) == [key_color(0), key_color(1), key_color(0), key_color(2)]
    assert list(records.hovertext) == ["a", "b", "a", "c"]
    assert trace(fig, LABELS["empty batch"]).marker.color == COLORS["empty batch"]


def test_layout_of_a_large_log_is_drawn_from_buckets():
    log = compacted_log()
    for i in range(300):
        log.append([rec(f"k{i % 10}")], now_ms=0)
    fig = layout_figure(log, now_ms=0, max_records=100, bucket_count=3)
    live, superseded = trace(fig, LABELS["kept"]), trace(fig, LABELS["superseded"])
    assert (live.type, list(live.x), list(live.width)) == ("bar", [50.0, 150.0, 250.0], [100, 100, 100])
    assert (list(live.y), list(superseded.y)) == ([0, 0, 10], [100, 100, 90])
    assert sum(len(t.x) for t in fig.data if t.type == "scatter") == 0


def test_layout_accepts_bucket_rows_as_dicts_or_a_dataframe():
    pandas = pytest.importorskip("pandas")
    log = compacted_log()
    for i in range(6):
        log.append([rec(f"k{i % 2}", None if i == 5 else "v")], now_ms=0)
    rows = [r._asdict() for r in offset_buckets(log, bucket_count=2)]
    for source in (rows, pandas.DataFrame(rows)):
        fig = layout_figure(source)
        assert [list(t.y) for t in fig.data] == [[0, 1], [3, 1], [0, 1]]  # live, superseded, tombstones
        assert [t.marker.color for t in fig.data] == [COLORS["kept"], COLORS["superseded"], COLORS["tombstone"]]
    with pytest.raises(ValueError, match=r"lack columns \['live'.*present"):
        layout_figure([{k: v for k, v in rows[0].items() if k != "live"}])


def partial_pass_frames():
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    return Timeline(pass_frames(log, now_ms=0, offset_map=OffsetMapSpec(slots=4))).compute_all()


def test_offset_map_figure_shows_fill_entries_missed_keys_and_the_stop():
    frame = partial_pass_frames()[1]
    fig = offset_map_figure(offset_map_view(frame.passes[0], frame.log))
    assert [(t.name, list(t.x)) for t in fig.data[:3]] == [
        ("entries", [3]),
        ("free (up to the load factor)", [0]),
        ("reserve (above the load factor)", [1]),
    ]
    assert list(trace(fig, "in the map").x) == [0, 1, 2]
    missed = trace(fig, LABELS["missed"])
    assert (list(missed.x), list(missed.hovertext), missed.marker.color) == ([3, 4, 5], ["k3", "k4", "k5"], COLORS["missed"])
    assert [(s.name, s.x0, s.x1) for s in fig.layout.shapes] == [("cleanable range", 0, 12), ("pass stopped: map full", 3, 3)]
    assert "Buffer utilization: 75.0%" in fig.layout.title.text


def test_dirty_ratio_bars_mark_the_filthiest(fruit):
    considered = [log_to_clean(f.log, now_ms=f.now_ms) for f in (fruit[15], fruit[6], fruit[17])]
    fig = dirty_ratio_figure(considered)
    bars = trace(fig, "dirty ratio")
    assert list(bars.y) == pytest.approx([0.6674, 1.0, 0.0], abs=1e-4)
    assert list(bars.marker.color) == [COLORS["cleanable"], COLORS["cleanable"], COLORS["uncleanable"]]
    assert list(bars.marker.line.width) == [0, 3, 0]
    assert list(trace(fig, "min.cleanable.dirty.ratio").y) == [0.5, 0.5, 0.5]
    assert [a.text for a in fig.layout.annotations] == ["filthiest"]


def test_dirty_ratio_over_time_marks_passes_rolls_and_deadlines(fruit):
    fig = dirty_ratio_timeline_figure(dirtiness_series(fruit))
    passes, rolls = trace(fig, LABELS["pass"]), trace(fig, LABELS["roll"])
    assert list(passes.x) == [WEEK + 1, 2 * WEEK + 2]
    assert list(passes.y) == pytest.approx([1.0, 0.6674], abs=1e-4)
    assert list(rolls.x) == [WEEK + 1, 2 * WEEK + 2]
    log = compacted_log(max_compaction_lag_ms=1000)
    log.append([rec("a", timestamp=0)], now_ms=0)
    deadline = dirty_ratio_timeline_figure(dirtiness_series(list(pass_frames(log, now_ms=5000))))
    assert [(s.name, s.x0) for s in deadline.layout.shapes] == [(LABELS["deadline"], 1000)]


def test_pass_diff_figure(fruit):
    fig = pass_diff_figure(pass_diff(fruit[7].log, fruit[8].log, fruit[8].passes[0]))
    before, after = trace(fig, "segments before"), trace(fig, "segments after")
    assert (list(before.base), list(before.x), list(before.text)) == ([0, 4], [4, 1], ["305 B", "77 B"])
    assert list(after.text) == ["154 B", "77 B"]
    assert list(trace(fig, "removed record").x) == [0, 1]
    assert list(trace(fig, "rewritten batch").x) == [2]
    assert [(s.name, s.x0, s.x1) for s in fig.layout.shapes] == [("group 1", 0, 4)]


def test_cleaner_stats_table_holds_kafkas_log_line(fruit):
    result = fruit[8].passes[0]
    fig = cleaner_stats_figure(result)
    lines, counters = fig.data
    assert list(lines.cells.values[0])[0] == "Log cleaner thread 0 cleaned log fruit-prices-0 (dirty section = [0, 4])"
    assert "Buffer utilization: 0.0%" in list(lines.cells.values[0])
    names, values = (list(v) for v in counters.cells.values)
    assert dict(zip(names, values))["messages_read"] == "4" and dict(zip(names, values))["messages_written"] == "2"


def test_key_history_under_each_strategy():
    """KIP-280 example: offset keeps the stale 'old' (offset 1); timestamp and header keep 'new' (offset 0)."""
    path = SCENARIOS / "kip280-out-of-order.json"
    histories = {
        s: record_lifetimes(Timeline(scenario_frames(path, topic=f"prices-{s}")).compute_all(), key=b"k")
        for s in ("offset", "timestamp", "header")
    }
    fig = key_history_figure(histories)
    assert [(t.name, list(t.x), list(t.y)) for t in fig.data] == [
        ("offset: survives", [1], [1000]),
        ("offset: removed", [0], [2000]),
        ("timestamp: survives", [0], [2000]),
        ("timestamp: removed", [1], [1000]),
        ("header: survives", [0], [2000]),
        ("header: removed", [1], [1000]),
    ]
    assert trace(fig, "offset: removed").marker.color == COLORS["superseded"]


def test_tombstone_timeline(fruit):
    fig = tombstone_timeline_figure(record_lifetimes(fruit, tombstones=True), now_ms=fruit[-1].now_ms)
    written, stamped, removable = fig.data[:3]
    assert (list(written.y), list(written.base), list(written.x)) == (["grape @ 2"], [0], [WEEK + 1])
    assert (list(stamped.base), list(stamped.x)) == ([WEEK + 1], [DAY])
    assert (list(removable.base), list(removable.x)) == ([WEEK + 1 + DAY], [WEEK + 1 - DAY])
    assert list(trace(fig, "removed").x) == [2 * WEEK + 2]
    assert stamped.marker.color == COLORS["tombstone"]


def test_what_if_side_by_side(fruit):
    relaxed = dirtiness_series(fruit)
    strict = dirtiness_series(Timeline(scenario_frames(SCENARIOS / "fruit-prices.json", topic_config={"min.cleanable.dirty.ratio": 0.9})).compute_all())
    fig = what_if_figure({"0.5": relaxed, "0.9": strict})
    duplicates = [t for t in fig.data if t.name == "duplicates stored"]
    assert [list(t.y)[-1] for t in duplicates] == [1, 3]
    assert [t.xaxis for t in duplicates] == ["x3", "x4"]
    assert [a.text for a in fig.layout.annotations] == ["0.5", "0.9"]
