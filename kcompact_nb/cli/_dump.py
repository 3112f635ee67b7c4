"""``kcompact dump PATH``: a readable table of a partition directory's or segment file's batches and records.

Like ``kafka-dump-log.sh --deep-iteration --print-data-log``, but one aligned table per
segment, flags spelled out, tombstones and markers named, long values shortened. Segment files
are streamed, so dumping a big segment needs little memory. Corrupt data is shown up to the
first invalid batch (as Kafka's recovery would keep it); the command then exits with status 1.
Index and snapshot files are shown by :mod:`kcompact_nb.cli._dump_index`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import wall_clock_ms
from kcompact_nb.cli._dump_index import dump_index_file
from kcompact_nb.cli._dump_table import SegmentStats, Table
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._text import plural
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    INDEX_FILE_SUFFIXES,
    LOG_START_OFFSET_CHECKPOINT,
    SegmentFileReader,
    parse_partition_dir_name,
    read_checkpoint,
    read_partition_dir,
    segment_files,
)
from kcompact_nb.scenario import partition_state


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", type=Path, help="a partition directory, or one .log, .index, .timeindex, .txnindex or .snapshot file"
    )
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
        help="print JSON: a partition directory as the partition-state of scenario files (segments, batches, "
        "records, checkpoint, dirtiness); an index or snapshot file as its entries",
    )
    parser.add_argument(
        "--now-ms", type=int, default=None, metavar="MS", help="time for the dirtiness in --json (default: now)"
    )


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the dump of ``args.path``; 1 when a segment holds invalid data or an index does not match."""
    if args.path.suffix in INDEX_FILE_SUFFIXES:
        return dump_index_file(args.path, out, as_json=args.json)
    if args.json:
        return dump_json(args.path, out, now_ms=wall_clock_ms() if args.now_ms is None else args.now_ms)
    return dump_path(args.path, out, records=args.records, max_chars=args.max_value_chars)


def dump_path(path: Path, out: TextIO, *, records: bool = True, max_chars: int = 40) -> int:
    """Write the dump of a partition directory or a segment file to ``out``; returns the exit status."""
    if path.is_dir():
        topic, partition = parse_partition_dir_name(path)
        files = segment_files(path)
        total = sum(f.stat().st_size for f in files)
        out.write(f"Partition {topic}-{partition}: {plural(len(files), 'segment')}, {total:,} bytes ({path})\n")
        _dump_others(path, out)
    else:
        files = [path]
    status: int = ExitCode.OK
    next_offset: int | None = None
    for file in files:
        status, next_offset = _dump_segment(file, out, next_offset, records=records, max_chars=max_chars)
        if status:
            break
    return status


def dump_json(path: Path, out: TextIO, *, now_ms: int) -> int:
    """Write a partition directory as the scenario format's partition-state JSON.

    The cleaner checkpoint and log start offset come from the parent folder's checkpoint files
    when present; ``now_ms`` is the time the dirtiness is computed at.
    """
    key = parse_partition_dir_name(path)
    loaded = read_partition_dir(
        path,
        log_start_offset=read_checkpoint(path.parent / LOG_START_OFFSET_CHECKPOINT).get(key),
        cleaner_checkpoint=read_checkpoint(path.parent / CLEANER_OFFSET_CHECKPOINT).get(key),
    )
    json.dump(partition_state(loaded.log, now_ms=now_ms), out, indent=2)
    out.write("\n")
    return ExitCode.OK


def _dump_others(path: Path, out: TextIO) -> None:
    leftovers = sorted(p.name for p in path.iterdir() if p.name.endswith((".cleaned", ".swap", ".deleted")))
    if leftovers:
        out.write(f"Leftover files (not read): {', '.join(leftovers)}\n")


def _dump_segment(
    file: Path, out: TextIO, min_offset: int | None, *, records: bool, max_chars: int
) -> tuple[int, int | None]:
    reader = SegmentFileReader(file, min_offset=min_offset, keep_raw=False, recover=True)
    out.write(f"\nSegment {file.name}: base offset {reader.base_offset}, {file.stat().st_size:,} bytes\n")
    stats = SegmentStats()
    table = Table(out, records)
    for batch in reader:
        stats.add(batch)
        table.add(batch, reader.valid_bytes - batch.size_bytes, max_chars)
    table.flush()
    out.write(stats.summary() + "\n")
    if reader.dropped is not None:
        d = reader.dropped
        out.write(f"INVALID DATA at byte position {d.position}: {d.reason}; {d.bytes:,} bytes not shown\n")
        return ExitCode.FAILED, stats.next_offset or min_offset
    return ExitCode.OK, stats.next_offset or min_offset


DUMP = Command(
    name="dump",
    help="show a partition directory's segments, batches and records, or one segment, index or snapshot file",
    description="Dump a Kafka partition directory (<topic>-<partition>/), one segment file (NNN.log), or one "
    "offset index, time index, transaction index or producer snapshot file (NNN.index, NNN.timeindex, "
    "NNN.txnindex, NNN.snapshot), as kafka-dump-log.sh does.",
    add_arguments=_add_arguments,
    run=_run,
)
