"""The log model: what a broker stores and how it grows.

Built on Kafka's record format (:mod:`kcompact_nb.record`: records, batches, their sizes and codecs): the codec a
topic stores a batch with (``LogValidator``), segments (``LogSegment``), the partition log (``UnifiedLog``:
append, roll, high watermark, log start offset), producer and transaction state
(``ProducerStateManager``), topic and broker configs with Kafka's names, defaults and validation
(``LogConfig``, ``KafkaConfig``), Kafka versions, and the units people read (durations, times, bytes).
Imports nothing else of core.
"""

from __future__ import annotations

from kcompact_nb.core.model._compression import stored_compression
from kcompact_nb.core.model._config import COMPACTION_STRATEGIES, BrokerConfig, TopicConfig
from kcompact_nb.core.model._config_keys import DOUBLE_MAX, INT_MAX, LONG_MAX, MIB
from kcompact_nb.core.model._errors import ConfigError, IndexFullError, InvalidRecordError, UnitError
from kcompact_nb.core.model._header_run import HeaderRun
from kcompact_nb.core.model._log import AppendInfo, NewRecord, PartitionLog, copy_log
from kcompact_nb.core.model._log_dir_names import (
    CLEANED_FILE_SUFFIX,
    DELETED_FILE_SUFFIX,
    IN_FLIGHT_FILE_SUFFIXES,
    INDEX_FILE_SUFFIX,
    LEFTOVER_FILE_SUFFIXES,
    LEFTOVER_SEGMENT_FILE_NAME,
    LOG_FILE_SUFFIX,
    METADATA_LOG_TOPIC,
    PARTITION_DIR_NAME,
    PRODUCER_SNAPSHOT_FILE_NAME,
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    SEGMENT_FILE_NAME,
    SEGMENT_FILE_OF_ANY_KIND,
    SEGMENT_FILE_SUFFIXES,
    SWAP_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    filename_prefix_from_offset,
    segment_file_name,
    topic_partition_of_dir,
)
from kcompact_nb.core.model._log_loader import (
    SegmentData,
    build_partition_log,
    compacted_topic_config,
    load_log,
    rebuild_producer_state,
)
from kcompact_nb.core.model._producer_state import CompletedTxn, ProducerStateEntry, ProducerStateManager
from kcompact_nb.core.model._segment import AbortedTxn, Segment, StoredSegment
from kcompact_nb.core.model._snapshot_replay import ProducerSnapshot
from kcompact_nb.core.model._storage import BatchBlock, InMemoryStorage, KeyedRun, LogStorage
from kcompact_nb.core.model._units import (
    WALL_CLOCK_FROM_MS,
    format_bytes,
    format_duration_ms,
    format_instant_ms,
    format_time_ms,
    parse_bytes,
    parse_duration_ms,
    parse_time_ms,
)
from kcompact_nb.core.model._versions import DEFAULT_KAFKA_VERSION, KafkaVersion, RuleB

__all__ = [
    "BatchBlock",
    "InMemoryStorage",
    "KeyedRun",
    "HeaderRun",
    "LogStorage",
    "COMPACTION_STRATEGIES",
    "copy_log",
    "AbortedTxn",
    "AppendInfo",
    "BrokerConfig",
    "build_partition_log",
    "load_log",
    "CLEANED_FILE_SUFFIX",
    "compacted_topic_config",
    "CompletedTxn",
    "ConfigError",
    "DEFAULT_KAFKA_VERSION",
    "DELETED_FILE_SUFFIX",
    "DOUBLE_MAX",
    "filename_prefix_from_offset",
    "format_bytes",
    "format_duration_ms",
    "format_instant_ms",
    "format_time_ms",
    "INDEX_FILE_SUFFIX",
    "INT_MAX",
    "InvalidRecordError",
    "IndexFullError",
    "KafkaVersion",
    "IN_FLIGHT_FILE_SUFFIXES",
    "LEFTOVER_FILE_SUFFIXES",
    "LEFTOVER_SEGMENT_FILE_NAME",
    "LOG_FILE_SUFFIX",
    "LONG_MAX",
    "METADATA_LOG_TOPIC",
    "MIB",
    "NewRecord",
    "parse_bytes",
    "parse_duration_ms",
    "parse_time_ms",
    "PARTITION_DIR_NAME",
    "PartitionLog",
    "PRODUCER_SNAPSHOT_FILE_NAME",
    "PRODUCER_SNAPSHOT_FILE_SUFFIX",
    "ProducerSnapshot",
    "ProducerStateEntry",
    "ProducerStateManager",
    "rebuild_producer_state",
    "RuleB",
    "Segment",
    "SEGMENT_FILE_NAME",
    "segment_file_name",
    "SEGMENT_FILE_OF_ANY_KIND",
    "SEGMENT_FILE_SUFFIXES",
    "SegmentData",
    "StoredSegment",
    "stored_compression",
    "SWAP_FILE_SUFFIX",
    "TIME_INDEX_FILE_SUFFIX",
    "topic_partition_of_dir",
    "TopicConfig",
    "TXN_INDEX_FILE_SUFFIX",
    "UnitError",
    "WALL_CLOCK_FROM_MS",
]
