"""Pre-encoded batches through the broker's append path: offsets assigned, records as encoded."""

from __future__ import annotations

from bench._workload import Workload
from kcompact_nb.broker import KafkaBroker, consume_rows, create_topic, partition_offsets, produce_encoded_batches


def test_encoded_batches_are_appended_with_broker_assigned_offsets(kafka_broker: KafkaBroker, topic_name: str):
    create_topic(kafka_broker, topic_name)
    workload = Workload(250, batch_records=100)
    assert produce_encoded_batches(kafka_broker, topic_name, workload.encoded_batches(), in_flight=2) == 3
    assert partition_offsets(kafka_broker, topic_name) == (0, 250)
    rows = consume_rows(kafka_broker, topic_name)
    assert [r["offset"] for r in rows] == list(range(250))
    assert all(r["key"].startswith(b"key-") for r in rows)
