"""The next cleaner passes of one partition directory, as the core's cleaner runs them: one Spark task of a topic pass.

:func:`predict_partition` is the whole of a task's work: it reads the partition directory with the io reader and
runs the core's pass (``Cleaner.doClean``) on it at ``now_ms``, then more passes until the cleanable range of that
moment is cleaned (each pass stops where its offset map fills, spec 6.4). Reading is behind :func:`load_partition`,
the one place a streaming reader would take over. The log read is the task's own copy, so passes change it freely;
nothing on disk is modified.
"""

from __future__ import annotations

from dataclasses import dataclass

from kcompact_nb.core import (
    BrokerConfig,
    CleanerManager,
    KcompactError,
    LogToClean,
    PartitionLog,
    PassResult,
    TopicConfig,
    dedupe_buffer_sizing,
    log_to_clean,
    log_to_clean_row,
)
from kcompact_nb.io import read_partition_dir


@dataclass(frozen=True)
class PartitionTask:
    """One partition directory to predict, with what the driver knows of it (picklable: sent to a Spark task).

    ``log_start_offset`` and ``cleaner_checkpoint`` are the log dir's checkpoint entries (None when absent);
    ``log_pool_position`` is the partition's place in the broker's log pool iteration order (it breaks ties
    between equally dirty partitions); ``uncleanable`` marks a partition the cleaner skips (spec 3).
    """

    path: str
    topic: str
    partition: int
    log_pool_position: int
    config: TopicConfig | None
    broker: BrokerConfig
    log_start_offset: int | None = None
    cleaner_checkpoint: int | None = None
    uncleanable: bool = False
    verify_crc: bool = True


@dataclass(frozen=True)
class PartitionPass:
    """One partition at ``now_ms`` as the cleaner sees it, and what its next passes do (sizes in bytes, times in ms).

    ``first_dirty_offset`` ... ``compaction_delay_ms`` are ``LogToClean``'s (spec 4-5); ``eligible`` is
    ``LogToClean``'s rule for a compacted partition that is not uncleanable (``grabFilthiestCompactedLog``).
    The pass columns describe the next pass when it runs (whether or not the partition is eligible now):
    ``end_offset`` (its new checkpoint; None: the cleanable range is empty, no pass runs, as for a topic that is
    not compacted), ``map_full`` (its offset map filled before the first uncleanable offset), ``retained_records``
    (records left in the log, transaction markers included), ``bytes_freed`` (segment bytes it removes).
    ``keys_per_pass`` is one cleaner thread's offset map capacity (``log.cleaner.dedupe.buffer.size`` /
    ``log.cleaner.threads``, ``SkimpyOffsetMap``); ``passes_needed`` the passes run back to back at ``now_ms``
    until the cleanable range of now is cleaned (each must also be selected when it comes: see
    ``min.cleanable.dirty.ratio``).
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
    end_offset: int | None
    map_full: bool
    retained_records: int
    bytes_freed: int
    keys_per_pass: int
    passes_needed: int


def predict_partition(task: PartitionTask, *, now_ms: int) -> PartitionPass:
    """Read ``task``'s partition directory and run the core's passes on it at ``now_ms`` (runs in a Spark task)."""
    return partition_pass(load_partition(task, now_ms=now_ms), task, now_ms=now_ms)


def load_partition(task: PartitionTask, *, now_ms: int) -> PartitionLog:
    """The partition as ``kcompact clean`` loads it (``read_partition_dir``; producers idle at ``now_ms`` expired)."""
    return read_partition_dir(
        task.path,
        config=task.config,
        broker=task.broker,
        log_start_offset=task.log_start_offset,
        cleaner_checkpoint=task.cleaner_checkpoint,
        now_ms=now_ms,
        verify_crc=task.verify_crc,
        keep_raw=False,
        progress=False,
    ).log


def partition_pass(log: PartitionLog, task: PartitionTask, *, now_ms: int) -> PartitionPass:
    """The cleaner's view of ``log`` at ``now_ms`` and what its next passes do; the passes change ``log``."""
    ltc = log_to_clean(log, now_ms=now_ms)
    manager = CleanerManager(log.broker)
    size_bytes, records = _size_bytes(log), _records(log)
    first = _next_pass(manager, log, ltc, now_ms) if log.config.compact else None
    retained_records, size_after = (records, size_bytes) if first is None else (_records(log), _size_bytes(log))
    passes = 0 if first is None else 1 + _later_passes(manager, log, ltc, first.end_offset, now_ms)
    cleanable = log_to_clean_row(ltc) | {"eligible": ltc.eligible and log.config.compact and not task.uncleanable}
    return PartitionPass(
        topic=log.topic,
        partition=log.partition,
        log_pool_position=task.log_pool_position,
        size_bytes=size_bytes,
        records=records,
        **cleanable,
        compacted=log.config.compact,
        uncleanable=task.uncleanable,
        end_offset=None if first is None else first.end_offset,
        map_full=first is not None and first.map_full,
        retained_records=retained_records,
        bytes_freed=size_bytes - size_after,
        keys_per_pass=_keys_per_pass(manager, log),
        passes_needed=passes,
    )


def _next_pass(manager: CleanerManager, log: PartitionLog, ltc: LogToClean, now_ms: int) -> PassResult | None:
    """The pass at ``now_ms`` over ``ltc``'s range, forced as ``next_pass`` does; None when the range is empty."""
    if ltc.first_dirty_offset >= ltc.first_uncleanable_offset:
        return None
    return manager.clean_log(log, now_ms=now_ms, force=True)


def _later_passes(manager: CleanerManager, log: PartitionLog, ltc: LogToClean, end: int, now_ms: int) -> int:
    """How many more passes, each from where the last one ended, reach ``ltc``'s first uncleanable offset."""
    passes = 0
    while end < ltc.first_uncleanable_offset:
        result = manager.clean_log(log, now_ms=now_ms, force=True)
        if result is None or result.end_offset <= end:  # a pass maps at least one batch: a bug if it does not
            raise KcompactError(f"{log.name}: a pass from offset {end} at {now_ms} ms did not move the cleaner point")
        passes, end = passes + 1, result.end_offset
    return passes


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
