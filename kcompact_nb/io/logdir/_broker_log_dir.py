"""A log dir as a broker leaves it: segment files with their indexes, producer snapshots, checkpoints.

:func:`write_broker_log_dir` writes partition logs in Kafka's on-disk layout, every file a broker
keeps, so ``kafka-dump-log.sh`` and a broker can read them:

- per segment ``NNN.log``, ``NNN.index`` and ``NNN.timeindex`` (entries as ``LogSegment.append`` adds
  them under the ``kafka.version`` in force, trimmed as when the segment stops being active or the broker
  shuts down), and ``NNN.txnindex`` when the segment holds aborted transactions (Kafka creates it on the first entry);
- ``cleaner-offset-checkpoint``, ``log-start-offset-checkpoint`` and ``recovery-point-offset-checkpoint``.

With ``source`` (the log dir the logs were read from) it writes what a broker holding that log dir
leaves after the model's changes, such as one cleaner iteration: every file of ``source`` is copied
(mtimes kept) except those Kafka replaces or deletes. A segment whose bytes the model left as they
are keeps its files; a rewritten one (a cleaned group, named after its first segment, even with the
same bytes) gets new files; the files of a segment that is gone (merged into a group, or deleted by retention) and its
producer snapshot (``UnifiedLog.deleteProducerSnapshots``, from 2.8) are not written. The two checkpoint files
the cleaner and retention change are updated, the others copied. What is written is the state once
Kafka's delayed deletions ran (``file.delete.delay.ms``): no ``.deleted``, ``.cleaned`` or ``.swap``
files are copied, nor a running broker's ``.tmp`` and ``.lock`` files; a pass that threw leaves the ``.cleaned``
files of the segment it was filling, as Kafka does (:func:`write_left_cleaned`), and those an earlier such pass
left in ``source`` are copied (a running broker never cleans that partition again). ``source`` itself is never
modified.

Without ``source`` every file comes from the model, as after a clean shutdown: the producer state
goes into a snapshot at the log end offset (``ProducerStateManager.takeSnapshot`` on close); the
snapshots a broker took at earlier segment rolls are not reconstructed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import BinaryIO

from kcompact_nb.core import (
    CLEANED_FILE_SUFFIX,
    IN_FLIGHT_FILE_SUFFIXES,
    INDEX_FILE_SUFFIX,
    LEFTOVER_FILE_SUFFIXES,
    LOG_FILE_SUFFIX,
    METADATA_LOG_TOPIC,
    PRODUCER_SNAPSHOT_FILE_NAME,
    SEGMENT_FILE_OF_ANY_KIND,
    SEGMENT_FILE_SUFFIXES,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    PartitionLog,
    Segment,
    StoredSegment,
    cleaned_file_names,
    filename_prefix_from_offset,
    segment_file_name,
    topic_partition_of_dir,
)
from kcompact_nb.io._errors import LogWriteError
from kcompact_nb.io.files import (
    CLEANER_OFFSET_CHECKPOINT,
    LEADER_EPOCH_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    OFFSET_INDEX_ENTRY_BYTES,
    RECOVERY_POINT_CHECKPOINT,
    TIME_INDEX_ENTRY_BYTES,
    IndexFile,
    OffsetIndexFile,
    OffsetPosition,
    ProducerSnapshotEntry,
    ProducerSnapshotFile,
    TimeIndexFile,
    TimestampOffset,
    TopicPartition,
    TransactionIndexFile,
    encode_index_file,
    format_leader_epochs,
    java_hash_map_order,
    model_indexes,
    parse_leader_epochs,
    preallocated_bytes,
    read_checkpoint,
    truncate_from_start,
    write_checkpoint,
    write_index_file,
)
from kcompact_nb.io.logdir._log_writer import (
    checkpoint_entries,
    held_bytes,
    segment_bytes,
    set_mtime_ms,
    write_segment_file,
)
from kcompact_nb.io.logdir._sparse_copy import copy_file, copy_open_file, keep_mode_and_times
from kcompact_nb.io.logdir._staged_output import STAGING_MARK, staged_dir

_NOT_COPIED = (*LEFTOVER_FILE_SUFFIXES, *IN_FLIGHT_FILE_SUFFIXES)
"""What a cleaning or a deletion left half-way, and a running broker's temporary and lock files."""


def write_broker_log_dir(
    logs: Iterable[PartitionLog],
    log_dir: str | os.PathLike[str],
    *,
    source: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    written: Mapping[str, Mapping[int, Path]] | None = None,
    left: Mapping[str, Mapping[int, Path]] | None = None,
) -> Path:
    """Write ``logs`` under ``log_dir`` in Kafka's layout (see the module docstring); returns ``log_dir``.

    All or nothing: the log dir is built in a staging folder beside ``log_dir`` and renamed into place once
    complete; a failure or an interruption leaves ``log_dir`` as it was.

    Parameters
    ----------
    logs:
        The partitions to write (``<topic>-<partition>/`` each).
    log_dir:
        The folder to write; a non-empty one is refused unless ``overwrite`` is true (then the given
        partitions are replaced and the checkpoint files updated, anything else left in place).
    source:
        The log dir the logs were read from: its other files and partitions are carried over and the
        files of unchanged segments copied. Must not be ``log_dir`` or overlap it.
    written:
        For logs cleaned by streaming their segment files (:class:`~kcompact_nb.io.SegmentFiles`), by name: the
        ``.log`` files of their cleaned segments (base offset -> file), moved into place with their indexes.
        Their other segments, whose batches stay on disk, are copied from ``source``.
    left:
        Likewise, the ``.log.cleaned`` file a streamed pass that threw was filling (its log's
        :attr:`~kcompact_nb.core.PartitionLog.left_cleaned`), moved into place as Kafka leaves it.
    """
    logs = list(logs)
    root = Path(log_dir)
    origin = None if source is None else Path(source)
    _check_target(root, origin, overwrite=overwrite)
    with staged_dir(root, keep_existing=overwrite) as staging:
        names = {log.name for log in logs}
        if origin is not None:
            _copy_other_entries(origin, staging, skip=names)
        for log in logs:
            moved = (written or {}).get(log.name, {}), (left or {}).get(log.name, {})
            _write_partition(log, staging, None if origin is None else origin / log.name, moved)
        _write_checkpoints(staging, logs, origin)
    return root


def _check_target(root: Path, origin: Path | None, *, overwrite: bool) -> None:
    if root.exists() and not root.is_dir():
        raise LogWriteError(f"{root}: exists and is not a directory")
    if origin is not None:
        if not origin.is_dir():
            raise LogWriteError(f"{origin}: the source log dir does not exist or is not a directory")
        out, into = root.resolve(), origin.resolve()
        if out == into or into in out.parents or out in into.parents:
            raise LogWriteError(f"{root}: the output must not be, contain or lie inside the source log dir {origin}")
    if root.is_dir() and any(STAGING_MARK not in entry.name for entry in root.iterdir()) and not overwrite:
        reason = "directory exists and is not empty; choose an empty or new one, or allow overwriting"
        raise LogWriteError(f"{root}: {reason}")


def _copy_other_entries(origin: Path, root: Path, *, skip: set[str]) -> None:
    """Everything of the source log dir except the partitions being written (and in-flight leftovers)."""
    for entry in sorted(origin.iterdir()):
        if entry.name in skip or entry.name.endswith(_NOT_COPIED):
            continue
        target = root / entry.name
        if entry.is_dir():
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(
                entry, target, ignore=shutil.ignore_patterns(*(f"*{s}" for s in _NOT_COPIED)), copy_function=copy_file
            )
        else:
            copy_file(entry, target)


def _write_partition(
    log: PartitionLog, root: Path, origin: Path | None, moved: tuple[Mapping[int, Path], Mapping[int, Path]]
) -> None:
    """The partition's folder under ``root`` (a staging folder: replacing what an overwritten one held);
    ``moved`` are the files streamed passes wrote: cleaned segments', and a failed pass's ``.log.cleaned``."""
    written, left = moved
    target = root / log.name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    if origin is not None and origin.is_dir():
        _carry_over_partition(log, origin, target)
    else:
        _write_snapshot(log, target)
    for segment in log.segments:
        if segment.base_offset in written:
            _move_written_segment(segment, written[segment.base_offset], target)
            continue
        held = held_bytes(log, segment)
        if origin is None or not _copy_unchanged_segment(segment, origin, target, held):
            write_segment_files(segment, target, held)
    for segment in log.left_cleaned:
        write_left_cleaned(segment, target, left=left.get(segment.base_offset))


def write_left_cleaned(segment: Segment, folder: Path, *, left: Path | None = None) -> None:
    """The ``.cleaned`` files of the segment a pass that threw was filling, as Kafka leaves them (spec 8.4).

    The ``.log.cleaned`` file holds every batch appended (``left``: the file a streamed pass wrote); the indexes it
    had opened (:func:`~kcompact_nb.core.cleaner.cleaned_file_names`) keep their preallocated size
    (``segment.index.bytes`` in whole entries: never trimmed) with the entries appended before the exception;
    a ``.txnindex.cleaned`` holds the aborted transactions indexed so far.
    """
    names = cleaned_file_names(segment)
    if left is not None:
        shutil.move(left, folder / names[0])
    else:
        write_segment_file(segment, folder / names[0])
    size = segment.max_index_bytes or 0
    stem = filename_prefix_from_offset(segment.base_offset)
    indexes: list[tuple[str, IndexFile]] = []
    if len(names) > 2:
        offsets = tuple(OffsetPosition(offset, position) for offset, position in segment.offset_index)
        times = tuple(TimestampOffset(timestamp, offset) for timestamp, offset in segment.time_index)
        indexes += [
            (
                INDEX_FILE_SUFFIX,
                OffsetIndexFile(segment.base_offset, offsets, preallocated_bytes(size, OFFSET_INDEX_ENTRY_BYTES)),
            ),
            (
                TIME_INDEX_FILE_SUFFIX,
                TimeIndexFile(segment.base_offset, times, preallocated_bytes(size, TIME_INDEX_ENTRY_BYTES)),
            ),
        ]
    if segment.aborted_transactions:
        txns = TransactionIndexFile(segment.base_offset, tuple(segment.aborted_transactions))
        indexes.append((TXN_INDEX_FILE_SUFFIX, txns))
    for suffix, index in indexes:
        (folder / f"{stem}{suffix}{CLEANED_FILE_SUFFIX}").write_bytes(encode_index_file(index))


def _move_written_segment(segment: Segment, file: Path, folder: Path) -> None:
    """A cleaned segment a streamed pass wrote: its ``.log`` file moved here, its indexes as its appends added them."""
    shutil.move(file, folder / segment_file_name(segment.base_offset))
    _write_indexes(segment, folder)


def write_segment_files(segment: Segment, folder: Path, held: memoryview | None = None) -> None:
    """A segment's ``.log``, ``.index``, ``.timeindex`` and (with aborted transactions) ``.txnindex`` files.

    Index entries are those the segment's appends added (``LogSegment.append`` by the rule of its
    ``kafka.version``: per batch from 3.9.1 and 4.0.1, KAFKA-806; per append before, so a cleaned segment
    has one entry at most per read buffer of the cleaner), trimmed and with the final time index entry, as
    a segment that is no longer active or was closed has them; the files' mtime is the segment's
    (``LogSegment.setLastModified`` of a cleaned segment). ``held``: the bytes of its file its log holds.
    """
    write_segment_file(segment, folder / segment_file_name(segment.base_offset), held)
    _write_indexes(segment, folder)


def _write_indexes(segment: Segment, folder: Path) -> None:
    """The offset, time and (with aborted transactions) transaction index files, with the segment's mtime."""
    indexes = model_indexes(segment, inactive=True)
    files = [
        write_index_file(OffsetIndexFile(segment.base_offset, indexes.offset_index), folder),
        write_index_file(TimeIndexFile(segment.base_offset, indexes.time_index), folder),
    ]
    if segment.aborted_transactions:
        txns = TransactionIndexFile(segment.base_offset, tuple(segment.aborted_transactions))
        files.append(write_index_file(txns, folder))
    for path in files:
        set_mtime_ms(path, segment.last_modified_ms)


def _copy_unchanged_segment(segment: Segment, origin: Path, staging: Path, held: memoryview | None) -> bool:
    """Copy the source files of ``segment`` when its ``.log`` file holds exactly the segment's bytes and no cleaner
    pass rewrote it (a rewritten segment's indexes are the ones its appends built, whatever its bytes).

    The ``.log`` file is compared as it is copied (read once), and the files are copied through the handles
    that were checked: a running broker that swaps a cleaned segment in or appends to the active one between
    the read and the copy leaves the segment to be written from the model or the bytes ``held`` of its file (a
    stored segment whose batches are only on disk raises instead)."""
    # a stored segment's batches are its file's (only a cleaned segment replaces them), unless its log holds them
    stored = isinstance(segment, StoredSegment) and held is None
    if not stored and segment.rewritten_by_cleaner:
        return False
    source_log = origin / segment_file_name(segment.base_offset)
    stem = source_log.name[: -len(LOG_FILE_SUFFIX)]
    with ExitStack() as handles:
        opened = {  # the log first: the later check that it is still there covers the indexes opened after it
            suffix: handles.enter_context(handle)
            for suffix in SEGMENT_FILE_SUFFIXES
            if (handle := _open_if_there(origin / f"{stem}{suffix}")) is not None
        }
        log = opened.get(LOG_FILE_SUFFIX)
        target = staging / source_log.name
        if (
            log is not None
            and _still_there(segment, log, source_log)
            and _copied(segment, log, target, stored=stored, held=held)
        ):
            copies = [target] + [copy_open_file(h, staging / f"{stem}{s}") for s, h in opened.items() if h is not log]
            if _still_there(segment, log, source_log):
                return True
            for copy in copies:  # the broker appended to the segment while its indexes were copied
                copy.unlink()
    if stored:
        raise LogWriteError(f"{source_log}: segment {segment.base_offset}'s batches are no longer in this file")
    return False


def _open_if_there(path: Path) -> BinaryIO | None:
    try:
        return open(path, "rb")  # noqa: SIM115 (the caller's ExitStack closes it)
    except (FileNotFoundError, IsADirectoryError):
        return None


def _still_there(segment: Segment, log: BinaryIO, path: Path) -> bool:
    """Whether the open ``log`` is still the file at ``path``, and of the segment's size."""
    try:
        current = path.stat().st_ino
    except FileNotFoundError:
        return False
    info = os.fstat(log.fileno())
    return info.st_ino == current and info.st_size == segment.size_bytes


def _copied(segment: Segment, reader: BinaryIO, target: Path, *, stored: bool, held: memoryview | None) -> bool:
    """Copy the open ``reader`` to ``target`` (its mode and times kept): a stored segment's bytes as they are, any
    other's when it holds exactly ``segment``'s bytes (those ``held`` of its file, when its log holds them),
    compared as it is copied so the file is read once; nothing is left at ``target`` when it differs."""
    if stored:
        copy_open_file(reader, target, length=segment.size_bytes)
        return True
    reader.seek(0)
    with open(target, "wb") as writer:
        same = True
        for data in segment_bytes(segment, target.name, held):
            same = reader.read(len(data)) == data
            if not same:
                break
            writer.write(data)
    if not same:
        target.unlink()
        return False
    keep_mode_and_times(reader, target)
    return True


def _carry_over_partition(log: PartitionLog, origin: Path, staging: Path) -> None:
    """The source partition's files that are not segment files: snapshots of segments still there, and the rest."""
    bases = {segment.base_offset for segment in log.segments}
    source_bases = {
        int(m[1])
        for p in origin.iterdir()
        if (m := SEGMENT_FILE_OF_ANY_KIND.match(p.name)) and m["suffix"] == LOG_FILE_SUFFIX
    }
    removed = source_bases - bases
    refilled = {s.base_offset for s in log.segments if s.rewritten_by_cleaner} | {
        s.base_offset for s in log.left_cleaned
    }
    for entry in sorted(origin.iterdir()):
        if _left_by_failed_pass(entry.name, refilled):
            copy_file(entry, staging / entry.name)
            continue
        if not entry.is_file() or SEGMENT_FILE_OF_ANY_KIND.match(entry.name) or entry.name.endswith(_NOT_COPIED):
            continue
        snapshot = PRODUCER_SNAPSHOT_FILE_NAME.match(entry.name)
        if entry.name == LEADER_EPOCH_CHECKPOINT:
            _truncate_leader_epochs(entry, staging / entry.name, log.log_start_offset)
        elif snapshot is None or not _snapshot_deleted(int(snapshot[1]), removed, log):
            copy_file(entry, staging / entry.name)


def _snapshot_deleted(offset: int, removed: set[int], log: PartitionLog) -> bool:
    """Whether the broker deleted the producer snapshot at ``offset``: with its segment from 2.8 (KAFKA-9393); before,
    once the log start offset passed it (``ProducerStateManager.truncateHead``) or a recovery-point checkpoint
    deleted it (:meth:`~kcompact_nb.core.PartitionLog.delete_snapshots_after_recovery_point_checkpoint`), not when a
    cleaned segment replaced its segment."""
    if log.broker.version.deletes_snapshots_with_segments:
        return offset in removed
    return offset < max(log.log_start_offset, log.min_snapshot_offset_to_retain)


def _left_by_failed_pass(name: str, refilled: set[int]) -> bool:
    """A ``.cleaned`` file an earlier pass that threw left, which stays while the broker runs (it never cleans that
    partition again), unless a pass of the model filled a cleaned segment of that base offset
    (``createNewCleanedSegment`` deletes the old files first)."""
    match = SEGMENT_FILE_OF_ANY_KIND.match(name.removesuffix(CLEANED_FILE_SUFFIX))
    return name.endswith(CLEANED_FILE_SUFFIX) and match is not None and int(match["offset"]) not in refilled


def _truncate_leader_epochs(source: Path, target: Path, log_start_offset: int) -> None:
    """The source's ``leader-epoch-checkpoint`` as the broker keeps it for the log start offset: retention that moved
    it truncated the cache from the start and rewrote the file (``UnifiedLog.maybeIncrementLogStartOffset``)."""
    entries = parse_leader_epochs(source.read_text(encoding="utf-8"), source)
    truncated = truncate_from_start(entries, log_start_offset)
    if truncated == entries:
        copy_file(source, target)
    else:
        target.write_text(format_leader_epochs(truncated), encoding="utf-8")


def _write_snapshot(log: PartitionLog, folder: Path) -> None:
    """The producer snapshot a clean shutdown leaves at the log end offset (none for an empty log)."""
    if log.log_end_offset > log.log_start_offset or log.producer_state.producers:
        write_index_file(producer_snapshot(log), folder)


def producer_snapshot(log: PartitionLog) -> ProducerSnapshotFile:
    """``log``'s producer state as ``ProducerStateManager.takeSnapshot`` writes it at the log end offset.

    Each producer's last data batch (the cleaner keeps it) gives its last offset and offset delta;
    producers are in ``HashMap`` order, as Kafka iterates them.
    """
    last_batches = {b.producer_id: b for b in log.batches() if b.has_producer_id and not b.is_control}
    entries = []
    for producer_id, state in log.producer_state.producers.items():
        batch = last_batches.get(producer_id)
        delta = 0 if batch is None or state.last_data_offset < 0 else batch.last_offset - batch.base_offset
        open_txn = state.current_txn_first_offset
        entries.append(
            ProducerSnapshotEntry(
                producer_id=producer_id,
                producer_epoch=state.producer_epoch,
                last_sequence=state.last_sequence,
                last_offset=state.last_data_offset,
                offset_delta=delta,
                timestamp=state.last_timestamp,
                coordinator_epoch=state.coordinator_epoch,
                current_txn_first_offset=-1 if open_txn is None else open_txn,
            )
        )
    return ProducerSnapshotFile(log.log_end_offset, tuple(java_hash_map_order(entries)))


def _write_checkpoints(root: Path, logs: list[PartitionLog], origin: Path | None) -> None:
    """The cleaner and log start checkpoints updated for ``logs``; the recovery points as the source has them."""
    updates = checkpoint_entries(logs)
    names: tuple[str, ...] = (CLEANER_OFFSET_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT)
    if origin is None:
        names += (RECOVERY_POINT_CHECKPOINT,)
    present = _partitions_in(root)
    written = {(log.topic, log.partition) for log in logs}
    for name in names:
        entries = read_checkpoint(root / name).items()
        kept = {key: offset for key, offset in entries if key not in written and key in present}
        write_checkpoint(root / name, {**kept, **updates[name]})


def _partitions_in(root: Path) -> set[TopicPartition]:
    """The partitions of a log dir that belong to the broker's log pool (checkpoints list only those)."""
    found = set()
    for entry in root.iterdir():
        partition = topic_partition_of_dir(entry.name)
        if entry.is_dir() and partition is not None and partition[0] != METADATA_LOG_TOPIC:
            found.add(partition)
    return found
