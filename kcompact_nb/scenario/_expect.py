"""``expect`` assertions: parsing and checking against a partition (docs/scenario-format.md, Assertions)."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

from kcompact_nb.core import PartitionLog, json_bytes, log_to_clean
from kcompact_nb.scenario._bytes import decode_bytes
from kcompact_nb.scenario._configs import key_path
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._fields import check_int, check_list, check_number, check_optional_int, join
from kcompact_nb.scenario._views import live_state, retained_keys, retained_offsets

DEFAULT_TOLERANCE = 1e-9
_OFFSET_LISTS = ("retained_offsets", "segment_base_offsets", "segment_sizes_bytes", "batch_last_offsets")
_INTS = ("log_start_offset", "log_end_offset", "log_size_bytes")


def parse_assertions(raw: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The assertions of an ``expect`` step, validated; bytes decoded."""
    found: dict[str, Any] = {}
    for name in _OFFSET_LISTS:
        if name in raw:
            items = check_list(raw[name], join(path, name))
            found[name] = [check_int(v, join(join(path, name), i), minimum=0) for i, v in enumerate(items)]
    for name in _INTS:
        if name in raw:
            found[name] = check_int(raw[name], join(path, name), minimum=0)
    if "checkpoint" in raw:
        found["checkpoint"] = check_optional_int(raw["checkpoint"], join(path, "checkpoint"), minimum=0)
    if "retained_keys" in raw:
        keys = check_list(raw["retained_keys"], join(path, "retained_keys"))
        found["retained_keys"] = [decode_bytes(k, join(join(path, "retained_keys"), i)) for i, k in enumerate(keys)]
    if "live_state" in raw:
        found["live_state"] = _parse_live_state(raw["live_state"], join(path, "live_state"))
    _parse_ratio(raw, path, found)
    if not found:
        raise ScenarioError(path, "an expect step needs at least one assertion")
    ordered = {name: found[name] for name in raw if name in found}  # report failures in the file's order
    return {**ordered, **found}


def _parse_live_state(raw: Any, path: str) -> dict[bytes, bytes]:
    if not isinstance(raw, dict):
        raise ScenarioError(path, "expected an object {key: value}")
    state: dict[bytes, bytes] = {}
    for key, value in raw.items():
        decoded = decode_bytes(value, key_path(path, key))
        if decoded is None:
            raise ScenarioError(key_path(path, key), "live_state lists live keys only; omit deleted keys")
        state[_decode_state_key(key)] = decoded
    return state


def _parse_ratio(raw: Mapping[str, Any], path: str, found: dict[str, Any]) -> None:
    if "tolerance" in raw and "cleanable_ratio" not in raw:
        raise ScenarioError(join(path, "tolerance"), "tolerance applies to cleanable_ratio, which is missing")
    if "cleanable_ratio" in raw:
        found["cleanable_ratio"] = check_number(raw["cleanable_ratio"], join(path, "cleanable_ratio"), low=0, high=1)
        found["tolerance"] = check_number(
            raw.get("tolerance", DEFAULT_TOLERANCE), join(path, "tolerance"), low=0, high=1
        )


def check_assertions(log: PartitionLog, assertions: Mapping[str, Any], *, now_ms: int) -> list[dict[str, Any]]:
    """Failures (assertion, expected, actual; JSON-encoded) of ``assertions`` on ``log`` at ``now_ms``."""
    failures = []
    for name, expected in assertions.items():
        if name == "tolerance":
            continue
        actual = _ACTUAL[name](log, now_ms)
        if not _matches(name, expected, actual, assertions):
            failures.append({"assertion": name, "expected": _encode(name, expected), "actual": _encode(name, actual)})
    return failures


def _matches(name: str, expected: Any, actual: Any, assertions: Mapping[str, Any]) -> bool:
    if name == "cleanable_ratio":
        return bool(abs(expected - actual) <= assertions["tolerance"])
    return bool(expected == actual)


def _cleanable_ratio(log: PartitionLog, now_ms: int) -> float:
    return float(log_to_clean(log, now_ms=now_ms).cleanable_ratio)


_ACTUAL: dict[str, Callable[[PartitionLog, int], Any]] = {
    "retained_offsets": lambda log, now: retained_offsets(log),
    "retained_keys": lambda log, now: retained_keys(log),
    "live_state": lambda log, now: live_state(log),
    "segment_base_offsets": lambda log, now: [s.base_offset for s in log.segments],
    "segment_sizes_bytes": lambda log, now: [s.size_bytes for s in log.segments],
    "batch_last_offsets": lambda log, now: [b.last_offset for b in log.batches()],
    "log_start_offset": lambda log, now: log.log_start_offset,
    "log_end_offset": lambda log, now: log.log_end_offset,
    "checkpoint": lambda log, now: log.cleaner_checkpoint,
    "cleanable_ratio": _cleanable_ratio,
    "log_size_bytes": lambda log, now: log.size_bytes,
}


def _encode(name: str, value: Any) -> Any:
    """An assertion value in its JSON form (bytes as in scenario files)."""
    if name == "retained_keys":
        return [json_bytes(k) for k in value]
    if name == "live_state":
        return {encode_state_key(k): json_bytes(v) for k, v in value.items()}
    return value


def encode_state_key(key: bytes) -> str:
    """A ``live_state`` object key: the key's UTF-8 text, or ``base64:<data>`` for other bytes."""
    encoded = json_bytes(key)
    if isinstance(encoded, str):
        return encoded
    return "base64:" + base64.b64encode(key).decode("ascii")


def _decode_state_key(key: str) -> bytes:
    if key.startswith("base64:"):
        return base64.b64decode(key[len("base64:") :])
    return key.encode("utf-8")
