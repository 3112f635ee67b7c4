"""Kafka's log cleaner: one pass and the manager that schedules passes.

The cleanable range and dirty ratio (``LogToClean``, ``LogCleanerManager.cleanableOffsets``), the offset
map (``OffsetMap``/``SkimpyOffsetMap``), compaction strategies (Kafka's offset rule; KIP-280's, never
released, labelled so), segment grouping, the pass itself (``Cleaner.doClean``, with its whole-batch loops
beside it; :func:`clean_pass` runs it as a cleaner thread's ``cleanLog``), its statistics
(``CleanerStats``), filthiest-log selection, back-off and checkpoints (``LogCleanerManager``), the log
pool's iteration order, ``compact,delete`` retention, and what a pass that throws leaves. Imports
:mod:`kcompact_nb.core.model` only.
"""

from __future__ import annotations

from kcompact_nb.core.cleaner._clean_pass import PassResult, clean_pass
from kcompact_nb.core.cleaner._cleaned_txn import CleanedTransactionMetadata
from kcompact_nb.core.cleaner._cleaner import offset_map_keys
from kcompact_nb.core.cleaner._cleaner_loop import CleanerLoop
from kcompact_nb.core.cleaner._cleaner_manager import CleanerManager, OffsetMapSpec
from kcompact_nb.core.cleaner._cleaner_stats import CleanerSpeed, CleanerStats, log_line_note
from kcompact_nb.core.cleaner._decisions import (
    BatchDecision,
    BatchFate,
    LogStartMove,
    PassDecisions,
    PassStop,
    RecordDecision,
    RecordRule,
    RetentionDeletion,
    RetentionReason,
)
from kcompact_nb.core.cleaner._failure import CleanerFailure, CleanerThrew, cleaned_file_names, index_full
from kcompact_nb.core.cleaner._first_true import FAR_FUTURE_MS, first_true
from kcompact_nb.core.cleaner._gc_pause import cyclic_gc_paused
from kcompact_nb.core.cleaner._iteration import Iteration, PartitionSelection, Selection
from kcompact_nb.core.cleaner._log_pool import log_pool_order, topic_creation_order
from kcompact_nb.core.cleaner._log_to_clean import (
    LogToClean,
    UncleanableBound,
    log_to_clean,
    log_to_clean_over_time,
    non_active_segments_from,
)
from kcompact_nb.core.cleaner._offset_map import OFFSET_ENTRY_BYTES, thread_map_memory_bytes
from kcompact_nb.core.cleaner._offset_table import OffsetTable
from kcompact_nb.core.cleaner._retention import delete_records, increment_log_start_offset, retention_deletions
from kcompact_nb.core.cleaner._strategies import (
    HeaderStrategy,
    OffsetStrategy,
    Strategy,
    TimestampStrategy,
    rank_offset,
    strategy_for,
)

__all__ = [
    "BatchDecision",
    "BatchFate",
    "clean_pass",
    "cleaned_file_names",
    "CleanedTransactionMetadata",
    "CleanerFailure",
    "CleanerLoop",
    "CleanerManager",
    "CleanerSpeed",
    "CleanerStats",
    "CleanerThrew",
    "cyclic_gc_paused",
    "delete_records",
    "FAR_FUTURE_MS",
    "first_true",
    "HeaderStrategy",
    "increment_log_start_offset",
    "index_full",
    "Iteration",
    "log_line_note",
    "log_pool_order",
    "log_to_clean",
    "log_to_clean_over_time",
    "LogStartMove",
    "LogToClean",
    "non_active_segments_from",
    "OFFSET_ENTRY_BYTES",
    "offset_map_keys",
    "OffsetMapSpec",
    "OffsetStrategy",
    "OffsetTable",
    "PartitionSelection",
    "PassDecisions",
    "PassResult",
    "PassStop",
    "rank_offset",
    "RecordDecision",
    "RecordRule",
    "retention_deletions",
    "RetentionDeletion",
    "RetentionReason",
    "Selection",
    "Strategy",
    "strategy_for",
    "thread_map_memory_bytes",
    "TimestampStrategy",
    "topic_creation_order",
    "UncleanableBound",
]
