"""The what-if explorer: one workload under two configs (or strategies), side by side over time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets

from kcompact_nb.core import BrokerConfig, DirtinessPoint, KcompactError, OffsetMapSpec, TopicConfig, dirtiness_series
from kcompact_nb.viz import what_if_figure
from kcompact_nb.widgets._config_panel import ConfigPanel
from kcompact_nb.widgets._figures import figure_widget, sync_figure
from kcompact_nb.widgets._fit import FigureFitter
from kcompact_nb.widgets._sources import FrameSource, Source, frame_source


class WhatIfExplorer:
    """Run the same source under the ``left`` and ``right`` panels' configs and plot both.

    ``left``/``right`` (Kafka property names) start each panel from the source's own configs
    with those overrides, e.g. ``{"min.cleanable.dirty.ratio": 0.1}`` or ``{"segment.ms": "12h"}``
    (durations and sizes in Kafka's ms and bytes or in human units); ``labels`` title the
    columns. ``figure`` (a ``go.FigureWidget``) shows the dirty ratio, passes and rolls, and
    the duplicates still stored, per config; ``series`` holds the plotted points by label.
    Editing a panel re-runs that side only.
    """

    def __init__(
        self,
        source: Source,
        *,
        left: Mapping[str, Any] | None = None,
        right: Mapping[str, Any] | None = None,
        labels: tuple[str, str] = ("A", "B"),
        topic: str | None = None,
        partition: int = 0,
        now_ms: int | None = None,
        offset_map: OffsetMapSpec | None = None,
    ) -> None:
        self.source: FrameSource = frame_source(
            source, topic=topic, partition=partition, now_ms=now_ms, offset_map=offset_map
        )
        self.labels = labels
        self.left = self._panel(left or {}, labels[0])
        self.right = self._panel(right or {}, labels[1])
        self.series: dict[str, list[DirtinessPoint]] = {label: [] for label in labels}
        self.figure = figure_widget()
        for panel, label in ((self.left, labels[0]), (self.right, labels[1])):
            self._run(panel, label)
            panel.on_change(self._listener(panel, label))
        self._redraw()
        for panel in (self.left, self.right):
            panel.widget.layout.flex, panel.widget.layout.min_width = "1 1 0", "0"
        panels = ipywidgets.HBox(
            [self.left.widget, self.right.widget], layout=ipywidgets.Layout(width="100%", grid_gap="16px")
        )
        self.fitter = FigureFitter([self.figure])
        self.widget = ipywidgets.VBox(
            [panels, self.figure, self.fitter], layout=ipywidgets.Layout(width="100%", overflow="hidden")
        )

    def _panel(self, overrides: Mapping[str, Any], label: str) -> ConfigPanel:
        panel = ConfigPanel(self.source.topic, self.source.broker, title=label)
        for name, value in overrides.items():
            panel.set_value(name, value)
        return panel

    def _listener(self, panel: ConfigPanel, label: str) -> Any:
        def changed(_topic: TopicConfig, _broker: BrokerConfig) -> None:
            if self._run(panel, label):
                self._redraw()

        return changed

    def _run(self, panel: ConfigPanel, label: str) -> bool:
        if panel.error is not None:
            return False
        try:
            frames = self.source.timeline(panel).compute_all()
        except KcompactError as error:
            panel.show_error(str(error))
            return False
        self.series[label] = dirtiness_series(frames)
        return True

    def _redraw(self) -> None:
        sync_figure(self.figure, what_if_figure(self.series, by=self.source.by))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
