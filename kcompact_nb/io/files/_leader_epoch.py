"""A partition's ``leader-epoch-checkpoint`` (``LeaderEpochCheckpointFile``) and its truncation from the start.

Text format, one item per line::

    0          version (always 0)
    1          number of entries
    0 40       leader epoch, the first offset written in it

When the log start offset moves (retention, ``DeleteRecords``), ``LeaderEpochFileCache.truncateFromStart``
drops the entries that start at or before it and keeps the last of them starting at the new log start offset.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kcompact_nb.io._errors import CheckpointFormatError

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"

EpochEntry = tuple[int, int]
"""A leader epoch and the first offset of the log written in it (``EpochEntry``)."""


def parse_leader_epochs(text: str, source: str | Path = LEADER_EPOCH_CHECKPOINT) -> list[EpochEntry]:
    """The entries of a ``leader-epoch-checkpoint`` file's text; raises :class:`CheckpointFormatError` naming the
    line."""
    lines = text.splitlines()
    if not lines:
        return []
    if lines[0].strip() != "0":
        raise CheckpointFormatError(source, 1, f"unrecognised checkpoint version {lines[0]!r}; expected 0", unit="line")
    entries = []
    for number, line in enumerate(lines[2:], start=3):
        parts = line.split()
        if len(parts) != 2 or not all(part.lstrip("-").isdigit() for part in parts):
            reason = f"malformed entry {line!r}; expected 'epoch offset'"
            raise CheckpointFormatError(source, number, reason, unit="line")
        entries.append((int(parts[0]), int(parts[1])))
    if len(lines) < 2 or lines[1].strip() != str(len(entries)):
        reason = f"the entry count does not match the {len(entries)} entries"
        raise CheckpointFormatError(source, 2, reason, unit="line")
    return entries


def format_leader_epochs(entries: Sequence[EpochEntry]) -> str:
    """The text of a ``leader-epoch-checkpoint`` file holding ``entries``."""
    return "".join(f"{line}\n" for line in ["0", str(len(entries)), *(f"{e} {o}" for e, o in entries)])


def truncate_from_start(entries: Sequence[EpochEntry], start_offset: int) -> list[EpochEntry]:
    """The entries once the log starts at ``start_offset`` (``LeaderEpochFileCache.truncateFromStart``)."""
    removed = [entry for entry in entries if entry[1] <= start_offset]
    kept = [entry for entry in entries if entry[1] > start_offset]
    return [(removed[-1][0], start_offset), *kept] if removed else kept
