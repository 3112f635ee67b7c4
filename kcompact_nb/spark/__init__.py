"""Spark: load partitions at scale, analyze whole topics, compact in Spark, predict whole log dirs (needs pyspark).

Loaders produce one record schema (:data:`RECORD_COLUMNS`: the Kafka source's columns plus batch
and segment columns). Analytics and compaction are DataFrame -> DataFrame (usable with
``df.transform``); the only ``collect`` is :func:`to_partition_log`, bounded by its ``limit``.
"""

from __future__ import annotations

from kcompact_nb.spark._analytics import (
    dirty_keys,
    duplicates,
    exact_counts,
    keys_on_many_partitions,
    map_capacity,
    tombstones,
    with_fates,
)
from kcompact_nb.spark._bridge import DEFAULT_RECORD_LIMIT, BridgeLimitError, logs_to_dataframe, to_partition_log
from kcompact_nb.spark._buckets import offset_buckets
from kcompact_nb.spark._compact import compact, whole_log_range
from kcompact_nb.spark._connector import (
    CONNECTOR_SUBSTITUTES,
    ConnectorVersions,
    connector_versions,
    kafka_connector_jars,
)
from kcompact_nb.spark._dirtiness import DIRTINESS_COLUMNS, dirtiness
from kcompact_nb.spark._display import DEFAULT_DISPLAY_LIMIT, DISPLAY_ORDER, table
from kcompact_nb.spark._executors import ExecutorPythonError
from kcompact_nb.spark._latest import header_version, latest_per_key, live_state
from kcompact_nb.spark._load_kafka import load_kafka, with_estimated_sizes
from kcompact_nb.spark._load_log_dir import load_checkpoints, load_log_dir, load_segments
from kcompact_nb.spark._load_tables import load_dump_log, load_jsonl, load_kcat, load_parquet, missing_note
from kcompact_nb.spark._people_table import PeopleTable
from kcompact_nb.spark._schema import (
    BATCH_COLUMNS,
    KAFKA_SOURCE_COLUMNS,
    RECORD_COLUMNS,
    RECORD_SCHEMA,
    SchemaMismatchError,
    estimate_note,
    require_columns,
    validate_records,
)
from kcompact_nb.spark._segment_source import SegmentSourceError, segment_source_jars
from kcompact_nb.spark._session import (
    DETERMINISM_SETTINGS,
    LEAN_SETTINGS,
    LOOPBACK_SETTINGS,
    SessionSettings,
    session_settings,
    spark_session,
)
from kcompact_nb.spark._storage import StorageError
from kcompact_nb.spark._synthetic import SYNTHETIC_BASE_TS_MS, SyntheticTopic, segments_from_records, synthetic_topic
from kcompact_nb.spark._topic_pass import (
    DEFAULT_SUMMARY_LIMIT,
    TOPIC_PASS_COLUMNS,
    topic_pass_summary,
    topic_passes,
)
from kcompact_nb.spark._txn import with_transaction_flags

__all__ = [
    "BATCH_COLUMNS",
    "CONNECTOR_SUBSTITUTES",
    "DEFAULT_RECORD_LIMIT",
    "DEFAULT_DISPLAY_LIMIT",
    "DEFAULT_SUMMARY_LIMIT",
    "DETERMINISM_SETTINGS",
    "PeopleTable",
    "DIRTINESS_COLUMNS",
    "DISPLAY_ORDER",
    "LEAN_SETTINGS",
    "LOOPBACK_SETTINGS",
    "KAFKA_SOURCE_COLUMNS",
    "RECORD_COLUMNS",
    "RECORD_SCHEMA",
    "SYNTHETIC_BASE_TS_MS",
    "TOPIC_PASS_COLUMNS",
    "BridgeLimitError",
    "ConnectorVersions",
    "ExecutorPythonError",
    "SchemaMismatchError",
    "SegmentSourceError",
    "SessionSettings",
    "StorageError",
    "SyntheticTopic",
    "compact",
    "connector_versions",
    "dirtiness",
    "dirty_keys",
    "duplicates",
    "estimate_note",
    "exact_counts",
    "header_version",
    "kafka_connector_jars",
    "keys_on_many_partitions",
    "latest_per_key",
    "live_state",
    "load_checkpoints",
    "load_dump_log",
    "load_jsonl",
    "load_kafka",
    "load_kcat",
    "load_log_dir",
    "load_parquet",
    "load_segments",
    "logs_to_dataframe",
    "map_capacity",
    "missing_note",
    "offset_buckets",
    "require_columns",
    "segment_source_jars",
    "segments_from_records",
    "session_settings",
    "spark_session",
    "synthetic_topic",
    "table",
    "to_partition_log",
    "tombstones",
    "topic_pass_summary",
    "topic_passes",
    "validate_records",
    "whole_log_range",
    "with_estimated_sizes",
    "with_fates",
    "with_transaction_flags",
]
