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

from kcompact_nb.cli._arguments import epoch_ms, positive_int
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._defaults import wall_clock_ms
from kcompact_nb.cli._dump_index import dump_index_file
from kcompact_nb.cli._dump_table import SegmentStats, Table
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._paths import existing, existing_file, named_like_partition
from kcompact_nb.cli._text import plural
from kcompact_nb.core import KcompactError, partition_row, segment_file_name
from kcompact_nb.io import (
    CLEANER_OFFSET_CHECKPOINT,
    INDEX_FILE_SUFFIXES,
    LOG_START_OFFSET_CHECKPOINT,
    LoadedPartition,
    LogDirChangedError,
    LogReadError,
    MissingCodecError,
    SegmentFileReader,
    changes_since,
    directory_state,
    parse_partition_dir_name,
    read_checkpoint,
    read_partition_dir,
    segment_files,
    skipped_entries,
)


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
        "--max-value-chars", type=positive_int, default=40, metavar="N", help="shorten keys and values to N characters"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON: a partition directory as the partition-state of scenario files (segments, batches, "
        "records, checkpoint, dirtiness); an index or snapshot file as its entries",
    )
    parser.add_argument(
        "--now-ms", type=epoch_ms, default=None, metavar="MS", help="time for the dirtiness in --json (default: now)"
    )


def _run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the dump of ``args.path``; 1 when a segment holds invalid data or an index does not match."""
    path = existing(args.path, "partition directory or file")
    if not path.is_dir() or path.suffix in (*INDEX_FILE_SUFFIXES, ".log"):
        existing_file(path, "file")  # a FIFO would wait for a writer, a device never end
    if path.suffix in INDEX_FILE_SUFFIXES:
        return dump_index_file(path, out, as_json=args.json)
    if args.json:
        if not path.is_dir():
            folder = (
                f"the folder holding it ({path.parent})" if named_like_partition(path.parent) else "a partition folder"
            )
            raise KcompactError(f"{path}: --json writes a partition folder's state; give {folder}")
        return dump_json(_partition_dir(path), out, now_ms=wall_clock_ms() if args.now_ms is None else args.now_ms)
    return _dump_live(path, out, records=args.records, max_chars=args.max_value_chars)


def _dump_live(path: Path, out: TextIO, *, records: bool, max_chars: int) -> int:
    """:func:`dump_path`, with invalid data or a vanished file blamed on the broker when it changed the folder."""
    folder = path if path.is_dir() else path.parent
    before = directory_state(folder)
    failure: Exception | None = None
    try:
        status = dump_path(path, out, records=records, max_chars=max_chars)
    except (LogReadError, OSError) as error:
        status, failure = ExitCode.FAILED, error
    if status != ExitCode.OK and (changed := changes_since(before, folder)):
        caused = str(failure) if failure is not None else "the invalid data shown above"
        raise LogDirChangedError(folder, 1, changed, caused)
    if failure is not None:
        raise failure
    return status


def dump_path(path: Path, out: TextIO, *, records: bool = True, max_chars: int = 40) -> int:
    """Write the dump of a partition directory or a segment file to ``out``; returns the exit status.

    The first invalid batch ends the dump, as it ends what Kafka's log recovery keeps: the later
    segments are named, not shown.
    """
    files = _partition_heading(_partition_dir(path), out) if path.is_dir() else [path]
    next_offset: int | None = None
    for number, file in enumerate(files):
        try:
            status, next_offset = _dump_segment(file, out, next_offset, records=records, max_chars=max_chars)
        except MissingCodecError:
            _not_shown(files[number + 1 :], out, "not shown")
            raise
        if status:
            _not_shown(
                files[number + 1 :], out, "not shown: Kafka's log recovery deletes the segments after invalid data"
            )
            return status
    return ExitCode.OK


def _partition_dir(path: Path) -> Path:
    """``path`` when it is named like a partition folder; a clear error for a log dir or anything else."""
    try:
        parse_partition_dir_name(path)
    except KcompactError:
        partitions = (
            sorted(p.name for p in path.iterdir() if p.is_dir() and named_like_partition(p)) if path.is_dir() else []
        )
        if partitions:
            raise KcompactError(
                f"{path} is a log dir, not a partition folder: "
                f"dump one of its partitions (e.g. {path / partitions[0]}) "
                f"or explain them all with `kcompact inspect {path}`"
            ) from None
        raise
    return path


def _partition_heading(path: Path, out: TextIO) -> list[Path]:
    """Write the partition's heading line; return its segment files (an empty folder as Kafka loads it)."""
    topic, partition = parse_partition_dir_name(path)
    files = segment_files(path)
    total = sum(f.stat().st_size for f in files)
    if not files:
        base = _loaded(path).log.active_segment.base_offset
        out.write(f"Partition {topic}-{partition}: 1 segment, 0 bytes ({path})\n")
        out.write(f"\nSegment {segment_file_name(base, '.log')}: base offset {base}, 0 bytes; no file: Kafka creates "
                  "this empty active segment when it loads the partition\n")  # fmt: skip
        return []
    out.write(f"Partition {topic}-{partition}: {plural(len(files), 'segment')}, {total:,} bytes ({path})\n")
    leftovers = sorted(p.name for p in path.iterdir() if p.name.endswith((".cleaned", ".swap", ".deleted")))
    if leftovers:
        out.write(f"Leftover files (not read): {', '.join(leftovers)}\n")
    out.writelines(f"Note: {note}\n" for note in skipped_entries(path))
    return files


def _loaded(path: Path) -> LoadedPartition:
    """The partition as the loader reads it, with the log dir's checkpoint entries for it."""
    key = parse_partition_dir_name(path)
    return read_partition_dir(
        path,
        log_start_offset=read_checkpoint(path.parent / LOG_START_OFFSET_CHECKPOINT).get(key),
        cleaner_checkpoint=read_checkpoint(path.parent / CLEANER_OFFSET_CHECKPOINT).get(key),
    )


def _not_shown(files: list[Path], out: TextIO, why: str) -> None:
    if files:
        names = ", ".join(f.name for f in files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        out.write(f"\n{plural(len(files), 'later segment')} {why}: {names}\n")


def dump_json(path: Path, out: TextIO, *, now_ms: int) -> int:
    """Write a partition directory as the scenario format's partition-state JSON.

    The cleaner checkpoint and log start offset come from the parent folder's checkpoint files
    when present; ``now_ms`` is the time the dirtiness is computed at.
    """
    json.dump(partition_row(_loaded(path).log, now_ms=now_ms), out, indent=2)
    out.write("\n")
    return ExitCode.OK


def _dump_segment(
    file: Path, out: TextIO, min_offset: int | None, *, records: bool, max_chars: int
) -> tuple[int, int | None]:
    reader = SegmentFileReader(file, min_offset=min_offset, keep_raw=False, recover=True)
    base = reader.base_offset if reader.base_offset is not None else "unknown (its name does not give one)"
    out.write(f"\nSegment {file.name}: base offset {base}, {file.stat().st_size:,} bytes\n")
    stats = SegmentStats()
    table = Table(out, records)
    try:
        for batch in reader:
            stats.add(batch)
            table.add(batch, reader.valid_bytes - batch.size_bytes, max_chars)
    except MissingCodecError as error:
        table.flush()
        out.write(stats.summary() + "\n")
        out.write(f"STOPPED at byte position {error.position:,}: a {error.codec}-compressed batch needs the Python "
                  f"package {error.package!r}\n")  # fmt: skip
        raise
    table.flush()
    out.write(stats.summary() + "\n")
    if reader.dropped is not None:
        d = reader.dropped
        out.write(f"INVALID DATA at byte position {d.position:,}: {d.reason}; {d.bytes:,} bytes not shown\n")
        return ExitCode.FAILED, stats.next_offset or min_offset
    return ExitCode.OK, stats.next_offset or min_offset


COMMAND = Command(
    name="dump",
    description="Dump a Kafka partition directory (<topic>-<partition>/), one segment file (NNN.log), or one "
    "offset index, time index, transaction index or producer snapshot file (NNN.index, NNN.timeindex, "
    "NNN.txnindex, NNN.snapshot), as kafka-dump-log.sh does.",
    add_arguments=_add_arguments,
    run=_run,
)
