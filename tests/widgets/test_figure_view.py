"""A widget's figure view (``FigureView``) sends the page exactly the last figure it was given, whatever it showed
before (nothing of an earlier figure may survive, issue #29), and never the same figure twice (issue #41). A stepper
sends ahead the figures its next click may show, with the ids their showing sends (issue #39)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any
from unittest.mock import patch

import hypothesis.strategies as st
import plotly.graph_objects as go
import plotly.io as pio
from hypothesis import given, settings

from kcompact_nb import OffsetMapSpec, Timeline, copy_log, offset_map_view
from kcompact_nb.core import layout_scale, pass_frames
from kcompact_nb.scenario import load_scenario, scenario_frames
from kcompact_nb.viz import layout_figure, offset_map_figure
from kcompact_nb.widgets import CompactionStepper
from kcompact_nb.widgets._figures import FigureView, LivePlot, plotly_json, sendable
from tests.conftest import compacted_log, rec

SCENARIOS = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios"


def partial_pass_frames() -> list:
    """12 records of 6 keys behind a roll, cleaned by passes of a 4-slot map: each pass's figures differ."""
    log = compacted_log(min_cleanable_dirty_ratio=0.1)
    for i in range(12):
        log.append([rec(f"k{i % 6}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    start = copy_log(log)
    return Timeline(pass_frames(start, now_ms=0, offset_map=OffsetMapSpec(slots=4))).compute_all()


@cache
def figure_pool() -> tuple[go.Figure, ...]:
    """Layout figures (by fate and by key, several trace counts) and offset map figures of two sources, and a figure
    that leaves its size to the widget."""
    figures = [go.Figure(go.Bar(x=[1, 2], y=[3, 4]), layout={"title": {"text": "unsized"}, "autosize": False})]
    for frames in (
        partial_pass_frames(),
        Timeline(scenario_frames(load_scenario(SCENARIOS / "fruit-prices.json"))).compute_all(),
    ):
        scale = layout_scale(*(f.log for f in frames))
        for frame in frames:
            figures.append(layout_figure(frame.log, now_ms=frame.now_ms, scale=scale))
            figures.append(layout_figure(frame.log, now_ms=frame.now_ms, color_by="key"))
            if frame.passes:
                figures.append(offset_map_figure(offset_map_view(frame.passes[-1], frame.log)))
    return tuple(figures)


def plain(figure: dict[str, Any]) -> Any:
    """A figure's plotly JSON as plain Python, as plotly.js receives it (numpy arrays as lists), trace uids left out."""
    return json.loads(pio.to_json(figure, validate=False, remove_uids=True))


def shown(figure: go.Figure) -> dict[str, Any]:
    """The figure as plotly.js receives it, without the ``uid`` plotly gives each trace."""
    return plain(figure.to_plotly_json())


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=6))
def test_the_page_is_sent_exactly_the_last_figure_and_each_figure_once(picks: list[int]) -> None:
    """As wide as its container when the figure sets no width; a figure equal to the one drawn is not sent again."""
    pool = figure_pool()
    view = FigureView()
    for before, pick in zip([None, *picks], picks, strict=False):
        sent = view.widget.figure
        view.show(go.Figure(pool[pick % len(pool)]))
        if before is not None and before % len(pool) == pick % len(pool):
            assert view.widget.figure is sent
    expected = plain(plotly_json(pool[picks[-1] % len(pool)]))  # numpy arrays as lists, as the view sends them
    if "width" not in expected["layout"]:  # plotly.js would draw it 700 px wide
        expected["layout"]["autosize"] = True
    page = dict(view.widget.figure)
    assert page.pop("id") == sendable(go.Figure(pool[picks[-1] % len(pool)]))["id"]  # the id of its content
    assert plain(page) == expected == plain(plotly_json(view.figure))


def test_figures_sent_ahead_have_the_ids_their_showing_sends_and_are_sent_again_only_when_asked() -> None:
    pool = figure_pool()
    view = FigureView()
    messages: list[dict[str, Any]] = []
    view.widget.send = lambda content, buffers=None: messages.append(content)
    view.ahead([pool[1], pool[2]])
    view.ahead([go.Figure(pool[1]), go.Figure(pool[2])])  # equal figures: nothing new to draw ahead
    assert len(messages) == 1 and [plain({**f, "id": None}) for f in messages[0]["ahead"]] == [
        plain({**plotly_json(figure), "id": None}) for figure in (pool[1], pool[2])
    ]
    view.show(go.Figure(pool[2]))
    assert view.widget.figure["id"] == messages[0]["ahead"][1]["id"] != messages[0]["ahead"][0]["id"]
    view.ahead([go.Figure(pool[2]), pool[3], go.Figure(pool[3])])  # the figure shown and a repeat: not sent
    assert [f["id"] for f in messages[1]["ahead"]] == [sendable(pool[3])["id"]]
    view.widget._handle_custom_msg({"ask": "ahead"}, [])  # a view drawn later asks for them
    assert messages[2] == messages[1]
    pairs = {(f.pop("id"), json.dumps(f, sort_keys=True)) for f in map(sendable, pool)}
    assert len({i for i, _ in pairs}) == len({body for _, body in pairs}) == len(pairs) > 20  # one id per content


@contextmanager
def ahead_log() -> Iterator[dict[int, list[set[str]]]]:
    """Per ``LivePlot`` (by ``id``), the ids of each message of figures it sends ahead while in the block."""
    sent: dict[int, list[set[str]]] = defaultdict(list)

    def send(widget: LivePlot, content: dict[str, Any], buffers: Any = None) -> None:
        sent[id(widget)].append({figure["id"] for figure in content["ahead"]})

    with patch.object(LivePlot, "send", send):
        yield sent


def last_ahead(sent: dict[int, list[set[str]]], view: FigureView) -> set[str]:
    return sent[id(view.widget)][-1] if sent[id(view.widget)] else set()


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=12))
def test_every_click_through_a_partitions_passes_shows_figures_sent_ahead(forward: list[bool]) -> None:
    """A partition's passes keep one scale (no step appends), so every Next and Previous click shows the partition
    and the offset map the page drew ahead: the figure sent has an id the last message ahead named."""
    with ahead_log() as sent:
        stepper = CompactionStepper(partial_pass_frames()[0].log, now_ms=0, offset_map=OffsetMapSpec(slots=4))
        views = (stepper.layout_view, stepper.offset_map_view)
        for step in forward:
            before = [(view.widget.figure.get("id"), last_ahead(sent, view)) for view in views]
            (stepper.next_button if step else stepper.prev_button).click()
            for view, (drawn, ahead) in zip(views, before, strict=True):
                assert view.widget.figure.get("id") in {drawn, *ahead}


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40))
def test_a_previous_click_in_a_scenario_shows_the_partition_sent_ahead(steps: int) -> None:
    """Going back computes no frame, so the scale does not change: the step before was sent ahead as it is shown."""
    with ahead_log() as sent:
        stepper = CompactionStepper(load_scenario(SCENARIOS / "fruit-prices.json"))
        stepper.show(steps)
        shown, ahead = stepper.layout_view.widget.figure["id"], last_ahead(sent, stepper.layout_view)
        stepper.prev_button.click()
    assert stepper.layout_view.widget.figure["id"] in {shown, *ahead}  # the figure shown is never sent ahead


def test_before_the_first_pass_its_offset_map_is_built_ahead_and_shown_as_is_by_the_step_that_runs_it() -> None:
    stepper = CompactionStepper(load_scenario(SCENARIOS / "fruit-prices.json"))
    first = stepper.steps.first_with_pass()
    assert first is not None and stepper.offset_map_figure.layout.title.text is not None
    expected = plain(offset_map_figure(offset_map_view(first.passes[-1], first.log)).to_plotly_json())
    assert stepper.latest_pass.layout.display == "none"
    assert shown(stepper.offset_map_figure) == expected and stepper.offset_map_view.widget.figure == {}
    while not stepper.frame.passes:
        stepper.next_button.click()
    assert stepper.latest_pass.layout.display is None
    assert shown(stepper.offset_map_figure) == expected
    assert stepper.offset_map_view.widget.figure == sendable(stepper.offset_map_figure)


def test_a_step_that_runs_a_pass_sends_its_offset_map_before_the_partition_and_the_header_after_both() -> None:
    """The offset map, cheaper to build, reaches the page first: the page draws it while the kernel builds and sends
    the partition's figure (a click's time to both drawn is the page's two draws, not the kernel's builds and them).
    The first pass's stats are set ahead, hidden, with its figure built ahead (the notebooks' saved views hold them)."""
    frames = partial_pass_frames()
    stepper = CompactionStepper(frames[0].log, now_ms=0, offset_map=OffsetMapSpec(slots=4))
    sent: list[str] = []
    for name, widget, trait in (
        ("offset map", stepper.offset_map_view.widget, "figure"),
        ("partition", stepper.layout_view.widget, "figure"),
        ("stats", stepper.stats, "value"),
        ("header", stepper.status, "value"),
    ):
        widget.observe(lambda _change, name=name: sent.append(name), names=trait)
    steps = 0
    while not stepper.steps.exhausted or stepper.slider.value < stepper.slider.max:
        sent.clear()
        stepper.next_button.click()
        steps += 1
        assert stepper.frame.passes, "every step after the first runs a pass"
        expected = (
            ["offset map", "partition", "header"] if steps == 1 else ["stats", "offset map", "partition", "header"]
        )
        assert sent == expected, sent
    assert steps == len(frames) - 1 >= 2


def test_a_refresh_sends_only_a_figure_given_since_the_last_and_one_changed_in_place_once_given_again() -> None:
    view = FigureView()
    figure = go.Figure(go.Bar(x=[1, 2], y=[3, 4]), layout={"title": {"text": "first"}})
    view.show(figure)
    sent = view.widget.figure
    assert sent["layout"]["title"]["text"] == "first"
    figure.update_layout(title_text="changed in place")
    view.refresh()
    assert view.widget.figure is sent
    view.hold(figure)
    view.refresh()
    assert view.widget.figure["layout"]["title"]["text"] == "changed in place"


def test_a_figure_given_lately_is_not_serialized_again_and_one_changed_in_place_is_still_shown_as_it_is() -> None:
    pool = figure_pool()
    view = FigureView()
    with patch("kcompact_nb.widgets._figures.sendable", wraps=sendable) as serialize:
        view.ahead([pool[1], pool[2]])
        view.show(pool[1])  # shown: serialized anew, as a figure changed in place must be
        view.ahead([pool[1], pool[2], pool[3]])
        view.ahead([pool[2], pool[3]])
    assert [call.args[0] for call in serialize.call_args_list] == [pool[1], pool[2], pool[1], pool[3]]
    changed = go.Figure(pool[3])
    view.ahead([changed])
    changed.update_layout(title_text="changed in place")
    view.show(changed)
    assert view.widget.figure["layout"]["title"]["text"] == "changed in place"
    assert view.widget.figure["id"] == sendable(changed)["id"]
