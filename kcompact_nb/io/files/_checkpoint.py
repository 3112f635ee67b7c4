"""Kafka's offset checkpoint files (``CheckpointFile``, ``OffsetCheckpointFile``).

Text format, one item per line::

    0                      version (always 0)
    2                      number of entries
    my-topic 0 1234        topic, partition, offset separated by a space
    my-topic 1 99

Used for ``cleaner-offset-checkpoint`` (first dirty offset per partition),
``log-start-offset-checkpoint`` and ``recovery-point-offset-checkpoint`` in every log dir.
An empty file reads as no entries, as in ``CheckpointFile.CheckpointReadBuffer.read``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from kcompact_nb.io._errors import CheckpointFormatError

CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"
RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint"
CHECKPOINT_VERSION = 0

TopicPartition = tuple[str, int]


def parse_checkpoint(text: str, source: str | Path = "<checkpoint>") -> dict[TopicPartition, int]:
    """Entries of a checkpoint file's text; raises :class:`CheckpointFormatError` naming the line."""
    lines = text.splitlines()
    if not lines:
        return {}
    _expect_int(lines, 0, source, "version")
    if int(lines[0]) != CHECKPOINT_VERSION:
        raise CheckpointFormatError(
            source, 1, f"unrecognised checkpoint version {lines[0].strip()!r}; expected 0", unit="line"
        )
    if len(lines) < 2:
        raise CheckpointFormatError(source, 2, "missing the entry count line", unit="line")
    expected = _expect_int(lines, 1, source, "entry count")
    entries: dict[TopicPartition, int] = {}
    for number, line in enumerate(lines[2:], start=3):
        parts = line.split()
        if len(parts) != 3 or not _is_int(parts[1]) or not _is_int(parts[2]):
            raise CheckpointFormatError(
                source, number, f"malformed entry {line!r}; expected 'topic partition offset'", unit="line"
            )
        entries[(parts[0], int(parts[1]))] = int(parts[2])
    found = len(lines) - 2
    if found != expected:
        reason = f"expected {expected} entries but found {found}"
        raise CheckpointFormatError(source, len(lines), reason, unit="line")
    return entries


def read_checkpoint(path: str | os.PathLike[str]) -> dict[TopicPartition, int]:
    """Entries of the checkpoint file at ``path`` (empty when the file does not exist)."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CheckpointFormatError(path, error.start, "not a text checkpoint file") from None
    return parse_checkpoint(text, path)


def format_checkpoint(entries: Mapping[TopicPartition, int]) -> str:
    """The text of a checkpoint file holding ``entries`` (sorted by topic and partition)."""
    lines = [str(CHECKPOINT_VERSION), str(len(entries))]
    lines += [f"{topic} {partition} {offset}" for (topic, partition), offset in sorted(entries.items())]
    return "\n".join(lines) + "\n"


def write_checkpoint(path: str | os.PathLike[str], entries: Mapping[TopicPartition, int]) -> None:
    """Write ``entries`` atomically (temporary file, then rename), as ``CheckpointFile.write`` does."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(format_checkpoint(entries), encoding="utf-8")
    os.replace(temporary, path)


_INTEGER = re.compile(r"-?[0-9]+")


def _is_int(text: str) -> bool:
    return _INTEGER.fullmatch(text.strip()) is not None


def _expect_int(lines: list[str], index: int, source: str | Path, what: str) -> int:
    if not _is_int(lines[index]):
        raise CheckpointFormatError(source, index + 1, f"{what} line {lines[index]!r} is not an integer", unit="line")
    return int(lines[index])
