"""A batch Kafka's cleaner cannot read, on a real broker (issue #30), against the simulator's prediction.

The broker loaded the partition before a batch in one of its non-active segments was corrupted (its record's
length varint), as Kafka's own ``LogCleanerIntegrationTest`` breaks a loaded log: no log recovery runs, the
cleaner meets the batch. It throws ``InvalidRecordException``, the broker logs it, marks the partition
uncleanable, checkpoints the pass's first dirty offset and cleans the other partition. ``kcompact inspect``
and the simulated iterations over a copy say and do the same.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kcompact_nb import NewRecord
from kcompact_nb.broker import (
    KafkaBroker,
    alter_topic_configs,
    cleaner_checkpoint,
    create_topic,
    partition_dir,
    produce,
    wait_for_cleaner,
)
from kcompact_nb.fidelity import broker_settings, topic_settings
from kcompact_nb.io import clean_log_dir, segment_files
from tests.cli.conftest import kcompact

from .conftest import BASE_TS_MS

TOPIC = "unreadable"
RECORD_LENGTH = 61
"""The byte position of a batch's first record's length varint (after the 61-byte batch header)."""


def test_a_batch_the_cleaner_cannot_read_makes_its_partition_uncleanable(kafka_broker: KafkaBroker, tmp_path):
    configs = create_topic(kafka_broker, TOPIC, configs={"min.cleanable.dirty.ratio": "1.0"}, partitions=2)
    for partition in (0, 1):
        records = [NewRecord(b"k%d" % (i % 3), b"value-%d" % i, timestamp=BASE_TS_MS + 200 * i) for i in range(8)]
        produce(kafka_broker, TOPIC, records, partition=partition)  # one batch, one segment each (segment.ms=100)
        produce(kafka_broker, TOPIC, [NewRecord(b"roll", b"r", timestamp=BASE_TS_MS + 10_000)], partition=partition)
    broken = segment_files(partition_dir(kafka_broker, TOPIC, 0))[2]
    data = bytearray(broken.read_bytes())
    data[RECORD_LENGTH] ^= 0x7F
    broken.write_bytes(bytes(data))  # in place, under the running broker
    before = tmp_path / "before"
    ignore = shutil.ignore_patterns("__cluster_metadata-*", "*.lock", "*.tmp")
    shutil.copytree(kafka_broker.log_dir, before, ignore=ignore)
    alter_topic_configs(kafka_broker, TOPIC, {**configs, "min.cleanable.dirty.ratio": "0.01"})
    wait_for_cleaner(kafka_broker, TOPIC, 8, partition=1)
    warning = _uncleanable_warning(kafka_broker, f"{TOPIC}-0")
    assert "InvalidRecordException: Invalid record size" in kafka_broker.cleaner_log()
    assert cleaner_checkpoint(kafka_broker.log_dir)[(TOPIC, 0)] == 0  # doneCleaning: the pass's first dirty offset
    after = tmp_path / "after"
    shutil.copytree(kafka_broker.log_dir, after, ignore=ignore)
    assert _logs(after / f"{TOPIC}-0") == _logs(before / f"{TOPIC}-0")  # the broken partition is left as it was

    version = kafka_broker.version
    inspected = kcompact("inspect", before, "--now-ms", str(time.time_ns() // 1_000_000),
                         f"--kafka-version={version}", "--config=min.cleanable.dirty.ratio=0.01",
                         "--config=segment.ms=100")  # fmt: skip
    assert inspected.returncode == 1, inspected.stderr
    assert "  UNCLEANABLE: its next pass throws on the batch at byte position 0 of segment 2 (" in inspected.stdout
    broker, config = broker_settings(version), topic_settings(broker=broker_settings(version))
    cleaning = clean_log_dir(before, tmp_path / "out", now_ms=time.time_ns() // 1_000_000, broker=broker, config=config)
    sim = cleaning.simulation
    assert sim.clean() is None  # the next iteration: the broken partition failed or fails, the other is clean
    (failure,) = sim.cleaner.failures
    assert failure.name == f"{TOPIC}-0" and failure.error.startswith(str(before / f"{TOPIC}-0" / broken.name))
    assert "Invalid record size" in failure.error
    assert warning.endswith(f"Marking its partition ({TOPIC}-0) as uncleanable")
    assert sim.log(TOPIC, 0).cleaner_checkpoint == 0
    assert _logs(tmp_path / "out" / f"{TOPIC}-1") == _logs(after / f"{TOPIC}-1")  # the other one cleaned as Kafka did


def _uncleanable_warning(broker: KafkaBroker, name: str, timeout_s: float = 20.0) -> str:
    """The cleaner log's WARN line marking ``name`` uncleanable (its first line, without the exception)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        lines = [line for line in broker.cleaner_log().splitlines() if f"Marking its partition ({name})" in line]
        if lines:
            return lines[0].rsplit(" (", 1)[0]  # without the logger name, which moved in 4.1
        time.sleep(0.1)
    raise AssertionError(f"{name} was not marked uncleanable; cleaner log:\n{broker.cleaner_log()[-3000:]}")


def _logs(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in segment_files(folder)}
