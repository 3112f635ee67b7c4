"""A forecast's figures draw the forecast's own numbers: sizes, live data, the dirty ratio, passes, busy time,
lifetimes and Kafka's gauges, in units people read, and pass every house rule (``rules.py``)."""

from __future__ import annotations

import numpy
import pytest

from kcompact_nb.core.cleaner import CleanerSpeed
from kcompact_nb.core.forecasting import ProduceModel, ProducerModel, TopicLoad, forecast
from kcompact_nb.viz import (
    forecast_cleaner_figure,
    forecast_lifetimes_figure,
    forecast_metrics_figure,
    forecast_size_figure,
    forecast_what_if_figure,
)
from tests.viz.rules import problems

MODEL = ProduceModel(
    {"t": TopicLoad(records_per_second=300, keys=3_000, tombstone_share=0.1, producer=ProducerModel(linger_ms=100))},
    seed=8,
)
TOPICS = {
    "t": {
        "partitions": 2,
        "config": {"internal.segment.bytes": 60_000, "delete.retention.ms": 20_000, "min.cleanable.dirty.ratio": 0.3},
    }
}
SPEED = CleanerSpeed(pass_ms=50.0, index_bytes_per_second=2e6, clean_bytes_per_second=1e6)


@pytest.fixture(scope="module")
def fc():
    return forecast(MODEL, horizon_ms=240_000, topics=TOPICS, broker={"log.cleaner.backoff.ms": 2_000}, speed=SPEED)


@pytest.fixture(scope="module")
def figures(fc):
    other = forecast(MODEL, horizon_ms=240_000, topics=TOPICS, broker={"log.cleaner.threads": 2}, speed=SPEED)
    return {
        "size": forecast_size_figure(fc),
        "cleaner": forecast_cleaner_figure(fc),
        "lifetimes": forecast_lifetimes_figure(fc),
        "metrics": forecast_metrics_figure(fc),
        "what-if": forecast_what_if_figure({"backoff 2 s": fc, "2 threads": other}),
    }


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


@pytest.mark.parametrize("name", ["size", "cleaner", "lifetimes", "metrics", "what-if"])
def test_forecast_figures_pass_every_rule(figures, name):
    assert problems(figures[name]) == []


def test_the_size_figure_draws_each_partitions_size_live_data_and_dirty_ratio(fc, figures):
    fig = figures["size"]
    assert fig.layout.yaxis.title.text == "bytes (KiB)"
    for timeline in fc.timelines:
        assert list(_trace(fig, f"{timeline.name}: size on disk").y) == pytest.approx(timeline.size_bytes / 1024)
        assert list(_trace(fig, f"{timeline.name}: live data").y) == pytest.approx(timeline.live_bytes / 1024)
        assert list(_trace(fig, f"{timeline.name}: dirty ratio").y) == pytest.approx(timeline.dirty_ratio)
    assert list(_trace(fig, "min.cleanable.dirty.ratio (t)").y) == [0.3, 0.3]
    assert fig.layout.xaxis2.title.text == "time (s since t = 0)"


def test_the_cleaner_figure_draws_each_pass_on_its_thread_and_the_busy_time(fc, figures):
    fig = figures["cleaner"]
    for name in ("t-0", "t-1"):
        mine = [p for p in fc.passes if p.name == name]
        bars = _trace(fig, f"{name}: cleaner pass")
        assert list(bars.base) == [p.start_ms / 1000 for p in mine]
        assert list(bars.x) == pytest.approx([p.duration_ms / 1000 for p in mine])
        assert list(_trace(fig, f"{name}: dirty ratio at pass start").y) == [p.cleanable_ratio for p in mine]
    # 240 s: the busy share of every 10 s (a dozen periods or more)
    busy = _trace(fig, "thread 0: busy")
    assert list(busy.y[:-1]) == pytest.approx(fc.busy_fraction(10_000)[0]) and busy.y[-1] == busy.y[-2]
    assert list(busy.x) == [10 * i for i in range(25)]  # 24 periods, the last drawn up to the horizon
    assert fig.layout.yaxis2.title.text == "busy (per 10 s)"


def test_the_lifetimes_figure_is_the_traced_records_cumulative_share(fc, figures):
    fig = figures["lifetimes"]
    for kind, tombstones in (("tombstones", True), ("superseded records", False)):
        spans, _ = fc.lifetimes["t"].removed(tombstones=tombstones)
        trace = _trace(fig, f"t: {kind}")
        assert list(trace.x) == pytest.approx(numpy.sort(spans) / 1000)
        assert trace.y[-1] == pytest.approx(1.0) and list(trace.y) == sorted(trace.y)
    assert fig.layout.shapes[0].x0 == 20  # delete.retention.ms, in seconds


def test_the_metrics_figure_reads_each_gauge_after_each_pass(fc, figures):
    fig = figures["metrics"]
    for name in ("max-dirty-percent", "cleaner-recopy-percent", "max-buffer-utilization-percent"):
        assert list(_trace(fig, name).y) == [m.as_dict()[name] for m in fc.metrics]
    needed = _trace(fig, "needed")
    assert fig.layout.yaxis7.title.text == "MiB"  # a thread's 128 MiB share sets the unit
    assert list(needed.y * 2**20) == pytest.approx([fc.buffer_needed_bytes(p) for p in fc.passes])
    # each column's last panel has the time axis with its ticks
    assert fig.layout.xaxis7.showticklabels and fig.layout.xaxis6.showticklabels
    assert fig.layout.xaxis7.title.text == fig.layout.xaxis6.title.text == "time (s since t = 0)"


def test_the_what_if_figure_puts_two_forecasts_side_by_side(figures):
    titles = [a.text for a in figures["what-if"].layout.annotations]
    assert titles[0].startswith("backoff 2 s: threads") and titles[1].startswith("2 threads: threads")
    bottom = [axis for name, axis in figures["what-if"].layout.to_plotly_json().items() if name in ("xaxis3", "xaxis4")]
    assert [axis.get("tickangle") for axis in bottom] == [None, None]  # seconds since t = 0: plotly's own ticks


def test_a_what_if_on_the_wall_clock_keeps_its_narrow_columns_date_ticks_level():
    """Three columns of dates: plotly turned its two-line ticks on their side and cut them off below the figure
    (notebook 10); each column shows a few level ticks, the day over the time of day."""
    start = 1_767_225_600_000  # 2026-01-01T00:00:00Z
    runs = {
        name: forecast(MODEL, horizon_ms=240_000, topics=TOPICS, broker=broker, speed=SPEED, start_ms=start)
        for name, broker in {"a": {}, "b": {"log.cleaner.backoff.ms": 5_000}, "c": {}}.items()
    }
    fig = forecast_what_if_figure(runs)
    assert problems(fig) == []
    layout = fig.layout.to_plotly_json()
    ticks = [(layout[f"xaxis{i}"]["type"], layout[f"xaxis{i}"].get("tickangle")) for i in (4, 5, 6)]
    assert ticks == [("date", 0)] * 3
    assert {layout[f"xaxis{i}"]["tickformat"] for i in (4, 5, 6)} == {"%b %-d\n%H:%M"}
    assert {layout[f"xaxis{i}"]["nticks"] for i in (4, 5, 6)} == {4}
