"""The log model: what a broker stores and how it grows.

Records and v2 batches with their exact byte sizes (``DefaultRecordBatch``, ``DefaultRecord``), compression
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
from kcompact_nb.core.model._config import BrokerConfig, TopicConfig
from kcompact_nb.core.model._config_keys import DOUBLE_MAX, INT_MAX, LONG_MAX, MIB
from kcompact_nb.core.model._errors import ConfigError, InvalidRecordError, KafkaModelError, KcompactError, UnitError
from kcompact_nb.core.model._log import AppendInfo, NewRecord, PartitionLog
from kcompact_nb.core.model._producer_state import CompletedTxn, ProducerStateEntry, ProducerStateManager
from kcompact_nb.core.model._record_sizes import (
    LOG_OVERHEAD,
    RECORD_BATCH_OVERHEAD,
    Header,
    record_size_bytes,
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
    KeyRegistry,
    PackedRecords,
    Record,
    RecordBatch,
    TimestampType,
    control_record_type,
    record_from_tuple,
    record_keys,
    record_offsets,
    record_values,
    uncompressed_batch_size,
)
from kcompact_nb.core.model._segment import AbortedTxn, Segment
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

__all__ = ["AbortedTxn", "AppendInfo", "BatchEncoder", "BrokerConfig", "CompletedTxn", "compressed", "COMPRESSION_CODECS", "ConfigError", "control_record_type", "ControlRecordType", "default_encoder", "DEFAULT_KAFKA_VERSION", "DEFAULT_LEVELS", "DOUBLE_MAX", "EncodedBatch", "EstimatingEncoder", "format_bytes", "format_duration_ms", "format_instant_ms", "format_time_ms", "Header", "INT_MAX", "InvalidRecordError", "KafkaModelError", "KafkaVersion", "KcompactError", "KeyRegistry", "LOG_OVERHEAD", "LONG_MAX", "MIB", "NewRecord", "NO_PRODUCER_EPOCH", "NO_PRODUCER_ID", "NO_SEQUENCE", "NO_TIMESTAMP", "PackedRecords", "parse_bytes", "parse_duration_ms", "parse_time_ms", "PartitionLog", "ProducerStateEntry", "ProducerStateManager", "Record", "RECORD_BATCH_OVERHEAD", "record_from_tuple", "record_keys", "record_offsets", "record_size_bytes", "record_values", "RecordBatch", "RuleB", "Segment", "set_default_encoder", "stored_compression", "TimestampType", "TopicConfig", "uncompressed_batch_size", "UnitError", "varint_len", "varlong_len", "WALL_CLOCK_FROM_MS"]
