"""The JSON encoding of keys, values and header values in scenarios, read.

A byte string is written as a JSON string (its UTF-8 text), ``null``, ``{"base64": "..."}``
for arbitrary bytes, or, for header values only, ``{"long": n}``: the 8-byte big-endian signed
long that KIP-280's header strategy reads. Results write bytes with core's ``json_bytes``, the same encoding.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Any

from kcompact_nb.scenario._errors import ScenarioError

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


def decode_bytes(value: Any, path: str, *, allow_long: bool = False) -> bytes | None:
    """Bytes from their JSON form; ``allow_long`` accepts ``{"long": n}`` (header values)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict) and len(value) == 1:
        if "base64" in value:
            return _decode_base64(value["base64"], f"{path}.base64")
        if allow_long and "long" in value:
            return _encode_long(value["long"], f"{path}.long")
    forms = 'a string, null, {"base64": "..."}' + (' or {"long": n}' if allow_long else "")
    raise ScenarioError(path, f"expected {forms}, got {value!r}")


def _decode_base64(text: Any, path: str) -> bytes:
    if not isinstance(text, str):
        raise ScenarioError(path, f"expected a base64 string, got {text!r}")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise ScenarioError(path, f"invalid base64 ({exc})") from None


def _encode_long(number: Any, path: str) -> bytes:
    if isinstance(number, bool) or not isinstance(number, int) or not LONG_MIN <= number <= LONG_MAX:
        raise ScenarioError(path, f"expected a signed 64-bit integer, got {number!r}")
    return struct.pack(">q", number)
