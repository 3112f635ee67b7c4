"""Spark: load partitions at scale, analyze whole topics, compact in Spark (needs pyspark).

Every function here is DataFrame -> DataFrame (usable with ``df.transform``) except the session
helper, the loaders and the one bounded bridge back to the core model.
"""

from __future__ import annotations

from kcompact_nb.spark._connector import CONNECTOR_SUBSTITUTES, ConnectorError, ConnectorVersions, connector_versions, kafka_connector_jars
from kcompact_nb.spark._load_log_dir import load_checkpoints, load_log_dir, load_segments
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
from kcompact_nb.spark._session import DETERMINISM_SETTINGS, SessionSettings, session_settings, spark_session

__all__ = [
    "BATCH_COLUMNS",
    "CONNECTOR_SUBSTITUTES",
    "ConnectorError",
    "ConnectorVersions",
    "DETERMINISM_SETTINGS",
    "KAFKA_SOURCE_COLUMNS",
    "RECORD_COLUMNS",
    "RECORD_SCHEMA",
    "SchemaMismatchError",
    "SessionSettings",
    "connector_versions",
    "estimate_note",
    "kafka_connector_jars",
    "load_checkpoints",
    "load_log_dir",
    "load_segments",
    "require_columns",
    "session_settings",
    "spark_session",
    "validate_records",
]
