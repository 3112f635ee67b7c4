"""The compaction stepper: step a scenario or a partition back and forth, figures redrawn in place."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets
import plotly.graph_objects as go

from kcompact_nb.core import BrokerConfig, Frame, KcompactError, OffsetMapSpec, PassResult, Timeline, TopicConfig, offset_map_view
from kcompact_nb.viz import cleaner_stats_figure, layout_figure, offset_map_figure
from kcompact_nb.widgets._config_panel import ConfigPanel
from kcompact_nb.widgets._figures import figure_widget, sync_figure
from kcompact_nb.widgets._sources import Source, frame_source

NEXT_LABEL = "Next ▶"
PREVIOUS_LABEL = "◀ Previous"


class CompactionStepper:
    """Step through a scenario's appends, rolls, time and passes, or a partition's cleaner passes.

    Controls (all plain ipywidgets, usable headlessly): ``next_button`` ("Next ▶"),
    ``prev_button``, ``slider`` (the frame shown; its maximum grows as frames are computed),
    ``play`` (linked to the slider), ``config`` (a :class:`ConfigPanel`) with ``strategy``.
    Figures (``go.FigureWidget``): ``layout_figure``, ``offset_map_figure``, ``stats_figure``.
    Frames are computed one ahead of the one shown and kept, so moving back is free and moving
    forward costs one step (one pass) and a redraw. Display the stepper itself or ``widget``.

    Parameters
    ----------
    source
        A scenario (parsed or a path), a ``PartitionLog`` or a ``Simulation``.
    topic, partition
        The partition shown (``topic`` may be omitted when there is one topic).
    now_ms
        Pass time for a log or simulation (default: its last change / the simulation's clock).
    offset_map
        An explicit offset map for the passes of a log (a small one gives partial passes).
    """

    def __init__(
        self,
        source: Source,
        *,
        topic: str | None = None,
        partition: int = 0,
        now_ms: int | None = None,
        offset_map: OffsetMapSpec | None = None,
    ) -> None:
        self.source = frame_source(source, topic=topic, partition=partition, now_ms=now_ms, offset_map=offset_map)
        self.config = ConfigPanel(self.source.topic, self.source.broker, title="configs")
        self.strategy = self.config.strategy
        self.next_button = ipywidgets.Button(description=NEXT_LABEL, tooltip="next step")
        self.prev_button = ipywidgets.Button(description=PREVIOUS_LABEL, tooltip="previous step")
        self.slider = ipywidgets.IntSlider(value=0, min=0, max=0, description="step")
        self.play = ipywidgets.Play(value=0, min=0, max=0, interval=1000, description="play")
        self.status = ipywidgets.HTML()
        self.layout_figure = figure_widget()
        self.offset_map_figure = figure_widget()
        self.stats_figure = figure_widget()
        self.timeline: Timeline = self.source.timeline(self.config)
        self._drawn_pass: PassResult | None = None
        self._wire()
        self.show(0)
        self.widget = self._assemble()

    @property
    def frame(self) -> Frame:
        """The frame shown."""
        return self.timeline.frame(self.slider.value)

    def show(self, index: int) -> None:
        """Show frame ``index`` (clamped to the frames that exist) and compute the one after it."""
        try:
            self.timeline.frame(index + 1)
        except IndexError:
            pass
        except KcompactError as error:
            self.config.show_error(str(error))
        self.slider.max = self.play.max = max(len(self.timeline) - 1, 0)
        index = min(index, self.slider.max)
        if self.slider.value != index:
            self.slider.value = index  # observed: redraws through _on_slider
            return
        self._draw(self.timeline.frame(index))

    def _wire(self) -> None:
        ipywidgets.link((self.play, "value"), (self.slider, "value"))
        self.slider.observe(self._on_slider, names="value")
        self.next_button.on_click(lambda _: self.show(self.slider.value + 1))
        self.prev_button.on_click(lambda _: self.show(max(self.slider.value - 1, 0)))
        self.config.on_change(self._reconfigure)

    def _on_slider(self, change: dict[str, Any]) -> None:
        self.show(change["new"])

    def _reconfigure(self, _topic: TopicConfig, _broker: BrokerConfig) -> None:
        """Recompute the timeline from the start under the new configs, keeping the step shown."""
        try:
            timeline = self.source.timeline(self.config)
            timeline.frame(0)
        except KcompactError as error:
            self.config.show_error(str(error))
            return
        self.timeline = timeline
        self.show(self.slider.value)

    def _draw(self, frame: Frame) -> None:
        total = "" if self.timeline.exhausted else "+"
        self.status.value = f"<b>step {frame.index} / {len(self.timeline) - 1}{total}</b> at {frame.now_ms} ms: {html.escape(frame.label)}"
        sync_figure(self.layout_figure, layout_figure(frame.log, now_ms=frame.now_ms))
        latest = self._latest_pass(frame.index)
        if latest is None:
            self._drawn_pass = None
            empty = go.Figure(layout={"title": "no cleaner pass yet"})
            sync_figure(self.offset_map_figure, empty)
            sync_figure(self.stats_figure, empty)
            return
        result, after = latest
        if result is self._drawn_pass:
            return
        self._drawn_pass = result
        sync_figure(self.offset_map_figure, offset_map_figure(offset_map_view(result, after.log)))
        sync_figure(self.stats_figure, cleaner_stats_figure(result, title=f"{result.name}: pass of step {after.index}"))

    def _latest_pass(self, index: int) -> tuple[PassResult, Frame] | None:
        """The last pass at or before frame ``index``, with the frame it ran in."""
        for frame in reversed(self.timeline.frames[: index + 1]):
            if frame.passes:
                return frame.passes[-1], frame
        return None

    def _assemble(self) -> ipywidgets.VBox:
        buttons = ipywidgets.HBox([self.prev_button, self.next_button, self.play, self.slider])
        figures = ipywidgets.HBox([self.offset_map_figure, self.stats_figure])
        main = ipywidgets.VBox([buttons, self.status, self.layout_figure, figures])
        return ipywidgets.HBox([main, self.config.widget])

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
