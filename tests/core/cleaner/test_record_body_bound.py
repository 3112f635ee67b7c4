"""``max.decompressed.message.bytes`` lowered below a stored record's size (docs/cleaner-rules.md, section 8.4).

Kafka 4.2.2 and 4.4.0 (apache/kafka#23429) read a compressed batch's records with that bound, in
``buildOffsetMapForSegment`` and in ``filterTo``: a record whose body (what its length varint says) exceeds it throws
``InvalidRecordException: Invalid record size: N exceeds the configured maximum record size of M.``, and the thread
marks the partition uncleanable. Uncompressed batches are read without the bound.
"""

from __future__ import annotations

import pytest

from kcompact_nb import Simulation
from kcompact_nb.core import CleanerFailure, ConfigError, TopicConfig
from kcompact_nb.core.cleaner._failure import oversized_record
from kcompact_nb.record import record_body_bytes, record_size_bytes

START_MS = 1_000_000
BIG = "v" * 300
"""A 300-byte value: its record's body is 310 bytes (attributes, deltas, key ``big`` and value with their lengths)."""


def simulation(version: str = "4.4.0", *, big_at: int, compression: str = "gzip") -> Simulation:
    """Six batches of two records each, a segment each (``segment.ms=100``), then a trigger; batch ``big_at``
    holds a 300-byte value under a key of its own, batch 0 a record no later one supersedes; then
    ``max.decompressed.message.bytes`` is lowered to 100."""
    sim = Simulation({"kafka.version": version}, start_ms=START_MS)
    # internal.segment.bytes: every segment is a group of its own
    sim.create_topic("t", config={"segment.ms": 100, "min.cleanable.dirty.ratio": 0.01,
                                  "internal.segment.bytes": 150})  # fmt: skip
    for i in range(6):
        first = ("big", BIG) if i == big_at else ("first", "f") if i == 0 else (f"k{i % 2}", f"v{i}")
        sim.append("t", [(*first, START_MS + 200 * i), (f"k{i % 2 + 2}", "w", START_MS + 200 * i)],
                   compression=compression)  # fmt: skip
    sim.append("t", [("trigger", "x", START_MS + 100_000)])
    sim.set_config({"max.decompressed.message.bytes": 100}, topic="t")
    sim.set_time(START_MS + 200_000)
    return sim


def test_a_dirty_record_over_the_bound_throws_while_the_map_is_built_and_nothing_is_swapped():
    sim = simulation(big_at=4)
    before = [(s.base_offset, [b.base_offset for b in s.batches]) for s in sim.log("t").segments]
    assert sim.clean() is None
    (failure,) = sim.cleaner.failures
    assert failure == CleanerFailure(
        "t-0", START_MS + 200_000,
        "org.apache.kafka.common.InvalidRecordException: Invalid record size: 310 exceeds the configured maximum "
        "record size of 100.",
        checkpoint=0,
    )  # fmt: skip
    log = sim.log("t")
    assert [(s.base_offset, [b.base_offset for b in s.batches]) for s in log.segments] == before
    assert log.left_cleaned == [] and sim.uncleanable == {"t-0"}


def test_a_cleaned_record_over_the_bound_throws_in_filter_to_after_earlier_groups_were_swapped_in():
    """Cleaned once under no bound, then the bound lowered: the dirty batches map, and filterTo throws on the clean
    section's big record, in the second group; the first group stays swapped in, the second's .cleaned file is
    left empty (the read buffer's survivors are never appended)."""
    sim = simulation(big_at=1)
    sim.set_config({"max.decompressed.message.bytes": 2_147_483_639}, topic="t")
    first = sim.clean()
    assert first is not None and sim.cleaner.failures == []
    sim.append("t", [("k0", "again", START_MS + 300_000)], compression="gzip")
    sim.append("t", [("trigger", "y", START_MS + 400_000)])
    sim.set_config({"max.decompressed.message.bytes": 100}, topic="t")
    sim.set_time(START_MS + 500_000)
    groups = [s.base_offset for s in sim.log("t").segments]
    assert sim.clean() is None
    (failure,) = sim.cleaner.failures
    assert failure.error.endswith("Invalid record size: 310 exceeds the configured maximum record size of 100.")
    assert failure.checkpoint == first.end_offset
    log = sim.log("t")
    (left,) = log.left_cleaned
    assert failure.swapped_in == (0,) and left.base_offset == groups[1] and left.batches == []
    assert failure.left_cleaned == (f"{left.base_offset:020d}.log.cleaned",)


def test_uncompressed_batches_are_read_without_the_bound():
    sim = simulation(big_at=4, compression="none")
    assert sim.clean() is not None and sim.cleaner.failures == []


@pytest.mark.parametrize("version", ["4.3.1", "4.2.1", "4.1.2", "3.9.2"])
def test_a_release_without_the_bound_refuses_the_topic_config(version):
    sim = Simulation({"kafka.version": version})
    with pytest.raises(ConfigError, match="Unknown topic config name: max.decompressed.message.bytes"):
        sim.create_topic("t", config={"max.decompressed.message.bytes": 100})


def test_kafka_4_2_2_has_the_bound_as_4_4_0_does():
    sim = simulation("4.2.2", big_at=4)
    assert sim.clean() is None and sim.uncleanable == {"t-0"}


def test_the_bound_is_on_the_body_the_length_varint_gives():
    """A body of 63 bytes takes a one-byte length varint (zig-zag 126), one of 64 two (zig-zag 128)."""
    sizes = [record_size_bytes(0, 0, b"k", b"x" * n) for n in (0, 56, 57, 300)]
    assert sizes == [8, 64, 66, 310]
    assert [record_body_bytes(size) for size in sizes] == [7, 63, 64, 308]
    assert TopicConfig().record_body_bound is None
    assert TopicConfig(max_decompressed_message_bytes=64).record_body_bound == 64


def test_only_a_compressed_batch_has_an_oversized_record():
    sim = simulation(big_at=2)
    batches = {b.base_offset: b for b in sim.log("t").batches()}
    assert oversized_record(batches[4], 100) == 0 and oversized_record(batches[4], 310) is None
    assert oversized_record(batches[0], 1) == 0
    plain = simulation(big_at=2, compression="none")
    assert all(oversized_record(b, 1) is None for b in plain.log("t").batches())
