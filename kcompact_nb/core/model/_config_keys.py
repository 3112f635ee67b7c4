"""Table-driven config keys: Kafka property names, defaults, types and ``ConfigDef``-style checks."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any

from kcompact_nb.core.model._errors import ConfigError

LONG_MAX = 9_223_372_036_854_775_807
INT_MAX = 2_147_483_647
"""Java's Int.MaxValue: 32-bit sizes and relative offsets."""
DOUBLE_MAX = 1.7976931348623157e308
"""Java's Double.MAX_VALUE: an unthrottled cleaner."""
MIB = 1_048_576


@dataclass(frozen=True)
class KafkaType:
    """A ``ConfigDef.Type``: its name, the Python type holding its values and, for numbers, Java's range."""

    name: str
    python: type
    low: int | None = None
    high: int | None = None

    def holds(self, value: Any) -> bool:
        """``value`` fits a Java value of this type (an ``int`` 32 bits, a ``long`` 64)."""
        return self.low is None or self.high is None or self.low <= value <= self.high


INT = KafkaType("INT", int, -(2**31), INT_MAX)
LONG = KafkaType("LONG", int, -(2**63), LONG_MAX)
DOUBLE = KafkaType("DOUBLE", float)
LIST = KafkaType("LIST", tuple)
STRING = KafkaType("STRING", str)
BOOLEAN = KafkaType("BOOLEAN", bool)
_PYTHON_TYPES = {int: LONG, float: DOUBLE, tuple: LIST, str: STRING, bool: BOOLEAN}
_JAVA_WHITESPACE = "".join(map(chr, range(33)))
"""What Java's ``String.trim`` removes (every character up to the space), as ``ConfigDef.parseType`` trims."""
_JAVA_INTEGER = re.compile(r"[+-]?\d+")
"""``Long.parseLong``/``Integer.parseInt``: a sign and decimal digits, nothing else (no ``_``, no spaces)."""
_JAVA_DOUBLE = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?")
"""``Double.parseDouble``'s decimal forms (hexadecimal ones are not read)."""


@dataclass(frozen=True)
class Check:
    """A validator with Kafka's wording of the allowed values (``ConfigDef.Range``/``ValidString``)."""

    accepts: Callable[[Any], bool]
    allowed: str


def between(low: float, high: float) -> Check:
    return Check(lambda v: low <= v <= high, f"Value must be in [{_number(low)}, {_number(high)}]")


def at_least(low: float) -> Check:
    return Check(lambda v: v >= low, f"Value must be at least {_number(low)}")


def _number(value: float) -> str:
    """A bound as Kafka prints it: whole numbers in full (2147483647, not 2.14748e+09)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def one_of(*choices: str) -> Check:
    return Check(lambda v: v in choices, f"String must be one of: {', '.join(choices)}")


@dataclass(frozen=True)
class ConfigKey:
    """One Kafka property: its name, ``ConfigDef`` type, check and broker-level synonyms.

    ``synonyms`` maps a broker property to the factor that turns its value into this key's
    unit (``log.roll.hours`` -> ``segment.ms`` is 3,600,000); a synonym with a factor is an ``INT``
    in Kafka (``log.roll.hours``, ``log.retention.minutes``), one without has this key's type.
    """

    name: str
    kafka_type: KafkaType
    check: Check | None
    synonyms: tuple[tuple[str, int], ...] = ()

    @property
    def kind(self) -> type:
        """The Python type of the key's values."""
        return self.kafka_type.python


def kafka_key(
    name: str,
    default: Any,
    kind: KafkaType | type,
    check: Check | None = None,
    synonyms: tuple[tuple[str, int], ...] = (),
) -> Any:
    """A dataclass field that mirrors the Kafka property ``name``; ``kind`` is its ``ConfigDef`` type (a Python
    ``int`` means ``LONG``, ``float`` ``DOUBLE``, ``tuple`` ``LIST``)."""
    kafka_type = kind if isinstance(kind, KafkaType) else _PYTHON_TYPES[kind]
    return field(default=default, metadata={"key": ConfigKey(name, kafka_type, check, synonyms)})


def config_keys(cls: type) -> dict[str, tuple[Field[Any], ConfigKey]]:
    """Kafka property name -> (dataclass field, key) for a config dataclass."""
    return {f.metadata["key"].name: (f, f.metadata["key"]) for f in fields(cls) if "key" in f.metadata}


def coerce(key: ConfigKey, value: Any) -> Any:
    """A property value from JSON or a ``.properties`` string, converted to the key's type as ``ConfigDef.parseType``
    converts it (a string trimmed, then read as Java reads an ``int``, ``long``, ``double``, ``boolean`` or list);
    the message is Kafka's (``Not a number of type LONG``)."""
    return coerce_as(key.name, key.kafka_type, value)


def coerce_as(name: str, kafka_type: KafkaType, value: Any) -> Any:
    """``value`` read as a ``kafka_type`` value of property ``name`` (see :func:`coerce`)."""
    try:
        converted = _converted(kafka_type, value)
    except (TypeError, ValueError, OverflowError):
        converted = None
    if converted is None or (kafka_type.python is int and not kafka_type.holds(converted)):
        raise ConfigError(f"Invalid value {_shown(value)} for configuration {name}: {_type_message(kafka_type)}")
    return converted


def _converted(kafka_type: KafkaType, value: Any) -> Any:
    """The converted value, or ``None`` when Java would not read it as this type."""
    text = value.strip(_JAVA_WHITESPACE) if isinstance(value, str) else None
    kind = kafka_type.python
    if kind is bool:
        return _to_bool(value)
    if kind is tuple:
        parts = text.split(",") if text is not None else list(value)
        return tuple(str(p).strip() for p in parts if str(p).strip())
    if kind is int:
        if text is not None:
            return int(text) if _JAVA_INTEGER.fullmatch(text) else None
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            return None
        return int(value)
    if kind is float:
        if text is not None:
            return float(text.rstrip("fFdD")) if _JAVA_DOUBLE.fullmatch(text) else None
        return None if isinstance(value, bool) else float(value)
    return str(value).strip(_JAVA_WHITESPACE)


def _type_message(kafka_type: KafkaType) -> str:
    """Kafka's words for a value its type cannot hold (``ConfigDef.parseType``)."""
    if kafka_type.python is bool:
        return "Expected value to be either true or false"
    if kafka_type.python is tuple:
        return "Expected a comma separated list."
    if kafka_type.python is str:
        return "Expected value to be a string"
    return f"Not a number of type {kafka_type.name}"


def _shown(value: Any) -> str:
    """A value as Kafka's message shows it: a string as written, anything else as Python writes it."""
    return value if isinstance(value, str) else repr(value)


def _to_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip(_JAVA_WHITESPACE).lower() in ("true", "false"):
        return value.strip(_JAVA_WHITESPACE).lower() == "true"
    return None


def validate_fields(config: Any) -> None:
    """Raise :class:`ConfigError` for the first field whose value its Kafka check rejects."""
    for f in fields(config):
        key: ConfigKey | None = f.metadata.get("key")
        if key is None:
            continue
        value = getattr(config, f.name)
        if not isinstance(value, key.kind) or (key.kind is int and isinstance(value, bool)):
            message = (
                f"Invalid value {value!r} for configuration {key.name} (field {f.name}): expected {key.kind.__name__}"
            )
            raise ConfigError(message)
        if not key.kafka_type.holds(value):
            allowed = _type_message(key.kafka_type)
            message = f"Invalid value {value!r} for configuration {key.name} (field {f.name}): {allowed}"
            raise ConfigError(message)
        if key.check is not None and not _accepts(key.check, value):
            shown = _rejected(key.check, value)
            message = f"Invalid value {shown} for configuration {key.name} (field {f.name}): {key.check.allowed}"
            raise ConfigError(message)


def _rejected(check: Check, value: Any) -> str:
    """The value to name in an error: a list's first rejected item (as Kafka's ``ValidList``), else the value."""
    if isinstance(value, tuple):
        return repr(next((v for v in value if not check.accepts(v)), ",".join(value)))
    return repr(value)


def _accepts(check: Check, value: Any) -> bool:
    if isinstance(value, tuple):
        return bool(value) and all(check.accepts(v) for v in value)
    return check.accepts(value)


def fields_from_properties(cls: type, properties: Mapping[str, Any], *, extra_ok: frozenset[str]) -> dict[str, Any]:
    """Dataclass keyword arguments for the Kafka properties of ``cls`` found in ``properties``.

    Names in ``extra_ok`` are skipped silently; any other unknown name is an error.
    """
    keys = config_keys(cls)
    kwargs: dict[str, Any] = {}
    for name, value in properties.items():
        if name in keys:
            f, key = keys[name]
            kwargs[f.name] = coerce(key, value)
        elif name not in extra_ok:
            known = ", ".join(sorted(keys))
            raise ConfigError(f"Unknown configuration {name!r}; known: {known}")
    return kwargs


def properties_of(config: Any) -> dict[str, Any]:
    """The config as ``{kafka property name: value}``."""
    return {key.name: getattr(config, f.name) for name, (f, key) in config_keys(type(config)).items()}
