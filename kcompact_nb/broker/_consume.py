"""Read a partition back as rows with the Spark Kafka source's column names, and as JSON Lines."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from ._broker import KafkaBroker

#: Spark's Kafka source schema (``includeHeaders=true``), in column order.
SPARK_KAFKA_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")


def consume_rows(
    broker: KafkaBroker, topic: str, *, partition: int = 0, timeout_s: float = 10.0
) -> list[dict[str, Any]]:
    """All records from the log start to the end offset, as dicts keyed by :data:`SPARK_KAFKA_COLUMNS`.

    Uses ``isolation_level=read_uncommitted`` like Spark's default, so records of aborted transactions
    that the cleaner has not removed yet are included; control records (markers) never are.
    ``key``/``value`` are bytes or None, ``timestamp`` epoch ms, ``headers`` a list of (key, bytes) or None.
    """
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers, enable_auto_commit=False)
    try:
        assigned = TopicPartition(topic, partition)
        consumer.assign([assigned])
        consumer.seek_to_beginning(assigned)
        end = consumer.end_offsets([assigned])[assigned]
        rows: list[dict[str, Any]] = []
        while consumer.position(assigned) < end:
            batch = consumer.poll(timeout_ms=int(timeout_s * 1000)).get(assigned, [])
            rows += [_row(record) for record in batch]
            if not batch and consumer.position(assigned) < end:
                break
        return rows
    finally:
        consumer.close()


def _row(record: Any) -> dict[str, Any]:
    headers = [(name, value) for name, value in record.headers] or None
    values = (record.key, record.value, record.topic, record.partition, record.offset, record.timestamp)
    return dict(zip(SPARK_KAFKA_COLUMNS, (*values, record.timestamp_type, headers), strict=False))


def rows_to_jsonl(rows: Sequence[dict[str, Any]]) -> str:
    """JSON Lines the way Spark's ``to_json`` writes these columns: binary as base64, timestamp as UTC ISO-8601.

    ``timestamp`` becomes e.g. ``"2026-01-01T00:00:00.000Z"``; header values are base64 too; None stays null.
    """
    return "".join(json.dumps(_json_row(row), separators=(",", ":")) + "\n" for row in rows)


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["key"], out["value"] = _b64(row["key"]), _b64(row["value"])
    stamp = datetime.fromtimestamp(row["timestamp"] / 1000, tz=UTC)
    out["timestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"
    headers = row["headers"]
    out["headers"] = None if headers is None else [{"key": k, "value": _b64(v)} for k, v in headers]
    return out


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")
