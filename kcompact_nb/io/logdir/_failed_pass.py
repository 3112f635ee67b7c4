"""What a cleaner pass that threw left in a partition's folder, read back (docs/cleaner-rules.md, section 8.4).

Kafka's ``cleanSegments`` deletes the segment it was filling only when the pass is aborted: an exception leaves
``NNN.log.cleaned`` (with the indexes it opened, ``NNN.index.cleaned`` and ``NNN.timeindex.cleaned``, and its
``NNN.txnindex.cleaned``) until the broker restarts, whose log loading deletes them, and the cleaner thread marks the
partition uncleanable. A folder holding them is one whose broker marked the partition, or one where a pass is
filling the file. When the cleaned indexes are full, the exception is Kafka's index-full one; otherwise only the
broker's log names it, and in a log dir a running broker holds (:func:`held_by_a_running_broker`) the files alone
cannot tell a pass that threw from one under way: only a full index is read as a failure there.
"""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.core import (
    CLEANED_FILE_SUFFIX,
    INDEX_FILE_SUFFIX,
    LOG_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    CleanerFailure,
    IndexFullError,
    KafkaVersion,
    PartitionLog,
    index_full,
)
from kcompact_nb.io.files import (
    OFFSET_INDEX_ENTRY_BYTES,
    TIME_INDEX_ENTRY_BYTES,
    decode_offset_index,
    decode_time_index,
)
from kcompact_nb.io.logdir._broker_lock import held_by_a_running_broker
from kcompact_nb.io.logdir._header_scan import mtime_ms

UNNAMED_EXCEPTION = "the exception the broker's log names after this line"
"""A failure whose files do not tell its exception (anything but a full cleaned index)."""


def failed_pass(log: PartitionLog, folder: Path) -> CleanerFailure | None:
    """The pass that left ``NNN.log.cleaned`` in ``folder`` (``log``'s partition folder), as Kafka's thread recorded
    it: the files it left, when the ``.log.cleaned`` file was last written, the checkpoint as it stands, and the
    exception when the files tell it; None when the folder holds no ``.log.cleaned`` file, or when its broker is
    running and the files do not tell a failure (a pass may be filling them)."""
    left = sorted(folder.glob(f"*{LOG_FILE_SUFFIX}{CLEANED_FILE_SUFFIX}"))
    if not left:
        return None
    log_file = left[0]  # one segment is filled at a time
    stem = log_file.name[: -len(LOG_FILE_SUFFIX + CLEANED_FILE_SUFFIX)]
    suffixes = (LOG_FILE_SUFFIX, INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX)
    names = tuple(f"{stem}{s}{CLEANED_FILE_SUFFIX}" for s in suffixes)
    names = tuple(name for name in names if (folder / name).is_file())
    version = log.broker.version
    error = _full_index_error(folder, stem, version, log.config.segment_index_bytes)
    if error is None and held_by_a_running_broker(folder.parent):
        return None
    checkpoint = log.log_start_offset if log.cleaner_checkpoint is None else log.cleaner_checkpoint
    return CleanerFailure(
        log.name,
        mtime_ms(log_file),
        error or UNNAMED_EXCEPTION,
        checkpoint,
        left_cleaned=names,
        thread_stopped=not version.marks_uncleanable,
    )


def _full_index_error(folder: Path, stem: str, version: KafkaVersion, index_bytes: int) -> str | None:
    """Kafka's exception when the left indexes are full: the offset index at its last slot, or the time index one
    entry short of it (``TimeIndex.isFull`` keeps the last slot for the roll's entry). Only indexes at the size
    Kafka gives them when it opens them (``segment.index.bytes`` in whole entries) are read: one still being
    created is not full."""
    offsets_path = folder / f"{stem}{INDEX_FILE_SUFFIX}{CLEANED_FILE_SUFFIX}"
    times_path = folder / f"{stem}{TIME_INDEX_FILE_SUFFIX}{CLEANED_FILE_SUFFIX}"
    if not (offsets_path.is_file() and times_path.is_file()):
        return None
    base = int(stem)
    offsets, times = offsets_path.read_bytes(), times_path.read_bytes()
    opened = (index_bytes // OFFSET_INDEX_ENTRY_BYTES * OFFSET_INDEX_ENTRY_BYTES,
              index_bytes // TIME_INDEX_ENTRY_BYTES * TIME_INDEX_ENTRY_BYTES)  # fmt: skip
    if (len(offsets), len(times)) != opened:
        return None
    offset_entries = len(decode_offset_index(offsets, base, offsets_path).entries)
    time_entries = len(decode_time_index(times, base, times_path).entries)
    if offset_entries >= len(offsets) // OFFSET_INDEX_ENTRY_BYTES:
        return str(index_full(IndexFullError("offset", offset_entries), version))
    if time_entries >= len(times) // TIME_INDEX_ENTRY_BYTES - 1:
        return str(index_full(IndexFullError("time", time_entries), version))
    return None
