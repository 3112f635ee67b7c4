"""Which of several equally dirty logs a real broker's cleaner takes first (spec 5; issue 16 point 6).

Four compacted topics (13 partitions) are created one after another with the cleaner held, the same
records are produced to every partition and a later record rolls each partition's segment, so every
log is never-cleaned with one cleanable segment: dirty ratio 1.0, a 13-way tie. The cleaner thread is
put to sleep (a long ``log.cleaner.backoff.ms``), every topic is released in one AlterConfigs
request, and when the thread wakes it cleans them one pass after another. The order of its "cleaned
log" lines must be the one the simulator predicts from the order the broker created its logs (read
from ``server.log``): the iteration order of ``LogManager.currentLogs``, a ``ConcurrentHashMap``.
"""

from __future__ import annotations

import time
from collections import Counter

from kcompact_nb import Simulation
from kcompact_nb.broker import (
    COMPACTED_TOPIC_CONFIGS,
    FAST_CLEANER_SETTINGS,
    KafkaBroker,
    alter_broker_configs,
    alter_topic_configs,
    cleaned_log_order,
    create_topic,
    log_creation_order,
    produce,
    wait_for_cleaner,
)
from kcompact_nb.core import NewRecord

from .conftest import BASE_TS_MS, require_java_and_maven

TOPICS = {"b": 2, "a": 3, "prices": 4, "orders": 4}
HELD = {**COMPACTED_TOPIC_CONFIGS, "min.cleanable.dirty.ratio": "1.0"}
RELEASED = {**COMPACTED_TOPIC_CONFIGS, "min.cleanable.dirty.ratio": "0.5"}
SLEEP_MS = 10_000
"""The cleaner's back-off while the topics are released (the release takes well under a second)."""
RECORDS = [NewRecord(f"k{i}".encode(), b"v", BASE_TS_MS) for i in range(3)]
TRIGGER = NewRecord(b"trigger", b"roll", BASE_TS_MS + 1_000)  # rolls the segment (segment.ms=100)


def predicted_order(created: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The simulator's passes over the same logs: every topic the broker holds, created in its order."""
    partitions = Counter(topic for topic, _ in created)
    sim = Simulation(start_ms=BASE_TS_MS)
    for topic in dict.fromkeys(topic for topic, _ in created):
        sim.create_topic(topic, partitions=partitions[topic], config=RELEASED if topic in TOPICS else None)
    assert [(log.topic, log.partition) for log in sim.partitions_in_creation_order()] == created
    for topic, count in TOPICS.items():
        for partition in range(count):
            for record in [*RECORDS, TRIGGER]:
                sim.append(topic, [record], partition=partition)
    sim.set_time(BASE_TS_MS + 60_000)
    passes = []
    while (result := sim.clean()) is not None:
        passes.append((result.topic, result.partition))
    return passes


def test_equally_dirty_logs_are_cleaned_in_the_broker_log_pool_order(kafka_broker: KafkaBroker):
    require_java_and_maven()
    for topic, count in TOPICS.items():  # one request each: the broker creates them in this order
        create_topic(kafka_broker, topic, configs=HELD, partitions=count)
    for topic, count in TOPICS.items():
        for partition in range(count):
            produce(kafka_broker, topic, [*RECORDS, TRIGGER], partition=partition)
    seen = len(cleaned_log_order(kafka_broker.cleaner_log()))
    alter_broker_configs(kafka_broker, {"log.cleaner.backoff.ms": str(SLEEP_MS)})  # restarts the cleaner threads
    try:
        time.sleep(2)  # the restarted thread finds nothing eligible and goes to sleep
        alter_topic_configs(kafka_broker, list(TOPICS), RELEASED)
        for topic, count in TOPICS.items():
            for partition in range(count):
                wait_for_cleaner(kafka_broker, topic, len(RECORDS), partition=partition, timeout_s=SLEEP_MS / 1000 + 60)
    finally:
        alter_broker_configs(kafka_broker, {"log.cleaner.backoff.ms": FAST_CLEANER_SETTINGS["log.cleaner.backoff.ms"]})
    ours = {(topic, p) for topic, count in TOPICS.items() for p in range(count)}
    kafka = [tp for tp in cleaned_log_order(kafka_broker.cleaner_log())[seen:] if tp in ours]
    predicted = [tp for tp in predicted_order(log_creation_order(kafka_broker)) if tp in ours]
    assert kafka == predicted
    assert kafka != sorted(kafka)  # not the name order the simulator used to follow
