"""A real Kafka broker: lifecycle, one cleaner pass, tombstones, transactions, small segments."""

from __future__ import annotations

import os
import time

import pytest

from kcompact_nb import NewRecord
from kcompact_nb.broker import (
    BrokerError,
    KafkaBroker,
    alter_topic_configs,
    cleaned_sections,
    cleaner_checkpoint,
    consume_rows,
    create_topic,
    partition_dir,
    produce,
    produce_transaction,
    wait_for_cleaner,
)

from .conftest import BASE_TS_MS, BROKER_VERSIONS, require_java_and_maven


def rec(key: str, value: str | None, at_ms: int) -> NewRecord:
    return NewRecord(key.encode(), None if value is None else value.encode(), timestamp=BASE_TS_MS + at_ms)


def live_values(broker: KafkaBroker, topic: str) -> list[tuple[int, str, str | None]]:
    rows = consume_rows(broker, topic)
    return [(r["offset"], r["key"].decode(), None if r["value"] is None else r["value"].decode()) for r in rows]


def segment_bases(broker: KafkaBroker, topic: str) -> list[int]:
    return sorted(int(p.stem) for p in partition_dir(broker, topic).glob("*.log"))


@pytest.mark.parametrize("version", BROKER_VERSIONS)
def test_start_clean_once_and_stop(version: str) -> None:
    require_java_and_maven()
    with KafkaBroker(version) as broker:
        pid, run_dir = broker.pid, broker.run_dir
        configs = create_topic(broker, "t", configs={"min.cleanable.dirty.ratio": "1.0"})
        produce(broker, "t", [rec(f"k{i % 2}", f"v{i}", i * 50) for i in range(6)])  # rolls every 3 records
        trigger = produce(broker, "t", [rec("k0", "roll", 1000)])[0]
        assert (trigger, cleaner_checkpoint(broker.log_dir).get(("t", 0))) == (6, None)
        alter_topic_configs(broker, "t", {**configs, "min.cleanable.dirty.ratio": "0.01"})
        assert wait_for_cleaner(broker, "t", trigger) == 6
        assert cleaner_checkpoint(broker.log_dir)[("t", 0)] == 6
        assert (0, 6) in cleaned_sections(broker.cleaner_log(), "t")
        assert segment_bases(broker, "t") == [0, 6]
        assert live_values(broker, "t") == [(4, "k0", "v4"), (5, "k1", "v5"), (6, "k0", "roll")]
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not run_dir.exists() and not broker.is_running()


def test_tombstone_kept_one_pass_then_removed(kafka_broker: KafkaBroker, topic_name: str) -> None:
    create_topic(kafka_broker, topic_name, configs={"delete.retention.ms": "0"})
    produce(kafka_broker, topic_name, [rec("a", "1", 0), rec("b", "1", 10), rec("a", None, 20)])
    first = produce(kafka_broker, topic_name, [rec("c", "roll1", 500)])[0]
    wait_for_cleaner(kafka_broker, topic_name, first)
    assert live_values(kafka_broker, topic_name) == [(1, "b", "1"), (2, "a", None), (3, "c", "roll1")]
    produce(kafka_broker, topic_name, [rec("d", "1", 600)])
    second = produce(kafka_broker, topic_name, [rec("c", "roll2", 1000)])[0]
    wait_for_cleaner(kafka_broker, topic_name, second)
    # the second pass drops the tombstone (its horizon passed); c@3 stays: c@5 is in the active segment
    assert live_values(kafka_broker, topic_name) == [(1, "b", "1"), (3, "c", "roll1"), (4, "d", "1"), (5, "c", "roll2")]


def test_aborted_transaction_removed_committed_kept(kafka_broker: KafkaBroker, topic_name: str) -> None:
    # ratio 1.0 holds the cleaner back: markers carry the broker clock, so each one rolls a segment
    configs = create_topic(kafka_broker, topic_name, configs={"min.cleanable.dirty.ratio": "1.0"})
    committed = produce_transaction(kafka_broker, topic_name, [rec("x", "ok", 0)], transactional_id=topic_name)
    aborted = produce_transaction(
        kafka_broker, topic_name, [rec("y", "no", 10)], transactional_id=topic_name, commit=False
    )
    assert (committed, aborted) == ([0], [2])  # offsets 1 and 3 are the COMMIT and ABORT markers
    assert [r["offset"] for r in consume_rows(kafka_broker, topic_name)] == [0, 2]  # read_uncommitted
    time.sleep(0.2)  # > segment.ms after the ABORT marker's (wall-clock) timestamp
    trigger = produce(kafka_broker, topic_name, [NewRecord(b"z", b"roll")], idempotent=True)[0]
    alter_topic_configs(kafka_broker, topic_name, {**configs, "min.cleanable.dirty.ratio": "0.01"})
    wait_for_cleaner(kafka_broker, topic_name, trigger)
    assert live_values(kafka_broker, topic_name) == [(0, "x", "ok"), (4, "z", "roll")]


def test_small_segments(kafka_broker: KafkaBroker, topic_name: str) -> None:
    """KIP-1030: 4.x refuses segment.bytes < 1 MiB but accepts the internal topic config internal.segment.bytes."""
    small = {"segment.bytes": "1024"}
    if kafka_broker.version.startswith("3."):
        create_topic(kafka_broker, topic_name, configs=small, timeout_s=5)
    else:
        with pytest.raises(BrokerError, match="could not create topic"):
            create_topic(kafka_broker, topic_name, configs=small, timeout_s=2)
        create_topic(kafka_broker, topic_name, configs={"internal.segment.bytes": "1024"})
    produce(kafka_broker, topic_name, [rec(f"k{i}", "v" * 300, 0) for i in range(5)])  # ~370-byte batches
    assert segment_bases(kafka_broker, topic_name) == [0, 2, 4]
