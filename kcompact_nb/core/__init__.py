"""The Kafka model: records, batches, segments, partition logs, configs and a simulated clock.

Pure Python (standard library only); never imports pyspark, plotly, ipywidgets or pandas.
"""

from __future__ import annotations

from kcompact_nb.core._clock import SimulatedClock
from kcompact_nb.core._config import BrokerConfig, TopicConfig
from kcompact_nb.core._explain import Explanation, TombstoneFate, explain, next_eligible_ms
from kcompact_nb.core._errors import ConfigError, InvalidRecordError, KafkaModelError, KcompactError
from kcompact_nb.core._log import AppendInfo, NewRecord, PartitionLog
from kcompact_nb.core._offset_buckets import OFFSET_BUCKET_COLUMNS
from kcompact_nb.core._producer_state import CompletedTxn, ProducerStateEntry, ProducerStateManager
from kcompact_nb.core._records import (
    ControlRecordType,
    Record,
    RecordBatch,
    TimestampType,
    control_record_type,
    uncompressed_batch_size,
)
from kcompact_nb.core._segment import AbortedTxn, Segment
from kcompact_nb.core._simulation import Simulation, Snapshot
from kcompact_nb.core._strategies import HeaderStrategy, OffsetStrategy, Strategy, TimestampStrategy, strategy_for
from kcompact_nb.core._sizes import LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, record_size_bytes, varint_len, varlong_len
from kcompact_nb.core._versions import DEFAULT_KAFKA_VERSION, KafkaVersion, RuleB

__all__ = [
    "AbortedTxn",
    "AppendInfo",
    "BrokerConfig",
    "CompletedTxn",
    "ConfigError",
    "ControlRecordType",
    "DEFAULT_KAFKA_VERSION",
    "Explanation",
    "InvalidRecordError",
    "KafkaModelError",
    "KafkaVersion",
    "KcompactError",
    "LOG_OVERHEAD",
    "NewRecord",
    "OFFSET_BUCKET_COLUMNS",
    "PartitionLog",
    "ProducerStateEntry",
    "ProducerStateManager",
    "RECORD_BATCH_OVERHEAD",
    "Record",
    "RecordBatch",
    "RuleB",
    "Segment",
    "SimulatedClock",
    "HeaderStrategy",
    "OffsetStrategy",
    "Simulation",
    "Snapshot",
    "Strategy",
    "TimestampStrategy",
    "TimestampType",
    "TombstoneFate",
    "TopicConfig",
    "control_record_type",
    "explain",
    "next_eligible_ms",
    "record_size_bytes",
    "strategy_for",
    "uncompressed_batch_size",
    "varint_len",
    "varlong_len",
]
