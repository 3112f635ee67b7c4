"""``kcompact dump PATH``: a readable table of a partition directory's or segment file's batches and records.

Like ``kafka-dump-log.sh --deep-iteration --print-data-log``, but one aligned table per
segment, flags spelled out, tombstones and markers named, long values shortened. Segment files
are streamed, so dumping a big segment needs little memory. Corrupt data is shown up to the
first invalid batch (as Kafka's recovery would keep it); the command then exits with status 1.
"""

from __future__ import annotations

import argparse
import struct
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from kcompact_nb.core import Record, RecordBatch

BATCH_COLUMNS = ("position", "offsets", "count", "size", "max timestamp", "producer", "flags", "codec")
RECORD_COLUMNS = ("offset", "timestamp", "key", "value", "headers")


def add_dump_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``dump`` on the ``kcompact`` command line."""
    parser = subparsers.add_parser(
        "dump",
        help="show the segments, batches and records of a partition directory or segment file",
        description="Dump a Kafka partition directory (<topic>-<partition>/) or one segment file (NNN.log).",
    )
    parser.add_argument("path", type=Path, help="partition directory or .log segment file")
    parser.add_argument(
        "--records",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="list every record under its batch (default: yes)",
    )
    parser.add_argument(
        "--max-value-chars", type=int, default=40, metavar="N", help="shorten keys and values to N characters"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the partition-state JSON of scenario files (segments, batches, records, checkpoint, dirtiness)",
    )
    parser.add_argument(
        "--now-ms", type=int, default=None, metavar="MS", help="time for the dirtiness in --json (default: now)"
    )
    parser.set_defaults(handler=run_dump)


def run_dump(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print the dump of ``args.path``; returns the exit status (1 when data was invalid)."""
    from kcompact_nb.core import KcompactError

    out = out or sys.stdout
    try:
        if args.json:
            return dump_json(args.path, out, now_ms=args.now_ms)
        return dump_path(args.path, out, records=args.records, max_chars=args.max_value_chars)
    except KcompactError as error:
        print(f"kcompact dump: {error}", file=sys.stderr)
        return 1


def dump_path(path: Path, out: TextIO, *, records: bool = True, max_chars: int = 40) -> int:
    """Write the dump of a partition directory or a segment file to ``out``; returns the exit status."""
    from kcompact_nb.io._log_reader import parse_partition_dir_name, segment_files

    if path.is_dir():
        topic, partition = parse_partition_dir_name(path)
        files = segment_files(path)
        total = sum(f.stat().st_size for f in files)
        out.write(f"Partition {topic}-{partition}: {len(files)} segments, {total:,} bytes ({path})\n")
        _dump_others(path, out)
    else:
        files = [path]
    status = 0
    next_offset: int | None = None
    for file in files:
        status, next_offset = _dump_segment(file, out, next_offset, records=records, max_chars=max_chars)
        if status:
            break
    return status


def dump_json(path: Path, out: TextIO, *, now_ms: int | None = None) -> int:
    """Write a partition directory as the scenario format's partition-state JSON.

    The cleaner checkpoint and log start offset come from the parent folder's checkpoint files
    when present; ``now_ms`` (default: the wall clock) is the time the dirtiness is computed at.
    """
    import json
    import time

    from kcompact_nb.io._checkpoint import CLEANER_OFFSET_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT, read_checkpoint
    from kcompact_nb.io._log_reader import parse_partition_dir_name, read_partition_dir
    from kcompact_nb.scenario import partition_state

    key = parse_partition_dir_name(path)
    loaded = read_partition_dir(
        path,
        log_start_offset=read_checkpoint(path.parent / LOG_START_OFFSET_CHECKPOINT).get(key),
        cleaner_checkpoint=read_checkpoint(path.parent / CLEANER_OFFSET_CHECKPOINT).get(key),
    )
    now = int(time.time() * 1000) if now_ms is None else now_ms
    json.dump(partition_state(loaded.log, now_ms=now), out, indent=2)
    out.write("\n")
    return 0


def _dump_others(path: Path, out: TextIO) -> None:
    leftovers = sorted(p.name for p in path.iterdir() if p.name.endswith((".cleaned", ".swap", ".deleted")))
    if leftovers:
        out.write(f"Leftover files (not read): {', '.join(leftovers)}\n")


def _dump_segment(
    file: Path, out: TextIO, min_offset: int | None, *, records: bool, max_chars: int
) -> tuple[int, int | None]:
    from kcompact_nb.io._segment_reader import SegmentFileReader

    reader = SegmentFileReader(file, min_offset=min_offset, keep_raw=False, recover=True)
    out.write(f"\nSegment {file.name}: base offset {reader.base_offset}, {file.stat().st_size:,} bytes\n")
    stats = _SegmentStats()
    table = _Table(out, BATCH_COLUMNS, RECORD_COLUMNS if records else None)
    for batch in reader:
        stats.add(batch)
        table.row(_batch_cells(batch, reader.valid_bytes - batch.size_bytes))
        if records and batch.records:
            table.nested([_record_cells(batch, r, max_chars) for r in batch.records])
    table.flush()
    out.write(stats.summary() + "\n")
    if reader.dropped is not None:
        d = reader.dropped
        out.write(f"INVALID DATA at byte position {d.position}: {d.reason}; {d.bytes:,} bytes not shown\n")
        return 1, stats.next_offset or min_offset
    return 0, stats.next_offset or min_offset


class _SegmentStats:
    def __init__(self) -> None:
        self.batches = 0
        self.records = 0
        self.next_offset: int | None = None
        self.max_timestamp = -1

    def add(self, batch: RecordBatch) -> None:
        self.batches += 1
        self.records += len(batch.records)
        self.next_offset = batch.last_offset + 1
        self.max_timestamp = max(self.max_timestamp, batch.max_timestamp)

    def summary(self) -> str:
        largest = format_timestamp(self.max_timestamp) if self.max_timestamp >= 0 else "none"
        return f"{self.batches:,} batches, {self.records:,} records, largest timestamp {largest}"


class _Table:
    """Aligned batch rows with their records indented below; buffered in blocks so a huge
    segment never sits in memory while the column widths still fit."""

    BLOCK = 500

    def __init__(self, out: TextIO, columns: tuple[str, ...], record_columns: tuple[str, ...] | None) -> None:
        self.out = out
        self.columns = columns
        self.record_columns = record_columns
        self.lines: list[tuple[bool, tuple[str, ...]]] = []

    def row(self, cells: tuple[str, ...]) -> None:
        if len(self.lines) >= self.BLOCK:
            self.flush()
        self.lines.append((True, cells))

    def nested(self, rows: list[tuple[str, ...]]) -> None:
        self.lines.extend((False, r) for r in rows)

    def flush(self) -> None:
        if not self.lines:
            return
        batch_widths = _widths([self.columns] + [cells for is_batch, cells in self.lines if is_batch])
        self.out.write("  " + _join(tuple(c.upper() for c in self.columns), batch_widths) + "\n")
        record_rows = [cells for is_batch, cells in self.lines if not is_batch]
        record_widths: list[int] = []
        if self.record_columns is not None:
            record_widths = _widths([self.record_columns] + record_rows)
            self.out.write("    | " + _join(tuple(c.upper() for c in self.record_columns), record_widths) + "\n")
        for is_batch, cells in self.lines:
            line = "  " + _join(cells, batch_widths) if is_batch else "    | " + _join(cells, record_widths)
            self.out.write(line + "\n")
        self.lines = []


def _widths(rows: list[tuple[str, ...]]) -> list[int]:
    return [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(len(r) for r in rows))]


def _join(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()


def _batch_cells(batch: RecordBatch, position: int) -> tuple[str, ...]:
    offsets = (
        f"{batch.base_offset}" if batch.base_offset == batch.last_offset else f"{batch.base_offset}-{batch.last_offset}"
    )
    producer = "-" if not batch.has_producer_id else f"{batch.producer_id}/e{batch.producer_epoch}"
    if batch.has_producer_id and batch.base_sequence >= 0:
        producer += f"/s{batch.base_sequence}"
    return (
        str(position),
        offsets,
        str(len(batch.records)),
        str(batch.size_bytes),
        str(batch.max_timestamp),
        producer,
        batch_flags(batch),
        batch.compression,
    )


def batch_flags(batch: RecordBatch) -> str:
    """Short words for a batch's attribute bits (``-`` when none is set)."""
    flags = []
    if batch.is_transactional:
        flags.append("txn")
    if batch.is_control:
        flags.append("control")
    if batch.timestamp_type.value == "LogAppendTime":
        flags.append("log-append-time")
    if batch.delete_horizon_ms is not None:
        flags.append(f"delete-horizon={batch.delete_horizon_ms}")
    if not batch.records:
        flags.append("empty")
    return ",".join(flags) or "-"


def _record_cells(batch: RecordBatch, record: Record, max_chars: int) -> tuple[str, ...]:
    headers = ",".join(name for name, _ in record.headers)
    if batch.is_control:
        return (str(record.offset), str(record.timestamp), "(control)", _marker(record), headers)
    value = "null (tombstone)" if record.value is None else show_bytes(record.value, max_chars)
    return (str(record.offset), str(record.timestamp), show_bytes(record.key, max_chars), value, headers)


def _marker(record: Record) -> str:
    key = record.key or b""
    if len(key) < 4:
        return "control record"
    kind = struct.unpack_from(">h", key, 2)[0]
    name = {0: "ABORT marker", 1: "COMMIT marker"}.get(kind, f"control type {kind}")
    value = record.value or b""
    if kind in (0, 1) and len(value) >= 6:
        name += f" (coordinator epoch {struct.unpack_from('>i', value, 2)[0]})"
    return name


def show_bytes(data: bytes | None, max_chars: int = 40) -> str:
    """Printable UTF-8 as text, anything else as hex; ``null`` for ``None``; shortened with its size."""
    if data is None:
        return "null"
    try:
        text = data.decode("utf-8")
        shown = text if text.isprintable() else "0x" + data.hex()
    except UnicodeDecodeError:
        shown = "0x" + data.hex()
    if len(shown) > max_chars:
        shown = shown[: max(max_chars - 1, 1)] + "…"
    return f"{shown} ({len(data)} B)" if len(data) > max_chars or shown.startswith("0x") else shown


def format_timestamp(ms: int) -> str:
    """Epoch milliseconds as ISO-8601 UTC (``…Z``), or the number itself when out of range."""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return str(ms)
