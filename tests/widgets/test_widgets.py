"""Widgets driven headlessly: click(), slider and field values, then assertions on state, texts and figure traces."""

from __future__ import annotations

from pathlib import Path

import ipywidgets
import plotly.graph_objects as go

from kcompact_nb import BrokerConfig, OffsetMapSpec, Simulation, Timeline, TopicConfig, dirtiness_series
from kcompact_nb.core import CleanerManager
from kcompact_nb.scenario import load_scenario, scenario_frames
from kcompact_nb.viz import COLORS, LABELS
from kcompact_nb.widgets import NEXT_LABEL, CompactionStepper, ConfigPanel, WhatIfExplorer
from kcompact_nb.widgets._figures import LivePlot
from tests.conftest import compacted_log, rec

SCENARIOS = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios"
FRUIT = SCENARIOS / "fruit-prices.json"
SLOW_TOPIC = SCENARIOS / "slow-topic.json"
LONG_MAX = 9_223_372_036_854_775_807

#: fruit-prices.json's steps 0-17 as stepper positions: its expect (6, 9, 15, 17) and snapshot (8) steps
#: are no positions of their own but checks on the step before them.
FRUIT_POSITIONS = ["start", 0, 1, 2, 3, 4, 5, 7, 10, 11, 12, 13, 14, 16]


KEPT, REMOVED = "kept", "removed by the next pass"
SUPERSEDED_KEPT = "superseded, kept"
NOT_REACHED = "kept: no pass reaches it now"
AWAITING = "tombstone kept until its delete horizon"
PAST_HORIZON = "tombstone past its delete horizon, kept: no pass reaches it now"
IN_MAP = "in the map: its latest offset"


def xs(figure, name):
    """The offsets drawn by the trace called ``name`` (none when the figure draws no such trace)."""
    found = [list(t.x) for t in figure.data if t.name == name]
    assert len(found) <= 1, name
    return [int(x) for x in found[0]] if found else []


def fate(figure, key):
    """The records a layout figure draws with the fate ``LABELS[key]`` (what the next pass does to them)."""
    return xs(figure, LABELS[key])


def step_number(stepper):
    return stepper.source.step_number(stepper.frame)


def six_keys_twice():
    """Twelve records over six keys in one rolled segment, ``min.cleanable.dirty.ratio`` 0.1: a 4-slot offset map
    cleans it in partial passes."""
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    return log


def test_positions_are_the_steps_that_change_the_partition_numbered_as_in_the_scenario():
    stepper = CompactionStepper(load_scenario(FRUIT))
    assert (stepper.slider.value, stepper.slider.max, stepper.play.max) == (0, 13, 13)
    numbers = []
    for position in range(stepper.slider.max + 1):
        stepper.slider.value = position
        numbers.append(step_number(stepper))
    assert numbers == [None, *FRUIT_POSITIONS[1:]]
    assert stepper.status.value == "<b>step 16 of steps 0–16</b> · t = 14 d 2 ms · clean: [4, 8) cleaned"
    assert not stepper.slider.readout  # one numbering: the header's, not also the slider's positions


def test_the_header_speaks_of_the_step_the_label_describes():
    stepper = CompactionStepper(FRUIT)
    stepper.next_button.click()
    stepper.next_button.click()
    assert stepper.frame.label == "step 1 append: offsets 1-1"
    assert stepper.status.value == "<b>step 1 of steps 0–16</b> · t = 0 ms · append: offsets 1-1"
    stepper.slider.value = 0
    assert stepper.status.value == "<b>start, before steps 0–16</b> · t = 0 ms"
    stepper.slider.value = FRUIT_POSITIONS.index(4)
    assert stepper.status.value == "<b>step 4 of steps 0–16</b> · t = 7 d 1 ms · advance: clock at t = 7 d 1 ms"


def test_expect_and_snapshot_steps_are_checks_on_the_step_they_check():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = FRUIT_POSITIONS.index(7)
    assert [check.label for check in stepper.shown.checks] == [
        "step 8 snapshot: label after-first-pass",
        "step 9 expect: passed",
    ]
    assert stepper.checks.value == (
        "<div style='color:#1e8449; line-height:1.4'>✔ step 8 snapshot: label after-first-pass</div>"
        "<div style='color:#1e8449; line-height:1.4'>✔ step 9 expect: passed</div>"
    )
    stepper.slider.value = FRUIT_POSITIONS.index(5)
    assert "✔ step 6 expect: passed" in stepper.checks.value
    stepper.slider.value = FRUIT_POSITIONS.index(4)
    assert stepper.checks.value == ""


def shown_in_pass_area(stepper):
    """The children of the stepper's pass area that are not hidden."""
    return [child for child in stepper.pass_area.children if child.layout.display != "none"]


def test_a_plain_text_placeholder_stands_for_the_pass_figures_before_the_first_pass():
    """The figure is hidden, never taken out of the box: a removed plotly view breaks the next ones."""
    stepper = CompactionStepper(FRUIT)
    children = stepper.pass_area.children
    assert shown_in_pass_area(stepper) == [stepper.placeholder]
    assert "No cleaner pass yet" in stepper.placeholder.value and "from step 7 on" in stepper.placeholder.value
    stepper.slider.value = FRUIT_POSITIONS.index(7)
    assert shown_in_pass_area(stepper) == [stepper.latest_pass]
    assert stepper.latest_pass.children == (stepper.offset_map_view.widget, stepper.stats)
    assert xs(stepper.offset_map_figure, IN_MAP) == [2, 3]
    stepper.prev_button.click()
    assert shown_in_pass_area(stepper) == [stepper.placeholder]
    assert stepper.pass_area.children == children


def test_the_stats_show_kafkas_log_line_and_counters_in_human_units():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = FRUIT_POSITIONS.index(7)
    stats = stepper.stats.value
    assert "Latest pass: step 7, fruit-prices-0, dirty section [0, 4)" in stats
    assert "Log cleaner thread 0 cleaned log fruit-prices-0 (dirty section = [0, 4])" in stats
    assert "<td style='padding:0 12px 0 0'>bytes_read</td><td style='text-align:right'>305 B</td>" in stats
    assert "Infinity MB/sec and NaN% of total time" in stats  # says why Kafka's own line reads so


def test_next_and_previous_redraw_the_layout_in_place():
    stepper = CompactionStepper(FRUIT)
    view = stepper.layout_view.widget
    for _ in range(FRUIT_POSITIONS.index(7)):
        stepper.next_button.click()
    assert stepper.frame.label == "step 7 clean: [0, 4) cleaned"
    layout = stepper.layout_figure
    assert stepper.layout_view.widget is view and layout.layout.autosize is True
    assert fate(layout, NOT_REACHED) == [3] and fate(layout, KEPT) == [4] and fate(layout, AWAITING) == [2]
    stepper.prev_button.click()
    assert step_number(stepper) == 5 and stepper.layout_view.widget is view
    layout = stepper.layout_figure
    assert fate(layout, REMOVED) == [0, 1] and fate(layout, SUPERSEDED_KEPT) == [3]


def test_a_step_builds_the_figure_of_its_new_neighbour_only_and_each_shown_figure_is_built_fresh(monkeypatch):
    """A click builds one layout figure (the step after the shown one, sent ahead) unless the newly computed step
    changes the steps' common scale; the figure shown is always the one built fresh from its frame on that scale."""
    from kcompact_nb.viz import layout_figure
    from kcompact_nb.widgets import _stepper

    log = six_keys_twice()
    builds: list[int] = []
    monkeypatch.setattr(_stepper, "layout_figure", lambda *a, **k: builds.append(1) or layout_figure(*a, **k))
    stepper = CompactionStepper(log, offset_map=OffsetMapSpec(slots=4))
    same_scale = []
    while not (stepper.steps.exhausted and stepper.slider.value == stepper.slider.max):
        scale, before = stepper._scale(), len(builds)
        stepper.next_button.click()
        if stepper._scale() == scale:
            same_scale.append(len(builds) - before)
        frame = stepper.frame
        fresh = layout_figure(frame.log, now_ms=frame.now_ms, scale=stepper._scale(), offset_map=OffsetMapSpec(slots=4))
        assert stepper.layout_figure.to_json() == fresh.to_json()
    assert stepper.slider.value == 4 and same_scale == [1, 1, 1, 0]  # the last step has no step after it


def test_slider_and_play_move_to_any_step():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = 13
    assert stepper.play.value == 13
    assert fate(stepper.layout_figure, KEPT) == [4, 7, 8]  # guava 6 is superseded by 8 in the active segment
    assert fate(stepper.layout_figure, NOT_REACHED) == [6]  # and nothing is cleanable: no pass runs
    assert xs(stepper.offset_map_figure, IN_MAP) == [4, 6, 7]  # the second pass's map: lime, guava, kiwi
    stepper.play.value = 8
    assert step_number(stepper) == 10 and xs(stepper.offset_map_figure, IN_MAP) == [2, 3]
    stepper.slider.value = 0
    stepper.prev_button.click()
    assert stepper.slider.value == 0


def test_the_end_of_a_scenario_says_what_the_cleaner_would_do_next():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = 12
    assert "End of the scenario" not in stepper.checks.value
    stepper.slider.value = 13
    assert stepper.checks.value.endswith(
        "<div style='line-height:1.4'><b>End of the scenario. The cleaner now:</b> "
        "not eligible: nothing is cleanable, and while nothing is appended nothing becomes cleanable "
        "(dirty ratio 0.0000 vs min.cleanable.dirty.ratio 0.5).</div>"
    )


def test_changing_the_strategy_recomputes_the_steps():
    """KIP-280 example, topic prices-offset: offset keeps offset 1; switched to timestamp it keeps offset 0."""
    stepper = CompactionStepper(SCENARIOS / "kip280-out-of-order.json", topic="prices-offset")
    stepper.slider.value = stepper.slider.max
    assert fate(stepper.layout_figure, KEPT) == [1, 2]
    stepper.strategy.value = "timestamp"
    assert stepper.slider.value == stepper.slider.max
    assert fate(stepper.layout_figure, KEPT) == [0, 2]
    assert stepper.frame.log.config.compaction_strategy == "timestamp"


def test_a_bad_config_shows_kafkas_message_and_keeps_the_steps():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = 13
    stepper.strategy.value = "header"
    assert "compaction.strategy.header" in stepper.config.message.value and "KIP-280" in stepper.config.message.value
    assert stepper.frame.log.config.compaction_strategy == "offset"
    assert fate(stepper.layout_figure, KEPT) == [4, 7, 8]
    stepper.config.header.value = "version"
    assert stepper.config.message.value == "" and stepper.frame.log.config.compaction_strategy == "header"
    stepper.config.controls["segment.bytes"].value = "10"  # below the 14 bytes every release requires
    assert "configuration segment.bytes: Value must be in [14, 2147483647]" in stepper.config.message.value
    assert "overflow-wrap:anywhere" in stepper.config.message.value  # a long message wraps inside the panel
    assert stepper.frame.log.config.segment_bytes == 1_073_741_824


def test_every_refused_field_shows_its_own_reason_in_kafkas_property_names():
    stepper = CompactionStepper(FRUIT)
    stepper.config.controls["segment.bytes"].value = "10"
    stepper.config.controls["min.cleanable.dirty.ratio"].value = 1.5
    message = stepper.config.message.value
    assert stepper.config.refused == ["min.cleanable.dirty.ratio", "segment.bytes"]
    assert "Not applied (min.cleanable.dirty.ratio stays 0.5; segment.bytes stays 1 GiB): " in message
    reasons = message.split("): ", 1)[1].removesuffix("</div>").split("<br>")
    assert [reason.split(":")[0] for reason in reasons] == [
        "Invalid value 1.5 for configuration min.cleanable.dirty.ratio",
        "Invalid value 10 for configuration segment.bytes",
    ]
    assert "(field " not in message


def test_a_config_typed_in_human_units_reruns_the_scenario():
    """delete.retention.ms = 0: the first pass (step 7) stamps the grape tombstone with horizon = pass time,
    so that pass keeps it (its horizon has passed once it is written) and the second removes it (spec 7.4)."""
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = FRUIT_POSITIONS.index(7)
    assert fate(stepper.layout_figure, AWAITING) == [2]
    stepper.config.controls["delete.retention.ms"].value = "0 ms"
    assert stepper.frame.log.config.delete_retention_ms == 0
    assert fate(stepper.layout_figure, AWAITING) == []
    assert fate(stepper.layout_figure, PAST_HORIZON) == [2]
    stepper.slider.value = 13
    assert 2 not in [r.offset for _, r in stepper.frame.log.records()]


def test_stepper_over_a_partition_log_steps_through_partial_passes_and_says_why_they_stop():
    log = six_keys_twice()
    stepper = CompactionStepper(log, offset_map=OffsetMapSpec(slots=4))
    assert (stepper.slider.max, stepper.steps.exhausted) == (1, False)  # steps are computed one ahead
    assert len(stepper.steps.timeline) == 2  # the start and pass 1, no more
    assert stepper.status.value == "<b>start, before at least 1 pass</b> · t = 0 ms"
    assert "from pass 1 on" in stepper.placeholder.value
    stepper.next_button.click()
    assert stepper.slider.max == 2
    assert stepper.status.value.startswith("<b>pass 1 of at least 2 passes</b> · t = 0 ms · cleaned [0, 3) of [0, 12)")
    assert xs(stepper.offset_map_figure, IN_MAP) == [0, 1, 2]
    assert xs(stepper.offset_map_figure, LABELS["missed"]) == [3, 4, 5]
    for _ in range(5):
        stepper.next_button.click()
    assert (stepper.slider.value, stepper.slider.max, stepper.steps.exhausted) == (4, 4, True)
    assert stepper.status.value.startswith("<b>pass 4 of passes 1–4</b>")
    assert stepper.checks.value == (
        "<div style='line-height:1.4'><b>No further pass:</b> not eligible: nothing is cleanable, "
        "and while nothing is appended nothing becomes cleanable "
        "(dirty ratio 0.0000 vs min.cleanable.dirty.ratio 0.1).</div>"
    )
    assert fate(stepper.layout_figure, KEPT) == list(range(6, 12))
    assert len(log.segments[0].batches) == 12  # the stepper works on copies


def test_a_log_steppers_layout_shows_the_next_steps_pass_without_running_it_again(monkeypatch):
    """Each step of a log's passes runs one pass (the next step's, computed ahead) and the layout shows that pass:
    the records it draws removed are those the next step no longer holds."""
    log = six_keys_twice()
    stepper = CompactionStepper(log, offset_map=OffsetMapSpec(slots=4))
    passes = []
    clean_log = CleanerManager.clean_log
    monkeypatch.setattr(CleanerManager, "clean_log", lambda *a, **kw: passes.append(clean_log(*a, **kw)) or passes[-1])
    for position in range(1, 4):
        stepper.next_button.click()
        following = stepper.steps.known(position + 1)
        assert following is not None and passes == [following.passes[0]]  # the pass of the step computed ahead
        offsets = {r.offset for _, r in stepper.frame.log.records()}
        assert fate(stepper.layout_figure, REMOVED) == sorted(offsets - {r.offset for _, r in following.log.records()})
        passes.clear()


def test_a_stepper_stopped_by_the_dirty_ratio_says_so():
    """Notebook 04's case: after partial passes the half-cleaned segment counts as clean and as cleanable
    (spec 4.3), the ratio falls to 0.5 or below and no further pass runs."""
    sim = Simulation(topics={"users": {"internal.segment.bytes": 1200, "min.cleanable.dirty.ratio": 0.5}})
    for version in ("v1", "v2"):
        for i in range(30):
            sim.append("users", [(f"user-{i:02}", version)])
    sim.roll("users")
    stepper = CompactionStepper(sim.log("users"), now_ms=sim.now_ms, offset_map=OffsetMapSpec(slots=16))
    for _ in range(4):
        stepper.next_button.click()
    assert (stepper.slider.value, stepper.slider.max, stepper.steps.exhausted) == (3, 3, True)
    assert "<b>No further pass:</b> not eligible: the dirty ratio is not above the minimum" in stepper.checks.value
    assert "(dirty ratio 0.4762 vs min.cleanable.dirty.ratio 0.5)" in stepper.checks.value


def test_stepper_over_a_simulation_partition():
    sim = Simulation(topics={"prices": {"internal.segment.bytes": 1000}})
    sim.append("prices", [("apple", "1.00"), ("pear", "2.00"), ("apple", None)])
    sim.roll("prices")
    stepper = CompactionStepper(sim)
    stepper.next_button.click()
    assert fate(stepper.layout_figure, AWAITING) == [2]
    assert fate(stepper.layout_figure, KEPT) == [1]
    assert sim.log("prices").cleaner_checkpoint is None


def test_an_epoch_clock_is_shown_as_an_iso_time():
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    log.append([rec("k", timestamp=1_767_225_600_000)], now_ms=1_767_225_600_000)
    stepper = CompactionStepper(log, now_ms=1_767_225_660_000)
    assert stepper.status.value == "<b>start, no passes</b> · 2026-01-01T00:01:00Z"


def test_config_panel_labels_are_kafka_properties_and_kip_280_stands_apart():
    panel = ConfigPanel(TopicConfig(), BrokerConfig())
    _intro, kafka, kip, message = panel.widget.children
    assert [c.description for c in kafka.children] == [
        "min.cleanable.dirty.ratio",
        "segment.bytes",
        "segment.ms",
        "min.compaction.lag.ms",
        "max.compaction.lag.ms",
        "delete.retention.ms",
        "log.cleaner.dedupe.buffer.size",
    ]
    heading, controls = kip.children
    assert "not in Apache Kafka" in heading.value
    assert [c.description for c in controls.children] == ["compaction.strategy", "compaction.strategy.header"]
    assert message is panel.message


def test_config_fields_show_human_units_and_read_them_back_exactly():
    panel = ConfigPanel(TopicConfig(), BrokerConfig())
    shown = {name: panel.controls[name].value for name in ("segment.bytes", "segment.ms", "min.compaction.lag.ms",
                                                            "max.compaction.lag.ms", "delete.retention.ms",
                                                            "log.cleaner.dedupe.buffer.size")}  # fmt: skip
    assert shown == {
        "segment.bytes": "1 GiB",
        "segment.ms": "7 d",
        "min.compaction.lag.ms": "0 ms",
        "max.compaction.lag.ms": "never",
        "delete.retention.ms": "1 d",
        "log.cleaner.dedupe.buffer.size": "128 MiB",
    }
    assert panel.topic_properties()["max.compaction.lag.ms"] == LONG_MAX
    assert panel.broker_properties() == {"log.cleaner.dedupe.buffer.size": 134_217_728}
    panel.controls["segment.ms"].value = "43200000"  # plain ms, as in Kafka's configs, is shown back as 12 h
    assert panel.controls["segment.ms"].value == "12 h" and panel.topic_config.segment_ms == 43_200_000
    panel.controls["log.cleaner.dedupe.buffer.size"].value = "2 MiB"
    assert panel.broker_config.log_cleaner_dedupe_buffer_size == 2_097_152
    panel.set_value("max.compaction.lag.ms", 86_400_000)
    assert panel.controls["max.compaction.lag.ms"].value == "1 d"
    assert panel.topic_config.max_compaction_lag_ms == 86_400_000


def test_config_panel_errors_name_the_field_and_keep_the_last_valid_configs():
    panel = ConfigPanel(TopicConfig(), BrokerConfig())
    seen = []
    panel.on_change(
        lambda topic, broker: seen.append((topic.min_compaction_lag_ms, broker.log_cleaner_dedupe_buffer_size))
    )
    panel.controls["max.compaction.lag.ms"].value = "100 ms"
    panel.controls["min.compaction.lag.ms"].value = "200 ms"
    assert "min.compaction.lag.ms: it must not exceed max.compaction.lag.ms (100)" in panel.message.value
    panel.controls["min.compaction.lag.ms"].value = "12 parsecs"
    assert "min.compaction.lag.ms: cannot read &#x27;12 parsecs&#x27; as a duration" in panel.message.value
    panel.controls["log.cleaner.dedupe.buffer.size"].value = "1000"
    panel.controls["min.compaction.lag.ms"].value = "50 ms"
    assert "log.cleaner.dedupe.buffer.size: it must exceed 1 MiB" in panel.message.value
    panel.controls["log.cleaner.dedupe.buffer.size"].value = "2000000"
    assert panel.error is None and seen == [(0, 134_217_728), (50, 2_000_000)]
    assert panel.controls["log.cleaner.dedupe.buffer.size"].value == "1,953.125 KiB"  # exact: reads back as 2,000,000


def test_what_if_explorer_compares_two_ratios_and_reruns_one_side():
    explorer = WhatIfExplorer(FRUIT, right={"min.cleanable.dirty.ratio": 0.9}, labels=("0.5", "0.9"))
    assert all(isinstance(f, go.Figure) and f.layout.autosize is True for f in explorer.figures)
    assert [f.layout.title.text for f in explorer.figures] == ["0.5", "0.9"]

    def traces(name):
        return [t for figure in explorer.figures for t in figure.data if t.name == name]

    assert [list(t.y)[-1] for t in traces(LABELS["duplicates"])] == [1, 3]
    assert [len(t.x) for t in traces(LABELS["pass"])] == [2, 1]
    left_shown = explorer.figure_views[0].widget.figure
    explorer.right.controls["min.cleanable.dirty.ratio"].value = 0.6
    assert [len(t.x) for t in traces(LABELS["pass"])] == [2, 2]
    assert explorer.figure_views[0].widget.figure is left_shown  # the side not edited is not drawn again
    explorer.left.strategy.value = "header"
    assert "compaction.strategy.header" in explorer.left.message.value
    assert [p.pass_ms for p in explorer.series["0.5"] if p.pass_ms] == [(604_800_001,), (1_209_600_002,)]
    assert explorer.figures[0].data[0].line.shape == "hv" and traces(LABELS["pass"])[0].marker.color == COLORS["pass"]


def test_what_if_sides_are_drawn_on_one_scale_that_spans_both():
    """Each side's figure has the same time range and the same value range per row, spanning both sides' points (the
    ratio row at least 0-100%); a side whose points or scale are unchanged is not drawn again."""
    explorer = WhatIfExplorer(SLOW_TOPIC, left={"segment.ms": "12h"}, right={"max.compaction.lag.ms": "1d"})
    points = [p for side in explorer.series.values() for p in side]
    scales = [
        (
            tuple(f.layout.xaxis.range),
            tuple(f.layout.xaxis2.range),
            tuple(f.layout.yaxis.range),
            tuple(f.layout.yaxis2.range),
        )
        for f in explorer.figures
    ]
    assert scales[0] == scales[1]
    (x_low, x_high), _, (ratio_low, ratio_high), (_, duplicates_high) = scales[0]
    hours = [p.now_ms / 3_600_000 for p in points]
    assert x_low < min(hours) and max(hours) < x_high
    assert ratio_low < 0 and ratio_high > 1
    assert max(p.duplicates for p in points) < duplicates_high
    assert all(t.x is None or x_low <= min(v for v in t.x if v is not None) for f in explorer.figures for t in f.data)
    shown = [view.widget.figure for view in explorer.figure_views]
    explorer.left.controls["segment.ms"].value = "12h"  # the value in force: nothing runs, nothing is drawn again
    assert [view.widget.figure for view in explorer.figure_views] == shown


def test_what_if_runs_each_config_once_and_draws_it_again_when_edited_back(monkeypatch):
    explorer = WhatIfExplorer(FRUIT, right={"min.cleanable.dirty.ratio": 0.9}, labels=("0.5", "0.9"))
    first = explorer.series["0.5"]
    runs = []
    timeline = explorer.source.timeline
    ran = lambda panel: runs.append(panel.properties_in_force()["compaction.strategy"]) or timeline(panel)  # noqa: E731
    monkeypatch.setattr(explorer.source, "timeline", ran)
    for strategy in ("timestamp", "offset", "timestamp", "offset"):
        explorer.left.strategy.value = strategy
    assert runs == ["timestamp"]  # the source's own configs (offset) ran when the explorer was made
    assert explorer.labels == ("0.5", "0.9") and explorer.series["0.5"] == first
    explorer.left.controls["min.cleanable.dirty.ratio"].value = 0.9  # the right panel's configs: run already
    assert len(runs) == 1 and explorer.series[explorer.labels[0]] == explorer.series[explorer.labels[1]]
    explorer.left.controls["min.cleanable.dirty.ratio"].value = 0.7
    fresh = Timeline(scenario_frames(FRUIT, topic_config={"min.cleanable.dirty.ratio": 0.7})).compute_all()
    assert len(runs) == 2 and explorer.series[explorer.labels[0]] == dirtiness_series(fresh)


def test_what_if_overrides_may_be_given_in_ms_or_in_human_units():
    explorer = WhatIfExplorer(FRUIT, left={"segment.ms": 12 * 3_600_000}, right={"segment.ms": "12h"})
    assert explorer.left.controls["segment.ms"].value == explorer.right.controls["segment.ms"].value == "12 h"
    assert explorer.series[explorer.labels[0]] == explorer.series[explorer.labels[1]]


def test_next_button_label():
    assert NEXT_LABEL == "Next ▶"


def test_every_step_is_drawn_on_one_scale():
    """Offsets 0-8 and the largest segment of any step: step 1 (two records) is drawn as wide as step 16."""
    stepper = CompactionStepper(FRUIT)
    ranges = []
    for position in (1, 6, 13):
        stepper.slider.value = position
        layout = stepper.layout_figure.layout
        y_scale = {k: v for k, v in layout.yaxis.to_plotly_json().items() if k != "domain"}  # header rows may vary
        ranges.append((tuple(layout.xaxis.range), y_scale))
    assert ranges[0][0] == (-0.5, 8.5)
    assert ranges[0] == ranges[1] == ranges[2]


def _shown_title(view) -> str:
    return view.widget.figure["layout"]["title"]["text"]


def test_figures_are_live_plots_that_follow_every_step():
    """Issue #39: plotly's FigureWidget (an anywidget, given 2 s to load its 5 MB module) stayed blank for good on a
    busy machine; issue #41: a plain plotly output is drawn three times a step. The figures are LivePlots (a module
    of a few KiB, redrawn in place), sent again when they change."""
    stepper = CompactionStepper(FRUIT)
    assert stepper.layout_view.widget in stepper.widget.children
    assert stepper.offset_map_view.widget in stepper.latest_pass.children
    assert not [w for w in stepper.widget.children if isinstance(w, go.FigureWidget)]
    assert isinstance(stepper.layout_view.widget, LivePlot)
    assert len(stepper.layout_view.widget._esm) < 16_000  # nothing of plotly.js (5 MB) is sent with the widget
    assert stepper.offset_map_view.widget.figure == {}  # drawn only once shown: plotly measures its width then
    for _ in range(8):
        stepper.next_button.click()
        assert _shown_title(stepper.layout_view) == stepper.layout_figure.layout.title.text
    assert _shown_title(stepper.offset_map_view) == stepper.offset_map_figure.layout.title.text
    sent = stepper.layout_view.widget.figure
    stepper.layout_view.refresh()
    assert stepper.layout_view.widget.figure is sent  # an unchanged figure is not sent again
    assert "kcompact-widget" in stepper.widget._dom_classes
    assert "jupyter-widgets-disconnected::after" in stepper.widget.children[-1].value
    explorer = WhatIfExplorer(FRUIT)
    shown = [view.widget for view in explorer.figure_views]
    assert list(explorer.widget.children[1].children) == shown
    assert [_shown_title(view) for view in explorer.figure_views] == [f.layout.title.text for f in explorer.figures]


def test_internal_segment_bytes_is_shown_when_the_topic_sets_it():
    """Segments below Kafka 4's 1 MiB minimum of segment.bytes come from internal.segment.bytes (KIP-1030)."""
    assert "internal.segment.bytes" not in ConfigPanel(TopicConfig(), BrokerConfig()).controls
    topic = TopicConfig.from_properties({"internal.segment.bytes": 1200})
    panel = ConfigPanel(topic, BrokerConfig())
    field = panel.controls["internal.segment.bytes"]
    assert field.value == "1,200 B" and field in panel.widget.children[1].children
    field.value = "2 KiB"
    assert panel.topic_config.internal_segment_bytes == 2048 and panel.topic_config.effective_segment_bytes == 2048


def test_the_stepper_shows_a_compressed_topic():
    """compressed-topic.json: after pass 1 the cleaned segment is the two zstd batches the pass rewrote (88 + 104 B)."""
    stepper = CompactionStepper(SCENARIOS / "compressed-topic.json")
    stepper.slider.value = 4  # step 3: clean
    assert step_number(stepper) == 3
    segments = [
        list(c)
        for t in stepper.layout_figure.data
        if t.type == "bar" and t.name.startswith("log ")
        for c in t.customdata
    ]
    assert segments == [[0, 4, "192 B, zstd", "log tail: cleaned, below the cleaner point"]]
    assert fate(stepper.layout_figure, "kept") == [2, 3]
    assert fate(stepper.layout_figure, "tombstone kept until its delete horizon") == [4]  # stamped 0 + 60 s


def test_a_refused_value_is_struck_through_and_the_message_names_the_value_in_force():
    stepper = CompactionStepper(FRUIT)
    field = stepper.config.controls["segment.bytes"]
    field.value = "10"  # below 14 bytes, the minimum of kafka.version 4.0 (fruit-prices.json)
    assert stepper.config.refused == ["segment.bytes"] and "kcompact-refused" in field._dom_classes
    assert stepper.config.message.value.startswith(
        "<div style='line-height:1.4; margin:4px 0; color:#c0392b; white-space:normal; overflow-wrap:anywhere'>"
        "Not applied (segment.bytes stays 1 GiB): Invalid value 10 for configuration segment.bytes"
    )
    field.value = "512 MiB"
    assert stepper.config.refused == [] and "kcompact-refused" not in field._dom_classes
    assert stepper.frame.log.config.segment_bytes == 512 * 2**20


def test_an_explicit_offset_map_replaces_the_dedupe_buffer_field():
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    log.append([rec("k", timestamp=0)], now_ms=0)
    stepper = CompactionStepper(log, offset_map=OffsetMapSpec(slots=16))
    assert "log.cleaner.dedupe.buffer.size" not in stepper.config.controls
    texts = [w.value for w in stepper.config.widget.children[1].children if isinstance(w, ipywidgets.HTML)]
    assert texts == [
        "<div style='line-height:1.4; margin:4px 0'>offset map: 16 slots at load factor 0.9 (14 keys a pass), "
        "set by the code that built this widget in place of log.cleaner.dedupe.buffer.size</div>"
    ]


def test_what_if_titles_name_the_configs_in_force_after_edits():
    explorer = WhatIfExplorer(FRUIT, left={"segment.ms": "12h"}, labels=("segment.ms 12 h", "defaults"))
    assert explorer.labels == ("segment.ms 12 h", "defaults")
    explorer.left.controls["segment.ms"].value = "6h"
    assert explorer.labels == ("segment.ms 6 h", "defaults")
    assert explorer.left.title == "segment.ms 6 h" and "<b>segment.ms 6 h</b>" in explorer.left.intro.value
    assert [f.layout.title.text for f in explorer.figures] == ["segment.ms 6 h", "defaults"]
    explorer.left.controls["segment.ms"].value = "7d"  # back to the scenario's own value
    explorer.right.controls["segment.ms"].value = "1000"  # plain ms
    assert explorer.labels == ("the source's configs", "segment.ms 1 s")


def test_a_stepper_steps_through_a_log_dirs_partition_read_on_disk_as_through_it_read_whole(tmp_path):
    """The log knows where its batches live (issue #38): read on disk, its steps' passes stream its files, and each
    step holds the records the same steps hold over the partition read whole; the source files are never changed."""
    from kcompact_nb.io import ReadOptions, read_partition_dir, write_partition_dir

    log = compacted_log(min_cleanable_dirty_ratio=0.1, segment_bytes=200)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    folder = write_partition_dir(log, tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    on_disk = read_partition_dir(folder, ReadOptions(config=log.config, on_disk_from_bytes=0)).log
    whole = read_partition_dir(folder, ReadOptions(config=log.config)).log
    steppers = [CompactionStepper(source, offset_map=OffsetMapSpec(slots=4)) for source in (on_disk, whole)]
    held = [[], []]
    for _ in range(4):
        for stepper, offsets in zip(steppers, held, strict=True):
            stepper.next_button.click()
            offsets.append([r.offset for _, r in stepper.frame.log.records()])
    assert held[0] == held[1]
    assert held[0][0] != held[0][-1]  # the passes removed records
    assert type(steppers[0].frame.log.storage).__name__ == "SegmentFiles"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_the_config_panel_names_the_kafka_version_whose_rules_check_the_fields():
    """fruit-prices.json runs under kafka.version 4.0.0: segment.bytes 1000 is accepted there (KIP-1030's 1 MiB
    minimum came in 4.1), so the stepper must say which release checks its fields."""
    stepper = CompactionStepper(FRUIT)
    assert "checked as <b>kafka.version 4.0.0</b> checks them" in stepper.config.intro.value
    assert "checked as <b>kafka.version 4.4.0</b> checks them" in ConfigPanel(TopicConfig(), BrokerConfig()).intro.value


def test_a_pass_that_throws_ends_the_steps_and_says_so_in_kafkas_words():
    """The log a 4.4.0 broker's pass failed on (a full cleaned time index, docs/cleaner-rules.md 8.4): the stepper's
    last step is the failed pass, the log as Kafka leaves it, and its end says what Kafka logged and left."""
    from tests.core.cleaner.test_index_full import failing_simulation

    sim = failing_simulation("4.4.0")
    stepper = CompactionStepper(sim.log("t"), now_ms=sim.now_ms)
    stepper.next_button.click()
    assert (stepper.slider.value, stepper.slider.max, stepper.steps.exhausted) == (1, 1, True)
    error = "java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4)."
    assert stepper.status.value == f"<b>pass 1 of pass 1</b> · t = 20 min · threw {error}; marked uncleanable"
    frame = stepper.frame
    assert frame.failure is not None and frame.passes == ()
    assert [s.base_offset for s in frame.log.segments] == [0, 6, 12, 15, 18, 21, 24, 27, 30]
    assert [s.base_offset for s in frame.log.left_cleaned] == [12] and frame.log.cleaner_checkpoint == 0
    assert stepper.checks.value.startswith(
        "<div style='line-height:1.4'><b>No further pass: the pass threw.</b> Kafka logs &ldquo;Unexpected exception "
        f"thrown when cleaning log t-0. Marking its partition (t-0) as uncleanable: {error}&rdquo;. "
    )
    assert stepper.checks.value.endswith(
        "checkpoint stays at 0; cleaned segments 0, 6 swapped in before it stay; left on disk: "
        "00000000000000000012.log.cleaned, 00000000000000000012.index.cleaned, "
        "00000000000000000012.timeindex.cleaned.</div>"
    )
    assert sim.log("t").left_cleaned == [] and sim.uncleanable == set()  # the stepper works on copies
