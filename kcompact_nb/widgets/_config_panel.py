"""A panel of compaction configs labelled with Kafka's property names; invalid values show Kafka's message.

Fields read and show people's units (``7 d``, ``12 h``, ``never``, ``128 MiB``) and hand Kafka's exact
units (ms, bytes) to the configs. KIP-280's two properties sit in a box of their own, marked as not
Apache Kafka's. A refused value stays in its field, struck through in red, and the message says what
is in force instead. When the passes use an explicit offset map, the panel says so in place of
``log.cleaner.dedupe.buffer.size`` (which that map replaces).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import ipywidgets

from kcompact_nb.core import (
    COMPACTION_STRATEGIES,
    BrokerConfig,
    KcompactError,
    OffsetMapSpec,
    TopicConfig,
    format_bytes,
    format_duration_ms,
    parse_bytes,
    parse_duration_ms,
)

KAFKA_TOPIC_PROPERTIES = (
    "min.cleanable.dirty.ratio",
    "segment.bytes",
    "segment.ms",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
    "delete.retention.ms",
)
"""Apache Kafka's topic properties shown, in the order a reader meets them."""
KIP_280_PROPERTIES = ("compaction.strategy", "compaction.strategy.header")
"""KIP-280's topic properties: proposed, never released in any Apache Kafka version."""
TOPIC_PROPERTIES = KIP_280_PROPERTIES + KAFKA_TOPIC_PROPERTIES
INTERNAL_SEGMENT_BYTES = "internal.segment.bytes"
"""Kafka's internal override of ``segment.bytes`` (below its 1 MiB minimum): shown only when a config sets it."""
BROKER_PROPERTIES = ("log.cleaner.dedupe.buffer.size",)
Listener = Callable[[TopicConfig, BrokerConfig], None]

DURATIONS = frozenset(name for name in TOPIC_PROPERTIES if name.endswith(".ms"))
"""Properties in milliseconds: shown as ``7 d``, ``12 h``, ``never``; typed as those, as ``7d``, or as plain ms."""
SIZES = frozenset({"segment.bytes", INTERNAL_SEGMENT_BYTES, "log.cleaner.dedupe.buffer.size"})
"""Properties in bytes: shown as ``1 GiB``, ``128 MiB``; typed as those or as plain bytes."""
TEXT_STYLE = "line-height:1.4; margin:4px 0"
"""Text in the panel wraps at its own line height, not at the 28 px of a row of widgets."""
FIELD_WIDTH = "400px"
LABEL_WIDTH = "230px"
REFUSED_CLASS = "kcompact-refused"
"""The CSS class of a field whose value Kafka refused (its text struck through in red)."""
REFUSED_CSS = (
    f"<style>.{REFUSED_CLASS} input, .{REFUSED_CLASS} select "
    "{color:#c0392b; text-decoration:line-through; background:#fdecea}</style>"
)
_UNIT_HINTS = {
    **{name: "a duration: 7d, 12h, 30m, 250 ms, never, or plain milliseconds" for name in DURATIONS},
    **{name: "a size: 1 GiB, 128 MiB, 512 KiB, or plain bytes" for name in SIZES},
}
_UNIT_HINTS[INTERNAL_SEGMENT_BYTES] += " (Kafka's internal override of segment.bytes, for segments below 1 MiB)"


class ConfigPanel:
    """Controls for :data:`TOPIC_PROPERTIES` and :data:`BROKER_PROPERTIES` over a base topic and broker config
    (and ``internal.segment.bytes`` when the topic config sets it).

    ``controls`` maps each Kafka property name to its widget; durations and sizes are text fields in
    human units (:func:`~kcompact_nb.core.format_duration_ms`, :func:`~kcompact_nb.core.format_bytes`)
    that also accept plain ms or bytes. ``strategy`` and ``header`` are KIP-280's controls, shown apart
    under "not in Apache Kafka". Every edit is validated as Kafka would (``TopicConfig`` /
    ``BrokerConfig``): a valid one updates ``topic_config``/``broker_config`` and calls the listeners,
    an invalid one shows the message in ``message``, marks the fields that differ from the configs in
    force (``refused``) and keeps the last valid configs. ``offset_map``, when the passes use an explicit
    map, is shown in place of the ``log.cleaner.dedupe.buffer.size`` field. ``title`` heads the panel
    (``retitle`` changes it).
    """

    def __init__(
        self, topic: TopicConfig, broker: BrokerConfig, *, title: str = "", offset_map: OffsetMapSpec | None = None
    ) -> None:
        self.topic_config, self.broker_config = topic, broker
        self.error: str | None = None
        self.refused: list[str] = []
        self._listeners: list[Listener] = []
        self._quiet = False
        values = {**topic.to_properties(), **broker.to_properties()}
        internal = (INTERNAL_SEGMENT_BYTES,) if values[INTERNAL_SEGMENT_BYTES] != -1 else ()
        self._topic_names = TOPIC_PROPERTIES + internal
        self._broker_names = BROKER_PROPERTIES if offset_map is None else ()
        self.controls: dict[str, ipywidgets.ValueWidget] = {
            name: _control(name, values[name]) for name in self._topic_names + self._broker_names
        }
        self.strategy: ipywidgets.Dropdown = self.controls["compaction.strategy"]
        self.header: ipywidgets.Text = self.controls["compaction.strategy.header"]
        self.message = ipywidgets.HTML(value="", layout=ipywidgets.Layout(width="auto", max_width="100%"))
        self.intro = ipywidgets.HTML()
        self.title = ""
        self.retitle(title)
        for control in self.controls.values():
            control.observe(self._changed, names="value")
        self.widget = self._assemble(offset_map)

    def on_change(self, listener: Listener) -> None:
        """Call ``listener(topic_config, broker_config)`` after every valid edit; a ``KcompactError`` it raises
        refuses the edit (shown as Kafka's messages are, the previous configs stay in force)."""
        self._listeners.append(listener)

    def set_value(self, name: str, value: Any) -> None:
        """Set property ``name`` as a user would: ms and bytes are shown in human units, text is read as typed."""
        control = self.controls[name]
        control.value = _shown(name, value) if isinstance(control, ipywidgets.Text) else value

    def topic_properties(self) -> dict[str, Any]:
        """The shown topic properties as ``{Kafka property name: value}`` in Kafka's units (ms, bytes).

        Raises
        ------
        UnitError : a field does not read as a duration or a size.
        """
        return {name: _read(name, self.controls[name].value) for name in self._topic_names}

    def broker_properties(self) -> dict[str, Any]:
        """The shown broker properties in Kafka's units (bytes)."""
        return {name: _read(name, self.controls[name].value) for name in self._broker_names}

    def properties_in_force(self) -> dict[str, Any]:
        """The panel's properties as the configs in force hold them (Kafka's units), refused edits left out."""
        values = {**self.topic_config.to_properties(), **self.broker_config.to_properties()}
        return {name: values[name] for name in self.controls}

    def shown_in_force(self, name: str) -> str:
        """Property ``name``'s value in force as its field shows it (``12 h``, ``1 GiB``, ``0.5``)."""
        return str(_shown(name, self.properties_in_force()[name]))

    def retitle(self, title: str) -> None:
        """Head the panel with ``title``."""
        self.title = title
        heading = f"<b>{html.escape(title)}</b> " if title else ""
        version = html.escape(str(self.broker_config.to_properties()["kafka.version"]))
        hint = (
            f"<span style='color:#555'>Apache Kafka's properties, checked as <b>kafka.version {version}</b> checks "
            "them; durations as 7 d, 12 h, never; sizes as MiB</span>"
        )
        self.intro.value = f"{REFUSED_CSS}<div style='{TEXT_STYLE}'>{heading}{hint}</div>"

    def show_error(self, text: str) -> None:
        """Show why the fields' values are not in force: each refused field's own reason when Kafka refuses it
        alone, else ``text`` (a validation message, or a run's failure), with the values in force instead."""
        self.error = text
        self._mark_refused()
        kept = "; ".join(f"{name} stays {self.shown_in_force(name)}" for name in self.refused)
        lead = f"Not applied ({kept}): " if kept else "Not applied: "
        reasons = self._reasons() or [text]
        style = f"{TEXT_STYLE}; color:#c0392b; white-space:normal; overflow-wrap:anywhere"
        lines = "<br>".join(html.escape(in_kafkas_words(reason)) for reason in reasons)
        self.message.value = f"<div style='{style}'>{html.escape(lead)}{lines}</div>"

    def _reasons(self) -> list[str]:
        """Kafka's message for each refused field whose value alone, over the configs in force, is refused."""
        reasons = []
        for name in self.refused:
            try:
                value = _read(name, self.controls[name].value)
                if name in self._broker_names:
                    self.broker_config.with_properties({name: value})
                else:
                    self.topic_config.with_properties({name: value})
            except KcompactError as error:
                reasons.append(str(error))
        return reasons

    def _mark_refused(self) -> None:
        """Strike through every field whose value is not the one in force (none once an edit is accepted)."""
        in_force = self.properties_in_force()
        self.refused = []
        for name, control in self.controls.items():
            try:
                differs = _read(name, control.value) != in_force[name]
            except KcompactError:
                differs = True
            if differs:
                self.refused.append(name)
                control.add_class(REFUSED_CLASS)
            else:
                control.remove_class(REFUSED_CLASS)

    def _changed(self, _change: dict[str, Any]) -> None:
        if self._quiet:
            return
        try:
            topic = self.topic_config.with_properties(self.topic_properties())
            broker = self.broker_config.with_properties(self.broker_properties())
        except KcompactError as error:
            self.show_error(str(error))
            return
        previous = self.topic_config, self.broker_config
        self.topic_config, self.broker_config = topic, broker
        try:
            for listener in self._listeners:
                listener(topic, broker)
        except KcompactError as error:  # a run under the new configs failed: they are not in force
            self.topic_config, self.broker_config = previous
            self.show_error(str(error))
            return
        self.error, self.message.value = None, ""
        self._normalize()
        self._mark_refused()

    def _normalize(self) -> None:
        """Show every accepted duration and size in its human form (``43200000`` becomes ``12 h``)."""
        self._quiet = True
        try:
            for name, control in self.controls.items():
                if name in DURATIONS or name in SIZES:
                    control.value = _shown(name, _read(name, control.value))
        finally:
            self._quiet = False

    def _assemble(self, offset_map: OffsetMapSpec | None) -> ipywidgets.VBox:
        kafka: list[ipywidgets.Widget] = [
            self.controls[name] for name in self._topic_names + self._broker_names if name not in KIP_280_PROPERTIES
        ]
        if offset_map is not None:
            kafka.append(ipywidgets.HTML(f"<div style='{TEXT_STYLE}'>{html.escape(offset_map_text(offset_map))}</div>"))
        grid = ipywidgets.GridBox(
            kafka, layout=ipywidgets.Layout(grid_template_columns=f"repeat(auto-fill, minmax({FIELD_WIDTH}, 1fr))")
        )
        kip = ipywidgets.VBox(
            [
                ipywidgets.HTML(
                    f"<div style='{TEXT_STYLE}'><b>KIP-280 compaction strategy</b> "
                    "<i>(not in Apache Kafka: proposed, never released)</i></div>"
                ),
                ipywidgets.HBox([self.strategy, self.header], layout=ipywidgets.Layout(flex_flow="row wrap")),
            ],
            layout=ipywidgets.Layout(border="1px dashed #999", padding="2px 6px", margin="6px 0 0 0"),
        )
        return ipywidgets.VBox(
            [self.intro, grid, kip, self.message], layout=ipywidgets.Layout(width="100%", overflow="hidden")
        )


def in_kafkas_words(message: str) -> str:
    """A config message as a reader of Kafka's properties reads it: the Python field name a message may add after
    the property's (``segment.bytes (field segment_bytes)``) left out, as Kafka's own message has none."""
    return _FIELD_NAME.sub("", message)


_FIELD_NAME = re.compile(r" \(field \w+\)")


def offset_map_text(spec: OffsetMapSpec) -> str:
    """What an explicit offset map is, said where ``log.cleaner.dedupe.buffer.size`` would be."""
    if spec.exact:
        size = "an exact map (every key, no size limit)"
    elif spec.slots is not None:
        keys = int(spec.slots * spec.load_factor)  # Kafka's SkimpyOffsetMap: (slots * loadFactor).toInt
        size = f"{spec.slots:,} slots at load factor {spec.load_factor:g} ({keys:,} keys a pass)"
    else:
        size = f"{format_bytes(spec.memory_bytes or 0)} at load factor {spec.load_factor:g}"
    return f"offset map: {size}, set by the code that built this widget in place of log.cleaner.dedupe.buffer.size"


def _control(name: str, value: Any) -> ipywidgets.ValueWidget:
    style, layout = {"description_width": LABEL_WIDTH}, ipywidgets.Layout(width=FIELD_WIDTH, max_width="100%")
    if name == "compaction.strategy":
        return ipywidgets.Dropdown(
            options=COMPACTION_STRATEGIES, value=value, description=name, style=style, layout=layout
        )
    if name == "compaction.strategy.header":
        return ipywidgets.Text(value=value, description=name, placeholder="header name", style=style, layout=layout)
    if name in DURATIONS or name in SIZES:
        hint = f"{name}: {_UNIT_HINTS[name]}"
        return ipywidgets.Text(
            value=_shown(name, value), description=name, tooltip=hint, placeholder=hint.split(": ", 1)[1],
            continuous_update=False, style=style, layout=layout,
        )  # fmt: skip
    return ipywidgets.FloatText(value=value, description=name, step=0.05, style=style, layout=layout)


def _shown(name: str, value: Any) -> Any:
    """``value`` (ms or bytes, or text as typed) as the field shows it."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    if name in DURATIONS:
        return format_duration_ms(value)
    if name in SIZES:
        return format_bytes(value)
    return value


def _read(name: str, value: Any) -> Any:
    """A field's value in Kafka's units: durations in ms, sizes in bytes; other values as they are."""
    if name in DURATIONS:
        return parse_duration_ms(value, field=name)
    if name in SIZES:
        return parse_bytes(value, field=name)
    return value
