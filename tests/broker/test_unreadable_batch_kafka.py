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
from kcompact_nb.core import KafkaVersion
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
    _copy_topic(kafka_broker, TOPIC, before)
    alter_topic_configs(kafka_broker, TOPIC, {**configs, "min.cleanable.dirty.ratio": "0.01"})
    wait_for_cleaner(kafka_broker, TOPIC, 8, partition=1)
    warning = _uncleanable_warning(kafka_broker, f"{TOPIC}-0")
    assert "InvalidRecordException: Invalid record size" in kafka_broker.cleaner_log()
    assert cleaner_checkpoint(kafka_broker.log_dir)[(TOPIC, 0)] == 0  # doneCleaning: the pass's first dirty offset
    after = tmp_path / "after"
    _copy_topic(kafka_broker, TOPIC, after)
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
    # the broken file as the pass read it: the source's (a failure in clean_log_dir's iteration), or after it the
    # copy in the log dir written, which the simulation's logs read from then on
    read = {str(folder / f"{TOPIC}-0" / broken.name) for folder in (before, tmp_path / "out")}
    assert failure.name == f"{TOPIC}-0" and failure.error.split(": ", 1)[0] in read
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


def _copy_topic(broker: KafkaBroker, topic: str, destination: Path) -> None:
    """The broker's log dir with only ``topic``'s partitions (the session's broker holds other tests' topics too)."""
    ignore = shutil.ignore_patterns("*.lock", "*.tmp")
    destination.mkdir()
    for entry in broker.log_dir.iterdir():
        if entry.is_file() and not entry.name.endswith((".lock", ".tmp")):
            shutil.copy2(entry, destination / entry.name)
        elif entry.is_dir() and entry.name.rpartition("-")[0] == topic:
            shutil.copytree(entry, destination / entry.name, ignore=ignore)


def _logs(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in segment_files(folder)}


def test_groups_cleaned_before_the_unreadable_batch_stay_swapped_in(kafka_broker: KafkaBroker, tmp_path):
    """Nine unique keys cleaned into three segments of three batches (segments of at most 300 bytes), then three of
    them updated: the next pass builds its map from the new records, cleans group [0] and swaps it in, then throws
    on segment 3, corrupted under the broker. Kafka's files are the simulator's, byte for byte."""
    topic = "groups-unreadable"
    small = {_segment_bytes_property(kafka_broker.version): "300"}
    configs = create_topic(kafka_broker, topic, configs={"min.cleanable.dirty.ratio": "1.0", **small})
    produce(kafka_broker, topic, [NewRecord(b"k%d" % i, b"value-%d" % i, timestamp=BASE_TS_MS + 200 * i)
                                  for i in range(9)])  # fmt: skip
    (first,) = produce(kafka_broker, topic, [NewRecord(b"roll", b"r", timestamp=BASE_TS_MS + 10_000)])
    alter_topic_configs(kafka_broker, topic, {**configs, "min.cleanable.dirty.ratio": "0.01"})
    wait_for_cleaner(kafka_broker, topic, first)
    alter_topic_configs(kafka_broker, topic, {**configs, "min.cleanable.dirty.ratio": "1.0"})
    produce(kafka_broker, topic, [NewRecord(b"k%d" % i, b"new-%d" % i, timestamp=BASE_TS_MS + 20_000 + 200 * i)
                                  for i in (0, 4, 8)])  # fmt: skip
    produce(kafka_broker, topic, [NewRecord(b"roll", b"r2", timestamp=BASE_TS_MS + 30_000)])
    files = segment_files(partition_dir(kafka_broker, topic))
    assert [f.name[:20] for f in files[:3]] == [f"{base:020d}" for base in (0, 3, 6)]
    data = bytearray(files[1].read_bytes())
    data[RECORD_LENGTH] ^= 0x7F
    files[1].write_bytes(bytes(data))
    before = tmp_path / "before"
    _copy_topic(kafka_broker, topic, before)
    alter_topic_configs(kafka_broker, topic, {**configs, "min.cleanable.dirty.ratio": "0.01"})
    _uncleanable_warning(kafka_broker, f"{topic}-0")
    time.sleep(0.5)  # the swap's file renames are done before the WARN; the checkpoint is written with it
    assert cleaner_checkpoint(kafka_broker.log_dir)[(topic, 0)] == first
    after = tmp_path / "after"
    _copy_topic(kafka_broker, topic, after)
    rewritten = _logs(after / f"{topic}-0")[files[0].name]
    assert len(rewritten) < len((before / f"{topic}-0" / files[0].name).read_bytes())  # group [0] lost k0

    broker = broker_settings(kafka_broker.version)
    config = topic_settings(small, broker=broker)
    cleaning = clean_log_dir(before, tmp_path / "out", now_ms=time.time_ns() // 1_000_000, broker=broker, config=config)
    assert cleaning.result is None and [f.name for f in cleaning.simulation.cleaner.failures] == [f"{topic}-0"]
    assert _logs(tmp_path / "out" / f"{topic}-0") == _logs(after / f"{topic}-0")
    assert cleaning.simulation.log(topic, 0).cleaner_checkpoint == first


def _segment_bytes_property(version: str) -> str:
    """Segments below 1 MiB: ``segment.bytes`` before 4.1, ``internal.segment.bytes`` from it (KIP-1030)."""
    return "segment.bytes" if KafkaVersion.parse(version) < KafkaVersion(4, 1) else "internal.segment.bytes"
