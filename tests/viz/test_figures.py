"""Figures carry the right offsets, outcomes, sizes, labels and colors (assertions on fig.data / fig.layout).

How the figures look is checked in a browser (``test_figures_in_browser.py``) and by the rules of
``rules.py``; here each figure's data is pinned against what the cleaner does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kcompact_nb.core import (
    OffsetMapSpec,
    Outcome,
    Timeline,
    TopicConfig,
    dirtiness_series,
    layout_scale,
    log_to_clean,
    offset_buckets,
    offset_map_view,
    pass_diff,
    pass_frames,
    record_lifetimes,
)
from kcompact_nb.io import ReadOptions, read_log_dir
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
    transaction_figure,
    what_if_figure,
)
from kcompact_nb.viz._dirty import step_line
from tests.conftest import CountingStorage, compacted_log, rec

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
SCENARIOS = SAMPLES / "scenarios"
WEEK, DAY = 604_800_000, 86_400_000
NOW_MS = 1_767_225_660_000


@pytest.fixture(scope="module")
def fruit():
    return Timeline(scenario_frames(SCENARIOS / "fruit-prices.json")).compute_all()


def trace(fig, name):
    (found,) = [t for t in fig.data if t.name == name]
    return found


def names(fig):
    return [t.name for t in fig.data]


def annotation_texts(fig):
    return [a.text for a in fig.layout.annotations]


def sample(name, stage, partition):
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "segment.ms": 100, "delete.retention.ms": 0})
    return read_log_dir(SAMPLES / "kafka" / name / stage, ReadOptions(config=config)).logs[partition]


def test_layout_before_the_first_pass(fruit):
    """Frame 6: cleanable [0, 4) in segment 0 (305 B), active segment 4 (77 B); what the pass will do."""
    frame = fruit[6]
    fig = layout_figure(frame.log, now_ms=frame.now_ms)
    cleanable, active = trace(fig, LABELS["cleanable"]), trace(fig, LABELS["active"])
    assert (list(cleanable.x), list(cleanable.width), list(cleanable.y), cleanable.marker.color) == (
        [1.5],
        [4],
        [305],
        COLORS["cleanable"],
    )
    assert (list(active.x), list(active.width), list(active.y)) == ([4.0], [1], [77])
    assert list(trace(fig, LABELS["removed by the next pass"]).x) == [0, 1]
    assert list(trace(fig, LABELS["tombstone kept until its delete horizon"]).x) == [2]
    superseded_kept = trace(fig, LABELS[Outcome.NEWER_BEYOND.value])
    assert (list(superseded_kept.x), superseded_kept.marker.color) == ([3], COLORS[Outcome.NEWER_BEYOND.value])
    assert COLORS[Outcome.NEWER_BEYOND.value] != COLORS[Outcome.REMOVED.value]  # issue 15: they were one color
    assert list(trace(fig, LABELS["kept"]).x) == [4]
    assert list(trace(fig, LABELS["tombstone"]).x) == [2]  # the tombstone's outline in the legend of kinds
    texts = annotation_texts(fig)
    assert "<b>log head</b> (not yet cleaned)" in texts and "cleanable" in texts and "active segment" in texts
    assert "cleaner point 0" in texts and "first uncleanable offset 4" in texts
    assert fig.layout.title.text == "fruit-prices-0 at t = 7 d 1 ms"
    assert fig.layout.title.subtitle.text.startswith("dirty ratio 1.00 vs min.cleanable.dirty.ratio 0.5: eligible")


def test_cells_carry_key_value_and_the_reason(fruit):
    frame = fruit[6]
    fig = layout_figure(frame.log, now_ms=frame.now_ms)
    removed = trace(fig, LABELS["removed by the next pass"])
    assert list(removed.text) == ["grape<br>$2.69", "lime<br>$0.49"]
    assert list(removed.hovertext) == [
        "offset 0: key grape, value $2.69<br>removed by the next pass: "
        "superseded by offset 2, its key's entry in the pass's<br>offset map",
        "offset 1: key lime, value $0.49<br>removed by the next pass: "
        "superseded by offset 3, its key's entry in the pass's<br>offset map",
    ]
    waiting = trace(fig, LABELS["tombstone kept until its delete horizon"])
    assert list(waiting.text) == ["grape<br>null"]
    assert (waiting.marker.line.color, waiting.marker.line.width) == (COLORS["tombstone"], 3)


def test_equal_cleaner_point_and_first_uncleanable_offset_share_one_label(fruit):
    """Frame 8 (after pass 1): checkpoint 4 = first uncleanable 4; one line label, never two on top of each other."""
    frame = fruit[8]
    fig = layout_figure(frame.log, now_ms=frame.now_ms)
    texts = annotation_texts(fig)
    assert "cleaner point 4 = first uncleanable offset 4" in texts
    assert not any(t.startswith("first uncleanable") for t in texts)
    assert [(s.name, s.x0) for s in fig.layout.shapes if s.type == "line" and s.name.startswith("cleaner point")] == [
        ("cleaner point 4 = first uncleanable offset 4", 3.5)
    ]
    clean = trace(fig, LABELS["clean"])
    assert (list(clean.x), list(clean.y), clean.marker.color) == ([1.5], [154], COLORS["clean"])
    assert "<b>log tail</b> (cleaned)" in texts


def test_gaps_say_what_a_fetch_from_a_removed_offset_returns():
    """compaction-basic after Kafka's pass: offsets 0-23 and 26 are gone.

    The seed's point: a fetch returns the next record.
    """
    after = sample("compaction-basic", "after", "basic-0")
    fig = layout_figure(after, now_ms=NOW_MS)
    gaps = trace(fig, LABELS["gap"])
    assert (list(gaps.x), list(gaps.width)) == ([11.5, 26.0], [24, 1])
    assert list(gaps.hovertext) == [
        "offsets 0-23: no record (removed by compaction); a fetch from 0 returns offset<br>24, the next record",
        "offset 26: no record (removed by compaction); a fetch from 26 returns offset 27,<br>the next record",
    ]
    assert list(trace(fig, LABELS[Outcome.BEYOND.value]).x) == [24]  # newer k0@31 is active: nothing is cleanable


def test_before_and_after_on_one_scale():
    before, after = sample("compaction-basic", "before", "basic-0"), sample("compaction-basic", "after", "basic-0")
    scale = layout_scale(before, after)
    figures = [layout_figure(log, now_ms=NOW_MS, scale=scale) for log in (before, after)]
    assert [list(f.layout.xaxis.range) for f in figures] == [[-0.5, 31.5], [-0.5, 31.5]]
    assert [f.layout.yaxis.range for f in figures] == [None, None]  # bytes autorange, both reaching the largest segment
    assert [f.layout.yaxis.autorangeoptions.include for f in figures] == [
        (0, 440),
        (0, 440),
    ]  # Kafka's cleaned segment 0


def test_offsets_tick_at_integers(fruit):
    fig = layout_figure(fruit[6].log, now_ms=fruit[6].now_ms)
    assert (fig.layout.xaxis.tickmode, fig.layout.xaxis.tick0, fig.layout.xaxis.dtick) == ("linear", 0, 1)
    big = compacted_log()
    for i in range(300):
        big.append([rec(f"k{i % 10}")], now_ms=0)
    assert layout_figure(big, now_ms=0).layout.xaxis.dtick == 20


def test_layout_by_key_gives_each_key_a_color_and_a_legend_entry():
    log = compacted_log()
    for key in ("a", "b", "a", "c"):
        log.append([rec(key)], now_ms=0)
    fig = layout_figure(log, now_ms=0, color_by="key")
    keys = [t for t in fig.data if t.legendgroup == "keys"]
    assert [(t.name, list(t.x), t.marker.color) for t in keys] == [
        ("a", [0, 2], key_color(0)),
        ("b", [1], key_color(1)),
        ("c", [3], key_color(2)),
    ]


def test_transactional_sample_draws_markers_aborted_data_and_the_empty_batch():
    before, after = sample("transactional", "before", "txn-0"), sample("transactional", "after", "txn-0")
    fig = layout_figure(before, now_ms=NOW_MS)
    assert list(trace(fig, LABELS["aborted"]).x) == [3, 4]
    assert list(trace(fig, LABELS["marker"]).x) == [2, 5]
    assert list(trace(fig, LABELS["removed by the next pass"]).x) == [3, 4]
    kept = trace(fig, LABELS["kept"])  # plain data first (the legend shows the first cell), then the markers
    assert (list(kept.x), list(kept.marker.pattern.shape), list(kept.text)) == (
        [0, 1, 6, 2, 5],
        ["", "", "", ".", "."],
        ["x0<br>committed", "x1<br>committed", "z<br>roll", "COMMIT", "ABORT"],
    )
    batches = trace(fig, "batches")
    assert list(batches.x) == [0.5, 2.0, 3.5, 5.0, 6.0]
    both = transaction_figure(before, after, now_ms=NOW_MS)
    (empty,) = [t for t in both.data if t.name == LABELS["empty batch"]]
    assert (list(empty.x), list(empty.hovertext)) == (
        [3.5],
        [
            "empty batch at offsets 3-4: its records are gone, its 61 B header stays: the<br>last batch of producer 3 "
            "(rule A): Kafka keeps it, empty, so the producer's<br>sequence and epoch survive, until "
            "producer.id.expiration.ms expires the<br>producer; it stays while nothing is appended: no pass reads it"
        ],
    )
    stages = [a.text for a in both.layout.annotations if a.name in ("before the pass", "after the pass")]
    assert stages == [
        "<b>before the pass</b>: 1 committed, 1 COMMIT, 1 aborted, 1 ABORT",
        "<b>after the pass</b>: 1 committed, 1 COMMIT, 1 aborted, 1 ABORT, 1 empty batch",
    ]
    batches_before, batches_after = [t for t in both.data if t.name == "batches"]
    assert list(batches_before.text)[:3] == ["committed txn<br>97 B", "COMMIT<br>78 B", "aborted txn<br>93 B"]
    assert list(batches_after.text)[2] == "aborted txn<br>61 B"


def test_a_large_log_is_drawn_from_buckets_with_its_segments_and_ranges():
    log = compacted_log(segment_bytes=1_048_576, internal_segment_bytes=4_000)
    for i in range(300):
        log.append([rec(f"k{i % 10}", timestamp=0)], now_ms=0)
    fig = layout_figure(log, now_ms=0, max_records=100, bucket_count=3)
    live = trace(fig, "latest of their key")
    assert (live.type, list(live.x), list(live.width), list(live.y)) == (
        "bar",
        [49.5, 149.5, 249.5],
        [100, 100, 100],
        [0, 0, 10],
    )
    ltc = log_to_clean(log, now_ms=0)
    segments = [t for t in fig.data if t.name in (LABELS["cleanable"], LABELS["active"])]
    assert sum(len(t.x) for t in segments) == len(log.segments)
    superseded = trace(fig, "superseded: a later record of their key exists")
    beyond = [t for t in fig.data if t.name == "superseded, beyond the cleanable range: kept"]
    assert sum(superseded.y) + sum(sum(t.y) for t in beyond) == 290
    assert f"first uncleanable offset {ltc.first_uncleanable_offset}" in annotation_texts(fig)


def test_bucket_rows_with_segments_and_ranges_from_tables():
    pandas = pytest.importorskip("pandas")
    log = compacted_log(internal_segment_bytes=300)
    for i in range(12):
        log.append([rec(f"k{i % 2}", None if i == 11 else "v", timestamp=0)], now_ms=0)
    rows = [r._asdict() for r in offset_buckets(log, bucket_count=3)]
    segments = [{"segment_base_offset": s.base_offset, "size_bytes": s.size_bytes} for s in log.segments]
    ranges = {"first_dirty_offset": 0, "first_uncleanable_offset": log.active_segment.base_offset}
    for source in (rows, pandas.DataFrame(rows)):
        fig = layout_figure(source, segments=pandas.DataFrame(segments), ranges=pandas.DataFrame([ranges]))
        assert [
            (t.name, [int(v) for v in t.y])
            for t in fig.data
            if t.legendgroup != "segments" and t.type == "bar" and t.yaxis == "y3"
        ] == [
            ("latest of their key", [0, 0, 1]),
            ("superseded: a later record of their key exists", [4, 4, 0]),
            ("superseded, beyond the cleanable range: kept", [0, 0, 2]),
            ("tombstones (latest of their key)", [0, 0, 1]),
        ]
        assert "cleaner point 0" in annotation_texts(fig)
    with pytest.raises(ValueError, match=r"lack columns \['live'.*present"):
        layout_figure([{k: v for k, v in rows[0].items() if k != "live"}])
    with pytest.raises(ValueError, match="ranges must describe one partition, got 2 rows"):
        layout_figure(rows, ranges=[ranges, ranges])


def partial_pass_frames():
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    return Timeline(pass_frames(log, now_ms=0, offset_map=OffsetMapSpec(slots=4))).compute_all()


def test_offset_map_figure_names_keys_and_labels_its_capacity():
    frame = partial_pass_frames()[1]
    fig = offset_map_figure(offset_map_view(frame.passes[0], frame.log))
    assert [(t.name, list(t.x), list(t.text)) for t in fig.data if t.xaxis == "x4"] == [
        ("entries", [3], ["3 entries"]),
        (LABELS["reserve"], [1], ["1 reserve"]),
    ]
    in_map = trace(fig, "in the map: its latest offset")
    assert (list(in_map.x), list(in_map.text)) == ([0, 1, 2], ["k0", "k1", "k2"])
    missed = trace(fig, LABELS["missed"])
    assert (list(missed.x), list(missed.text), missed.marker.color) == ([3, 4, 5], ["k3", "k4", "k5"], COLORS["missed"])
    assert fig.layout.title.subtitle.text.startswith(
        "4 slots of 24 B, 3 usable at load factor 0.9 · Buffer utilization 75.0%"
    )
    assert "the pass stopped at 3: offset map full" in annotation_texts(fig)
    assert "cleanable range [0, 12)" in annotation_texts(fig)


def test_dirty_ratio_bars_one_color_and_the_filthiest(fruit):
    considered = [log_to_clean(f.log, now_ms=f.now_ms) for f in (fruit[15], fruit[17])]
    considered[1] = type(considered[1])(**{**considered[1].__dict__, "topic": "other"})
    fig = dirty_ratio_figure(considered)
    bars = trace(fig, "dirty ratio")
    assert list(bars.y) == pytest.approx([0.6674, 0.0], abs=1e-4)
    assert (bars.marker.color, list(bars.marker.opacity)) == (COLORS["dirty ratio"], [1.0, 0.4])
    assert list(bars.marker.line.width) == [3, 0]
    assert list(trace(fig, "min.cleanable.dirty.ratio").y) == [0.5, 0.5]
    assert annotation_texts(fig) == ["<b>filthiest</b>: cleaned next"]
    assert fig.layout.yaxis.title.text == "dirty ratio" and fig.layout.yaxis.range is None


def test_dirty_ratio_over_time_in_days_with_passes_rolls_and_deadlines(fruit):
    fig = dirty_ratio_timeline_figure(dirtiness_series(fruit))
    assert fig.layout.xaxis.title.text == "time (d since t = 0)"
    passes, rolls = trace(fig, LABELS["pass"]), trace(fig, LABELS["roll"])
    assert list(passes.x) == pytest.approx([(WEEK + 1) / DAY, (2 * WEEK + 2) / DAY])
    assert list(passes.y) == pytest.approx([1.0, 0.6674], abs=1e-4)
    assert list(passes.hovertext) == ["pass at t = 7 d 1 ms", "pass at t = 14 d 2 ms"]
    assert list(rolls.x) == list(passes.x) and list(rolls.y) == [0.0, 0.0]
    assert trace(fig, "dirty ratio").line.color == COLORS["dirty ratio"]
    log = compacted_log(max_compaction_lag_ms=1000)
    log.append([rec("a", timestamp=1)], now_ms=1)
    log.roll(now_ms=1)
    log.append([rec("b", timestamp=1)], now_ms=1)
    deadline = dirty_ratio_timeline_figure(dirtiness_series(list(pass_frames(log, now_ms=5000))))
    assert (deadline.layout.xaxis.title.text, list(trace(deadline, LABELS["deadline"]).x)) == (
        "time (s since t = 0)",
        [1.002, 1.002, None],  # overdue at 1 + 1000 + 1 ms, when the engine finds it so (timestamps 0 never count)
    )


def test_pass_diff_figure(fruit):
    fig = pass_diff_figure(pass_diff(fruit[7].log, fruit[8].log, fruit[8].passes[0]))
    before, after = trace(fig, "segments before"), trace(fig, "segments after")
    assert (list(before.x), list(before.width), list(before.text)) == (
        [1.5, 4.0],
        [4, 1],
        ["segment 0<br>305 B", "segment 4<br>77 B"],
    )
    assert list(after.text) == ["segment 0<br>154 B", "segment 4<br>77 B"]
    assert list(trace(fig, "removed record").x) == [0, 1]
    assert list(trace(fig, "rewritten batch (records dropped or horizon stamped)").x) == [2]
    assert "group 1" in annotation_texts(fig)
    assert fig.layout.title.subtitle.text.startswith("2 records removed · 382 B → 231 B")


def test_cleaner_stats_in_peoples_units_every_row_shown(fruit):
    result = fruit[8].passes[0]
    fig = cleaner_stats_figure(result)
    lines, counters = fig.data
    assert (
        next(iter(lines.cells.values[0])) == "Log cleaner thread 0 cleaned log fruit-prices-0 (dirty section = [0, 4])"
    )
    rows = dict(zip(*(list(v) for v in counters.cells.values[:2]), strict=False))
    assert (rows["bytes_read"], rows["messages_read"], rows["messages_written"], rows["buffer_utilization"]) == (
        "305 bytes",
        "4",
        "2",
        "0.0%",
    )
    assert fig.layout.height >= 100 + 28 * 2 + 24 * (len(list(lines.cells.values[0])) + len(rows)) + 30
    assert "Infinity MB/sec and NaN%" in annotation_texts(fig)[0]


def test_key_history_under_each_strategy():
    """KIP-280 example: offset keeps the stale 'old' (offset 1); timestamp and header keep 'new' (offset 0)."""
    path = SCENARIOS / "kip280-out-of-order.json"
    histories = {
        s: record_lifetimes(Timeline(scenario_frames(path, topic=f"prices-{s}")).compute_all(), key=b"k")
        for s in ("offset", "timestamp", "header")
    }
    fig = key_history_figure(histories)
    assert [(t.name, list(t.x), list(t.y), list(t.text)) for t in fig.data] == [
        ("still stored after the last step", [1], [1.0], ["old"]),
        ("removed by a pass", [0], [2.0], ["new"]),
        ("still stored after the last step", [0], [2.0], ["new"]),
        ("removed by a pass", [1], [1.0], ["old"]),
        ("still stored after the last step", [0], [2.0], ["new"]),
        ("removed by a pass", [1], [1.0], ["old"]),
    ]
    assert [t.showlegend for t in fig.data] == [True, True, False, False, False, False]
    assert fig.layout.yaxis.title.text == "record timestamp (s since t = 0)"
    # whole seconds, not plotly's 1, 1.2, ..., 2 for timestamps 1 s and 2 s apart (issue #39)
    assert [(a.tickmode, a.tick0, a.dtick) for a in (fig.layout.yaxis, fig.layout.yaxis2, fig.layout.yaxis3)] == [
        ("linear", 0, 1)
    ] * 3


def test_tombstone_lifecycle(fruit):
    fig = tombstone_timeline_figure(record_lifetimes(fruit, tombstones=True), now_ms=fruit[-1].now_ms)
    phases = [t for t in fig.data if t.type == "bar"]
    assert [(t.name, list(t.base), list(t.x)) for t in phases] == [
        ("appended: no pass has stamped its delete horizon yet", [0.0], [pytest.approx((WEEK + 1) / DAY)]),
        (
            "delete.retention.ms after the stamping pass: guaranteed to lagging consumers",
            [pytest.approx((WEEK + 1) / DAY)],
            [pytest.approx(1.0)],
        ),
        (
            "past its delete horizon: the first pass that reaches it removes it",
            [pytest.approx((WEEK + 1 + DAY) / DAY)],
            [pytest.approx((WEEK + 1 - DAY) / DAY)],
        ),
    ]
    assert list(fig.layout.yaxis.ticktext) == ["grape @ offset 2"]
    assert sorted(a.text for a in fig.layout.annotations) == [
        "appended",
        "delete horizon",
        "pass stamps the horizon",
        "removed by a pass",
    ]
    assert fig.layout.title.subtitle.text.startswith("delete.retention.ms 1 d:")


def test_what_if_rows_autorange_and_share_one_time_scale(fruit):
    relaxed = dirtiness_series(fruit)
    strict = dirtiness_series(
        Timeline(
            scenario_frames(SCENARIOS / "fruit-prices.json", topic_config={"min.cleanable.dirty.ratio": 0.9})
        ).compute_all()
    )
    fig = what_if_figure({"0.5": relaxed, "0.9": strict})
    duplicates = [t for t in fig.data if t.name == "superseded records stored"]
    assert [list(t.y)[-1] for t in duplicates] == [1, 3]
    assert [t.xaxis for t in duplicates] == ["x3", "x4"]
    layout = fig.layout
    assert [layout[f"yaxis{s}"].range for s in ("", "2", "3", "4")] == [None] * 4
    assert [layout[f"yaxis{s}"].autorange for s in ("", "2", "3", "4")] == [True] * 4
    assert layout.yaxis.autorangeoptions.include == (0, 1)
    assert [a.text for a in layout.annotations] == ["0.5", "0.9"]
    assert [t.showlegend for t in fig.data if t.name == "cleaner pass"] == [True, False]
    assert fig.layout.title.text == "What if: 0.5 vs 0.9"


def test_what_if_lines_are_drawn_from_the_steps_where_they_change():
    """slow-topic.json (194 steps): each step line holds only its changes (and the ends), and read as a step function it
    gives the series' value after the last step at each time (steps at one time draw a vertical run); every pass keeps
    its marker."""
    series = {
        label: dirtiness_series(Timeline(scenario_frames(SCENARIOS / "slow-topic.json", topic_config=c)).compute_all())
        for label, c in {"12 h": {"segment.ms": 43_200_000}, "lag 1 d": {"max.compaction.lag.ms": 86_400_000}}.items()
    }
    fig = what_if_figure(series)
    lines = {
        (t.name, t.xaxis): t
        for t in fig.data
        if t.name in (LABELS["dirty ratio"], LABELS["min.cleanable.dirty.ratio"], LABELS["duplicates"])
    }
    for column, points in enumerate(series.values()):
        top, bottom = ("x", "x3") if column == 0 else ("x2", "x4")
        for (name, axis), value in [
            ((LABELS["dirty ratio"], top), lambda p: p.cleanable_ratio),
            ((LABELS["min.cleanable.dirty.ratio"], top), lambda p: p.min_cleanable_dirty_ratio),
            ((LABELS["duplicates"], bottom), lambda p: p.duplicates),
        ]:
            line = lines[name, axis]
            assert line.line.shape == "hv" and len(line.x) < len(points) / 2
            last_at_their_time = [
                p
                for p, after in zip(points, [*points[1:], None], strict=True)
                if after is None or after.now_ms > p.now_ms
            ]
            hours = [p.now_ms / 3_600_000 for p in last_at_their_time]  # the axis's unit
            assert [_step_value(line, at) for at in hours] == [value(p) for p in last_at_their_time]
    assert [len(t.x) for t in fig.data if t.name == LABELS["pass"]] == [
        sum(len(p.pass_ms) for p in points) for points in series.values()
    ]


def _step_value(line, x):
    """The value a step line (``hv``) draws at ``x``: its last point's at or before ``x`` (the last of equal xs)."""
    return [y for at, y in zip(line.x, line.y, strict=True) if at <= x + 1e-9][-1]


@given(st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_a_step_line_keeps_the_value_of_every_point(values):
    x = [float(i) for i in range(len(values))]
    asked = []
    line = step_line(x, values, lambda i: asked.append(i) or f"step {x[i]}")
    assert line["x"][0] == 0 and line["x"][-1] == len(values) - 1
    assert all(a != b for a, b in zip(line["y"][:-2], line["y"][1:-1], strict=True))  # a change at each inner point
    assert [[y for at, y in zip(line["x"], line["y"], strict=True) if at <= i][-1] for i in x] == values
    assert line["hovertext"] == [f"step {i}" for i in line["x"]]
    assert asked == [int(i) for i in line["x"]]  # the texts of the points kept, no others


def test_a_long_title_stays_clear_of_plotlys_toolbar(fruit):
    """Issue #39: the toolbar drawn across the top covered the end of a title naming four configs; it runs down the
    right margin, and a what-if figure of more than two configs is titled by their count (columns name them)."""
    series = dirtiness_series(fruit)
    labels = ["defaults", "segment.ms 12 h", "segment.ms 12 h, ratio 0.1", "max.compaction.lag.ms 24 h"]
    fig = what_if_figure(dict.fromkeys(labels, series))
    assert fig.layout.title.text == "What if: 4 configs side by side"
    assert [a.text.replace("<br>", " ") for a in fig.layout.annotations[:4]] == labels
    assert fig.layout.modebar.orientation == "v" and layout_figure(fruit[6].log).layout.modebar.orientation == "v"


def test_dirty_ratio_from_a_dirtiness_table_as_spark_returns_it():
    """Notebook 07's ``dirtiness`` rows (dicts or a DataFrame) draw like LogToClean values; the filthiest is named;
    a row overdue per ``max.compaction.lag.ms`` (its ``compaction_delay_ms``) is eligible below the ratio."""
    pandas = pytest.importorskip("pandas")
    rows = [
        {"topic": "orders", "partition": 1, "first_dirty_offset": 0, "first_uncleanable_offset": 40_000,
         "clean_bytes": 0, "cleanable_bytes": 1_000, "total_bytes": 1_000,
         "cleanable_ratio": 1.0, "eligible": True},
        {"topic": "orders", "partition": 0, "first_dirty_offset": 20_000, "first_uncleanable_offset": 45_000,
         "clean_bytes": 3_000, "cleanable_bytes": 1_000, "total_bytes": 4_000,
         "cleanable_ratio": 0.25, "eligible": False},
    ]  # fmt: skip
    for source in (rows, pandas.DataFrame(rows)):
        fig = dirty_ratio_figure(source, min_cleanable_dirty_ratio=0.5)
        bars = trace(fig, "dirty ratio")
        assert (list(bars.x), list(bars.y), list(bars.marker.line.width)) == (
            ["orders-0", "orders-1"],
            [0.25, 1.0],
            [0, 3],
        )
    overdue = [rows[0], rows[1] | {"compaction_delay_ms": 60_000}]  # max.compaction.lag.ms passed a minute ago
    assert list(trace(dirty_ratio_figure(overdue), "dirty ratio").marker.opacity) == [1.0, 1.0]
    with pytest.raises(ValueError, match=r"dirtiness rows lack columns \['clean_bytes'"):
        dirty_ratio_figure([{k: v for k, v in rows[0].items() if k != "clean_bytes"}])


def test_tombstone_lifecycle_draws_every_pass(fruit):
    """The passes just after 7 d and 14 d (fruit-prices.json) are lines across the row.

    The first stamps, the second removes.
    """
    passes = [p.start_ms for frame in fruit for p in frame.passes]
    fig = tombstone_timeline_figure(record_lifetimes(fruit, tombstones=True), now_ms=fruit[-1].now_ms, passes_ms=passes)
    (lines,) = [t for t in fig.data if t.name == "cleaner pass"]
    assert list(lines.x) == [x for t in passes for x in (pytest.approx(t / DAY), pytest.approx(t / DAY), None)]
    assert [text for text in lines.hovertext if text] == [
        f"cleaner pass at t = {t}" for t in ("7 d 1 ms", "7 d 1 ms", "14 d 2 ms", "14 d 2 ms")
    ]
    assert lines.showlegend is not False


def test_long_hover_lines_are_wrapped_and_markers_are_named_by_their_type():
    """A hover label is one line per <br>, cut at the figure's edges: no line longer than 80 characters; a
    transaction marker reads COMMIT or ABORT, not its key's and value's bytes; a tombstone's value reads null."""
    from kcompact_nb.viz._arrays import HOVER_CHARS, wrapped_hovers

    text = "offset 30: key k2<br>" + " ".join(["removed: a long reason"] * 12)
    lines = wrapped_hovers(text).split("<br>")
    assert lines[0] == "offset 30: key k2" and max(map(len, lines)) <= HOVER_CHARS
    assert " ".join(lines[1:]) == " ".join(["removed: a long reason"] * 12)
    short = ["offset 1: key a, value b"]
    assert wrapped_hovers(short) is short
    log = sample("transactional", "before", "txn-0")
    fig = layout_figure(log, now_ms=NOW_MS)
    hovers = [h for t in fig.data if t.hovertext is not None for h in t.hovertext]
    assert all(len(line) <= HOVER_CHARS for h in hovers for line in h.split("<br>"))
    markers = [h for h in hovers if " marker " in h]
    assert markers and all(h.split("<br>")[0].split(": ")[1] in MARKER_HOVERS for h in markers)
    assert not [h for h in hovers if "0x00000000" in h]


SPACED_WORDS = st.lists(st.text(alphabet="ab-", min_size=1, max_size=8), min_size=1, max_size=12).map(" ".join)


@given(st.one_of(SPACED_WORDS, st.text(alphabet="ab -\t\n\xa0", max_size=60)), st.integers(min_value=1, max_value=20))
def test_a_hover_line_breaks_where_textwrap_breaks_it(line, chars):
    """The greedy break of single-spaced words is ``textwrap``'s, and any other line goes to ``textwrap`` itself."""
    import textwrap

    from kcompact_nb.viz._arrays import _wrapped_line

    expected = "<br>".join(textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False)) or line
    assert _wrapped_line(line, chars) == expected


MARKER_HOVERS = ("COMMIT marker (transaction control record)", "ABORT marker (transaction control record)")


@pytest.mark.parametrize(
    ("name", "stage", "figure"),
    [
        ("compaction-basic", "before", lambda log: layout_figure(log, now_ms=NOW_MS)),
        ("compaction-basic", "before", lambda log: layout_figure(log, now_ms=NOW_MS, max_records=5)),
        ("compaction-basic", "after", lambda log: layout_figure(log, now_ms=NOW_MS, max_records=10)),
        ("transactional", "before", lambda log: transaction_figure(log, now_ms=NOW_MS)),
    ],
    ids=["records", "buckets", "records-counted", "transactions"],
)
def test_a_figure_walks_the_log_once(name, stage, figure):
    """Issue #38: a figure reads each segment's batches from the log's storage once, whether it draws records (the
    next pass's outcomes, transaction states, batches) or offset buckets (32 records over offsets [0, 32) above
    max_records 5), or first counts them (7 records left over [0, 32), at most max_records 10: drawn one by one)."""
    (log,) = read_log_dir(SAMPLES / "kafka" / name / stage).logs.values()
    log.storage = storage = CountingStorage()
    figure(log)
    assert storage.reads == {segment.base_offset: 1 for segment in log.segments}
