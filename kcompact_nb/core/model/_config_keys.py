"""Table-driven config keys: Kafka property names, defaults, types and ``ConfigDef``-style checks."""

from __future__ import annotations

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
    """One Kafka property: its name, value type, check and broker-level synonyms.

    ``synonyms`` maps a broker property to the factor that turns its value into this key's
    unit (``log.roll.hours`` -> ``segment.ms`` is 3,600,000).
    """

    name: str
    kind: type
    check: Check | None
    synonyms: tuple[tuple[str, int], ...] = ()


def kafka_key(
    name: str,
    default: Any,
    kind: type,
    check: Check | None = None,
    synonyms: tuple[tuple[str, int], ...] = (),
) -> Any:
    """A dataclass field that mirrors the Kafka property ``name``."""
    return field(default=default, metadata={"key": ConfigKey(name, kind, check, synonyms)})


def config_keys(cls: type) -> dict[str, tuple[Field[Any], ConfigKey]]:
    """Kafka property name -> (dataclass field, key) for a config dataclass."""
    return {f.metadata["key"].name: (f, f.metadata["key"]) for f in fields(cls) if "key" in f.metadata}


def coerce(key: ConfigKey, value: Any) -> Any:
    """A property value from JSON or a ``.properties`` string, converted to the key's type."""
    try:
        if key.kind is bool:
            return _to_bool(value)
        if key.kind is tuple:
            parts = value.split(",") if isinstance(value, str) else list(value)
            return tuple(str(p).strip() for p in parts if str(p).strip())
        if key.kind is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError(value)
            return int(value)
        if key.kind is float:
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        message = f"Invalid value {value!r} for configuration {key.name}: expected {key.kind.__name__}"
        raise ConfigError(message) from exc


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError(value)


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
