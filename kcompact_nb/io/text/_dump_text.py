"""Parse ``kafka-dump-log.sh --files X.log [--deep-iteration] [--print-data-log]`` output into core batches.

The text is what ``kafka.tools.DumpLogSegments.dumpLog`` prints (Kafka 2.x-4.x), for example::

    Dumping /data/orders-0/00000000000000000000.log
    Log starting offset: 0
    baseOffset: 0 lastOffset: 0 count: 1 baseSequence: 0 lastSequence: 0 producerId: 0 producerEpoch: 0
      partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty
      position: 0 CreateTime: 1700000000000 size: 80 magic: 2 compresscodec: none crc: 1234 isvalid: true
    | offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 10 sequence: 0 headerKeys: []
      key: k0 payload: 0123456789

(each batch and each record is one line). What the text cannot carry is set to ``None`` (or left
out) and named in :attr:`DumpLogParse.missing`:

``records``
    no ``--deep-iteration``: batches have no records (their ``count`` is still known).
``key`` / ``value``
    no ``--print-data-log``: non-null keys/values are ``None``; null ones are known from size -1.
``header_values``
    only header keys are printed; every header value is ``None``.
``stored_timestamps``
    records of ``LogAppendTime`` batches show the batch's append time, not the stored one.
``base_timestamp``
    batches with records but no deep iteration: ``base_timestamp`` is set to -1.

Keys and values are printed through a decoder (UTF-8 strings by default) and are turned back
into UTF-8 bytes; binary data does not survive that (see :attr:`DumpLogParse.inexact`). A
payload that contains a newline continues on the next lines and is joined back. A key holding ``payload: ``
is split where ``keySize`` (and ``valueSize``) say; a line that no size tells how to split is refused. Lines from the
tool's stderr (``Non-consecutive offsets ...``) and dumps of index files are skipped.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kcompact_nb.core import (
    COMPRESSION_CODECS,
    BrokerConfig,
    PartitionLog,
    Record,
    RecordBatch,
    SegmentData,
    TimestampType,
    TopicConfig,
    build_partition_log,
)
from kcompact_nb.io._errors import DumpParseError

_PAIR = re.compile(r"([A-Za-z]+): (\S+)")
_INT = re.compile(r"-?[0-9]+")
_TIMESTAMP_TYPES = {
    "CreateTime": TimestampType.CREATE_TIME,
    "LogAppendTime": TimestampType.LOG_APPEND_TIME,
    "NoTimestampType": TimestampType.CREATE_TIME,
}
_RECORD_META = re.compile(
    r"offset: (?P<offset>-?[0-9]+) (?P<tstype>CreateTime|LogAppendTime|NoTimestampType): (?P<ts>-?[0-9]+) "
    r"key[sS]ize: (?P<ksize>-?[0-9]+) value[sS]ize: (?P<vsize>-?[0-9]+)"
    r"(?: sequence: (?P<seq>-?[0-9]+) headerKeys: \[(?P<headers>.*?)\]"
    r"(?= key: | payload: | endTxnMarker: | controlType: | Snapshot| KRaft|$))?"
)
_MARKER = re.compile(r" endTxnMarker: (?P<kind>COMMIT|ABORT) coordinatorEpoch: (?P<epoch>-?[0-9]+)")
_IGNORED = (
    re.compile(r"^Non-consecutive offsets in "),
    re.compile(r"^\s+-?[0-9]+ is followed by -?[0-9]+$"),
    re.compile(r"^(Mismatches in |  Index offset: |Found timestamp mismatch|Found out of order timestamp)"),
)
_REQUIRED_BATCH_KEYS = ("baseOffset", "lastOffset", "position", "size", "magic", "compresscodec")


@dataclass(frozen=True)
class ParsedSegment:
    """One ``Dumping <file>`` section: its batches and the invalid trailing bytes the tool reported."""

    file: str
    base_offset: int
    batches: tuple[RecordBatch, ...]
    invalid_trailing_bytes: int = 0


@dataclass(frozen=True)
class DumpLogParse:
    """Segments parsed from dump text; ``missing`` names what the text did not carry (see module doc)."""

    segments: tuple[ParsedSegment, ...]
    missing: frozenset[str]
    inexact: tuple[str, ...] = ()
    invalid_batches: tuple[tuple[str, int], ...] = ()

    def batches(self) -> list[RecordBatch]:
        return [b for s in self.segments for b in s.batches]

    def to_partition_log(
        self,
        topic: str,
        partition: int = 0,
        *,
        config: TopicConfig | None = None,
        broker: BrokerConfig | None = None,
        log_start_offset: int | None = None,
        cleaner_checkpoint: int | None = None,
    ) -> PartitionLog:
        """The segments as a :class:`PartitionLog` (in file order; sizes exact, raw bytes absent)."""
        ordered = sorted(self.segments, key=lambda s: s.base_offset)
        data = [SegmentData(s.base_offset, s.batches) for s in ordered]
        return build_partition_log(
            topic,
            partition,
            data,
            config=config,
            broker=broker,
            log_start_offset=log_start_offset,
            cleaner_checkpoint=cleaner_checkpoint,
        )


@dataclass
class _Pending:
    fields: dict[str, str]
    line: int
    records: list[Record] = field(default_factory=list)
    printed_sizes: list[tuple[int, str, int]] = field(default_factory=list)


@dataclass
class _Section:
    file: str
    base_offset: int | None = None
    batches: list[RecordBatch] = field(default_factory=list)
    invalid_trailing_bytes: int = 0
    is_log: bool = True


class _DumpParser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.sections: list[_Section] = []
        self.pending: _Pending | None = None
        self.missing: set[str] = set()
        self.inexact: list[str] = []
        self.invalid: list[tuple[str, int]] = []
        self.continuable = False
        self.number = 0

    def error(self, reason: str) -> DumpParseError:
        return DumpParseError(self.source, self.number, reason)

    def section(self) -> _Section:
        if not self.sections:
            self.sections.append(_Section("<text>"))
        return self.sections[-1]

    def feed(self, line: str) -> None:
        self.number += 1
        stripped = line.rstrip("\r\n")
        if stripped.startswith("Dumping "):
            self.start_section(stripped[len("Dumping ") :])
        elif self.sections and not self.sections[-1].is_log:
            return
        elif stripped.startswith("Log starting offset: "):
            self.section().base_offset = self.integer(stripped.rsplit(" ", 1)[1], "log starting offset")
        elif stripped.startswith("baseOffset: ") or stripped.startswith("offset: ") and " position: " in stripped:
            self.start_batch(stripped)
        elif stripped.startswith("|"):
            self.add_record(stripped[1:].lstrip(" "))
        elif stripped.startswith("Found ") and " invalid bytes at the end of " in stripped:
            self.finish_batch()
            self.section().invalid_trailing_bytes = self.integer(stripped.split()[1], "invalid byte count")
        elif self.continuable and self.pending is not None and self.pending.records:
            self.continue_payload(stripped)
        elif stripped.strip() == "" or any(p.match(stripped) for p in _IGNORED):
            return
        else:
            raise self.error(f"unrecognised line {stripped[:80]!r}")

    def integer(self, text: str, what: str) -> int:
        if not _INT.fullmatch(text):
            raise self.error(f"{what} {text!r} is not an integer")
        return int(text)

    def start_section(self, file: str) -> None:
        self.finish_batch()
        self.sections.append(_Section(file, is_log=file.endswith(".log")))
        match = re.search(r"([0-9]{20})\.log$", file)
        if match:
            self.sections[-1].base_offset = int(match.group(1))

    def start_batch(self, line: str) -> None:
        self.finish_batch()
        fields = dict(_PAIR.findall(line))
        if "baseOffset" not in fields:
            raise self.error("a legacy (magic 0/1) batch line; only magic 2 is supported")
        absent = [k for k in _REQUIRED_BATCH_KEYS if k not in fields]
        if absent:
            raise self.error(f"batch line lacks {', '.join(absent)}")
        self.pending = _Pending(fields, self.number)
        self.continuable = False

    def add_record(self, text: str) -> None:
        if self.pending is None:
            raise self.error("record line before any batch line")
        meta = _RECORD_META.match(text)
        if meta is None:
            raise self.error(f"unrecognised record line {text[:80]!r}")
        record, printed = self.record(meta, text[meta.end() :])
        self.pending.records.append(record)
        self.continuable = printed and record.value is not None

    def record(self, meta: re.Match[str], rest: str) -> tuple[Record, bool]:
        headers = tuple((k, None) for k in meta.group("headers").split(",") if k) if meta.group("headers") else ()
        if headers:
            self.missing.add("header_values")
        marker = _MARKER.match(rest)
        if marker:
            if not -(2**31) <= int(marker.group("epoch")) < 2**31:
                raise self.error(f"coordinatorEpoch {marker.group('epoch')} is outside the int32 range")
            marker_key = struct.pack(">hh", 0, 0 if marker.group("kind") == "ABORT" else 1)
            marker_value = struct.pack(">hi", 0, int(marker.group("epoch")))
            return Record(int(meta.group("offset")), int(meta.group("ts")), marker_key, marker_value, headers), False
        key_text, value_text = self.split_data(rest, meta)
        key = self.data(key_text, int(meta.group("ksize")), "key", meta.group("offset"))
        value = self.data(value_text, int(meta.group("vsize")), "value", meta.group("offset"))
        printed = key_text is not None or value_text is not None
        return Record(int(meta.group("offset")), int(meta.group("ts")), key, value, headers), printed

    def split_data(self, rest: str, meta: re.Match[str]) -> tuple[str | None, str | None]:
        """The key and payload text of a record line: split where ``keySize`` says, or refused when two splits fit."""
        splits = _split_data(rest, int(meta.group("ksize")), int(meta.group("vsize")))
        if len(splits) > 1:
            raise self.error(
                f"record at offset {meta.group('offset')}: its key and payload cannot be told apart "
                f"(' payload: ' stands {len(splits)} times in the line and keySize {meta.group('ksize')} matches "
                "none of the splits: the key is not UTF-8); read the segment file itself with `kcompact dump FILE.log`"
            )
        return splits[0]

    def data(self, text: str | None, size: int, what: str, offset: str) -> bytes | None:
        if size < 0:
            return None
        if text is None:
            self.missing.add(what)
            return None
        if self.pending is not None:
            self.pending.printed_sizes.append((int(offset), what, size))
        return text.encode("utf-8")

    def continue_payload(self, line: str) -> None:
        assert self.pending is not None
        last = self.pending.records[-1]
        self.pending.records[-1] = last._replace(value=(last.value or b"") + b"\n" + line.encode("utf-8"))

    def finish_batch(self) -> None:
        if self.pending is None:
            return
        self.check_sizes(self.pending)
        batch = self.batch(self.pending)
        section = self.section()
        if section.base_offset is None:
            section.base_offset = batch.base_offset
        section.batches.append(batch)
        self.pending = None
        self.continuable = False

    def check_sizes(self, pending: _Pending) -> None:
        by_offset = {r.offset: r for r in pending.records}
        for offset, what, size in pending.printed_sizes:
            data = getattr(by_offset[offset], what)
            if data is not None and len(data) != size:
                self.inexact.append(
                    f"offset {offset}: {what} printed as {len(data)} UTF-8 bytes but {what}Size is {size}"
                )

    def batch(self, pending: _Pending) -> RecordBatch:
        f = pending.fields
        self.number, saved = pending.line, self.number
        try:
            return self.build_batch(f, tuple(pending.records))
        finally:
            self.number = saved

    def build_batch(self, f: dict[str, str], records: tuple[Record, ...]) -> RecordBatch:
        base, last = self.integer(f["baseOffset"], "baseOffset"), self.integer(f["lastOffset"], "lastOffset")
        if self.integer(f["magic"], "magic") != 2:
            raise self.error(f"magic {f['magic']} batches are not supported")
        _check_batch_offsets(self, base, last, records)
        count = self.integer(f.get("count", str(len(records))), "count")
        tstype = next((t for t in _TIMESTAMP_TYPES if t in f), None)
        if tstype is None:
            raise self.error("batch line has no CreateTime/LogAppendTime field")
        horizon = self.horizon(f.get("deleteHorizonMs", "OptionalLong.empty"))
        if f.get("isvalid", "true") != "true":
            self.invalid.append((self.section().file, self.integer(f["position"], "position")))
        if count and not records:
            self.missing.add("records")
        if _TIMESTAMP_TYPES[tstype] is TimestampType.LOG_APPEND_TIME and records:
            self.missing.add("stored_timestamps")
        base_ts = self.base_timestamp(horizon, records, count)
        return RecordBatch(
            base_offset=base,
            last_offset=last,
            records=records,
            size_bytes=self.integer(f["size"], "size"),
            base_timestamp=base_ts,
            max_timestamp=self.integer(f[tstype], tstype),
            producer_id=self.integer(f.get("producerId", "-1"), "producerId"),
            producer_epoch=self.integer(f.get("producerEpoch", "-1"), "producerEpoch"),
            base_sequence=self.integer(f.get("baseSequence", "-1"), "baseSequence"),
            is_transactional=self.flag(f.get("isTransactional", "false")),
            is_control=self.flag(f.get("isControl", "false")),
            timestamp_type=_TIMESTAMP_TYPES[tstype],
            compression=self.codec(f["compresscodec"]),
            delete_horizon_ms=horizon,
            partition_leader_epoch=self.integer(f.get("partitionLeaderEpoch", "0"), "partitionLeaderEpoch"),
        )

    def base_timestamp(self, horizon: int | None, records: tuple[Record, ...], count: int) -> int:
        if horizon is not None:
            return horizon
        if records:
            return records[0].timestamp
        if count:
            self.missing.add("base_timestamp")
        return -1

    def horizon(self, text: str) -> int | None:
        if text in ("OptionalLong.empty", "-1"):
            return None
        match = re.fullmatch(r"OptionalLong\[(-?[0-9]+)\]|(-?[0-9]+)", text)
        if match is None:
            raise self.error(f"deleteHorizonMs {text!r} is neither OptionalLong.empty nor OptionalLong[<ms>]")
        return int(match.group(1) or match.group(2))

    def flag(self, text: str) -> bool:
        if text not in ("true", "false"):
            raise self.error(f"expected true or false, found {text!r}")
        return text == "true"

    def codec(self, text: str) -> str:
        name = text.lower()
        if name not in COMPRESSION_CODECS:
            raise self.error(f"unknown compresscodec {text!r}")
        return name

    def result(self) -> DumpLogParse:
        self.finish_batch()
        segments = tuple(
            ParsedSegment(s.file, s.base_offset or 0, tuple(s.batches), s.invalid_trailing_bytes)
            for s in self.sections
            if s.is_log
        )
        return DumpLogParse(segments, frozenset(self.missing), tuple(self.inexact), tuple(self.invalid))


def _check_batch_offsets(parser: _DumpParser, base: int, last: int, records: tuple[Record, ...]) -> None:
    if last < base:
        raise parser.error(f"lastOffset {last} is below baseOffset {base}")
    previous = base - 1
    for record in records:
        if not previous < record.offset <= last:
            raise parser.error(f"record offset {record.offset} is outside the batch [{base}, {last}] or out of order")
        previous = record.offset
    section = parser.section()
    if section.batches and base <= section.batches[-1].last_offset:
        raise parser.error(
            f"batch base offset {base} does not follow "
            f"the previous batch's last offset {section.batches[-1].last_offset}"
        )


def _split_data(rest: str, key_size: int, value_size: int) -> list[tuple[str | None, str | None]]:
    """The ways ``(key text, payload text)`` of a record line's tail can be read (``None``: not printed).

    A key holding `` payload: `` gives several places to split; ``keySize`` (the key's bytes) and ``valueSize``
    keep the splits whose UTF-8 lengths match them; when none matches (a key that is not UTF-8 prints other
    characters), every split is kept.
    """
    if rest.startswith(" payload: "):
        return [(None, rest[len(" payload: ") :])]
    if not rest.startswith(" key: "):
        return [(None, None)]
    text = rest[len(" key: ") :]
    splits: list[tuple[str | None, str | None]] = [
        (text[:at], text[at + len(" payload: ") :]) for at in _positions(text, " payload: ")
    ]
    if not splits:
        return [(text, None)]
    by_key = [split for split in splits if _utf8_length(split[0]) == key_size]
    by_both = [split for split in by_key if _utf8_length(split[1]) == value_size]
    return by_both or by_key or splits


def _utf8_length(text: str | None) -> int:
    return -1 if text is None else len(text.encode("utf-8", "surrogatepass"))


def _positions(text: str, part: str) -> list[int]:
    found, at = [], text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def parse_dump_log(lines: str | Iterable[str], *, source: str = "<kafka-dump-log output>") -> DumpLogParse:
    """Parse ``kafka-dump-log.sh`` output (a string or an iterable of lines, e.g. an open file).

    Raises :class:`DumpParseError` naming ``source`` and the line for anything unrecognised.
    """
    parser = _DumpParser(source)
    for line in lines.splitlines() if isinstance(lines, str) else lines:
        parser.feed(line)
    return parser.result()


def read_dump_log(path: str | Path) -> DumpLogParse:
    """Parse a file holding ``kafka-dump-log.sh`` output."""
    path = Path(path)
    with open(path, encoding="utf-8", errors="replace") as handle:
        return parse_dump_log(handle, source=str(path))
