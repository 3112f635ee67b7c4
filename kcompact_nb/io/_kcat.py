"""Parse kcat (kafkacat) consumer output into core records.

Two forms are understood:

``-J`` (JSON lines)
    one object per message: ``topic``, ``partition``, ``offset``, ``tstype``, ``ts``,
    ``broker``, optional ``headers`` (``[name, value, ...]``, or ``{name: [values]}`` with
    ``-J --json-headers-map``-style output), ``key``, ``payload``. Strings become UTF-8 bytes.
``-f FORMAT``
    the same format string given to kcat, with ``%t`` topic, ``%p`` partition, ``%o``
    offset, ``%k`` key, ``%K`` key length, ``%s`` value, ``%S`` value length, ``%T``
    timestamp, ``%h`` headers (``name=value`` comma-separated) and ``%%``; ``\\t``, ``\\n``,
    ``\\r``, ``\\\\`` escapes as kcat interprets them. For example ``'%o\\t%T\\n'``, the format
    of the "when did compaction last run" script.

What the output cannot carry is ``None`` and named in :attr:`KcatParse.missing`:
``key``/``value``/``headers``/``timestamp``/``topic``/``partition`` when the format has no
such field. kcat prints nothing for both a null and an empty key or value: without ``%K``/``%S``
an empty field is read as null (``None``). A value that contains the text following ``%s`` in
the format (usually the newline) cannot be split unambiguously. Consumers see neither
batches nor control records: :meth:`KcatParse.to_partition_log` puts each record in its own
batch, so batch boundaries, sizes of batched data and transaction markers are not real.
Progress lines kcat writes to stderr (``% Reached end of ...``) are skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcompact_nb.core import BrokerConfig, PartitionLog, Record, RecordBatch, TopicConfig
from kcompact_nb.io._errors import DumpParseError
from kcompact_nb.io._log_reader import SegmentData, build_partition_log

_STDERR_LINE = re.compile(r"% (Reached end of|Auto-selecting|ERROR|FATAL|Fatal|Waiting for|Consumer|Group|Message)")
_TOKEN_PATTERNS = {
    "t": r"(?P<{}>[^\s]*?)",
    "p": r"(?P<{}>-?[0-9]+)",
    "o": r"(?P<{}>-?[0-9]+)",
    "T": r"(?P<{}>-?[0-9]+)",
    "K": r"(?P<{}>-?[0-9]+)",
    "S": r"(?P<{}>-?[0-9]+)",
    "k": r"(?P<{}>.*?)",
    "s": r"(?P<{}>.*?)",
    "h": r"(?P<{}>.*?)",
}
_FIELDS = {"t": "topic", "p": "partition", "T": "timestamp", "k": "key", "s": "value", "h": "headers"}


@dataclass(frozen=True)
class ConsumedRecord:
    """One message as a consumer saw it: where it came from and the record."""

    topic: str | None
    partition: int | None
    record: Record


@dataclass(frozen=True)
class KcatParse:
    """Messages parsed from kcat output; ``missing`` names what the output did not carry."""

    messages: tuple[ConsumedRecord, ...]
    missing: frozenset[str]

    def records(self, topic: str | None = None, partition: int | None = None) -> list[Record]:
        """Records of one topic-partition (all when not given), in output order."""
        return [m.record for m in self.messages if _selected(m, topic, partition)]

    def to_partition_log(
        self,
        topic: str | None = None,
        partition: int | None = None,
        *,
        config: TopicConfig | None = None,
        broker: BrokerConfig | None = None,
        log_start_offset: int | None = None,
    ) -> PartitionLog:
        """One partition's messages as a single-segment log of one-record batches (sizes as uncompressed)."""
        chosen = [m for m in self.messages if _selected(m, topic, partition)]
        name = topic if topic is not None else next((m.topic for m in chosen if m.topic), "kcat")
        number = (
            partition if partition is not None else next((m.partition for m in chosen if m.partition is not None), 0)
        )
        batches = [RecordBatch.build([m.record]) for m in sorted(chosen, key=lambda m: m.record.offset)]
        base = log_start_offset if log_start_offset is not None else (batches[0].base_offset if batches else 0)
        return build_partition_log(
            name, number, [SegmentData(base, batches)], config=config, broker=broker, log_start_offset=base
        )


def _selected(message: ConsumedRecord, topic: str | None, partition: int | None) -> bool:
    return (topic is None or message.topic == topic) and (partition is None or message.partition == partition)


def parse_kcat_json(lines: str | Iterable[str], *, source: str = "<kcat -J output>") -> KcatParse:
    """Parse kcat ``-J`` output, one JSON object per line."""
    messages = []
    missing: set[str] = set()
    for number, line in enumerate(lines.splitlines() if isinstance(lines, str) else lines, start=1):
        text = line.strip()
        if not text or _STDERR_LINE.match(text):
            continue
        try:
            obj = json.loads(text)
        except ValueError as error:
            raise DumpParseError(source, number, f"not a JSON object: {error}") from None
        messages.append(_json_message(obj, source, number, missing))
    return KcatParse(tuple(messages), frozenset(missing))


def _json_message(obj: Any, source: str, number: int, missing: set[str]) -> ConsumedRecord:
    if not isinstance(obj, dict):
        raise DumpParseError(source, number, "expected a JSON object per line")
    offset = _json_int(obj, "offset", source, number, required=True)
    assert offset is not None
    timestamp = _json_int(obj, "ts", source, number, required=False)
    if timestamp is None:
        missing.add("timestamp")
    topic = obj.get("topic")
    if topic is not None and not isinstance(topic, str):
        raise DumpParseError(source, number, "'topic' must be a string")
    partition = _json_int(obj, "partition", source, number, required=False)
    key = _json_bytes(obj, "key", source, number)
    value = _json_bytes(obj, "payload", source, number)
    headers = _json_headers(obj.get("headers"), source, number)
    record = Record(offset, -1 if timestamp is None else timestamp, key, value, headers)
    return ConsumedRecord(topic, partition, record)


def _json_int(obj: dict[str, Any], name: str, source: str, number: int, *, required: bool) -> int | None:
    value = obj.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise DumpParseError(source, number, f"{name!r} must be an integer, found {value!r}")
    return value


def _json_bytes(obj: dict[str, Any], name: str, source: str, number: int) -> bytes | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(value)  # an Avro-decoded key/value printed as JSON
    return _to_bytes(value)


def _to_bytes(text: str) -> bytes:
    """UTF-8 bytes of ``text``; undecodable input bytes (surrogate escapes) come back as they were."""
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
        pairs = list(zip(headers[::2], headers[1::2]))
    else:
        raise DumpParseError(source, number, "'headers' must be [name, value, ...] or {name: [values]}")
    if not all(isinstance(n, str) and (v is None or isinstance(v, str)) for n, v in pairs):
        raise DumpParseError(source, number, "header names and values must be strings (values may be null)")
    return tuple((n, None if v is None else _to_bytes(v)) for n, v in pairs)


def _unescape(fmt: str) -> str:
    """kcat's escape handling for format strings: ``\\t``, ``\\n``, ``\\r``; any other ``\\c`` is ``c``."""
    escapes = {"t": "\t", "n": "\n", "r": "\r"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), fmt, flags=re.DOTALL)


def compile_kcat_format(fmt: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """A regex matching one message printed with kcat ``-f fmt``, and the tokens it captures in order."""
    parts: list[str] = []
    tokens: list[str] = []
    index = 0
    text = _unescape(fmt)
    while index < len(text):
        char = text[index]
        if char != "%":
            parts.append(re.escape(char))
            index += 1
            continue
        token = text[index + 1 : index + 2]
        if token == "%":
            parts.append("%")
        elif token in _TOKEN_PATTERNS:
            parts.append(_TOKEN_PATTERNS[token].format(f"f{len(tokens)}"))
            tokens.append(token)
        else:
            raise DumpParseError("<format>", index + 1, f"unsupported kcat formatter %{token or '(end)'}")
        index += 2
    if "o" not in tokens:
        raise DumpParseError("<format>", 1, "the format needs %o: records cannot be placed without their offsets")
    return re.compile("".join(parts), re.DOTALL), tuple(tokens)


def parse_kcat_format(text: str, fmt: str, *, source: str = "<kcat -f output>") -> KcatParse:
    """Parse kcat output printed with ``-f fmt`` (e.g. ``'%o\\t%T\\n'``)."""
    pattern, tokens = compile_kcat_format(fmt)
    missing = {_FIELDS[t] for t in _FIELDS if t not in tokens}
    messages = []
    position = 0
    while position < len(text):
        position = _skip_stderr_lines(text, position)
        if position >= len(text):
            break
        match = pattern.match(text, position)
        if match is None or match.end() == position:
            line = text.count("\n", 0, position) + 1
            raise DumpParseError(
                source, line, f"output does not match the format {fmt!r} here: {text[position : position + 60]!r}"
            )
        messages.append(_format_message(match, tokens, source, text.count("\n", 0, position) + 1))
        position = match.end()
    return KcatParse(tuple(messages), frozenset(missing))


def _skip_stderr_lines(text: str, position: int) -> int:
    while _STDERR_LINE.match(text, position):
        end = text.find("\n", position)
        position = len(text) if end < 0 else end + 1
    return position


def _format_message(match: re.Match[str], tokens: Sequence[str], source: str, line: int) -> ConsumedRecord:
    values: dict[str, str] = {}
    for index, token in enumerate(tokens):
        captured = match.group(f"f{index}")
        if token in values and values[token] != captured:
            raise DumpParseError(source, line, f"%{token} appears twice with different values")
        values[token] = captured
    key = _sized(values.get("k"), values.get("K"))
    value = _sized(values.get("s"), values.get("S"))
    record = Record(int(values["o"]), int(values.get("T", "-1")), key, value, _format_headers(values.get("h")))
    partition = int(values["p"]) if "p" in values else None
    return ConsumedRecord(values.get("t"), partition, record)


def _sized(text: str | None, length: str | None) -> bytes | None:
    if length is not None and int(length) < 0:
        return None
    if text is None or (text == "" and length is None):
        return None
    return _to_bytes(text)


def _format_headers(text: str | None) -> tuple[tuple[str, bytes | None], ...]:
    if not text:
        return ()
    pairs = []
    for item in text.split(","):
        name, separator, value = item.partition("=")
        pairs.append((name, _to_bytes(value) if separator else None))
    return tuple(pairs)


def read_kcat(path: str | Path, fmt: str | None = None) -> KcatParse:
    """Parse a file of kcat output: ``-J`` JSON lines when ``fmt`` is ``None``, else ``-f fmt`` output."""
    path = Path(path)
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    if fmt is None:
        return parse_kcat_json(text, source=str(path))
    return parse_kcat_format(text, fmt, source=str(path))
