"""The Kafka model: records, batches, segments, partition logs, configs and a simulated clock.

Pure Python (standard library only); never imports pyspark, plotly, ipywidgets or pandas.
"""

from __future__ import annotations

from kcompact_nb.core._cleaner import PassResult
from kcompact_nb.core._cleaner_manager import OffsetMapSpec
from kcompact_nb.core._cleaner_stats import CleanerStats
from kcompact_nb.core._clock import SimulatedClock
from kcompact_nb.core._compression import (
    BatchEncoder,
    EncodedBatch,
    EstimatingEncoder,
    default_encoder,
    set_default_encoder,
)
from kcompact_nb.core._config import BrokerConfig, TopicConfig
from kcompact_nb.core._explain import Explanation, TombstoneFate, explain, next_eligible_ms
from kcompact_nb.core._errors import ConfigError, InvalidRecordError, KafkaModelError, KcompactError, UnitError
from kcompact_nb.core._log import AppendInfo, NewRecord, PartitionLog
from kcompact_nb.core._fates import ClassifiedRecord, RecordFate, record_fates
from kcompact_nb.core._history import DirtinessPoint, RecordLifetime, dirtiness_series, record_lifetimes
from kcompact_nb.core._log_to_clean import LogToClean, log_to_clean
from kcompact_nb.core._outcomes import NextPass, Outcome, RecordKind, RecordOutcome, next_pass, transaction_states
from kcompact_nb.core._offset_buckets import OFFSET_BUCKET_COLUMNS, OffsetBucket, offset_buckets
from kcompact_nb.core._pass_view import OffsetMapEntry, OffsetMapView, PassDiff, filthiest, offset_map_view, pass_diff
from kcompact_nb.core._producer_state import CompletedTxn, ProducerStateEntry, ProducerStateManager
from kcompact_nb.core._regions import SegmentRegion, regions_of, segment_regions
from kcompact_nb.core._layout_view import BatchSpan, LayoutScale, LayoutView, LogPart, layout_scale, layout_view, log_parts, offset_gaps
from kcompact_nb.core._records import (
    ControlRecordType,
    KeyRegistry,
    PackedRecords,
    Record,
    RecordBatch,
    TimestampType,
    control_record_type,
    uncompressed_batch_size,
)
from kcompact_nb.core._segment import AbortedTxn, Segment
from kcompact_nb.core._simulation import Simulation, Snapshot
from kcompact_nb.core._timeline import Frame, PassRecorder, Timeline, copy_log, pass_frames
from kcompact_nb.core._strategies import HeaderStrategy, OffsetStrategy, Strategy, TimestampStrategy, strategy_for
from kcompact_nb.core._sizing import DedupeBufferSizing, dedupe_buffer_sizing
from kcompact_nb.core._summary import batch_facts, log_table
from kcompact_nb.core._units import (
    format_bytes,
    WALL_CLOCK_FROM_MS,
    format_duration_ms,
    format_instant_ms,
    format_time_ms,
    parse_bytes,
    parse_duration_ms,
    parse_time_ms,
)
from kcompact_nb.core._sizes import LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, record_size_bytes, varint_len, varlong_len
from kcompact_nb.core._versions import DEFAULT_KAFKA_VERSION, KafkaVersion, RuleB

__all__ = [
    "transaction_states",
    "WALL_CLOCK_FROM_MS",
    "regions_of",
    "offset_gaps",
    "log_parts",
    "layout_view",
    "layout_scale",
    "LogPart",
    "LayoutView",
    "LayoutScale",
    "BatchSpan",
    "AbortedTxn",
    "AppendInfo",
    "BatchEncoder",
    "BrokerConfig",
    "ClassifiedRecord",
    "CleanerStats",
    "CompletedTxn",
    "ConfigError",
    "ControlRecordType",
    "DEFAULT_KAFKA_VERSION",
    "DedupeBufferSizing",
    "DirtinessPoint",
    "EncodedBatch",
    "EstimatingEncoder",
    "Explanation",
    "Frame",
    "HeaderStrategy",
    "InvalidRecordError",
    "KafkaModelError",
    "KafkaVersion",
    "KcompactError",
    "LOG_OVERHEAD",
    "LogToClean",
    "NewRecord",
    "NextPass",
    "OFFSET_BUCKET_COLUMNS",
    "OffsetBucket",
    "OffsetMapEntry",
    "OffsetMapSpec",
    "OffsetMapView",
    "OffsetStrategy",
    "Outcome",
    "PartitionLog",
    "PassDiff",
    "PassRecorder",
    "PassResult",
    "ProducerStateEntry",
    "ProducerStateManager",
    "RECORD_BATCH_OVERHEAD",
    "KeyRegistry",
    "PackedRecords",
    "Record",
    "RecordBatch",
    "RecordFate",
    "RecordKind",
    "RecordLifetime",
    "RecordOutcome",
    "RuleB",
    "Segment",
    "SegmentRegion",
    "SimulatedClock",
    "Simulation",
    "Snapshot",
    "Strategy",
    "Timeline",
    "TimestampStrategy",
    "TimestampType",
    "TombstoneFate",
    "TopicConfig",
    "UnitError",
    "batch_facts",
    "control_record_type",
    "copy_log",
    "dedupe_buffer_sizing",
    "default_encoder",
    "dirtiness_series",
    "explain",
    "filthiest",
    "format_bytes",
    "format_duration_ms",
    "format_instant_ms",
    "format_time_ms",
    "log_table",
    "log_to_clean",
    "next_eligible_ms",
    "next_pass",
    "offset_buckets",
    "offset_map_view",
    "pass_diff",
    "parse_bytes",
    "parse_duration_ms",
    "parse_time_ms",
    "pass_frames",
    "record_fates",
    "record_lifetimes",
    "record_size_bytes",
    "segment_regions",
    "set_default_encoder",
    "strategy_for",
    "uncompressed_batch_size",
    "varint_len",
    "varlong_len",
]
