"""The layout, offset map and what-if figures are assembled without plotly's validation (issues #29, #41): each must
be exactly the figure plotly builds when it validates the same JSON, for every step of every bundled scenario (and
every scenario's dirtiness side by side with another's, by time and by step, in one to three columns)."""

from __future__ import annotations

import json
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.utils import PlotlyJSONEncoder

from kcompact_nb.core import Timeline, dirtiness_series, layout_scale, offset_map_view
from kcompact_nb.scenario import load_scenario, scenario_frames
from kcompact_nb.viz import layout_figure, offset_map_figure, what_if_figure

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios").glob("*.json"))


def as_json(fig: go.Figure) -> str:
    return json.dumps(fig.to_plotly_json(), cls=PlotlyJSONEncoder, sort_keys=True)


def figures(path: Path) -> list[go.Figure]:
    """Layout figures (by fate on a shared scale, by key, bucketed) and offset map figures of every frame, and what-if
    figures of the topic's dirtiness."""
    scenario = load_scenario(path)
    drawn = []
    for topic in scenario.topics:
        frames = Timeline(scenario_frames(scenario, topic=topic)).compute_all()
        scale = layout_scale(*(frame.log for frame in frames))
        for frame in frames:
            drawn.append(layout_figure(frame.log, now_ms=frame.now_ms, scale=scale))
            drawn.append(layout_figure(frame.log, now_ms=frame.now_ms, color_by="key"))
            drawn.append(layout_figure(frame.log, now_ms=frame.now_ms, max_records=10, bucket_count=8))
            drawn += [offset_map_figure(offset_map_view(result, frame.log)) for result in frame.passes]
        series = dirtiness_series(frames)
        others = dirtiness_series(Timeline(scenario_frames(SCENARIOS[0])).compute_all())
        sides = ({topic: series}, {topic: series, "another scenario": others}, {"a": series, "b": [], "c": others})
        for columns in sides:
            drawn += [what_if_figure(columns, by=by) for by in ("time", "frame")]
    return drawn


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda path: path.stem)
def test_each_figure_is_the_one_plotly_validates(path: Path) -> None:
    drawn = figures(path)
    assert drawn
    for fig in drawn:
        assert as_json(go.Figure(fig.to_plotly_json())) == as_json(fig)


def test_a_figure_validates_what_is_set_on_it_afterwards() -> None:
    fig = figures(SCENARIOS[0])[0]
    with pytest.raises(ValueError, match="barmod"):
        fig.update_layout(barmod="stack")
    with pytest.raises(ValueError, match="colour"):
        fig.data[0].update(marker={"colour": "red"})
