"""Write core :class:`PartitionLog` values as Kafka partition directories and log dirs.

Batches read from disk are written back from their ``raw`` bytes, so unchanged batches are
byte-identical; any other batch is encoded (:func:`encode_batch`). Only ``.log`` files and the
checkpoint files are written: a broker rebuilds missing index files when it loads the log.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from kcompact_nb.core import PartitionLog, RecordBatch, Segment, cyclic_gc_paused, segment_file_name
from kcompact_nb.io._errors import LogWriteError
from kcompact_nb.io.files import (
    CLEANER_OFFSET_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    TopicPartition,
    read_checkpoint,
    write_checkpoint,
)
from kcompact_nb.io.logdir._sparse_copy import copy_file
from kcompact_nb.io.logdir._staged_output import staged_dir
from kcompact_nb.record import stored_bytes


def batch_bytes(batch: RecordBatch, file: Path | str = "<batch>", position: int = 0) -> bytes:
    """The bytes written for ``batch``: its ``raw`` bytes when they still describe it, else an encoding.

    A batch whose size is not marked estimated must encode to exactly ``size_bytes``; a mismatch
    means the model's size is wrong and raises :class:`LogWriteError` rather than writing a
    different log. A codec whose package is missing raises :class:`CodecUnavailableError`.
    """
    data = stored_bytes(batch)
    if data is batch.raw:
        return data
    if not batch.size_estimated and len(data) != batch.size_bytes:
        reason = (
            f"{file}: batch [{batch.base_offset}, {batch.last_offset}] at byte position {position} encodes to "
            f"{len(data)} bytes but its size_bytes is {batch.size_bytes}"
        )
        raise LogWriteError(reason)
    return data


def segment_bytes(
    segment: Segment, path: Path | str = "<segment>", held: memoryview | None = None
) -> Iterator[bytes | memoryview]:
    """The bytes of each batch of ``segment`` in file order (:func:`batch_bytes`; ``path`` names the file in errors),
    or all at once: ``held``, the segment's file's bytes its log holds (:meth:`InFiles.held_of`)."""
    if held is not None:
        yield held
        return
    position = 0
    for batch in segment.batches:
        data = batch_bytes(batch, path, position)
        yield data
        position += len(data)


@cyclic_gc_paused()  # encoding rebuilt batches allocates by the hundred thousand and creates no reference cycles
def write_segment_file(segment: Segment, path: Path, held: memoryview | None = None) -> int:
    """Write one segment's batches (or the bytes ``held`` of its file) to ``path``; returns the bytes written. Sets
    the file's mtime."""
    position = 0
    with open(path, "wb") as handle:
        for data in segment_bytes(segment, path, held):
            handle.write(data)
            position += len(data)
    set_mtime_ms(path, segment.last_modified_ms)
    return position


def set_mtime_ms(path: Path, mtime_ms: int) -> None:
    """Give ``path`` the modification time ``mtime_ms`` (epoch ms; 0, unknown, leaves it as written)."""
    if mtime_ms > 0:
        stamp = mtime_ms * 1_000_000
        os.utime(path, ns=(stamp, stamp))


def _is_non_empty_dir(path: Path) -> bool:
    return path.is_dir() and any(path.iterdir())


def write_partition_dir(log: PartitionLog, log_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write ``log`` as ``<log_dir>/<topic>-<partition>/`` with one ``.log`` file per segment.

    A segment whose batches stay in a file (a log read on disk) is that file copied (holes and times kept; a
    segment a pass cleaned into a folder of its own is linked where it can be); the others are their batches'
    bytes. An existing non-empty partition directory is refused unless ``overwrite`` is true; it is then replaced
    as a whole. All or nothing: the new content is written beside it and renamed into place. Returns the partition
    directory.
    """
    target = Path(log_dir) / log.name
    if target.exists() and not target.is_dir():
        raise LogWriteError(f"{target}: exists and is not a directory")
    if _is_non_empty_dir(target) and not overwrite:
        raise LogWriteError(f"{target}: directory exists and is not empty; pass overwrite=True to replace it")
    with staged_dir(target, replace=overwrite) as staging:
        for segment in log.segments:
            _write_segment(log, segment, staging / segment_file_name(segment.base_offset))
    return target


def _write_segment(log: PartitionLog, segment: Segment, path: Path) -> None:
    storage = log.storage
    file = storage.file_of(segment) if isinstance(storage, InFiles) else None
    held = held_bytes(log, segment)
    if file is None or held is not None:
        write_segment_file(segment, path, held)
    elif not (isinstance(storage, InFiles) and file in storage.written.values() and _linked(file, path)):
        copy_file(file, path)


def _linked(file: Path, path: Path) -> bool:
    """``file`` linked as ``path`` (no bytes copied): for a segment a pass cleaned into a folder of its own, never
    for a source file (a link to it would let a write to the copy change the input)."""
    try:
        os.link(file, path)
    except OSError:  # another file system, or links not supported
        return False
    return True


@runtime_checkable
class InFiles(Protocol):
    """A log's storage that keeps batches in segment files (``SegmentFiles``)."""

    written: dict[int, Path]
    """The files passes cleaned, in a folder of the storage's own (base offset -> file)."""

    def file_of(self, segment: Segment) -> Path | None:
        """The file holding ``segment``'s batches (None: they are in memory)."""
        ...

    def held_of(self, segment: Segment) -> memoryview | None:
        """The bytes of ``segment``'s file held in memory (read once, when its partition was), if they are."""
        ...


def held_bytes(log: PartitionLog, segment: Segment) -> memoryview | None:
    """The bytes of ``segment``'s file ``log`` holds (a partition read with ``ReadOptions.hold_bytes``), if any."""
    storage = log.storage
    return storage.held_of(segment) if isinstance(storage, InFiles) else None


def checkpoint_entries(logs: Iterable[PartitionLog]) -> dict[str, dict[TopicPartition, int]]:
    """The three checkpoint files' entries for ``logs``, as a broker writes them on shutdown.

    ``log-start-offset-checkpoint`` lists only logs whose start offset is above their first
    segment's base offset (``LogManager.checkpointLogStartOffsetsInDir``); the recovery point
    of a cleanly shut down log is its log end offset.
    """
    cleaner: dict[TopicPartition, int] = {}
    starts: dict[TopicPartition, int] = {}
    recovery: dict[TopicPartition, int] = {}
    for log in logs:
        key = (log.topic, log.partition)
        if log.cleaner_checkpoint is not None:
            cleaner[key] = log.cleaner_checkpoint
        if log.log_start_offset > log.segments[0].base_offset:
            starts[key] = log.log_start_offset
        recovery[key] = log.log_end_offset
    return {
        CLEANER_OFFSET_CHECKPOINT: cleaner,
        LOG_START_OFFSET_CHECKPOINT: starts,
        RECOVERY_POINT_CHECKPOINT: recovery,
    }


def write_log_dir(logs: Iterable[PartitionLog], log_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write every log as a partition directory of ``log_dir`` plus its checkpoint files.

    A non-empty ``log_dir`` is refused unless ``overwrite`` is true; then the given partitions
    are replaced and their checkpoint entries updated, other partitions' entries kept. All or nothing: the
    log dir is built beside ``log_dir`` and renamed into place once complete (:func:`staged_dir`).
    """
    logs = list(logs)
    root = Path(log_dir)
    if _is_non_empty_dir(root) and not overwrite:
        raise LogWriteError(f"{root}: log directory exists and is not empty; pass overwrite=True to write into it")
    with staged_dir(root, keep_existing=overwrite) as staging:
        for log in logs:
            write_partition_dir(log, staging, overwrite=True)
        written = {(log.topic, log.partition) for log in logs}
        for name, entries in checkpoint_entries(logs).items():
            kept = {key: offset for key, offset in read_checkpoint(staging / name).items() if key not in written}
            write_checkpoint(staging / name, {**kept, **entries})
    return root
