"""Axes fit their data in a real browser: plotly.js computes the ranges (Chromium, headless).

Issue 15 saw the what-if duplicates row stuck at [-1, 4] in the page although the Python figure set no
range on it: plotly.js stops autoranging a group of matched axes when another group has a fixed range.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from kcompact_nb import Timeline, dirtiness_series, layout_scale
from kcompact_nb.scenario import scenario_frames
from kcompact_nb.viz import dirty_ratio_timeline_figure, layout_figure, what_if_figure
from tests.viz.rules import _extent

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCENARIOS = Path(__file__).resolve().parents[2] / "data" / "samples" / "scenarios"
HOUR = 3_600_000

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Chromium (apt-get install chromium; .ci/run installs it)"
)

PROBE = """<script>
var out = {};
document.querySelectorAll('.plotly-graph-div').forEach(function (gd) {
  var axes = {};
  for (var k in gd._fullLayout) { if (/^[xy]axis\\d*$/.test(k)) axes[k] = gd._fullLayout[k].range; }
  out[gd.id] = axes;
});
var pre = document.createElement('pre'); pre.id = 'ranges'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


def browser_ranges(figures: dict[str, go.Figure], folder: Path) -> dict[str, dict[str, list[float]]]:
    """Each figure's axis ranges as plotly.js drew them in one page."""
    divs = [
        pio.to_html(fig, include_plotlyjs=i == 0, full_html=False, div_id=name)
        for i, (name, fig) in enumerate(figures.items())
    ]
    page = folder / "figures.html"
    page.write_text("<html><body>" + "".join(divs) + PROBE + "</body></html>")
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,900",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return json.loads(html.unescape(dom.split('<pre id="ranges">', 1)[1].split("</pre>", 1)[0]))


def data_outside(fig: go.Figure, ranges: dict[str, list[float]]) -> list[str]:
    """Data points of ``fig`` that lie outside the browser's range of their axis."""
    problems = []
    for trace in fig.data:
        for letter in ("x", "y"):
            ref = getattr(trace, f"{letter}axis", None) or letter
            key = f"{letter}axis{ref[1:]}"
            if key not in ranges or fig.layout[key].type == "date" or fig.layout[key].type == "category":
                continue
            low, high = sorted(ranges[key])
            outside = [v for v in _extent(trace, letter) if not low - 1e-6 <= v <= high + 1e-6]
            if outside:
                problems.append(f"{trace.name!r} on {key} [{low:.3g}, {high:.3g}] at {outside[:3]}")
    return problems


@pytest.fixture(scope="module")
def slow_series():
    configs = {
        "defaults": {},
        "segment.ms 12 h": {"segment.ms": 12 * HOUR},
        "max.compaction.lag.ms 24 h": {"max.compaction.lag.ms": 24 * HOUR},
    }
    return {
        k: dirtiness_series(Timeline(scenario_frames(SCENARIOS / "slow-topic.json", topic_config=c)).compute_all())
        for k, c in configs.items()
    }


def test_axes_fit_their_data_in_the_browser(tmp_path, slow_series):
    fruit = Timeline(scenario_frames(SCENARIOS / "fruit-prices.json")).compute_all()
    scale = layout_scale(fruit[6].log, fruit[17].log)
    figures = {
        "what_if": what_if_figure(slow_series),
        "timeline": dirty_ratio_timeline_figure(dirtiness_series(fruit)),
        "layout_before": layout_figure(fruit[6].log, now_ms=fruit[6].now_ms, scale=scale),
        "layout_after": layout_figure(fruit[17].log, now_ms=fruit[17].now_ms, scale=scale),
    }
    ranges = browser_ranges(figures, tmp_path)
    assert {name: data_outside(fig, ranges[name]) for name, fig in figures.items()} == {name: [] for name in figures}
    duplicates_high = max(ranges["what_if"][f"yaxis{n}"][1] for n in (4, 5, 6))
    assert duplicates_high > 72  # the defaults column stores 72 superseded records at the end
    assert ranges["layout_before"]["xaxis"] == ranges["layout_after"]["xaxis"] == [-0.5, 8.5]
