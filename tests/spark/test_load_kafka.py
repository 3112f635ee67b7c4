"""Spark's Kafka source reads a real broker (headers, tombstones) into the record schema."""

from __future__ import annotations

from kcompact_nb.broker import DEFAULT_VERSION, KafkaBroker, create_topic, produce
from kcompact_nb.core import NewRecord, record_size_bytes
from kcompact_nb.spark import estimate_note, load_kafka
from tests.broker.conftest import BASE_TS_MS


def test_live_broker_through_the_kafka_source(spark):
    records = [
        NewRecord(b"k1", b"v1", BASE_TS_MS, (("h", b"x"),)),
        NewRecord(b"k2", b"v2", BASE_TS_MS + 1),
        NewRecord(b"k1", None, BASE_TS_MS + 2),
    ]
    with KafkaBroker(DEFAULT_VERSION) as broker:
        create_topic(broker, "spark-source")
        produce(broker, "spark-source", records)
        df = load_kafka(spark, broker.bootstrap_servers, "spark-source")
        got = [
            (
                r["key"],
                r["value"],
                r["offset"],
                r["timestampType"],
                r["headers"],
                r["record_size_bytes"],
                r["producer_id"],
            )
            for r in df.orderBy("offset").collect()
        ]
    assert got == [
        (b"k1", b"v1", 0, 0, [("h", b"x")], record_size_bytes(0, 0, b"k1", b"v1", (("h", b"x"),)), None),
        (b"k2", b"v2", 1, 0, None, record_size_bytes(0, 0, b"k2", b"v2", ()), None),
        (b"k1", None, 2, 0, None, record_size_bytes(0, 0, b"k1", None, ()), None),
    ]  # one record per batch: the estimate (deltas 0) is exact here
    assert (estimate_note(df, "record_size_bytes") or "").startswith("v2 size formula")
