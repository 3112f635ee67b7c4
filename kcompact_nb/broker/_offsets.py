"""A live partition's log start and log end offsets, and waiting for them to move."""

from __future__ import annotations

import time

from kafka import KafkaConsumer, TopicPartition  # type: ignore[import-untyped]

from ._broker import KafkaBroker
from ._errors import BrokerError


def partition_offsets(broker: KafkaBroker, topic: str, partition: int = 0) -> tuple[int, int]:
    """``(log start offset, high watermark)`` of ``topic-partition`` (ListOffsets earliest and latest)."""
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers, request_timeout_ms=10000)
    try:
        tp = TopicPartition(topic, partition)
        return consumer.beginning_offsets([tp])[tp], consumer.end_offsets([tp])[tp]
    finally:
        consumer.close()


def wait_for_offsets(
    broker: KafkaBroker, topic: str, *, log_start: int = 0, end: int = 0, partition: int = 0, timeout_s: float = 60.0
) -> tuple[int, int]:
    """Wait until the log start offset reaches ``log_start`` and the high watermark ``end``; returns both.

    Transaction markers are written after the producer's commit returns, and compacted-log retention
    runs in the cleaner thread: both are waited for this way.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        offsets = partition_offsets(broker, topic, partition)
        if offsets[0] >= log_start and offsets[1] >= end:
            return offsets
        if time.monotonic() > deadline:
            wanted = f"log start >= {log_start} and end >= {end}"
            raise BrokerError(f"{topic}-{partition} offsets {offsets} did not reach {wanted} within {timeout_s} s")
        time.sleep(0.1)
