"""The compaction stepper: step a scenario or a partition back and forth, figures redrawn in place."""

from __future__ import annotations

from typing import Any

import ipywidgets
import plotly.graph_objects as go

from kcompact_nb.core import (
    BrokerConfig,
    Frame,
    KcompactError,
    LayoutScale,
    OffsetMapSpec,
    PassResult,
    TopicConfig,
    layout_scale,
    offset_map_view,
)
from kcompact_nb.viz import layout_figure, offset_map_figure
from kcompact_nb.widgets._config_panel import ConfigPanel
from kcompact_nb.widgets._figures import FigureView, show_only, styled
from kcompact_nb.widgets._sources import Source, frame_source
from kcompact_nb.widgets._status import checks_html, end_html, header_html, placeholder_html, stats_html
from kcompact_nb.widgets._steps import Shown, Steps

NEXT_LABEL = "Next ▶"
PREVIOUS_LABEL = "◀ Previous"


class CompactionStepper:
    """Step through a scenario's appends, rolls, time and passes, or a partition's cleaner passes.

    Controls (all plain ipywidgets, usable headlessly): ``next_button`` ("Next ▶"), ``prev_button``,
    ``slider`` (the position shown; its maximum grows as steps are computed), ``play`` (linked to the
    slider), ``config`` (a :class:`ConfigPanel`) with ``strategy`` (KIP-280's, not Apache Kafka's).
    Steps are numbered as their source numbers them: a scenario's steps as in its file (``steps[i]``),
    passes from 1. A scenario's ``expect`` and ``snapshot`` steps are not positions of their own: they
    are listed in ``checks`` on the step they check. ``status`` names the step shown; ``layout_figure``
    (a ``go.Figure``, shown by ``layout_view``) draws the partition; after the first pass ``offset_map_figure`` and
    ``stats`` (Kafka's log line and ``CleanerStats``) show the last pass, before it ``pass_area`` holds
    a plain-text ``placeholder`` in their place (``pass_area`` holds the ``placeholder`` and
    ``latest_pass`` (the figure and the stats), one of them hidden: see
    :func:`~kcompact_nb.widgets._figures.show_only`). At the last step, ``checks`` also says why no further pass runs.
    Display the stepper itself or ``widget``.

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
        self.config = ConfigPanel(
            self.source.topic, self.source.broker, title="configs", offset_map=self.source.offset_map
        )
        self.strategy = self.config.strategy
        self.next_button = ipywidgets.Button(description=NEXT_LABEL, tooltip="next step")
        self.prev_button = ipywidgets.Button(description=PREVIOUS_LABEL, tooltip="previous step")
        self.slider = ipywidgets.IntSlider(
            value=0, min=0, max=0, readout=False, layout=ipywidgets.Layout(flex="1 1 auto")
        )
        self.play = ipywidgets.Play(value=0, min=0, max=0, interval=1000, description="play")
        self.status = ipywidgets.HTML()
        self.checks = ipywidgets.HTML()
        self.layout_view = FigureView()
        self.offset_map_view = FigureView()
        self.stats = ipywidgets.HTML(layout=ipywidgets.Layout(width="100%"))
        self.placeholder = ipywidgets.HTML()
        self.latest_pass = ipywidgets.VBox(
            [self.offset_map_view.widget, self.stats], layout=ipywidgets.Layout(width="100%")
        )
        self.pass_area = ipywidgets.VBox([self.placeholder, self.latest_pass], layout=ipywidgets.Layout(width="100%"))
        self.steps = self._steps()
        self._drawn_pass: PassResult | None = None
        self._scaled: tuple[int, LayoutScale | None] = (0, None)
        self._layouts: dict[int, tuple[LayoutScale, go.Figure]] = {}
        self._offset_maps: dict[int, tuple[PassResult, go.Figure]] = {}
        self._wire()
        self.show(0)
        self.widget = self._assemble()

    @property
    def layout_figure(self) -> go.Figure:
        """The partition's figure at the step shown."""
        return self.layout_view.figure

    @property
    def offset_map_figure(self) -> go.Figure:
        """The offset map of the last pass at or before the step shown (held hidden before the first pass)."""
        return self.offset_map_view.figure

    @property
    def shown(self) -> Shown:
        """The position shown: its frame and its checks."""
        return self.steps.at(self.slider.value)

    @property
    def frame(self) -> Frame:
        """The frame shown."""
        return self.shown.frame

    def show(self, position: int) -> None:
        """Show step ``position`` (clamped to the steps that exist) and compute the one after it."""
        try:
            self.steps.at(position)
        except IndexError:
            pass
        except KcompactError as error:
            self.config.show_error(str(error))
        self.slider.max = self.play.max = max(len(self.steps) - 1, 0)
        position = min(position, self.slider.max)
        if self.slider.value != position:
            self.slider.value = position  # observed: redraws through _on_slider
            return
        self._draw(self.steps.at(position))

    def _steps(self) -> Steps:
        return Steps(self.source.timeline(self.config), self.source.is_check)

    def _wire(self) -> None:
        ipywidgets.link((self.play, "value"), (self.slider, "value"))
        self.slider.observe(self._on_slider, names="value")
        self.next_button.on_click(lambda _: self.show(self.slider.value + 1))
        self.prev_button.on_click(lambda _: self.show(max(self.slider.value - 1, 0)))
        self.config.on_change(self._reconfigure)

    def _on_slider(self, change: dict[str, Any]) -> None:
        self.show(change["new"])

    def _reconfigure(self, _topic: TopicConfig, _broker: BrokerConfig) -> None:
        """Recompute the steps from the start under the new configs, keeping the position shown (a
        ``KcompactError`` refuses the configs: the panel shows it)."""
        steps = self._steps()
        steps.at(0)
        self.steps = steps
        self._drawn_pass, self._scaled = None, (0, None)
        self._layouts, self._offset_maps = {}, {}
        self.show(self.slider.value)

    def _draw(self, shown: Shown) -> None:
        """Draw ``shown``: the pass's offset map (and its stats) first, then the partition, then the header and checks.
        The offset map is cheaper to build: the page draws it while the partition's figure is built and sent. Then
        send the figures of the steps before and after it ahead (:meth:`FigureView.ahead`)."""
        latest = self._latest_pass(shown.position)
        if latest is None:
            self.placeholder.value = placeholder_html(self.source, self.steps)
            show_only(self.pass_area, self.placeholder)
            self._draw_first_pass()
        else:
            show_only(self.pass_area, self.latest_pass)  # shown before it is drawn: plotly measures its width
            self._draw_pass(*latest)
            self.offset_map_view.refresh()
        frame = shown.frame
        self.layout_view.show(self._layout_figure(shown.position))
        last = len(self.steps) - 1
        self.status.value = header_html(self.source, frame, self.steps.last_known(), exhausted=self.steps.exhausted)
        at_end = self.steps.exhausted and shown.position == last
        self.checks.value = checks_html(self.source, shown.checks) + (end_html(self.source, frame) if at_end else "")
        self._draw_ahead(shown.position)

    def _draw_ahead(self, position: int) -> None:
        """Send ahead the figures of the positions before and after ``position`` (those computed: the next one is, the
        stepper computes one ahead). A step that computes a frame changing the scale draws its figure anew."""
        near = [p for p in (position + 1, position - 1) if p >= 0 and self.steps.known(p) is not None]
        self.layout_view.ahead([self._layout_figure(p) for p in near])
        passes = [latest for p in near if (latest := self._latest_pass(p))]
        self.offset_map_view.ahead([self._offset_map_figure(*latest) for latest in passes])
        kept = {id(result) for result, _ in passes} | {id(self._drawn_pass)}
        self._layouts = {p: self._layouts[p] for p in (*near, position) if p in self._layouts}
        self._offset_maps = {key: built for key, built in self._offset_maps.items() if key in kept}

    def _layout_figure(self, position: int) -> go.Figure:
        """The partition's figure at ``position`` on the common scale of the steps computed so far, built again only
        when a newly computed step changes that scale."""
        scale = self._scale()
        built = self._layouts.get(position)
        if built is None or built[0] != scale:
            frame = self.steps.known(position)
            assert frame is not None, "figures are built for positions computed"
            figure = layout_figure(
                frame.log,
                now_ms=frame.now_ms,
                scale=scale,
                offset_map=self.source.offset_map,
                strategy=self.source.strategy,
            )
            built = self._layouts[position] = (scale, figure)
        return built[1]

    def _offset_map_figure(self, result: PassResult, after: Frame) -> go.Figure:
        """The offset map figure of ``result``, the pass that made frame ``after`` (built once)."""
        built = self._offset_maps.get(id(result))
        if built is None or built[0] is not result:
            built = self._offset_maps[id(result)] = (result, offset_map_figure(offset_map_view(result, after.log)))
        return built[1]

    def _draw_pass(self, result: PassResult, after: Frame) -> None:
        """Hold the offset map figure of ``result``, the pass that made frame ``after``, and show its stats (once per
        pass)."""
        if result is self._drawn_pass:
            return
        self._drawn_pass = result
        self.offset_map_view.hold(self._offset_map_figure(result, after))
        self.stats.value = stats_html(result, self.source, after)

    def _draw_first_pass(self) -> None:
        """Before the first pass is shown, build its offset map figure and hold it, drawn once the step that runs it
        shows it (plotly measures its width then), as soon as the pass is computed (the stepper computes one position
        ahead), so the step that first shows it costs what others do."""
        first = self.steps.first_with_pass()
        if first is not None:
            self._draw_pass(first.passes[-1], first)

    def _scale(self) -> LayoutScale:
        """One scale for every step computed so far, so that a step's figure compares with the next."""
        frames = self.steps.timeline.frames
        known, scale = self._scaled
        if scale is None or known != len(frames):
            scale = layout_scale(*(frame.log for frame in frames))
            self._scaled = (len(frames), scale)
        return scale

    def _latest_pass(self, position: int) -> tuple[PassResult, Frame] | None:
        """The last pass at or before ``position``, with the frame it ran in (of the frames computed: computes none)."""
        for back in range(position, -1, -1):
            frame = self.steps.known(back)
            if frame is not None and frame.passes:
                return frame.passes[-1], frame
        return None

    def _assemble(self) -> ipywidgets.VBox:
        buttons = ipywidgets.HBox(
            [self.prev_button, self.next_button, self.play, self.slider], layout=ipywidgets.Layout(width="100%")
        )
        return styled(
            ipywidgets.VBox(
                [buttons, self.status, self.checks, self.layout_view.widget, self.pass_area, self.config.widget],
                layout=ipywidgets.Layout(width="100%", max_width="100%", overflow="hidden"),
            )
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
