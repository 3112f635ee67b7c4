"""Every figure, built from the bundled samples and scenarios, passes every rule of ``rules.py``; and each
rule catches the defect it names (the figures this package drew before issue 15 fail them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from kcompact_nb import (
    NewRecord,
    OffsetMapSpec,
    PartitionLog,
    Simulation,
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
    viz,
)
from kcompact_nb.io import ReadOptions, read_log_dir
from kcompact_nb.scenario import scenario_frames
from tests.viz import rules

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"
SCENARIOS = SAMPLES / "scenarios"
NOW_MS = 1_767_225_660_000
HOUR = 3_600_000
KAFKA_CONFIG = {
    "cleanup.policy": "compact",
    "segment.ms": 100,
    "min.compaction.lag.ms": 0,
    "delete.retention.ms": 0,
    "min.cleanable.dirty.ratio": 0.01,
}


def _fruit() -> tuple:
    return Timeline(scenario_frames(SCENARIOS / "fruit-prices.json")).compute_all()


def _sample(name: str, stage: str, partition: str) -> PartitionLog:
    return read_log_dir(
        SAMPLES / "kafka" / name / stage, ReadOptions(config=TopicConfig.from_properties(KAFKA_CONFIG))
    ).logs[partition]


def _users() -> tuple:
    sim = Simulation(topics={"users": {"internal.segment.bytes": 1200, "min.cleanable.dirty.ratio": 0.01}})
    for version in ("v1", "v2"):
        for i in range(30):
            sim.append("users", [(f"user-{i:02}", version)])
    sim.roll("users")
    return Timeline(pass_frames(sim.log("users"), now_ms=sim.now_ms, offset_map=OffsetMapSpec(slots=16))).compute_all()


def _big_log() -> PartitionLog:
    log = PartitionLog(
        "orders", config=TopicConfig.from_properties({"cleanup.policy": "compact", "internal.segment.bytes": 40_000})
    )
    for i in range(3_000):
        log.append([NewRecord(f"key-{(i * 7919) % 300}".encode(), b"v%d" % i, timestamp=i)], now_ms=i)
    return log


def _what_if() -> go.Figure:
    configs = {
        "defaults": {},
        "segment.ms 12 h": {"segment.ms": 12 * HOUR},
        "max.compaction.lag.ms 24 h": {"max.compaction.lag.ms": 24 * HOUR},
    }
    series = {
        k: dirtiness_series(Timeline(scenario_frames(SCENARIOS / "slow-topic.json", topic_config=c)).compute_all())
        for k, c in configs.items()
    }
    return viz.what_if_figure(series)


def _builders() -> dict[str, Callable[[], go.Figure]]:
    fruit = _fruit()
    before = _sample("compaction-basic", "before", "basic-0")
    after = _sample("compaction-basic", "after", "basic-0")
    scale = layout_scale(before, after)
    txn_before, txn_after = _sample("transactional", "before", "txn-0"), _sample("transactional", "after", "txn-0")
    users = _users()
    big = _big_log()
    considered = [
        dataclasses.replace(log_to_clean(f.log, now_ms=f.now_ms), topic=t)
        for f, t in ((fruit[15], "a"), (fruit[6], "b"), (fruit[17], "c"))
    ]
    tombstones = Timeline(scenario_frames(SCENARIOS / "tombstone-lifecycle.json")).compute_all()
    kip280 = {
        s: record_lifetimes(
            Timeline(scenario_frames(SCENARIOS / "kip280-out-of-order.json", topic=f"prices-{s}")).compute_all(),
            key=b"k",
        )
        for s in ("offset", "timestamp", "header")
    }
    return {
        "layout fruit step 6": lambda: viz.layout_figure(fruit[6].log, now_ms=fruit[6].now_ms),
        "layout fruit step 8": lambda: viz.layout_figure(fruit[8].log, now_ms=fruit[8].now_ms),
        "layout fruit by key": lambda: viz.layout_figure(fruit[15].log, now_ms=fruit[15].now_ms, color_by="key"),
        "layout kafka before": lambda: viz.layout_figure(before, now_ms=NOW_MS, scale=scale),
        "layout kafka after": lambda: viz.layout_figure(after, now_ms=NOW_MS, scale=scale),
        "layout transactional": lambda: viz.layout_figure(txn_before, now_ms=NOW_MS),
        "layout partial pass": lambda: viz.layout_figure(users[1].log, now_ms=0, offset_map=OffsetMapSpec(slots=16)),
        "layout bucketed log": lambda: viz.layout_figure(big, now_ms=3_000, max_records=1_000, bucket_count=60),
        "layout bucket rows": lambda: viz.layout_figure(
            offset_buckets(big, bucket_count=60),
            segments=[{"segment_base_offset": s.base_offset, "size_bytes": s.size_bytes} for s in big.segments],
            ranges=log_to_clean(big, now_ms=3_000),
        ),
        "offset map": lambda: viz.offset_map_figure(offset_map_view(users[1].passes[0], users[1].log)),
        "dirty ratio": lambda: viz.dirty_ratio_figure(considered),
        "dirty ratio timeline": lambda: viz.dirty_ratio_timeline_figure(dirtiness_series(fruit)),
        "pass diff": lambda: viz.pass_diff_figure(pass_diff(fruit[7].log, fruit[8].log, fruit[8].passes[0])),
        "cleaner stats": lambda: viz.cleaner_stats_figure(fruit[8].passes[0]),
        "key history": lambda: viz.key_history_figure(kip280),
        "tombstone lifecycle": lambda: viz.tombstone_timeline_figure(
            record_lifetimes(tombstones, tombstones=True),
            now_ms=tombstones[-1].now_ms,
            passes_ms=[p.start_ms for frame in tombstones for p in frame.passes],
        ),
        "tombstone lifecycle fruit": lambda: viz.tombstone_timeline_figure(
            record_lifetimes(fruit, tombstones=True), now_ms=fruit[-1].now_ms
        ),
        "what if": _what_if,
        "transactions": lambda: viz.transaction_figure(txn_before, txn_after, now_ms=NOW_MS),
    }


BUILDERS = _builders()
LAYOUTS = [name for name in BUILDERS if name.startswith("layout")]


@pytest.fixture(scope="module")
def figures() -> dict[str, go.Figure]:
    return {name: build() for name, build in BUILDERS.items()}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_every_figure_passes_every_rule(figures, name):
    assert rules.problems(figures[name]) == []


@pytest.mark.parametrize("name", [n for n in LAYOUTS if "rows" not in n])
def test_layout_figures_speak_kafka(figures, name):
    fig = figures[name]
    text = " ".join(str(a.text) for a in fig.layout.annotations)
    assert "cleaner point" in text and "active segment" in text
    assert "log head" in text or "log tail" in text


def test_kafkas_four_terms_when_the_log_has_a_tail_and_a_head(figures):
    assert rules.kafka_terms(figures["layout kafka after"]) == []
    assert rules.kafka_terms(figures["layout partial pass"]) == []


# The rules catch the defects issue 15 found.


def test_a_fixed_range_on_one_matched_group_is_caught():
    """What-if before issue 15: range [0, 1.05] on the ratio row froze the duplicates row at [-1, 4]."""
    fig = make_subplots(rows=2, cols=2, shared_yaxes="rows")
    for column in (1, 2):
        fig.add_trace(go.Scatter(x=[0, 1], y=[0.2, 0.9]), row=1, col=column)
        fig.add_trace(go.Scatter(x=[0, 1], y=[0, 72]), row=2, col=column)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    assert rules.matched_groups_all_autorange(fig) == [
        "matched groups ['yaxis'] have a fixed range while ['yaxis3'] autorange: plotly.js leaves those at [-1, 4]"
    ]
    fig.update_yaxes(range=[0, 4], row=2, col=1)
    assert rules.fixed_ranges_exclude_no_data(fig) == [
        "yaxis3 range [0, 4] leaves out None at [72.0]",
        "yaxis4 range [0, 4] leaves out None at [72.0]",  # it matches yaxis3
    ]


def test_labels_at_one_position_are_caught():
    fig = go.Figure(go.Scatter(x=[0, 10], y=[0, 1]))
    fig.update_layout(xaxis={"range": [0, 10]})
    for text in ("first dirty 4", "first uncleanable 4"):
        fig.add_annotation(x=4, y=1, xref="x", yref="paper", text=text, showarrow=False)
    assert rules.no_stacked_labels(fig) == ["labels 'first dirty 4' and 'first uncleanable 4' overlap"]


def test_raw_ms_axes_fractional_offsets_and_empty_legends_are_caught():
    fig = go.Figure([go.Scatter(name="shown", x=[0.0, 1.5], y=[1, 2]), go.Scatter(name="zero-length", x=[], y=[])])
    fig.update_layout(xaxis={"title": {"text": "offset"}}, yaxis={"title": {"text": "simulated time (ms)"}})
    assert rules.no_raw_ms_time_axis(fig) == ["yaxis titled 'simulated time (ms)' is in milliseconds"]
    assert rules.integer_offset_ticks(fig) == ["xaxis: offsets need whole ticks, got dtick=None tick0=None"]
    assert rules.legend_only_for_drawn_traces(fig) == ["legend entry 'zero-length' draws nothing"]
