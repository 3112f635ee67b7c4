"""The stepper and the what-if explorer as state machines: any sequence of clicks, slider moves, config edits
(valid or refused) and strategy switches leaves every panel, title and label showing the position and the
configs in force.

The expected content is computed independently after every action: the source's frames are run again
from the start under the configs the edits so far put in force (a refused edit changes nothing), and
the latest pass at or before the shown step is looked up in them, never in the widget's own cache.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from kcompact_nb import OffsetMapSpec, Timeline, copy_log, dirtiness_series, offset_map_view
from kcompact_nb.core import format_duration_ms, format_instant_ms, parse_duration_ms, pass_frames
from kcompact_nb.scenario import load_scenario, scenario_frames
from kcompact_nb.viz import offset_map_figure
from kcompact_nb.widgets import CompactionStepper, WhatIfExplorer
from tests.conftest import compacted_log, rec

SCENARIOS = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios"
FRUIT = load_scenario(SCENARIOS / "fruit-prices.json")
CHECK_OPS = {"expect", "snapshot"}
PARTIAL_MAP = OffsetMapSpec(slots=4)
IN_MAP = "in the map: its latest offset"

VALID_EDITS = [
    ("delete.retention.ms", "0 ms"),
    ("delete.retention.ms", "12h"),
    ("delete.retention.ms", "1d"),
    ("min.cleanable.dirty.ratio", 0.1),
    ("min.cleanable.dirty.ratio", 0.5),
    ("min.cleanable.dirty.ratio", 0.9),
    ("segment.ms", "3d"),
    ("segment.ms", "7d"),
    ("compaction.strategy", "offset"),
    ("compaction.strategy", "timestamp"),
]
REFUSED_EDITS = [
    ("min.cleanable.dirty.ratio", 1.5),  # Kafka: in [0, 1]
    ("delete.retention.ms", "soon"),  # no duration
    ("compaction.strategy", "header"),  # KIP-280: needs compaction.strategy.header, which stays empty
]
EDITABLE = sorted({name for name, _ in VALID_EDITS + REFUSED_EDITS})
STATE_MACHINE_SETTINGS = settings(
    max_examples=6, stateful_step_count=10, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def plain(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def in_force_value(name: str, value: Any) -> Any:
    return parse_duration_ms(value, field=name) if name.endswith(".ms") else value


class EditedConfigs:
    """The configs the edits so far put in force over ``base`` (a source's properties): while a field holds a
    refused value, no edit is in force; ``not_in_force`` are the fields that show something else than what is."""

    def __init__(self, base: dict[str, Any]) -> None:
        self.base = base
        self.fields: dict[str, Any] = {}
        self.refused: set[str] = set()
        self.in_force: dict[str, Any] = {}

    def edit(self, name: str, value: Any, *, valid: bool) -> None:
        self.fields[name] = value
        (self.refused.discard if valid else self.refused.add)(name)
        if not self.refused:
            self.in_force = {n: in_force_value(n, v) for n, v in self.fields.items()}

    def all_in_force(self) -> dict[str, Any]:
        return self.base | self.in_force

    def not_in_force(self) -> list[str]:
        in_force = self.all_in_force()
        return sorted(
            name
            for name, value in self.fields.items()
            if name in self.refused or in_force_value(name, value) != in_force[name]
        )

    def key(self) -> tuple[tuple[str, Any], ...]:
        return tuple(sorted(self.in_force.items()))


def partial_pass_log():
    """12 records of 6 keys behind a roll: a 4-slot map needs several partial passes."""
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    return log


class ExpectedSteps:
    """The stepper's positions recomputed from the source under some configs: (number, frame) per position."""

    def __init__(self, kind: str, log, overrides: dict[str, Any]) -> None:
        if kind == "scenario":
            frames = Timeline(scenario_frames(FRUIT, topic_config=overrides)).compute_all()
            checks = [f.index > 0 and FRUIT.steps[f.index - 1].op in CHECK_OPS for f in frames]
            self.positions = [
                (f.index - 1 if f.index else None, f) for f, check in zip(frames, checks, strict=True) if not check
            ]
            self.unit = "step"
        else:
            config = log.config.with_properties(overrides)
            start = copy_log(log, config=config)
            now_ms = log.active_segment.last_modified_ms
            frames = Timeline(pass_frames(start, now_ms=now_ms, offset_map=PARTIAL_MAP)).compute_all()
            self.positions = [(f.index or None, f) for f in frames]
            self.unit = "pass"

    def name(self, position: int) -> str:
        number = self.positions[position][0]
        return "start" if number is None else f"{self.unit} {number}"

    def latest_pass(self, position: int):
        """The last pass at or before ``position`` and the position it ran at, or None."""
        for back in range(position, -1, -1):
            frame = self.positions[back][1]
            if frame.passes:
                return back, frame
        return None


class StepperMachine(RuleBasedStateMachine):
    """Next, previous, slider, play, config edits and strategy switches on a scenario's or a log's stepper."""

    @initialize(kind=st.sampled_from(["scenario", "log"]))
    def start(self, kind: str) -> None:
        self.kind = kind
        self.log = partial_pass_log() if kind == "log" else None
        if kind == "scenario":
            self.stepper = CompactionStepper(FRUIT)
        else:
            self.stepper = CompactionStepper(self.log, offset_map=PARTIAL_MAP)
        self.configs = EditedConfigs(self.stepper.source.topic.to_properties())
        self.position = 0
        self._expected: dict[tuple, ExpectedSteps] = {}

    def expected(self) -> ExpectedSteps:
        key = self.configs.key()
        if key not in self._expected:
            self._expected[key] = ExpectedSteps(self.kind, self.log, dict(self.configs.in_force))
        return self._expected[key]

    def last_position(self) -> int:
        return len(self.expected().positions) - 1

    @rule()
    def next(self) -> None:
        self.stepper.next_button.click()
        self.position = min(self.position + 1, self.last_position())

    @rule()
    def previous(self) -> None:
        self.stepper.prev_button.click()
        self.position = max(self.position - 1, 0)

    @rule(value=st.integers(0, 16), play=st.booleans())
    def move_to(self, value: int, play: bool) -> None:
        """The slider (or the play control linked to it) clamps to the positions computed so far."""
        (self.stepper.play if play else self.stepper.slider).value = value
        assert self.stepper.slider.value <= value
        self.position = self.stepper.slider.value

    @rule(edit=st.sampled_from(VALID_EDITS))
    def valid_edit(self, edit: tuple[str, Any]) -> None:
        self._edit(*edit, valid=True)

    @rule(edit=st.sampled_from(REFUSED_EDITS))
    def refused_edit(self, edit: tuple[str, Any]) -> None:
        self._edit(*edit, valid=False)

    def _edit(self, name: str, value: Any, *, valid: bool) -> None:
        self.stepper.config.set_value(name, value)
        self.configs.edit(name, value, valid=valid)
        self.position = min(self.position, self.last_position())

    @invariant()
    def shows_the_position(self) -> None:
        expected = self.expected()
        assert self.stepper.slider.value == self.position
        number, frame = expected.positions[self.position]
        assert (self.stepper.frame.label, self.stepper.frame.now_ms) == (frame.label, frame.now_ms)
        header = plain(self.stepper.status.value)
        lead = "start, before" if number is None else f"{expected.name(self.position)} of "
        assert header.startswith(lead), header
        assert self.stepper.layout_figure.layout.title.text.endswith(f" at {format_instant_ms(frame.now_ms)}")

    @invariant()
    def shows_the_latest_pass(self) -> None:
        expected = self.expected()
        latest = expected.latest_pass(self.position)
        shown = [child for child in self.stepper.pass_area.children if child.layout.display != "none"]
        if latest is None:
            assert shown == [self.stepper.placeholder]
            return
        at, frame = latest
        result = frame.passes[-1]
        assert shown == [self.stepper.latest_pass]
        figure = offset_map_figure(offset_map_view(result, frame.log))
        drawn = self.stepper.offset_map_figure
        assert drawn.layout.title.text == figure.layout.title.text
        assert drawn.layout.title.subtitle.text == figure.layout.title.subtitle.text
        assert set(drawn.layout.to_plotly_json()) == set(figure.layout.to_plotly_json())  # no axis left over
        in_map = [[int(x) for x in t.x] for t in drawn.data if t.name == IN_MAP]
        assert in_map == [[e.offset for e in offset_map_view(result, frame.log).entries]]
        stats = plain(self.stepper.stats.value)
        assert stats.startswith(
            f"Latest pass: {expected.name(at)}, {result.name}, "
            f"dirty section [{result.first_dirty_offset}, {result.end_offset})"
        )

    @invariant()
    def fields_show_the_configs_in_force(self) -> None:
        panel = self.stepper.config
        assert sorted(panel.refused) == self.configs.not_in_force()
        assert (panel.message.value == "") == (not self.configs.refused)
        in_force = panel.properties_in_force()
        stepped = self.stepper.frame.log.config.to_properties()
        for name, value in self.configs.in_force.items():
            assert in_force[name] == stepped[name] == value


class WhatIfMachine(RuleBasedStateMachine):
    """Edits and strategy switches on either side of a what-if explorer with labels given at the start."""

    LABELS = ("ratio 0.1", "the scenario's configs")

    def __init__(self) -> None:
        super().__init__()
        self.explorer = WhatIfExplorer(FRUIT, left={"min.cleanable.dirty.ratio": 0.1}, labels=self.LABELS)
        self.base = self.explorer.source.topic.to_properties()
        self.configs = [EditedConfigs(self.base), EditedConfigs(self.base)]
        self.configs[0].edit("min.cleanable.dirty.ratio", 0.1, valid=True)
        self.started = [configs.all_in_force() for configs in self.configs]
        self._series: dict[tuple, list] = {}

    def panel(self, side: int):
        return (self.explorer.left, self.explorer.right)[side]

    @rule(side=st.integers(0, 1), edit=st.sampled_from(VALID_EDITS))
    def valid_edit(self, side: int, edit: tuple[str, Any]) -> None:
        self.panel(side).set_value(*edit)
        self.configs[side].edit(*edit, valid=True)

    @rule(side=st.integers(0, 1), edit=st.sampled_from(REFUSED_EDITS))
    def refused_edit(self, side: int, edit: tuple[str, Any]) -> None:
        self.panel(side).set_value(*edit)
        self.configs[side].edit(*edit, valid=False)

    def expected_series(self, side: int) -> list:
        key = self.configs[side].key()
        if key not in self._series:
            frames = Timeline(scenario_frames(FRUIT, topic_config=dict(key))).compute_all()
            self._series[key] = dirtiness_series(frames)
        return self._series[key]

    @invariant()
    def titles_name_the_configs_in_force(self) -> None:
        titles = self.explorer.labels
        assert titles[0] != titles[1]
        for side, title in enumerate(titles):
            in_force = self.configs[side].all_in_force()
            if in_force == self.started[side]:
                assert title == self.LABELS[side]
                continue
            changed = {name: value for name, value in in_force.items() if value != self.base[name]}
            for name in EDITABLE:
                if name in changed:
                    value = changed[name]
                    shown = format_duration_ms(value) if name.endswith(".ms") else str(value)
                    assert f"{name} {shown}" in title, (title, name, shown)
                else:
                    assert name not in title, (title, name)
            assert f"<b>{html.escape(title)}</b>" in self.panel(side).intro.value
        shown = [f.layout.title.text.replace("<br>", " ") for f in self.explorer.figures]
        assert shown == list(titles)

    @invariant()
    def both_sides_are_drawn_on_one_scale_that_holds_every_mark(self) -> None:
        """Each side's figure has the same time range and the same range per row, and every point of every trace of
        either side lies within them (the ratio row from at most 0 % to at least 100 %)."""
        scales = [(f.layout.xaxis.range, f.layout.xaxis2.range, f.layout.yaxis.range, f.layout.yaxis2.range)
                  for f in self.explorer.figures]  # fmt: skip
        assert scales[0] == scales[1] and scales[0][0] == scales[0][1]
        (x_low, x_high), _, ratio, duplicates = scales[0]
        assert ratio[0] < 0 and ratio[1] > 1
        for figure in self.explorer.figures:
            for trace in figure.data:
                low, high = ratio if trace.yaxis == "y" else duplicates
                assert all(x_low < x < x_high for x in trace.x if x is not None), trace.name
                assert all(low <= y <= high for y in trace.y if y is not None), trace.name

    @invariant()
    def series_are_the_runs_under_the_configs_in_force(self) -> None:
        for side, title in enumerate(self.explorer.labels):
            assert self.explorer.series[title] == self.expected_series(side)
            assert sorted(self.panel(side).refused) == self.configs[side].not_in_force()


TestStepperMachine = StepperMachine.TestCase
TestStepperMachine.settings = STATE_MACHINE_SETTINGS
TestWhatIfMachine = WhatIfMachine.TestCase
TestWhatIfMachine.settings = STATE_MACHINE_SETTINGS
