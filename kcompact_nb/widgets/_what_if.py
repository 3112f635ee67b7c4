"""The what-if explorer: one workload under two configs (or strategies), side by side over time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets
import plotly.graph_objects as go

from kcompact_nb.core import BrokerConfig, DirtinessPoint, KcompactError, OffsetMapSpec, TopicConfig, dirtiness_series
from kcompact_nb.viz import what_if_figure
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
    the source's configs (:func:`config_title`): the panel heading, its column title and the figure
    title always name the configs in force. ``figure`` (a ``go.Figure``, shown by ``figure_view``) shows the dirty
    ratio, passes and rolls, and the duplicates still stored, per config; ``series`` holds the plotted points
    by title (``labels`` lists the titles, left then right). Editing a panel re-runs that side only, and only
    under configs not run lately (:data:`RUNS_KEPT`).
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
        self.figure_view = FigureView()
        for side, panel in enumerate(self._panels):
            try:
                self._run(side)
            except KcompactError as error:
                panel.show_error(str(error))
            panel.on_change(self._listener(side))
        self._redraw()
        for panel in self._panels:
            panel.widget.layout.flex, panel.widget.layout.min_width = "1 1 0", "0"
        panels = ipywidgets.HBox(
            [self.left.widget, self.right.widget], layout=ipywidgets.Layout(width="100%", grid_gap="16px")
        )
        self.widget = styled(
            ipywidgets.VBox(
                [panels, self.figure_view.widget], layout=ipywidgets.Layout(width="100%", overflow="hidden")
            )
        )

    @property
    def figure(self) -> go.Figure:
        """The figure shown: both sides' dirtiness over time."""
        return self.figure_view.figure

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
        for panel, title in zip(self._panels, self.labels, strict=True):
            panel.retitle(title)
        self.figure_view.show(what_if_figure(self.series, by=self.source.by))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def config_title(panel: ConfigPanel, base: Mapping[str, Any]) -> str:
    """The panel's properties in force that differ from ``base``, as its fields show them:
    ``segment.ms 6h, min.cleanable.dirty.ratio 0.1``; ``the source's configs`` when none differs."""
    in_force = panel.properties_in_force()
    changed = [f"{name} {panel.shown_in_force(name)}" for name, value in in_force.items() if value != base[name]]
    return ", ".join(changed) or "the source's configs"
