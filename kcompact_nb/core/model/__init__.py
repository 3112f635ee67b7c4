"""The log model: what a broker stores and how it grows.

Records and v2 batches with their exact byte sizes (``DefaultRecordBatch``, ``DefaultRecord``), records held by
column with their keys numbered per log (``PackedRecords``, ``KeyRegistry``: not Kafka's, the reader's), compression
codecs behind a protocol io implements, segments (``LogSegment``), the partition log (``UnifiedLog``:
append, roll, high watermark, log start offset), producer and transaction state
(``ProducerStateManager``), topic and broker configs with Kafka's names, defaults and validation
(``LogConfig``, ``KafkaConfig``), Kafka versions, and the units people read (durations, times, bytes).
Imports nothing else of core.
"""

from __future__ import annotations

from kcompact_nb.core.model._compression import (
    DEFAULT_LEVELS,
    BatchEncoder,
    EncodedBatch,
    EstimatingEncoder,
    compressed,
    default_encoder,
    set_default_encoder,
    stored_compression,
)
from kcompact_nb.core.model._config import COMPACTION_STRATEGIES, BrokerConfig, TopicConfig
from kcompact_nb.core.model._config_keys import DOUBLE_MAX, INT_MAX, LONG_MAX, MIB
from kcompact_nb.core.model._errors import ConfigError, InvalidRecordError, KafkaModelError, KcompactError, UnitError
from kcompact_nb.core.model._key_registry import KeyRegistry
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
from kcompact_nb.core.model._packed_records import PackedRecords, record_keys, record_offsets, record_values
from kcompact_nb.core.model._producer_state import CompletedTxn, ProducerStateEntry, ProducerStateManager
from kcompact_nb.core.model._record import Record, record_from_tuple
from kcompact_nb.core.model._record_sizes import (
    LOG_OVERHEAD,
    RECORD_BATCH_OVERHEAD,
    Header,
    record_size_bytes,
    record_size_of_lengths,
    record_sizes_of_lengths,
    varint_len,
    varlong_len,
)
from kcompact_nb.core.model._records import (
    COMPRESSION_CODECS,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    ControlRecordType,
    RecordBatch,
    TimestampType,
    control_record_type,
    uncompressed_batch_size,
)
from kcompact_nb.core.model._segment import AbortedTxn, Segment, StoredSegment
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
    "COMPACTION_STRATEGIES",
    "copy_log",
    "AbortedTxn",
    "AppendInfo",
    "BatchEncoder",
    "BrokerConfig",
    "build_partition_log",
    "load_log",
    "CLEANED_FILE_SUFFIX",
    "compacted_topic_config",
    "CompletedTxn",
    "compressed",
    "COMPRESSION_CODECS",
    "ConfigError",
    "control_record_type",
    "ControlRecordType",
    "default_encoder",
    "DEFAULT_KAFKA_VERSION",
    "DEFAULT_LEVELS",
    "DELETED_FILE_SUFFIX",
    "DOUBLE_MAX",
    "EncodedBatch",
    "EstimatingEncoder",
    "filename_prefix_from_offset",
    "format_bytes",
    "format_duration_ms",
    "format_instant_ms",
    "format_time_ms",
    "Header",
    "INDEX_FILE_SUFFIX",
    "INT_MAX",
    "InvalidRecordError",
    "KafkaModelError",
    "KafkaVersion",
    "KcompactError",
    "KeyRegistry",
    "IN_FLIGHT_FILE_SUFFIXES",
    "LEFTOVER_FILE_SUFFIXES",
    "LEFTOVER_SEGMENT_FILE_NAME",
    "LOG_FILE_SUFFIX",
    "LOG_OVERHEAD",
    "LONG_MAX",
    "METADATA_LOG_TOPIC",
    "MIB",
    "NewRecord",
    "NO_PRODUCER_EPOCH",
    "NO_PRODUCER_ID",
    "NO_SEQUENCE",
    "NO_TIMESTAMP",
    "PackedRecords",
    "parse_bytes",
    "parse_duration_ms",
    "parse_time_ms",
    "PARTITION_DIR_NAME",
    "PartitionLog",
    "PRODUCER_SNAPSHOT_FILE_NAME",
    "PRODUCER_SNAPSHOT_FILE_SUFFIX",
    "ProducerStateEntry",
    "ProducerStateManager",
    "rebuild_producer_state",
    "Record",
    "RECORD_BATCH_OVERHEAD",
    "record_from_tuple",
    "record_keys",
    "record_offsets",
    "record_size_bytes",
    "record_size_of_lengths",
    "record_sizes_of_lengths",
    "record_values",
    "RecordBatch",
    "RuleB",
    "Segment",
    "SEGMENT_FILE_NAME",
    "segment_file_name",
    "SEGMENT_FILE_OF_ANY_KIND",
    "SEGMENT_FILE_SUFFIXES",
    "SegmentData",
    "StoredSegment",
    "set_default_encoder",
    "stored_compression",
    "SWAP_FILE_SUFFIX",
    "TIME_INDEX_FILE_SUFFIX",
    "TimestampType",
    "topic_partition_of_dir",
    "TopicConfig",
    "TXN_INDEX_FILE_SUFFIX",
    "uncompressed_batch_size",
    "UnitError",
    "varint_len",
    "varlong_len",
    "WALL_CLOCK_FROM_MS",
]
