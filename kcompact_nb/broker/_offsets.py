"""A live partition's log start and log end offsets, and waiting for them to move."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from ._broker import KafkaBroker
from ._errors import BrokerError


def partition_offsets(broker: KafkaBroker, topic: str, partition: int = 0) -> tuple[int, int]:
    """``(log start offset, high watermark)`` of ``topic-partition`` (ListOffsets earliest and latest)."""
    with _consumer(broker) as consumer:
        return _offsets(consumer, TopicPartition(topic, partition))


def wait_for_offsets(
    broker: KafkaBroker, topic: str, *, log_start: int = 0, end: int = 0, partition: int = 0, timeout_s: float = 60.0
) -> tuple[int, int]:
    """Wait until the log start offset reaches ``log_start`` and the high watermark ``end``; returns both.

    Transaction markers are written after the producer's commit returns, and compacted-log retention
    runs in the cleaner thread: both are waited for this way.
    """
    deadline = time.monotonic() + timeout_s
    tp = TopicPartition(topic, partition)
    with _consumer(broker) as consumer:
        while True:
            offsets = _offsets(consumer, tp)
            if offsets[0] >= log_start and offsets[1] >= end:
                return offsets
            if time.monotonic() > deadline:
                wanted = f"log start >= {log_start} and end >= {end}"
                raise BrokerError(f"{topic}-{partition} offsets {offsets} did not reach {wanted} within {timeout_s} s")
            time.sleep(0.1)


@contextmanager
def _consumer(broker: KafkaBroker) -> Iterator[Any]:
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap_servers, request_timeout_ms=10000)
    try:
        yield consumer
    finally:
        consumer.close()


def _offsets(consumer: Any, tp: Any) -> tuple[int, int]:
    return consumer.beginning_offsets([tp])[tp], consumer.end_offsets([tp])[tp]
