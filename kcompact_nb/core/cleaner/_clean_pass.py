"""One cleaner pass as a cleaner thread runs it (``LogCleaner.CleanerThread.cleanLog``, spec 6-8, 10).

:func:`clean_pass` sets up the cleaner a broker would use (one thread's bounded offset map, the topic's
strategy), chooses the record loops once (:func:`~kcompact_nb.core.cleaner._whole_batches.record_loops_for`),
runs ``Cleaner.doClean`` (:func:`~kcompact_nb.core.cleaner._cleaner.do_clean`) with Python's cyclic collector
paused, then moves the checkpoint (``doneCleaning``) and writes Kafka's log line (``recordStats``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kcompact_nb.core.cleaner._cleaner import do_clean
from kcompact_nb.core.cleaner._cleaner_stats import CleanerSpeed, CleanerStats, log_line, throttled_elapsed
from kcompact_nb.core.cleaner._cleaning import Cleaner
from kcompact_nb.core.cleaner._decisions import PassDecisions
from kcompact_nb.core.cleaner._gc_pause import cyclic_gc_paused
from kcompact_nb.core.cleaner._log_to_clean import segment_aligned_uncleanable_offset
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, OffsetMap
from kcompact_nb.core.cleaner._offset_table import OffsetTable
from kcompact_nb.core.cleaner._strategies import Strategy, strategy_for
from kcompact_nb.core.cleaner._whole_batches import record_loops_for, recording
from kcompact_nb.core.model import BrokerConfig, LogStorage, PartitionLog
from kcompact_nb.record import native_offset_table


@dataclass(frozen=True)
class PassResult:
    """What one pass did: its range, end offset (the new checkpoint), groups, stats and log line."""

    topic: str
    partition: int
    first_dirty_offset: int
    first_uncleanable_offset: int
    end_offset: int
    cleanable_ratio: float
    start_ms: int
    end_ms: int
    stats: CleanerStats
    log_line: str
    groups: tuple[tuple[int, ...], ...]
    offset_map: OffsetMap = field(repr=False)
    map_full: bool = False
    decisions: PassDecisions | None = field(default=None, repr=False)
    """What the pass decided for each record and batch it read, when it was asked to record (``decisions``)."""

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


def clean_pass(
    log: PartitionLog,
    *,
    now_ms: int,
    first_dirty_offset: int,
    first_uncleanable_offset: int,
    offset_map: OffsetMap | None = None,
    strategy: Strategy | None = None,
    cleanable_ratio: float = 0.0,
    broker: BrokerConfig | None = None,
    thread_id: int = 0,
    speed: CleanerSpeed | None = None,
    decisions: PassDecisions | None = None,
) -> PassResult:
    """Clean ``[first_dirty_offset, first_uncleanable_offset)`` of ``log`` at ``now_ms`` and move its checkpoint.

    ``offset_map`` defaults to one cleaner thread's bounded map from the broker config (``broker``, default the
    log's; ``log.cleaner.dedupe.buffer.size`` / ``log.cleaner.threads``), sized for the strategy's entry bytes;
    ``strategy`` defaults to the topic's ``compaction.strategy``. ``first_uncleanable_offset`` is rounded down to its
    segment's base offset, as ``LogToClean`` does. Called on an empty range, the pass ends at offset 0, as Kafka's
    would. The pass reads the batches and keeps the cleaned segments where the log keeps them (``log.storage``).
    ``thread_id`` names the cleaner thread in the log line; ``speed``, the machine's pace, makes the pass take time
    unthrottled too (:func:`throttled_elapsed`). ``decisions``, when given, receives what the pass decided for each
    record and batch it read (the records are then filtered one by one, as Kafka does).
    """
    first_uncleanable_offset = segment_aligned_uncleanable_offset(log, first_uncleanable_offset)
    broker = broker or log.broker
    strategy = strategy or strategy_for(log.config)
    offset_map = offset_map or BoundedOffsetMap.for_broker(
        broker,
        entry_bytes=strategy.entry_bytes,
        streaming=log.storage.streams,
        table=offset_table_for(log.storage, strategy),
    )
    loops = record_loops_for(offset_map, strategy)
    if decisions is not None:
        loops = recording(loops, decisions)
    cleaner = Cleaner(offset_map, strategy, broker, log.storage, loops=loops, decisions=decisions)
    with cyclic_gc_paused():
        cleaned = do_clean(
            cleaner,
            log,
            first_dirty_offset=first_dirty_offset,
            first_uncleanable_offset=first_uncleanable_offset,
            now_ms=now_ms,
        )
    log.cleaner_checkpoint = end_offset = cleaned.end_offset
    stats = cleaned.stats
    throttled_elapsed(stats, broker, speed)
    line = log_line(
        stats,
        thread_id=thread_id,
        log_name=log.name,
        first_dirty_offset=first_dirty_offset,
        end_offset=end_offset if broker.version.logs_dirty_section_end else first_dirty_offset,
    )
    return PassResult(
        topic=log.topic,
        partition=log.partition,
        first_dirty_offset=first_dirty_offset,
        first_uncleanable_offset=first_uncleanable_offset,
        end_offset=end_offset,
        cleanable_ratio=cleanable_ratio,
        start_ms=now_ms,
        end_ms=now_ms + round(stats.elapsed_secs * 1000),
        stats=stats,
        log_line=line,
        groups=cleaned.groups,
        offset_map=offset_map,
        map_full=cleaned.map_full,
        decisions=decisions,
    )


def offset_table_for(storage: LogStorage, strategy: Strategy) -> OffsetTable | None:
    """Where a pass's map keeps its entries: for a pass streamed from segment files under the offset strategy, the C
    kernel's hash table of key bytes, when it is built (the pass looks keys up straight from the batches, as Kafka's
    ``SkimpyOffsetMap`` hashes them from its read buffer); otherwise None, a dict."""
    return native_offset_table() if storage.streams and strategy.ranks_by_offset else None
