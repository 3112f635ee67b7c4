"""One partition directory's future under the core's cleaner, read from the engine run forward: one Spark task.

:func:`predict_partition` is the whole of a task's work: it reads the partition directory with the io reader and runs
the broker's cleaner loop forward on it from ``now_ms`` with nothing appended (:func:`~kcompact_nb.core.run_forward`:
selection, passes, retention, back-off, producer expiry), then reads what the engine did: when it first cleans the
partition, what that pass removed, and how many passes it runs until nothing more happens. Nothing is restated and no
pass is forced. The partition is read as the task's options say (:class:`kcompact_nb.io.ReadOptions`): in memory, or
on disk, its passes streaming the files and writing what they clean to a scratch folder of the task's; nothing of the
log dir is modified.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from kcompact_nb.core import (
    CleanerManager,
    PartitionLog,
    dedupe_buffer_sizing,
    run_forward,
)
from kcompact_nb.io import ReadOptions, read_partition_dir
from kcompact_nb.spark._dirtiness import cleaner_view


@dataclass(frozen=True)
class PartitionTask:
    """One partition directory to predict, with what the driver knows of it (picklable: sent to a Spark task).

    ``options`` say how it is read (its topic's ``config``, the ``broker``, ``verify_crc``, ``on_disk_from_bytes``);
    ``log_start_offset`` and ``cleaner_checkpoint`` are the log dir's checkpoint entries (None when absent);
    ``log_pool_position`` is the partition's place in the broker's log pool iteration order (it breaks ties
    between equally dirty partitions); ``uncleanable`` marks a partition the cleaner skips (spec 3).
    """

    path: str
    topic: str
    partition: int
    log_pool_position: int
    options: ReadOptions
    log_start_offset: int | None = None
    cleaner_checkpoint: int | None = None
    uncleanable: bool = False


@dataclass(frozen=True)
class PartitionPass:
    """One partition at ``now_ms`` as the cleaner sees it, and what the engine then does to it (bytes, ms).

    ``first_dirty_offset`` ... ``compaction_delay_ms`` are ``LogToClean``'s (spec 4-5); ``eligible`` when the
    cleaner's selection takes it now (``grabFilthiestCompactedLog`` over it alone: compacted, not uncleanable).
    The rest is read from the cleaner run forward on the partition alone with nothing appended (a cleaner thread
    that looks at ``now_ms`` and backs off ``log.cleaner.backoff.ms`` while nothing is eligible):
    ``next_pass_ms`` when its next pass runs (None: no pass runs without appends, as for a topic that is not
    compacted or a dirty ratio under ``min.cleanable.dirty.ratio``), and that pass's ``end_offset`` (its new
    checkpoint), ``map_full`` (its offset map filled before the first uncleanable offset), ``removed_records`` and
    ``bytes_freed`` (read from the pass's stats: the records it removed, its bytes read less those written);
    ``passes_until_settled`` the passes the engine runs until nothing more happens without appends, and
    ``settled_records`` the records then left (transaction markers included; retention's deletions too, on
    ``compact,delete`` topics). ``keys_per_pass`` is one cleaner thread's offset map capacity
    (``log.cleaner.dedupe.buffer.size`` / ``log.cleaner.threads``, ``SkimpyOffsetMap``).
    """

    topic: str
    partition: int
    log_pool_position: int
    size_bytes: int
    records: int
    first_dirty_offset: int
    first_uncleanable_offset: int
    clean_bytes: int
    cleanable_bytes: int
    total_bytes: int
    cleanable_ratio: float
    compaction_delay_ms: int
    compacted: bool
    uncleanable: bool
    eligible: bool
    next_pass_ms: int | None
    end_offset: int | None
    map_full: bool
    removed_records: int
    bytes_freed: int
    keys_per_pass: int
    passes_until_settled: int
    settled_records: int


def predict_partition(task: PartitionTask, *, now_ms: int) -> PartitionPass:
    """Read ``task``'s partition directory and run the cleaner forward on it from ``now_ms`` (runs in a Spark task)."""
    with tempfile.TemporaryDirectory(prefix="kcompact-task-") as scratch:
        return partition_pass(load_partition(task, now_ms=now_ms, cleaned_into=Path(scratch)), task, now_ms=now_ms)


def load_partition(task: PartitionTask, *, now_ms: int, cleaned_into: Path | None = None) -> PartitionLog:
    """The partition as ``kcompact clean`` loads it (``read_partition_dir``; producers idle at ``now_ms`` expired);
    passes over it, read on disk, write what they clean into ``cleaned_into``."""
    options = replace(task.options, now_ms=now_ms, keep_raw=False, progress=False, cleaned_into=cleaned_into)
    read = read_partition_dir(
        task.path, options, log_start_offset=task.log_start_offset, cleaner_checkpoint=task.cleaner_checkpoint
    )
    return read.log


def partition_pass(log: PartitionLog, task: PartitionTask, *, now_ms: int) -> PartitionPass:
    """The cleaner's view of ``log`` at ``now_ms`` (:func:`~kcompact_nb.spark._dirtiness.cleaner_view`) and what the
    engine run forward on a copy of it then does."""
    cleaner = CleanerManager(log.broker, uncleanable={log.name} if task.uncleanable else set(), started_ms=now_ms)
    future = run_forward([log], now_ms=now_ms, cleaner=cleaner, fates=False)
    first = future.next_pass(log.name)
    stats = None if first is None or first.result is None else first.result.stats
    cleanable = cleaner_view(log, now_ms=now_ms, uncleanable=task.uncleanable)
    return PartitionPass(
        topic=log.topic,
        partition=log.partition,
        log_pool_position=task.log_pool_position,
        size_bytes=_size_bytes(log),
        records=_records(log),
        **cleanable,
        compacted=log.config.compact,
        uncleanable=task.uncleanable,
        next_pass_ms=None if first is None else first.at_ms,
        end_offset=None if first is None or first.result is None else first.result.end_offset,
        map_full=first is not None and first.result is not None and first.result.map_full,
        removed_records=0 if stats is None else stats.records_removed,
        bytes_freed=0 if stats is None else stats.bytes_read - stats.bytes_written,
        keys_per_pass=_keys_per_pass(cleaner, log),
        passes_until_settled=len(future.passes(log.name)),
        settled_records=_records(future.logs[log.name]),
    )


def _keys_per_pass(manager: CleanerManager, log: PartitionLog) -> int:
    broker = log.broker
    return dedupe_buffer_sizing(
        0,
        entry_bytes=manager.strategy_of(log).entry_bytes,
        load_factor=broker.log_cleaner_io_buffer_load_factor,
        dedupe_buffer_size=broker.log_cleaner_dedupe_buffer_size,
        threads=max(broker.log_cleaner_threads, 1),
    ).keys_per_pass


def _size_bytes(log: PartitionLog) -> int:
    return sum(segment.size_bytes for segment in log.segments)


def _records(log: PartitionLog) -> int:
    return sum(len(batch.records) for batch in log.batches())
