"""Read kcat ``-J`` output: one JSON object per message, as kcat 1.7's ``fmt_msg_output_json`` writes it.

Each object has ``topic``, ``partition``, ``offset``, ``tstype`` and ``ts`` (left out when the
message has no timestamp), ``broker``, ``headers`` (``[name, value, ...]``, a value ``null`` when
null; left out when the message has none; ``{name: [values]}`` is accepted too), ``key`` and
``payload`` (``null`` when null). kcat's JSON writer (yajl) escapes only ``"``, ``\\`` and
control characters and passes every other byte through, so keys and values that are not UTF-8
are read back as the bytes they were: the input is read as bytes and decoded with
``surrogateescape``. Header names are the exception: kcat writes them up to their first NUL byte
(the parse's caveats say so). A line that is not such an object (another tool's JSON, ``-J -D``
output) is refused naming what is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kcompact_nb.core import Record, TimestampType
from kcompact_nb.io._errors import DumpParseError
from kcompact_nb.io.text._kcat_records import ConsumedRecord, KcatParse, OffsetOrder, in_partition
from kcompact_nb.io.text._kcat_status import STDERR_ADVICE, StdoutReading, mixed_stderr_caveats, only_reading

_TIMESTAMP_TYPES = {"create": TimestampType.CREATE_TIME, "logappend": TimestampType.LOG_APPEND_TIME}


def parse_kcat_json(
    output: bytes | str | Iterable[bytes | str],
    *,
    partition: int | None = None,
    source: str = "<kcat -J output>",
) -> KcatParse:
    """Parse kcat ``-J`` output, one JSON object per line.

    Parameters
    ----------
    output : the bytes kcat wrote (best: read the file in binary mode), or text, or an iterable
        of lines. Text made from the bytes with ``bytes.decode("utf-8", "surrogateescape")`` keeps
        keys and values that are not UTF-8 exact.
    partition : the partition kcat was told to read (``kcat -p N``); a message of another partition is refused.
    source : the name used in error messages.

    Raises
    ------
    DumpParseError : naming the line, when a line is not one of kcat's ``-J`` objects (each of
        ``topic``, ``partition``, ``offset``, ``tstype``, ``broker``, ``key``, ``payload``), offsets
        of a partition go back, or status-like text makes the output readable in two ways.

    kcat's own status lines (its stderr, mixed in by ``2>&1``) are skipped where its stdout blocks
    end, also inside a record, when that is the one way the output reads as kcat's JSON; they are
    listed in :attr:`KcatParse.status_lines`.
    """
    original = _joined(output)
    return only_reading(original, lambda reading: _parse(reading, partition, source), source)


def _joined(output: bytes | str | Iterable[bytes | str]) -> bytes:
    if isinstance(output, (bytes, str)):
        return as_bytes(output)
    return b"".join(as_bytes(line).removesuffix(b"\n") + b"\n" for line in output)


def _parse(reading: StdoutReading, partition: int | None, source: str) -> KcatParse:
    order, messages = OffsetOrder(), []
    missing: set[str] = set()
    headers_seen = False
    position = 0
    for line in reading.data.split(b"\n"):
        start, position = position, position + len(line) + 1
        if not line.strip():
            continue
        try:
            message = in_partition(_json_message(_object(line, source, 0), source, 0, missing), partition)
        except DumpParseError as error:  # its line counted only now: counting every line's is quadratic
            raise DumpParseError(source, reading.line_of(start), error.reason) from None
        problem = message if isinstance(message, str) else order.disorder(message)
        if problem is not None:
            raise DumpParseError(source, reading.line_of(start), problem)
        assert not isinstance(message, str)
        headers_seen = headers_seen or bool(message.record.headers)
        messages.append(message)
    caveats = (HEADER_NAME_NUL,) if headers_seen else ()
    return KcatParse(tuple(messages), frozenset(missing), caveats + mixed_stderr_caveats(reading), reading.status_texts)


#: kcat's loss in ``-J`` output (format.c writes a header name with ``strlen``).
HEADER_NAME_NUL = (
    "headers: kcat -J prints a header name only up to its first NUL byte (a name 'a\\x00b' prints as 'a'); "
    "header values are exact"
)


def as_bytes(output: bytes | str) -> bytes:
    """Output given as text back to the bytes kcat wrote (UTF-8; surrogate escapes become the original bytes)."""
    return output if isinstance(output, bytes) else output.encode("utf-8", errors="surrogateescape")


def _object(line: bytes, source: str, number: int) -> Any:
    """The one JSON object on ``line``, refused naming what else the line holds."""
    text = line.decode("utf-8", errors="surrogateescape")
    try:
        obj, end = _DECODER.raw_decode(text)
    except ValueError as error:
        raise DumpParseError(source, number, _not_json(line, error)) from None
    rest = text[end:]
    if rest.strip():
        raise DumpParseError(source, number, _after_object(rest))
    return obj


_DECODER = json.JSONDecoder()


def _not_json(line: bytes, error: ValueError) -> str:
    shown = repr(line[:120]) + (" ..." if len(line) > 120 else "")
    if line.startswith(b"%"):
        return f"not a JSON object but {shown}: a kcat status line? {STDERR_ADVICE}"
    return f"not a JSON object ({error}): {shown}; was the output made with kcat -J?"


def _after_object(rest: str) -> str:
    if "{" in rest[:8]:
        separator = rest[: rest.index("{")]
        return (
            f"JSON objects separated by {separator!r}, not by a line end: was kcat run with -J -D {separator!r}? "
            "kcat -J writes one object per line without -D: run it again without -D"
        )
    return f"text after the JSON object: {rest[:80]!r}; was the output made with kcat -J (one object per line)?"


#: The fields kcat 1.7 writes in every ``-J`` object (``ts`` too unless ``tstype`` is ``unknown``).
_REQUIRED = ("topic", "partition", "offset", "tstype", "broker", "key", "payload")


def _json_message(obj: Any, source: str, number: int, missing: set[str]) -> ConsumedRecord:
    if not isinstance(obj, dict):
        raise DumpParseError(source, number, f"expected a JSON object per line, found {type(obj).__name__}")
    absent = [name for name in _REQUIRED if name not in obj]
    if obj.get("tstype") in _TIMESTAMP_TYPES and "ts" not in obj:
        absent.append("ts")
    if absent:
        raise DumpParseError(
            source,
            number,
            f"not a kcat -J object: no {', '.join(repr(a) for a in absent)} (kcat writes topic, partition, offset, "
            "tstype, ts, broker, headers, key and payload); was the output made with kcat -J?",
        )
    offset = _json_int(obj, "offset", source, number, required=True)
    assert offset is not None
    timestamp = _json_int(obj, "ts", source, number, required=False)
    if timestamp is None:
        missing.add("timestamp")
    tstype = obj["tstype"]
    if tstype not in (*_TIMESTAMP_TYPES, "unknown"):
        raise DumpParseError(source, number, f"'tstype' must be create, logappend or unknown, found {tstype!r}")
    if tstype == "unknown":
        missing.add("timestamp_type")
    topic = obj["topic"]
    if not isinstance(topic, str):
        raise DumpParseError(source, number, f"'topic' must be a string, found {topic!r}")
    partition = _json_int(obj, "partition", source, number, required=True)
    _json_int(obj, "broker", source, number, required=True)
    key = _json_bytes(obj, "key")
    value = _json_bytes(obj, "payload")
    headers = _json_headers(obj.get("headers"), source, number)
    record = Record(offset, -1 if timestamp is None else timestamp, key, value, headers)
    return ConsumedRecord(topic, partition, record, _TIMESTAMP_TYPES.get(tstype))


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
