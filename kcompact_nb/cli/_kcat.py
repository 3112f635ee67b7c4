"""``kcompact kcat FILE [--format F] [-Z]``: kcat consumer output as a records table per partition, and its gaps.

The file is read as the bytes kcat wrote: ``-J`` output by default, ``-f`` output with the same
format string (and ``-Z`` when kcat had it). What the output does not carry and cannot tell apart
is printed before the records; output that would be read as different records is refused
(exit 2) with the line and what to pass instead. Each partition ends with the "when did
compaction last run" gap report of the offsets it holds. ``--json`` prints the same as one JSON
document (bytes as in scenario files: UTF-8 text, else ``{"base64": ...}``; times in ms).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from kcompact_nb.cli._arguments import partition_number, positive_int
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import existing_file
from kcompact_nb.cli._text import aligned, iso_time, plural, show_bytes
from kcompact_nb.core import Record, record_row
from kcompact_nb.io import CompactionGap, KcatParse, format_gap_report, last_compaction_gap, read_kcat

RECORD_COLUMNS = ("offset", "timestamp", "key", "value", "headers")  # also the parser's field names
_MISSING_WORDS = {"timestamp_type": "timestamp type"}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a file of kcat consumer output (kcat -C ... > FILE)")
    parser.add_argument(
        "-f",
        "--format",
        default=None,
        metavar="F",
        help="the -f format kcat printed with, exactly as given to kcat, e.g. '%%p %%o %%K %%S %%k %%s\\n' "
        "(default: the file is kcat -J output)",
    )
    parser.add_argument("-Z", "--nulls", action="store_true", help="kcat ran with -Z (NULL printed for null and empty)")
    parser.add_argument(
        "-p",
        "--partition",
        type=partition_number,
        default=None,
        metavar="N",
        help="kcat ran with -p N: the output holds partition N only (without %%p and without this the partition "
        "is unknown and offset gaps are not read)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument(
        "--records", action=argparse.BooleanOptionalAction, default=True, help="list every record (default: yes)"
    )
    parser.add_argument(
        "--max-value-chars", type=positive_int, default=40, metavar="N", help="shorten keys and values to N characters"
    )


def _run(args: argparse.Namespace, out: TextIO) -> int:
    path = existing_file(args.file, "kcat output file")
    parsed = read_kcat(path, args.format, print_nulls=args.nulls, partition=args.partition)
    form = "-J" if args.format is None else f"-f '{args.format}'" + (" -Z" if args.nulls else "")
    form += "" if args.partition is None else f" -p {args.partition}"
    if args.json:
        json.dump(kcat_document(parsed, str(args.file), form), out, indent=2)
        out.write("\n")
    else:
        write_kcat_report(parsed, out, f"{args.file} ({form})", records=args.records, max_chars=args.max_value_chars)
    return ExitCode.OK


def write_kcat_report(parsed: KcatParse, out: TextIO, title: str, *, records: bool = True, max_chars: int = 40) -> None:
    """The parse as people read it: what it lacks, then per partition its records and gap report."""
    partitions = parsed.partitions()
    known = "partition unknown" if any(p is None for _, p in partitions) else plural(len(partitions), "partition")
    out.write(f"kcat output {title}: {plural(len(parsed.messages), 'record')}, {known}\n")
    if parsed.missing:
        out.write(f"Not in this output: {', '.join(sorted(_MISSING_WORDS.get(m, m) for m in parsed.missing))}\n")
    for caveat in parsed.caveats:
        out.write(f"Caveat: {caveat}\n")
    if parsed.status_lines:
        out.write(f"kcat's own status lines (its stderr) in the output, skipped: {len(parsed.status_lines)}\n")
        out.writelines(f"  {line}\n" for line in parsed.status_lines)
    for topic, partition in partitions:
        rows = parsed.records(topic, partition)
        low, high = min(r.offset for r in rows), max(r.offset for r in rows)
        span = f"offset {low}" if len(rows) == 1 else f"offsets {low}-{high}"
        out.write(f"\nPartition {_label(topic, partition)}: {plural(len(rows), 'record')}, {span}\n")
        if records:
            _write_table(rows, out, [c for c in RECORD_COLUMNS if c not in parsed.missing], max_chars)
        out.write("  When did compaction last run (from the offsets this consumer read):\n")
        out.writelines(f"    {line}\n" for line in _gap_report(rows, partition).splitlines())


def _gap_report(rows: list[Record], partition: int | None) -> str:
    if partition is None:
        return NO_GAPS_WITHOUT_PARTITION
    return format_gap_report(last_compaction_gap(rows))


NO_GAPS_WITHOUT_PARTITION = (
    "not read: the partition is unknown (no %p, no --partition), so the records may come from several\n"
    "partitions and an offset gap may be another partition's records; add %p to the format, or pass\n"
    "--partition N when kcat ran with -p N"
)


def _label(topic: str | None, partition: int | None) -> str:
    if partition is None:
        return "unknown (no %p, no --partition)"
    return f"{topic}-{partition}" if topic is not None else f"{partition} (no %t)"


def _write_table(rows: list[Record], out: TextIO, columns: list[str], max_chars: int) -> None:
    """The records under the columns the output carries."""
    cells = [tuple(cell for name, cell in _record_cells(r, max_chars).items() if name in columns) for r in rows]
    out.writelines(line + "\n" for line in aligned(tuple(columns), cells))


def _record_cells(record: Record, max_chars: int) -> dict[str, str]:
    tombstone = record.value is None and record.key is not None
    return {
        "offset": str(record.offset),
        "timestamp": "none" if record.timestamp == -1 else iso_time(record.timestamp),
        "key": _show(record.key, max_chars),
        "value": "null (tombstone)" if tombstone else _show(record.value, max_chars),
        "headers": ",".join(f"{name}={_show(v, max_chars)}" for name, v in record.headers),
    }


def _show(data: bytes | None, max_chars: int) -> str:
    """Bytes as :func:`show_bytes` shows them; empty ones as ``(empty)``, so they differ from a blank cell."""
    return "(empty)" if data == b"" else show_bytes(data, max_chars)


def kcat_document(parsed: KcatParse, source: str, form: str) -> dict[str, Any]:
    """The parse as JSON: what it lacks, and per partition its records and gap analysis."""
    return {
        "source": source,
        "kcat": form,
        "missing": sorted(parsed.missing),
        "caveats": list(parsed.caveats),
        "status_lines": list(parsed.status_lines),
        "partitions": [_partition_document(parsed, topic, partition) for topic, partition in parsed.partitions()],
    }


def _partition_document(parsed: KcatParse, topic: str | None, partition: int | None) -> dict[str, Any]:
    rows = parsed.records(topic, partition)
    return {
        "topic": topic,
        "partition": partition,
        "records": [record_row(r) for r in rows],
        "gap": None if partition is None else _gap_document(last_compaction_gap(rows)),
    }


def _gap_document(gap: CompactionGap) -> dict[str, Any]:
    return {**asdict(gap), "report": format_gap_report(gap).splitlines()}


COMMAND = Command(
    name="kcat",
    description="Read kcat consumer output (-J, or -f with the same format string) exactly as kcat wrote it.",
    add_arguments=_add_arguments,
    run=_run,
)
