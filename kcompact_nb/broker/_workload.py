"""Drive a real broker with kafka-python: compacted topics, keyed records, tombstones, transactions."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from kafka import KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kafka.errors import KafkaError

from ..core import NewRecord
from ._broker import KafkaBroker
from ._errors import BrokerError

#: Topic configs that let the cleaner run within a second (docs/real-broker.md, section 3); segment.ms rolls
#: by record time.
COMPACTED_TOPIC_CONFIGS: dict[str, str] = {
    "cleanup.policy": "compact",
    "segment.ms": "100",
    "min.cleanable.dirty.ratio": "0.01",
    "min.compaction.lag.ms": "0",
    "delete.retention.ms": "0",
    "file.delete.delay.ms": "100",
    "segment.index.bytes": "4096",
}


@contextmanager
def admin_client(broker: KafkaBroker) -> Iterator[Any]:
    """A ``KafkaAdminClient`` for ``broker``, closed on exit."""
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers, request_timeout_ms=10000)
    try:
        yield admin
    finally:
        admin.close()


def create_topic(
    broker: KafkaBroker,
    topic: str,
    *,
    configs: Mapping[str, str] | None = None,
    partitions: int = 1,
    timeout_s: float = 30.0,
) -> dict[str, str]:
    """Create a topic of ``partitions`` partitions with :data:`COMPACTED_TOPIC_CONFIGS` updated by ``configs``.

    Retries while the freshly started broker is not yet registered; returns once every partition has
    a leader. Returns the configs used.
    """
    merged = {**COMPACTED_TOPIC_CONFIGS, **(configs or {})}
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with admin_client(broker) as admin:
                admin.create_topics([NewTopic(topic, partitions, 1, topic_configs=merged)])
            _wait_leader(broker, topic, deadline, partitions)
            return merged
        except KafkaError as error:
            if time.monotonic() > deadline:
                raise BrokerError(f"could not create topic {topic!r} with {merged}: {error!r}") from error
            time.sleep(0.5)


def _wait_leader(broker: KafkaBroker, topic: str, deadline: float, partitions: int) -> None:
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    try:
        while len(producer.partitions_for(topic) or ()) < partitions:
            if time.monotonic() > deadline:
                raise BrokerError(f"topic {topic!r} has no partition leader")
            time.sleep(0.2)
    finally:
        producer.close()


def alter_topic_configs(broker: KafkaBroker, topic: str | Sequence[str], configs: Mapping[str, str]) -> None:
    """Set the configs of ``topic`` (or of several topics, in one request) to exactly ``configs``
    (AlterConfigs replaces the whole set; pass all of them)."""
    topics = [topic] if isinstance(topic, str) else list(topic)
    resources = [ConfigResource(ConfigResourceType.TOPIC, name, configs=dict(configs)) for name in topics]
    with admin_client(broker) as admin:
        admin.alter_configs(resources)


def produce(
    broker: KafkaBroker, topic: str, records: Sequence[NewRecord], *, idempotent: bool = False, partition: int = 0
) -> list[int]:
    """Send each record to ``partition`` in a batch of its own (waiting for each ack); return the assigned offsets.

    ``idempotent=False`` gives batches without producer id (``producerId -1``), the most repeatable layout.
    """
    producer = KafkaProducer(
        bootstrap_servers=broker.bootstrap_servers, acks="all", linger_ms=0,
        enable_idempotence=idempotent, max_in_flight_requests_per_connection=1,
    )  # fmt: skip
    try:
        return [_send(producer, topic, record, partition).get(timeout=30).offset for record in records]
    finally:
        producer.close()


def produce_batches(
    broker: KafkaBroker,
    topic: str,
    batches: Sequence[Sequence[NewRecord]],
    *,
    idempotent: bool = False,
    compression: str = "none",
) -> list[list[int]]:
    """Send each group of records as one record batch (one produce request): queue them, then flush.

    A long ``linger.ms`` keeps the producer from sending early; ``flush`` sends the whole group at once.
    ``compression`` is the producer's ``compression.type`` (``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd``).
    Returns the offsets of each group.
    """
    producer = KafkaProducer(
        bootstrap_servers=broker.bootstrap_servers, acks="all", linger_ms=60_000, batch_size=1_048_576,
        enable_idempotence=idempotent, max_in_flight_requests_per_connection=1, **_compression(compression),
    )  # fmt: skip
    try:
        offsets = []
        for group in batches:
            futures = [_send(producer, topic, record) for record in group]
            producer.flush()
            offsets.append([future.get(timeout=30).offset for future in futures])
        return offsets
    finally:
        producer.close()


def produce_transaction(
    broker: KafkaBroker,
    topic: str,
    records: Sequence[NewRecord],
    *,
    transactional_id: str,
    commit: bool = True,
    compression: str = "none",
    batch_records: int | None = None,
) -> list[int]:
    """Send ``records`` in one transaction of a transactional producer (``compression`` as for
    :func:`produce_batches`), then commit or abort it; with ``batch_records``, each ``batch_records`` records are
    flushed as a batch of their own (without, the producer batches them as it goes)."""
    producer = KafkaProducer(
        bootstrap_servers=broker.bootstrap_servers, transactional_id=transactional_id, **_compression(compression)
    )
    try:
        producer.init_transactions()
        producer.begin_transaction()
        step = batch_records or len(records) or 1
        futures = []
        for start in range(0, len(records), step):
            futures += [_send(producer, topic, record) for record in records[start : start + step]]
            producer.flush()
        offsets = [future.get(timeout=30).offset for future in futures]
        if commit:
            producer.commit_transaction()
        else:
            producer.abort_transaction()
        return offsets
    finally:
        producer.close()


def _compression(codec: str) -> dict[str, Any]:
    """kafka-python's ``compression_type`` for a codec name (its default, no compression, for ``none``)."""
    return {} if codec == "none" else {"compression_type": codec}


def _send(producer: Any, topic: str, record: NewRecord, partition: int = 0) -> Any:
    headers = [(name, value) for name, value in record.headers] or None
    return producer.send(
        topic, key=record.key, value=record.value, headers=headers, partition=partition, timestamp_ms=record.timestamp
    )


def alter_broker_configs(broker: KafkaBroker, configs: Mapping[str, str]) -> None:
    """Change dynamic broker configs of the single node (``node.id=1``), e.g. the cleaner's dedupe buffer.

    Cleaner settings take effect when Kafka restarts its cleaner threads (``LogCleaner.reconfigure``).
    """
    resource = ConfigResource(ConfigResourceType.BROKER, "1", configs=dict(configs))
    with admin_client(broker) as admin:
        response = admin.alter_configs([resource])
    # kafka-python answers {"broker": {"1": "OK" or the error message}}
    errors = {name: outcome for by_type in response.values() for name, outcome in by_type.items() if outcome != "OK"}
    if errors:
        raise BrokerError(f"broker rejected {dict(configs)}: {errors}")
