"""Kafka's config text read into broker and topic configs: ``server.properties`` lines and ``kafka-configs.sh``
output.

Line by line:

- ``NAME=VALUE`` (or ``NAME: VALUE``): a broker property as in ``server.properties``
  (``log.cleaner.min.cleanable.ratio``, ``log.segment.bytes``, ``kafka.version`` ...), or a topic config for
  every topic;
- ``TOPIC:NAME=VALUE``: a topic config for one topic;
- the output of ``kafka-configs.sh --describe`` (``--all`` too), pasted as is: a line ``Dynamic configs for
  topic TOPIC are:`` (or ``All configs for ...``) followed by the indented ``NAME=VALUE sensitive=...
  synonyms={...}`` lines of that topic (or broker);
- blank lines and ``#`` or ``!`` comments.

Settings the cleaner does not use (``listeners``, ``node.id`` ...) are skipped and listed
(:attr:`ConfigSettings.ignored`). :func:`resolve_configs` applies them in precedence order, lowest first:
Kafka's defaults, broker properties (their topic-level synonyms become every topic's default), topic configs
for every topic, one topic's configs. ``cleanup.policy`` is ``compact`` unless set somewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kcompact_nb.core import BrokerConfig, KcompactError, TopicConfig

_DESCRIBE_HEADING = re.compile(
    r"^(?:Dynamic|All|Default) configs for (?P<kind>topic|broker|brokers)\b(?: (?P<name>\S+))?.*:$"
)
_DESCRIBE_ENTRY = re.compile(
    r"^\s+(?P<name>[^=\s]+)=(?P<value>.*?) sensitive=(?P<sensitive>true|false) synonyms=\{.*\}$"
)
TOPIC_SCOPED = re.compile(r"^(?P<topic>[A-Za-z0-9._-]+):(?P<name>[^=:\s]+)=(?P<value>.*)$")
"""``TOPIC:NAME=VALUE``: one topic's config."""


@dataclass
class ConfigSettings:
    """Config properties gathered from ``--config-file`` and ``--config``, before they are resolved."""

    broker: dict[str, str] = field(default_factory=dict)
    every_topic: dict[str, str] = field(default_factory=dict)
    per_topic: dict[str, dict[str, str]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    """Names the file set that the cleaner does not use, in file order, once each."""

    def add_topic_setting(self, topic: str | None, name: str, value: str) -> None:
        target = self.every_topic if topic is None else self.per_topic.setdefault(topic, {})
        target[name] = value

    def ignore(self, name: str) -> None:
        if name not in self.ignored:
            self.ignored.append(name)


def parse_config_text(text: str, source: str) -> ConfigSettings:
    """The settings of config text (see the module documentation for its forms); ``source`` names it in errors."""
    settings = ConfigSettings()
    section: tuple[str, str | None] | None = None  # ("topic", name) or ("broker", None) while in describe output
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "!")):
            continue
        heading = _DESCRIBE_HEADING.match(stripped)
        if heading is not None:
            section = ("topic", heading["name"]) if heading["kind"] == "topic" else ("broker", None)
            continue
        entry = _DESCRIBE_ENTRY.match(line)
        if entry is not None and section is not None:
            if entry["sensitive"] == "false":
                _add(settings, section, entry["name"], entry["value"])
            continue
        section = None
        _add_property_line(settings, stripped, f"{source} line {number}")
    return settings


def _add_property_line(settings: ConfigSettings, line: str, where: str) -> None:
    scoped = TOPIC_SCOPED.match(line)
    if scoped is not None:
        _add(settings, ("topic", scoped["topic"]), scoped["name"], scoped["value"].strip())
        return
    name, value = _split_property(line, where)
    _add(settings, ("any", None), name, value)


def _split_property(line: str, where: str) -> tuple[str, str]:
    """``NAME=VALUE`` or ``NAME: VALUE``, as in a ``.properties`` file."""
    positions = [i for i in (line.find("="), line.find(":")) if i > 0]
    if not positions:
        raise KcompactError(f"{where}: {line!r} is not NAME=VALUE, TOPIC:NAME=VALUE or kafka-configs.sh output")
    cut = min(positions)
    return line[:cut].strip(), line[cut + 1 :].strip()


def _add(settings: ConfigSettings, scope: tuple[str, str | None], name: str, value: str) -> None:
    kind, topic = scope
    topic_names, broker_names = TopicConfig.property_names(), BrokerConfig.property_names()
    if kind == "topic" and topic is not None and name in topic_names:
        settings.add_topic_setting(topic, name, value)
    elif kind == "any" and name in topic_names:
        settings.add_topic_setting(None, name, value)
    elif kind != "topic" and name in broker_names:
        settings.broker[name] = value
    else:
        settings.ignore(name)


@dataclass(frozen=True)
class ResolvedConfigs:
    """The broker config and each topic's config, ready for :func:`kcompact_nb.io.read_log_dir`."""

    broker: BrokerConfig
    default: TopicConfig
    per_topic: Mapping[str, TopicConfig]


def resolve_configs(settings: ConfigSettings) -> ResolvedConfigs:
    """Configs in precedence order: Kafka's defaults, broker, every topic, one topic (see the module doc)."""
    broker = BrokerConfig.from_properties(settings.broker)
    every = dict(settings.every_topic)
    if "cleanup.policy" not in every and "log.cleanup.policy" not in settings.broker:
        every = {"cleanup.policy": "compact", **every}
    default = _topic_config(every, broker, "every topic")
    per_topic = {topic: _topic_config({**every, **own}, broker, f"topic {topic}")
                 for topic, own in settings.per_topic.items()}  # fmt: skip
    return ResolvedConfigs(broker, default, per_topic)


def _topic_config(properties: dict[str, str], broker: BrokerConfig, scope: str) -> TopicConfig:
    try:
        return TopicConfig.from_properties(properties, broker=broker)
    except KcompactError as error:
        raise KcompactError(f"config for {scope}: {error}") from None
