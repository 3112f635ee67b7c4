"""Topic and broker configs for ``kcompact inspect``: ``--config`` and ``--config-file``.

Log dirs do not store configs, so the operator gives them, in the forms Kafka uses:

- ``--config NAME=VALUE`` sets a topic config for every topic; ``--config TOPIC:NAME=VALUE`` for one topic.
- ``--config-file FILE`` reads broker properties, topic configs and ``kafka-configs.sh --describe`` output, as
  :mod:`kcompact_nb.io.text._config_text` reads them.

Precedence, lowest first: Kafka's defaults, broker properties (their topic-level synonyms become every
topic's default), topic configs for every topic (the file's, then ``--config``'s), one topic's configs
(the file's, then ``--config``'s). ``cleanup.policy`` is ``compact`` unless set somewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kcompact_nb.cli._paths import read_text_file
from kcompact_nb.core import BrokerConfig, KcompactError, TopicConfig
from kcompact_nb.io import TOPIC_SCOPED, ConfigSettings, parse_config_text


def add_config_arguments(settings: ConfigSettings, items: Iterable[str]) -> None:
    """Add ``--config NAME=VALUE`` and ``--config TOPIC:NAME=VALUE`` items (over the file's, same scope)."""
    for item in items:
        scoped = TOPIC_SCOPED.match(item)
        topic, rest = (scoped["topic"], f"{scoped['name']}={scoped['value']}") if scoped else (None, item)
        name, sep, value = rest.partition("=")
        if not sep or not name.strip():
            raise KcompactError(f"--config {item!r}: expected NAME=VALUE or TOPIC:NAME=VALUE, e.g. segment.ms=100")
        if name.strip() not in TopicConfig.property_names():
            raise KcompactError(f"--config {item!r}: {name.strip()!r} is not a topic config; known: "
                                f"{', '.join(sorted(TopicConfig.property_names()))}")  # fmt: skip
        settings.add_topic_setting(topic, name.strip(), value.strip())


def overrides(config: TopicConfig) -> dict[str, object]:
    """The topic configs that differ from Kafka's defaults, whichever level set them."""
    defaults = TopicConfig().to_properties()
    return {name: value for name, value in config.to_properties().items() if defaults[name] != value}


def read_config_file(path: Path) -> ConfigSettings:
    """The settings of a ``--config-file`` (its forms: :mod:`kcompact_nb.io.text._config_text`)."""
    return parse_config_text(read_text_file(path, "--config-file"), f"--config-file {path}")


def config_settings(items: list[str], config_file: Path | None, kafka_version: str | None) -> ConfigSettings:
    """The settings of ``--config-file``, then ``--config``, then ``--kafka-version``.

    A ``--config`` item named like a broker property goes to the broker, any other to the topics.
    """
    settings = read_config_file(config_file) if config_file else ConfigSettings()
    broker_names = BrokerConfig.property_names()
    for item in items:
        name, sep, value = item.partition("=")
        if sep and name.strip() in broker_names:
            settings.broker[name.strip()] = value.strip()
        else:
            add_config_arguments(settings, [item])
    if kafka_version is not None:
        settings.broker["kafka.version"] = kafka_version
    return settings
