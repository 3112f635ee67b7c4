"""``kcompact dump`` of a ``.index``, ``.timeindex``, ``.txnindex`` or ``.snapshot`` file.

What ``kafka-dump-log.sh --files`` prints for these files, as aligned tables (or ``--json``). Index
entries are checked against the segment file beside them as that tool does: an offset index entry
must point at a batch ending at its offset, a time index entry at the batch holding its timestamp.
A mismatch is reported and the command exits with status 1.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._text import aligned, iso_time, plural
from kcompact_nb.core import segment_file_name
from kcompact_nb.io import (
    IndexFile,
    OffsetIndexFile,
    ProducerSnapshotFile,
    TimeIndexFile,
    TransactionIndexFile,
    index_mismatches,
    read_index_file,
)

KINDS = {
    OffsetIndexFile: "offset index",
    TimeIndexFile: "time index",
    TransactionIndexFile: "transaction index",
    ProducerSnapshotFile: "producer snapshot",
}


def dump_index_file(path: Path, out: TextIO, *, as_json: bool = False) -> int:
    """Print ``path``'s entries; returns 1 when an index entry does not match its segment file."""
    index = read_index_file(path)
    problems, checked = index_mismatches(index, path)
    if as_json:
        json.dump(index_json(index, path, problems, checked), out, indent=2)
        out.write("\n")
    else:
        lines = index_lines(index, path)
        check = _check_line(index, problems, checked)
        for line in [*lines, *([check] if check else [])]:
            out.write(line + "\n")
        for problem in problems:
            out.write(f"MISMATCH {problem}\n")
    return ExitCode.FAILED if problems else ExitCode.OK


Table = tuple[str, tuple[str, ...], Sequence[tuple[str, ...]]]
"""A heading line, column names and rows."""


def index_lines(index: IndexFile, path: Path) -> list[str]:
    """The heading line and the table of one file's entries."""
    size = path.stat().st_size
    if isinstance(index, OffsetIndexFile):
        heading, columns, rows = _offset_index_table(index, path, size)
    elif isinstance(index, TimeIndexFile):
        heading, columns, rows = _time_index_table(index, path, size)
    elif isinstance(index, TransactionIndexFile):
        heading, columns, rows = _txn_index_table(index, path, size)
    else:
        heading, columns, rows = _snapshot_table(index, path, size)
    return [heading, *aligned(columns, rows)] if rows else [heading]


def _offset_index_table(index: OffsetIndexFile, path: Path, size: int) -> Table:
    rows = [(str(e.offset), f"{e.position:,}") for e in index.entries]
    return _index_heading("Offset index", index, path, size), ("offset", "position"), rows


def _time_index_table(index: TimeIndexFile, path: Path, size: int) -> Table:
    rows = [(iso_time(e.timestamp), str(e.offset)) for e in index.entries]
    return _index_heading("Time index", index, path, size), ("timestamp", "offset"), rows


def _txn_index_table(index: TransactionIndexFile, path: Path, size: int) -> Table:
    count = plural(len(index.entries), "aborted transaction")
    heading = f"Transaction index {path.name}: base offset {index.base_offset}, {count}, {size:,} bytes"
    columns = ("producer", "first offset", "last offset (marker)", "last stable offset")
    rows = [(str(t.producer_id), str(t.first_offset), str(t.last_offset), str(t.last_stable_offset))
            for t in index.entries]  # fmt: skip
    return heading, columns, rows


def _snapshot_table(index: ProducerSnapshotFile, path: Path, size: int) -> Table:
    producers = plural(len(index.entries), "producer")
    heading = f"Producer snapshot {path.name}: producer state at offset {index.offset}, {producers}, {size:,} bytes"
    columns = ("producer", "epoch", "last sequence", "last offset", "offset delta", "last timestamp",
               "coordinator epoch", "open transaction from")  # fmt: skip
    rows = [
        (str(e.producer_id), str(e.producer_epoch), str(e.last_sequence), str(e.last_offset), str(e.offset_delta),
         iso_time(e.timestamp) if e.timestamp >= 0 else "none", str(e.coordinator_epoch),
         "-" if e.current_txn_first_offset < 0 else str(e.current_txn_first_offset))
        for e in index.entries
    ]  # fmt: skip
    return heading, columns, rows


def _index_heading(kind: str, index: OffsetIndexFile | TimeIndexFile, path: Path, size: int) -> str:
    entries = plural(len(index.entries), "entry", "entries")
    allocated = " (preallocated: an active segment's index)" if index.preallocated_bytes is not None else ""
    return f"{kind} {path.name}: base offset {index.base_offset}, {entries}, {size:,} bytes{allocated}"


def _check_line(index: IndexFile, problems: list[str], checked: bool) -> str:
    if not isinstance(index, OffsetIndexFile | TimeIndexFile) or not index.entries:
        return ""
    log_name = segment_file_name(index.base_offset, ".log")
    if not checked:
        return f"not checked: no {log_name} beside it"
    if problems:
        return f"entries not matching {log_name}: {len(problems)} of {len(index.entries)}"
    return f"every entry matches {log_name}"


def index_json(index: IndexFile, path: Path, problems: list[str], checked: bool) -> dict[str, Any]:
    """The file as JSON: its kind, offset, size, entries (exact values) and what the check against the segment found."""
    document: dict[str, Any] = {"file": str(path), "kind": KINDS[type(index)]}
    document.update({k: v for k, v in dataclasses.asdict(index).items() if k != "entries"})
    document["file_bytes"] = path.stat().st_size
    document["entries"] = [dataclasses.asdict(e) for e in index.entries]
    if isinstance(index, OffsetIndexFile | TimeIndexFile):
        document["checked_against_segment"] = checked
        document["mismatches"] = problems
    return document
