"""(b): the real broker cleans the workload; its own INFO log line gives the pass's time and MB/s.

Each run produces the workload into a fresh topic held by ``min.cleanable.dirty.ratio=1.0``, copies the
partition (the identical log our cleaner and the baselines then read), releases the cleaner and waits
for its checkpoint. Later runs on the same broker meet a warm JIT, as a long-running broker would.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench._measure import BENCH_BROKER_OVERRIDES, BENCH_TOPIC_OVERRIDES
from bench._results import KafkaPass, parse_kafka_pass
from bench._workload import Workload, trigger_batch
from kcompact_nb.broker import (
    COMPACTED_TOPIC_CONFIGS,
    BrokerError,
    KafkaBroker,
    alter_topic_configs,
    copy_partition,
    create_topic,
    produce_encoded_batches,
    wait_for_cleaner,
)
from kcompact_nb.fidelity import HOLD, cleaner_messages

TOPIC_CONFIGS = {**COMPACTED_TOPIC_CONFIGS, **BENCH_TOPIC_OVERRIDES, "compression.type": "producer"}
"""Kafka's default index size (the fidelity topics' 4 KiB index would roll a segment every 2 MB); the producer's
batches kept as they come, compressed or not (Kafka's default ``compression.type``, said here)."""
BROKER_HEAP_MB = 1536


def start_broker() -> KafkaBroker:
    return KafkaBroker(overrides=BENCH_BROKER_OVERRIDES, heap_mb=BROKER_HEAP_MB).start()


def kafka_pass(broker: KafkaBroker, workload: Workload, topic: str, copy_to: Path | None) -> KafkaPass:
    """Produce ``workload`` to ``topic``, copy it to ``copy_to`` (when given), let Kafka clean it once."""
    create_topic(broker, topic, configs={**TOPIC_CONFIGS, **HOLD})
    produce_encoded_batches(broker, topic, workload.encoded_batches())
    produce_encoded_batches(broker, topic, [trigger_batch()])
    if copy_to is not None:
        copy_partition(broker, topic, copy_to)
    seen = len(cleaner_messages(broker.cleaner_log(), f"{topic}-0"))
    alter_topic_configs(broker, topic, TOPIC_CONFIGS)
    wait_for_cleaner(broker, topic, workload.records, timeout_s=600.0)
    return parse_kafka_pass(_pass_message(broker, f"{topic}-0", seen))


def _pass_message(broker: KafkaBroker, name: str, seen: int, timeout_s: float = 30.0) -> str:
    """The pass's "cleaned log" message, which Kafka logs just after moving the checkpoint."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        messages = cleaner_messages(broker.cleaner_log(), name)[seen:]
        if messages and messages[0].count("\n") >= 8:
            return messages[0]
        time.sleep(0.1)
    raise BrokerError(f"no complete 'cleaned log {name}' message within {timeout_s} s")
