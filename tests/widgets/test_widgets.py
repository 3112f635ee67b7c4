"""Widgets driven headlessly: click(), slider and dropdown values, then assertions on state and figure traces."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
from kcompact_nb import BrokerConfig, OffsetMapSpec, RecordFate, Simulation, TopicConfig
from kcompact_nb.scenario import load_scenario
from kcompact_nb.viz import COLORS, LABELS
from kcompact_nb.widgets import NEXT_LABEL, CompactionStepper, ConfigPanel, WhatIfExplorer
from tests.conftest import compacted_log, rec

SCENARIOS = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios"
FRUIT = SCENARIOS / "fruit-prices.json"


def xs(figure, name):
    (found,) = [t for t in figure.data if t.name == name]
    return list(found.x)


def test_stepper_starts_at_the_first_frame_with_every_scenario_step_known():
    stepper = CompactionStepper(load_scenario(FRUIT))
    assert (stepper.slider.value, stepper.slider.max, stepper.play.max) == (0, 18, 18)
    assert isinstance(stepper.layout_figure, go.FigureWidget)
    assert stepper.next_button.description == NEXT_LABEL == "Next ▶"
    assert stepper.offset_map_figure.layout.title.text == "no cleaner pass yet"
    assert "step 0 / 18</b> at 0 ms: start" in stepper.status.value


def test_next_and_previous_redraw_the_layout_in_place():
    stepper = CompactionStepper(FRUIT)
    layout = stepper.layout_figure
    for _ in range(8):
        stepper.next_button.click()
    assert stepper.slider.value == 8 and stepper.frame.label == "step 7 clean: [0, 4) cleaned"
    assert stepper.layout_figure is layout
    assert xs(layout, LABELS["superseded"]) == [3] and xs(layout, LABELS["kept"]) == [4]
    assert xs(stepper.offset_map_figure, "in the map") == [2, 3]
    cells = list(stepper.stats_figure.data[0].cells.values[0])
    assert cells[0] == "Log cleaner thread 0 cleaned log fruit-prices-0 (dirty section = [0, 4])"
    stepper.prev_button.click()
    assert stepper.slider.value == 7
    assert xs(layout, LABELS["superseded"]) == [0, 1, 3] and xs(layout, LABELS["cleanable"]) == [2.0]
    assert stepper.offset_map_figure.layout.title.text == "no cleaner pass yet"


def test_slider_and_play_move_to_any_step():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = 18
    assert stepper.play.value == 18
    assert xs(stepper.layout_figure, LABELS["kept"]) == [4, 7, 8]  # guava 6 is superseded by 8 in the active segment
    assert xs(stepper.layout_figure, LABELS["superseded"]) == [6]
    assert xs(stepper.offset_map_figure, "in the map") == [4, 6, 7]  # the second pass's map: lime, guava, kiwi
    stepper.play.value = 9
    assert stepper.slider.value == 9 and xs(stepper.offset_map_figure, "in the map") == [2, 3]
    stepper.prev_button.click()
    stepper.slider.value = 0
    stepper.prev_button.click()
    assert stepper.slider.value == 0


def test_changing_the_strategy_recomputes_the_steps():
    """KIP-280 example, topic prices-offset: offset keeps offset 1; switched to timestamp it keeps offset 0."""
    stepper = CompactionStepper(SCENARIOS / "kip280-out-of-order.json", topic="prices-offset")
    stepper.slider.value = stepper.slider.max
    assert xs(stepper.layout_figure, LABELS["kept"]) == [1, 2]
    stepper.strategy.value = "timestamp"
    assert stepper.slider.value == stepper.slider.max
    assert xs(stepper.layout_figure, LABELS["kept"]) == [0, 2]
    assert stepper.frame.log.config.compaction_strategy == "timestamp"


def test_a_bad_config_shows_kafkas_message_and_keeps_the_steps():
    stepper = CompactionStepper(FRUIT)
    stepper.slider.value = 18
    stepper.strategy.value = "header"
    assert "compaction.strategy.header" in stepper.config.message.value and "KIP-280" in stepper.config.message.value
    assert stepper.frame.log.config.compaction_strategy == "offset"
    assert xs(stepper.layout_figure, LABELS["kept"]) == [4, 7, 8]
    stepper.config.header.value = "version"
    assert stepper.config.message.value == "" and stepper.frame.log.config.compaction_strategy == "header"
    stepper.config.controls["segment.bytes"].value = 1000  # the scenario's kafka.version 4.0.0 refuses it
    assert "Value must be at least 1048576 from Kafka 4.0 on (KIP-1030" in stepper.config.message.value
    assert stepper.frame.log.config.segment_bytes == 1_073_741_824


def test_stepper_over_a_partition_log_steps_through_partial_passes():
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    stepper = CompactionStepper(log, offset_map=OffsetMapSpec(slots=4))
    assert (stepper.slider.max, stepper.timeline.exhausted) == (1, False)  # frames are computed one ahead
    stepper.next_button.click()
    assert stepper.slider.max == 2
    assert xs(stepper.offset_map_figure, "in the map") == [0, 1, 2]
    assert xs(stepper.offset_map_figure, LABELS["missed"]) == [3, 4, 5]
    for _ in range(5):
        stepper.next_button.click()
    assert (stepper.slider.value, stepper.slider.max, stepper.timeline.exhausted) == (4, 4, True)
    assert xs(stepper.layout_figure, LABELS["kept"]) == list(range(6, 12))
    assert len(log.segments[0].batches) == 12  # the stepper works on copies


def test_stepper_over_a_simulation_partition():
    sim = Simulation(topics={"prices": {"internal.segment.bytes": 1000}})
    sim.append("prices", [("apple", "1.00"), ("pear", "2.00"), ("apple", None)])
    sim.roll("prices")
    stepper = CompactionStepper(sim)
    stepper.next_button.click()
    assert xs(stepper.layout_figure, LABELS["awaiting horizon"]) == [2]
    assert xs(stepper.layout_figure, LABELS["kept"]) == [1]
    assert sim.log("prices").cleaner_checkpoint is None


def test_config_panel_labels_are_kafka_properties_and_errors_are_shown():
    panel = ConfigPanel(TopicConfig(), BrokerConfig())
    assert [c.description for c in panel.controls.values()] == [
        "compaction.strategy",
        "compaction.strategy.header",
        "min.cleanable.dirty.ratio",
        "segment.bytes",
        "segment.ms",
        "min.compaction.lag.ms",
        "max.compaction.lag.ms",
        "delete.retention.ms",
        "log.cleaner.dedupe.buffer.size",
    ]
    seen = []
    panel.on_change(lambda topic, broker: seen.append((topic.min_compaction_lag_ms, broker.log_cleaner_dedupe_buffer_size)))
    panel.controls["max.compaction.lag.ms"].value = 100
    panel.controls["min.compaction.lag.ms"].value = 200
    assert "min.compaction.lag.ms: it must not exceed max.compaction.lag.ms (100)" in panel.message.value
    panel.controls["log.cleaner.dedupe.buffer.size"].value = 1000
    panel.controls["min.compaction.lag.ms"].value = 50
    assert "log.cleaner.dedupe.buffer.size: it must exceed 1 MiB" in panel.message.value
    panel.controls["log.cleaner.dedupe.buffer.size"].value = 2_000_000
    assert panel.error is None and seen == [(0, 134_217_728), (50, 2_000_000)]


def test_what_if_explorer_compares_two_ratios_and_reruns_one_side():
    explorer = WhatIfExplorer(FRUIT, right={"min.cleanable.dirty.ratio": 0.9}, labels=("0.5", "0.9"))
    duplicates = [t for t in explorer.figure.data if t.name == "duplicates stored"]
    assert [list(t.y)[-1] for t in duplicates] == [1, 3]
    passes = [t for t in explorer.figure.data if t.name == LABELS["pass"]]
    assert [len(t.x) for t in passes] == [2, 1]
    explorer.right.controls["min.cleanable.dirty.ratio"].value = 0.6
    passes = [t for t in explorer.figure.data if t.name == LABELS["pass"]]
    assert [len(t.x) for t in passes] == [2, 2]
    explorer.left.strategy.value = "header"
    assert "compaction.strategy.header" in explorer.left.message.value
    assert [p.pass_ms for p in explorer.series["0.5"] if p.pass_ms] == [(604_800_001,), (1_209_600_002,)]
    assert explorer.figure.data[0].line.shape == "hv" and passes[0].marker.color == COLORS["pass"]


def test_the_stepper_shows_a_compressed_topic():
    stepper = CompactionStepper(SCENARIOS / "compressed-topic.json")
    stepper.slider.value = 4  # after the first pass (step 3 clean)
    hover = [text for trace in stepper.layout_figure.data if trace.type == "bar" for text in trace.hovertext]
    # the cleaned segment's size follows the zstd batches the pass rewrote (88 + 104 bytes, compressed-topic.json)
    assert hover == ["192 bytes, zstd", "0 bytes"]
    assert xs(stepper.layout_figure, LABELS["kept"]) == [2, 3] and "[0, 5) cleaned" in stepper.frame.label
    assert xs(stepper.layout_figure, LABELS[RecordFate.AWAITING_HORIZON.value]) == [4]  # stamped 0 + 60 s
