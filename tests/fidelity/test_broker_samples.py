"""The simulator against passes a real broker made: load Kafka's "before", run one pass, compare with Kafka's "after".

The samples (data/samples/README.md) were written by Kafka 4.4.0 with ``delete.retention.ms=0``, so a
stamped delete horizon equals the broker's pass time: the simulated pass runs at that time, which makes
stamped batch sizes comparable too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kcompact_nb.fidelity import broker_settings, differences, load_stage, simulate_broker_pass, topic_settings
from kcompact_nb.io import CLEANER_OFFSET_CHECKPOINT, read_checkpoint, write_broker_log_dir

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
PASSES = [
    ("compaction-basic", "before", "after", "4.4.0"),
    ("tombstone-lifecycle", "0-produced", "1-first-pass", "4.4.0"),
    ("tombstone-lifecycle", "1-first-pass", "2-second-pass", "4.4.0"),
    ("transactional", "before", "after", "4.4.0"),
    ("idempotent-producer", "before", "after", "4.4.0"),
    ("compressed-topic", "before", "after", "4.4.0"),  # zstd batches the pass rewrote (MemoryRecords.filterTo)
    ("rule-b-kafka-4.4.0", "before", "after", "4.4.0"),
    ("rule-b-kafka-3.9.2", "before", "after", "3.9.2"),
    ("rule-b-kafka-4.3.1", "before", "after", "4.3.1"),
]


@pytest.mark.parametrize(("sample", "before_stage", "after_stage", "version"), PASSES, ids=lambda v: str(v))
def test_one_pass_matches_the_broker(sample, before_stage, after_stage, version):
    broker, topic = broker_settings(version), topic_settings()
    before = load_stage(SAMPLES / sample / before_stage, topic=topic, broker=broker)
    after = load_stage(SAMPLES / sample / after_stage, topic=topic, broker=broker)
    simulated, line = simulate_broker_pass(before, after)
    assert line is not None
    assert differences(simulated, after) == []


def test_differences_name_the_checkpoint_and_the_segment_that_differ():
    broker, topic = broker_settings("4.4.0"), topic_settings()
    stage = SAMPLES / "compaction-basic" / "after"
    kafka = load_stage(stage, topic=topic, broker=broker)
    ours = load_stage(stage, topic=topic, broker=broker)
    ours.cleaner_checkpoint = 5
    ours.segments[0].batches.pop()
    ours.segments[0].size_bytes -= 1
    found = differences(ours, kafka)
    assert found[0] == "checkpoint: simulator 5, Kafka 31"
    assert found[1].startswith("segment 0: simulator (0, ") and "\n           Kafka     (0, " in found[1]
    assert len(found) == 2


@pytest.mark.parametrize(
    ("version", "kept"), [("3.9.2", [0, 1, 2, 3, 4]), ("4.3.1", [0, 1, 2, 3, 4]), ("4.4.0", [0, 2, 3, 4])]
)
def test_rule_b_differs_between_kafka_releases(version, kept):
    """Spec 15, KAFKA-17076 vs KAFKA-20452: the aborted batch y@1 ends the cleanable range [0, 2).

    Kafka 3.9.2 and 4.3.1 keep it as an empty batch (its next offset is the first uncleanable offset);
    4.4.0 keeps only a batch whose next offset is the high watermark (5), so it goes. Observed on brokers.
    """
    broker, topic = broker_settings(version), topic_settings()
    kafka = load_stage(SAMPLES / f"rule-b-kafka-{version}" / "after", topic=topic, broker=broker)
    assert [b.base_offset for b in kafka.batches()] == kept
    before = load_stage(SAMPLES / f"rule-b-kafka-{version}" / "before", topic=topic, broker=broker)
    simulated, _ = simulate_broker_pass(before, kafka)
    assert [(b.base_offset, len(b.records)) for b in simulated.batches()] == [
        (b.base_offset, len(b.records)) for b in kafka.batches()
    ]


@pytest.mark.parametrize(("sample", "before_stage", "after_stage", "version"), PASSES, ids=lambda v: str(v))
def test_predicted_log_dir_holds_the_files_the_broker_left(sample, before_stage, after_stage, version, tmp_path):
    """``write_broker_log_dir`` over Kafka's "before" writes Kafka's "after", file for file and byte for byte.

    The cleaned segment with its offset and time indexes, the untouched active segment's preallocated
    indexes, transaction indexes, no producer snapshots of the merged-away segments, the rest copied,
    and the cleaner checkpoint. In the second tombstone pass the producer also appended and rolled a
    new active segment after the "before" copy (its preallocated indexes and roll snapshot are the
    appends', not the cleaner's): there the ``.log`` files are compared.
    """
    broker, topic = broker_settings(version), topic_settings()
    before = load_stage(SAMPLES / sample / before_stage, topic=topic, broker=broker)
    after = load_stage(SAMPLES / sample / after_stage, topic=topic, broker=broker)
    appended = after.log_end_offset > before.log_end_offset
    simulated, _ = simulate_broker_pass(before, after)
    out = write_broker_log_dir([simulated], tmp_path / "predicted", source=SAMPLES / sample / before_stage)
    kafka_dir, ours_dir = SAMPLES / sample / after_stage / simulated.name, out / simulated.name
    kafka = {p.name: p.read_bytes() for p in kafka_dir.iterdir() if not appended or p.suffix == ".log"}
    ours = {p.name: p.read_bytes() for p in ours_dir.iterdir() if not appended or p.suffix == ".log"}
    assert sorted(ours) == sorted(kafka)
    assert [name for name in sorted(kafka) if ours[name] != kafka[name]] == []
    assert read_checkpoint(out / CLEANER_OFFSET_CHECKPOINT) == read_checkpoint(
        SAMPLES / sample / after_stage / CLEANER_OFFSET_CHECKPOINT
    )
    assert {".index", ".timeindex", ".log"} <= {p.suffix for p in ours_dir.iterdir()}
