"""Config validation for scenarios: Kafka's own checks, with the JSON path of the property at fault."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from kcompact_nb.core import BrokerConfig, ConfigError, TopicConfig
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._fields import check_object

T = TypeVar("T")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def key_path(path: str, name: str) -> str:
    """``path.name`` for identifiers, else ``path["name"]`` (property names contain dots)."""
    if _IDENTIFIER.match(name):
        return f"{path}.{name}" if path else name
    return f'{path}["{name}"]'


def broker_config(properties: Any, path: str) -> BrokerConfig:
    """A :class:`BrokerConfig` from scenario properties; errors carry ``path``."""
    props = check_object(properties, path, optional=tuple(properties) if isinstance(properties, dict) else ())
    return _validated(props, path, BrokerConfig.from_properties)


def topic_config(properties: Mapping[str, Any], path: str, *, broker: BrokerConfig) -> TopicConfig:
    """A :class:`TopicConfig` over the broker's defaults; errors carry ``path``."""
    return _validated(properties, path, lambda props: TopicConfig.from_properties(props, broker=broker))


def _validated(properties: Mapping[str, Any], path: str, build: Callable[[Mapping[str, Any]], T]) -> T:
    try:
        return build(properties)
    except ConfigError as exc:
        culprit = _first_failing(properties, build)
        where = key_path(path, culprit) if culprit is not None else path
        raise ScenarioError(where, str(exc)) from None


def _first_failing(properties: Mapping[str, Any], build: Callable[[Mapping[str, Any]], Any]) -> str | None:
    """The first property that is rejected on its own (unknown name, bad type or range)."""
    for name, value in properties.items():
        try:
            build({name: value})
        except ConfigError:
            return name
    return None
