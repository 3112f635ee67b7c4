"""Checks of JSON values that report the JSON path of what they reject."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from kcompact_nb.scenario._errors import ScenarioError

LONG_MAX = 2**63 - 1


def check_object(
    value: Any, path: str, *, required: Collection[str] = (), optional: Collection[str] = ()
) -> dict[str, Any]:
    """``value`` as a JSON object holding every ``required`` field and no field outside both lists."""
    if not isinstance(value, dict):
        raise ScenarioError(path, f"expected an object, got {_kind(value)}")
    for name in value:
        if name not in required and name not in optional:
            allowed = ", ".join(sorted({*required, *optional}))
            raise ScenarioError(join(path, name), f"unknown field (allowed: {allowed})")
    for name in required:
        if name not in value:
            raise ScenarioError(join(path, name), "missing required field")
    return value


def check_int(value: Any, path: str, *, minimum: int | None = None, maximum: int = LONG_MAX) -> int:
    """An integer (not a bool) in ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(path, f"expected an integer, got {_kind(value)}")
    if (minimum is not None and value < minimum) or value > maximum:
        low = "-inf" if minimum is None else str(minimum)
        raise ScenarioError(path, f"{value} is out of range [{low}, {maximum}]")
    return value


def check_optional_int(value: Any, path: str, *, minimum: int | None = None, maximum: int = LONG_MAX) -> int | None:
    return None if value is None else check_int(value, path, minimum=minimum, maximum=maximum)


def check_number(value: Any, path: str, *, low: float, high: float, low_open: bool = False) -> float:
    """A number in ``[low, high]`` (``(low, high]`` when ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(path, f"expected a number, got {_kind(value)}")
    if value > high or value < low or (low_open and value == low):
        bracket = "(" if low_open else "["
        raise ScenarioError(path, f"{value} is out of range {bracket}{low}, {high}]")
    return float(value)


def check_bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioError(path, f"expected true or false, got {_kind(value)}")
    return value


def check_str(value: Any, path: str, *, choices: Collection[str] | None = None) -> str:
    """A non-empty string, one of ``choices`` when given."""
    if not isinstance(value, str) or not value:
        raise ScenarioError(path, f"expected a non-empty string, got {_kind(value)}")
    if choices is not None and value not in choices:
        raise ScenarioError(path, f"{value!r} is not one of {', '.join(choices)}")
    return value


def check_list(value: Any, path: str, *, non_empty: bool = False) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(path, f"expected a list, got {_kind(value)}")
    if non_empty and not value:
        raise ScenarioError(path, "expected at least one item")
    return value


def join(path: str, name: str | int) -> str:
    """``path.name`` or ``path[index]``."""
    if isinstance(name, int):
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}"
    return "a list" if isinstance(value, list) else "an object"
