"""A panel of compaction configs labelled with Kafka's property names; invalid values show Kafka's message."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets

from kcompact_nb.core import BrokerConfig, ConfigError, TopicConfig

TOPIC_PROPERTIES = (
    "compaction.strategy",
    "compaction.strategy.header",
    "min.cleanable.dirty.ratio",
    "segment.bytes",
    "segment.ms",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
    "delete.retention.ms",
)
"""Topic properties shown; ``compaction.strategy`` and its header are KIP-280's (never Kafka's)."""
BROKER_PROPERTIES = ("log.cleaner.dedupe.buffer.size",)
STRATEGIES = ("offset", "timestamp", "header")
Listener = Callable[[TopicConfig, BrokerConfig], None]


class ConfigPanel:
    """Controls for :data:`TOPIC_PROPERTIES` and :data:`BROKER_PROPERTIES` over a base topic and broker config.

    ``controls`` maps each property name to its widget (``strategy`` and ``header`` name the
    KIP-280 ones). Every edit is validated as Kafka would (``TopicConfig`` / ``BrokerConfig``);
    a valid one updates ``topic_config``/``broker_config`` and calls the listeners, an invalid one
    shows the ``ConfigError`` message in ``message`` and keeps the last valid configs.
    """

    def __init__(self, topic: TopicConfig, broker: BrokerConfig, *, title: str = "") -> None:
        self.topic_config, self.broker_config = topic, broker
        self.error: str | None = None
        self._listeners: list[Listener] = []
        values = {**topic.to_properties(), **broker.to_properties()}
        self.controls = {name: _control(name, values[name]) for name in TOPIC_PROPERTIES + BROKER_PROPERTIES}
        self.strategy: ipywidgets.Dropdown = self.controls["compaction.strategy"]
        self.header: ipywidgets.Text = self.controls["compaction.strategy.header"]
        self.message = ipywidgets.HTML(value="")
        for control in self.controls.values():
            control.observe(self._changed, names="value")
        heading = [ipywidgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        self.widget = ipywidgets.VBox([*heading, *self.controls.values(), self.message])

    def on_change(self, listener: Listener) -> None:
        """Call ``listener(topic_config, broker_config)`` after every valid edit."""
        self._listeners.append(listener)

    def topic_properties(self) -> dict[str, Any]:
        """The shown topic properties as ``{Kafka property name: value}``."""
        return {name: self.controls[name].value for name in TOPIC_PROPERTIES}

    def broker_properties(self) -> dict[str, Any]:
        return {name: self.controls[name].value for name in BROKER_PROPERTIES}

    def show_error(self, text: str) -> None:
        """Show ``text`` (a validation message) in place of a failure."""
        self.error = text
        self.message.value = f"<span style='color:#c0392b'>{html.escape(text)}</span>"

    def _changed(self, _change: dict[str, Any]) -> None:
        try:
            topic = self.topic_config.with_properties(self.topic_properties())
            broker = self.broker_config.with_properties(self.broker_properties())
        except ConfigError as error:
            self.show_error(str(error))
            return
        self.error, self.message.value = None, ""
        self.topic_config, self.broker_config = topic, broker
        for listener in self._listeners:
            listener(topic, broker)


def _control(name: str, value: Any) -> ipywidgets.Widget:
    style, layout = {"description_width": "initial"}, ipywidgets.Layout(width="420px")
    if name == "compaction.strategy":
        return ipywidgets.Dropdown(options=STRATEGIES, value=value, description=name, style=style, layout=layout)
    if name == "compaction.strategy.header":
        return ipywidgets.Text(value=value, description=name, placeholder="header name (KIP-280)", style=style, layout=layout)
    if isinstance(value, float):
        return ipywidgets.FloatText(value=value, description=name, step=0.05, style=style, layout=layout)
    return ipywidgets.IntText(value=value, description=name, style=style, layout=layout)
