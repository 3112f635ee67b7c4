"""The what-if explorer: one workload under two configs (or strategies), side by side over time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets
import plotly.graph_objects as go

from kcompact_nb.core import BrokerConfig, DirtinessPoint, KcompactError, OffsetMapSpec, TopicConfig, dirtiness_series
from kcompact_nb.viz import WhatIfScale, what_if_column, what_if_scale
from kcompact_nb.widgets._config_panel import ConfigPanel
from kcompact_nb.widgets._figures import FigureView, styled
from kcompact_nb.widgets._sources import FrameSource, Source, frame_source

RUNS_KEPT = 16
"""Runs an explorer keeps by the configs they ran under: an edit back to configs run before (a strategy switched and
switched back, a value undone, one panel set as the other) redraws without running the source again."""


class WhatIfExplorer:
    """Run the same source under the ``left`` and ``right`` panels' configs and plot both.

    ``left``/``right`` (Kafka property names) start each panel from the source's own configs
    with those overrides, e.g. ``{"min.cleanable.dirty.ratio": 0.1}`` or ``{"segment.ms": "12h"}``
    (durations and sizes in Kafka's ms and bytes or in human units). Each panel is titled by
    ``labels`` while it holds the configs it started with, and once edited by what it changes from
    the source's configs (:func:`config_title`): the panel heading and its figure's title always name the configs in
    force. Under each panel its figure (``figures``: left, right, each a ``go.Figure`` shown by ``figure_views``)
    shows the dirty ratio, passes and rolls, and the duplicates still stored under its configs, both on one scale
    (:func:`~kcompact_nb.viz.what_if_scale`); ``series`` holds the plotted points by title (``labels`` lists the
    titles, left then right). Editing a panel re-runs that side only, and only under configs not run lately
    (:data:`RUNS_KEPT`); only the figures it changed are drawn again (one, unless it changed the shared scale).
    """

    def __init__(
        self,
        source: Source,
        *,
        left: Mapping[str, Any] | None = None,
        right: Mapping[str, Any] | None = None,
        labels: tuple[str, str] | None = None,
        topic: str | None = None,
        partition: int = 0,
        now_ms: int | None = None,
        offset_map: OffsetMapSpec | None = None,
    ) -> None:
        self.source: FrameSource = frame_source(
            source, topic=topic, partition=partition, now_ms=now_ms, offset_map=offset_map
        )
        self.left = self._panel(left or {})
        self.right = self._panel(right or {})
        self._panels = (self.left, self.right)
        self._started = [panel.properties_in_force() for panel in self._panels]
        self._given = labels
        self._points: list[list[DirtinessPoint]] = [[], []]
        self._runs: dict[tuple[tuple[str, Any], ...], list[DirtinessPoint]] = {}
        """The points of the latest runs by the panel properties they ran under (both sides run the same source)."""
        self.figure_views = (FigureView(), FigureView())
        self._drawn: list[tuple[str, list[DirtinessPoint], WhatIfScale] | None] = [None, None]
        """What each side's figure was drawn from last (its title, points and scale)."""
        for side, panel in enumerate(self._panels):
            try:
                self._run(side)
            except KcompactError as error:
                panel.show_error(str(error))
            panel.on_change(self._listener(side))
        self._redraw()
        for column in (*self._panels, *self.figure_views):
            column.widget.layout.flex, column.widget.layout.min_width = "1 1 0", "0"
        panels, figures = (
            ipywidgets.HBox([left.widget, right.widget], layout=ipywidgets.Layout(width="100%", grid_gap="16px"))
            for left, right in (self._panels, self.figure_views)
        )
        self.widget = styled(
            ipywidgets.VBox([panels, figures], layout=ipywidgets.Layout(width="100%", overflow="hidden"))
        )

    @property
    def figures(self) -> tuple[go.Figure, go.Figure]:
        """The figures shown, left then right: each side's dirtiness over time, on one scale."""
        left, right = (view.figure for view in self.figure_views)
        return left, right

    @property
    def labels(self) -> tuple[str, str]:
        """The two panels' titles, left then right (made distinct when they would read the same)."""
        titles = [self._title(side) for side in range(2)]
        if titles[0] == titles[1]:
            titles = [f"{titles[0]} (left)", f"{titles[1]} (right)"]
        return titles[0], titles[1]

    @property
    def series(self) -> dict[str, list[DirtinessPoint]]:
        """The plotted points of each side, by its title."""
        return dict(zip(self.labels, self._points, strict=True))

    def _title(self, side: int) -> str:
        panel = self._panels[side]
        in_force = panel.properties_in_force()
        if self._given is not None and in_force == self._started[side]:
            return self._given[side]
        base = {**self.source.topic.to_properties(), **self.source.broker.to_properties()}
        return config_title(panel, {name: base[name] for name in in_force})

    def _panel(self, overrides: Mapping[str, Any]) -> ConfigPanel:
        panel = ConfigPanel(self.source.topic, self.source.broker, offset_map=self.source.offset_map)
        for name, value in overrides.items():
            panel.set_value(name, value)
        return panel

    def _listener(self, side: int) -> Any:
        def changed(_topic: TopicConfig, _broker: BrokerConfig) -> None:
            self._run(side)
            self._redraw()

        return changed

    def _run(self, side: int) -> None:
        """Re-run side ``side`` under its panel's configs (raises ``KcompactError`` when the run fails), or take the
        run of these configs kept from before."""
        panel = self._panels[side]
        configs = tuple(panel.properties_in_force().items())
        points = self._runs.pop(configs, None)
        if points is None:
            points = dirtiness_series(self.source.timeline(panel).compute_all())
        self._runs[configs] = points  # the latest last
        if len(self._runs) > RUNS_KEPT:
            del self._runs[next(iter(self._runs))]
        self._points[side] = points

    def _redraw(self) -> None:
        """Retitle the panels and draw each side's figure again unless its title, points and the scale are those it
        was drawn from."""
        series = self.series
        scale = what_if_scale(series, by=self.source.by)
        for side, (panel, title) in enumerate(zip(self._panels, self.labels, strict=True)):
            panel.retitle(title)
            drawn, points = self._drawn[side], series[title]
            if drawn is None or drawn[0] != title or drawn[1] is not points or drawn[2] != scale:
                self.figure_views[side].show(what_if_column(title, points, scale=scale))
                self._drawn[side] = title, points, scale

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def config_title(panel: ConfigPanel, base: Mapping[str, Any]) -> str:
    """The panel's properties in force that differ from ``base``, as its fields show them:
    ``segment.ms 6h, min.cleanable.dirty.ratio 0.1``; ``the source's configs`` when none differs."""
    in_force = panel.properties_in_force()
    changed = [f"{name} {panel.shown_in_force(name)}" for name, value in in_force.items() if value != base[name]]
    return ", ".join(changed) or "the source's configs"
