"""Read kcat ``-J`` output: one JSON object per message, as kcat 1.7's ``fmt_msg_output_json`` writes it.

Each object has ``topic``, ``partition``, ``offset``, ``tstype`` and ``ts`` (left out when the
message has no timestamp), ``broker``, ``headers`` (``[name, value, ...]``, a value ``null`` when
null; left out when the message has none; ``{name: [values]}`` is accepted too), ``key`` and
``payload`` (``null`` when null). kcat's JSON writer (yajl) escapes only ``"``, ``\\`` and
control characters and passes every other byte through, so keys and values that are not UTF-8
are read back as the bytes they were: the input is read as bytes and decoded with
``surrogateescape``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kcompact_nb.core import Record, TimestampType
from kcompact_nb.io._errors import DumpParseError
from kcompact_nb.io._kcat_records import ConsumedRecord, KcatParse, OffsetOrder
from kcompact_nb.io._kcat_status import STATUS_LINE, STDERR_ADVICE, status_suffix

_TIMESTAMP_TYPES = {"create": TimestampType.CREATE_TIME, "logappend": TimestampType.LOG_APPEND_TIME}


def parse_kcat_json(output: bytes | str | Iterable[bytes | str], *, source: str = "<kcat -J output>") -> KcatParse:
    """Parse kcat ``-J`` output, one JSON object per line.

    Parameters
    ----------
    output : the bytes kcat wrote (best: read the file in binary mode), or text, or an iterable
        of lines. Text made from the bytes with ``bytes.decode("utf-8", "surrogateescape")`` keeps
        keys and values that are not UTF-8 exact.
    source : the name used in error messages.

    kcat's own status lines (its stderr, mixed in by ``2>&1``) are skipped wherever they fall,
    also inside a record, and listed in :attr:`KcatParse.status_lines`.
    """
    lines = _lines(output)
    order, messages, statuses = OffsetOrder(), [], []
    missing: set[str] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip() or STATUS_LINE.fullmatch(line.strip()):
            statuses.extend([line.strip()] if line.strip() else [])
            index += 1
            continue
        obj, last, skipped = _object(lines, index, source)
        message = _json_message(obj, source, index + 1, missing)
        disorder = order.disorder(message)
        if disorder is not None:
            raise DumpParseError(source, index + 1, disorder)
        messages.append(message)
        statuses.extend(skipped)
        index = last + 1
    texts = tuple(s.decode("utf-8", errors="replace") for s in statuses)
    return KcatParse(tuple(messages), frozenset(missing), (), texts)


def _lines(output: bytes | str | Iterable[bytes | str]) -> list[bytes]:
    if isinstance(output, (bytes, str)):
        data = as_bytes(output)
        return data.removesuffix(b"\n").split(b"\n") if data else []
    return [as_bytes(line).removesuffix(b"\n") for line in output]


def as_bytes(output: bytes | str) -> bytes:
    """Output given as text back to the bytes kcat wrote (UTF-8; surrogate escapes become the original bytes)."""
    return output if isinstance(output, bytes) else output.encode("utf-8", errors="surrogateescape")


def _object(lines: list[bytes], index: int, source: str) -> tuple[Any, int, list[bytes]]:
    """The JSON object starting on ``lines[index]``, joined across kcat status lines inserted into it."""
    text, last = lines[index], index
    skipped: list[bytes] = []
    while True:
        try:
            return json.loads(text.decode("utf-8", errors="surrogateescape")), last, skipped
        except ValueError as error:
            cut = status_suffix(text)
            if cut is None:
                raise DumpParseError(source, index + 1, _not_json(lines[index], error)) from None
        skipped.append(text[cut:])
        text, last = text[:cut], last + 1
        while last < len(lines) and STATUS_LINE.fullmatch(lines[last]):
            skipped.append(lines[last])
            last += 1
        if last >= len(lines):
            raise DumpParseError(source, index + 1, "the output ends inside a JSON object (kcat stopped early?)")
        text += lines[last]


def _not_json(line: bytes, error: ValueError) -> str:
    shown = repr(line[:120]) + (" ..." if len(line) > 120 else "")
    if line.startswith(b"%"):
        return f"not a JSON object but {shown}: a kcat status line? {STDERR_ADVICE}"
    return f"not a JSON object ({error}): {shown}; was the output made with kcat -J?"


def _json_message(obj: Any, source: str, number: int, missing: set[str]) -> ConsumedRecord:
    if not isinstance(obj, dict):
        raise DumpParseError(source, number, "expected a JSON object per line")
    offset = _json_int(obj, "offset", source, number, required=True)
    assert offset is not None
    timestamp = _json_int(obj, "ts", source, number, required=False)
    if timestamp is None:
        missing.add("timestamp")
    if str(obj.get("tstype")) not in _TIMESTAMP_TYPES:
        missing.add("timestamp_type")
    topic = obj.get("topic")
    if topic is not None and not isinstance(topic, str):
        raise DumpParseError(source, number, "'topic' must be a string")
    partition = _json_int(obj, "partition", source, number, required=False)
    key = _json_bytes(obj, "key")
    value = _json_bytes(obj, "payload")
    headers = _json_headers(obj.get("headers"), source, number)
    record = Record(offset, -1 if timestamp is None else timestamp, key, value, headers)
    return ConsumedRecord(topic, partition, record, _TIMESTAMP_TYPES.get(str(obj.get("tstype"))))


def _json_int(obj: dict[str, Any], name: str, source: str, number: int, *, required: bool) -> int | None:
    value = obj.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise DumpParseError(source, number, f"{name!r} must be an integer, found {value!r}")
    return value


def _json_bytes(obj: dict[str, Any], name: str) -> bytes | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(value)  # an Avro-decoded key/value printed as JSON
    return to_bytes(value)


def to_bytes(text: str) -> bytes:
    """The bytes behind ``text``: UTF-8, with surrogate escapes (undecodable input bytes) turned back into bytes."""
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="surrogatepass")


def _json_headers(headers: Any, source: str, number: int) -> tuple[tuple[str, bytes | None], ...]:
    if headers is None:
        return ()
    if isinstance(headers, dict):
        pairs = [
            (name, v) for name, values in headers.items() for v in (values if isinstance(values, list) else [values])
        ]
    elif isinstance(headers, list) and len(headers) % 2 == 0:
        pairs = list(zip(headers[::2], headers[1::2], strict=False))
    else:
        raise DumpParseError(source, number, "'headers' must be [name, value, ...] or {name: [values]}")
    if not all(isinstance(n, str) and (v is None or isinstance(v, str)) for n, v in pairs):
        raise DumpParseError(source, number, "header names and values must be strings (values may be null)")
    return tuple((n, None if v is None else to_bytes(v)) for n, v in pairs)
