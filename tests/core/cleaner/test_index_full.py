"""A cleaned segment whose index fills up (docs/cleaner-rules.md, section 8.4): Kafka's pass throws, by release.

The log is the one a real 4.4.0 broker failed on (``segment.index.bytes=64``, ``index.interval.bytes=1``, one-record
batches 50 ms apart rolled by ``segment.ms=100``): it swapped in groups 0-3 and 6-9, threw in group 12-15 with a
444-byte ``00000000000000000012.log.cleaned``, a 64-byte ``.index.cleaned`` and a 60-byte ``.timeindex.cleaned``,
left the checkpoint at 0 and marked ``t-0`` uncleanable; 3.8.1 (before KAFKA-806) cleans the same log.
"""

from __future__ import annotations

import pytest

from kcompact_nb import Simulation
from kcompact_nb.core import CleanerFailure, IndexFullError, KafkaVersion, Segment
from kcompact_nb.core.cleaner import CleanerThrew
from kcompact_nb.core.cleaner._failure import index_full

START_MS = 1_000_000


def failing_simulation(version: str) -> Simulation:
    sim = Simulation({"kafka.version": version}, start_ms=START_MS)
    sim.create_topic("t", config={"segment.index.bytes": 64, "index.interval.bytes": 1, "segment.ms": 100,
                                  "min.cleanable.dirty.ratio": 0.01})  # fmt: skip
    sim.create_topic("other", config={"segment.ms": 100, "min.cleanable.dirty.ratio": 0.01})
    for i in range(30):
        sim.append("t", [(f"k{i % 20}", f"v{i}", START_MS + 50 * i)])
        sim.append("other", [(f"k{i % 3}", f"v{i}", START_MS + 50 * i)])
    for topic in ("t", "other"):
        sim.append(topic, [("trigger", "x", START_MS + 100_000)])
    sim.set_checkpoint("other", 15)  # cleaned before: less dirty than t-0, whose pass comes first
    sim.set_time(START_MS + 200_000)
    return sim


@pytest.mark.parametrize("version", ["4.4.0", "4.0.1", "3.9.2", "3.9.1"])
def test_a_release_with_an_index_entry_per_batch_throws_keeps_the_groups_swapped_in_and_marks_the_partition(version):
    sim = failing_simulation(version)
    assert sim.clean() is None  # t-0 is the filthiest: its pass throws and ends the iteration
    (failure,) = sim.cleaner.failures
    assert failure == CleanerFailure(
        "t-0", START_MS + 200_000,
        "java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4).",
        checkpoint=0, swapped_in=(0, 6),
        left_cleaned=("00000000000000000012.log.cleaned", "00000000000000000012.index.cleaned",
                      "00000000000000000012.timeindex.cleaned"),
    )  # fmt: skip
    log = sim.log("t")
    assert [s.base_offset for s in log.segments] == [0, 6, 12, 15, 18, 21, 24, 27, 30]
    assert log.cleaner_checkpoint == 0 and sim.uncleanable == {"t-0"}
    (left,) = log.left_cleaned
    assert (left.base_offset, left.size_bytes, left.offset_index_entries, left.time_index_entries) == (12, 444, 5, 4)
    assert [b.base_offset for b in left.batches] == list(range(12, 18))  # the whole read buffer, written unindexed
    assert failure.kafka_log_line == (
        "Unexpected exception thrown when cleaning log t-0. Marking its partition (t-0) as uncleanable: "
        "java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4)."
    )
    cleaned = sim.clean()  # the next iteration cleans the other partition; t-0 is never cleaned again
    assert cleaned is not None and cleaned.name == "other-0"
    assert sim.clean() is None and len(sim.cleaner.failures) == 1


@pytest.mark.parametrize("version", ["4.0.0", "3.9.0", "3.8.1", "2.4.1"])
def test_a_release_with_an_index_entry_per_read_buffer_cleans_the_same_log(version):
    sim = failing_simulation(version)
    result = sim.clean()
    assert result is not None and result.groups == ((0, 3), (6, 9), (12, 15), (18, 21), (24, 27))
    assert sim.cleaner.failures == [] and sim.log("t").left_cleaned == []


@pytest.mark.parametrize(
    ("version", "index", "message"),
    [
        ("4.4.0", "time", "Attempt to append to a full time index (size = 4)."),
        ("3.5.0", "offset", "Attempt to append to a full index (size = 4)."),
        ("3.4.1", "time", "requirement failed: Attempt to append to a full time index (size = 4)."),
        ("2.0.1", "offset", "requirement failed: Attempt to append to a full index (size = 4)."),
    ],
)
def test_kafkas_message_for_a_full_index_by_release(version, index, message):
    """``OffsetIndex``/``TimeIndex`` became Java in 3.5; Scala's ``require`` prefixed its message."""
    thrown = index_full(IndexFullError(index, 4), KafkaVersion.parse(version), Segment(0, 0))
    assert isinstance(thrown, CleanerThrew)
    assert (thrown.exception, thrown.message) == ("java.lang.IllegalArgumentException", message)


def test_before_kip_346_a_pass_that_throws_stops_the_cleaner_thread():
    """Kafka 2.0: no partition is marked; the thread ends, and with one thread nothing is cleaned or retained."""
    sim = Simulation({"kafka.version": "2.0.1", "log.cleaner.io.buffer.size": 100}, start_ms=START_MS)
    sim.create_topic("t", config={"segment.index.bytes": 40, "index.interval.bytes": 1, "segment.ms": 100,
                                  "min.cleanable.dirty.ratio": 0.01})  # fmt: skip
    for i in range(24):  # three batches of one timestamp a segment: a time index entry each, so groups of two
        sim.append("t", [(f"k{i}", f"v{i}", START_MS + 200 * (i // 3))])
    sim.append("t", [("trigger", "x", START_MS + 100_000)])
    sim.set_time(START_MS + 200_000)
    assert sim.clean() is None  # read buffers of one batch: an index entry per batch, even before KAFKA-806
    (failure,) = sim.cleaner.failures
    assert failure.thread_stopped and sim.uncleanable == set() and sim.cleaner.stopped_threads == 1
    assert failure.error.endswith("requirement failed: Attempt to append to a full time index (size = 2).")
    assert failure.kafka_log_line.startswith("[kafka-log-cleaner-thread-0]: Error due to java.lang.Illegal")
    sim.set_config({"min.cleanable.dirty.ratio": 0.01}, topic="t")
    assert sim.clean() is None and len(sim.cleaner.failures) == 1  # no thread left to try again


def test_clean_log_raises_kafkas_exception_or_marks_the_partition_as_the_thread_does():
    from kcompact_nb.core import CleanerManager, copy_log

    sim = failing_simulation("4.4.0")
    manager = CleanerManager(sim.broker)
    with pytest.raises(CleanerThrew, match="full time index"):
        manager.clean_log(copy_log(sim.log("t")), now_ms=sim.now_ms)
    log = copy_log(sim.log("t"))
    assert manager.clean_log(log, now_ms=sim.now_ms, mark_uncleanable=True) is None
    (failure,) = manager.failures
    assert manager.uncleanable == {"t-0"} and failure.swapped_in == (0, 6) and log.cleaner_checkpoint == 0
    assert manager.clean_log(log, now_ms=sim.now_ms) is None  # marked: not cleaned again


def test_pass_frames_end_with_the_pass_that_throws():
    from kcompact_nb.core.simulation import pass_frames

    sim = failing_simulation("4.4.0")
    frames = list(pass_frames(sim.log("t"), now_ms=sim.now_ms))
    assert [f.label for f in frames] == [
        "start",
        "pass 1 threw java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4).; "
        "marked uncleanable",
    ]
    last = frames[-1]
    assert last.passes == () and last.failure is not None and last.iterations[0].failure is last.failure
    assert sim.clean() is None and last.failure == sim.cleaner.failures[0]  # the broker's own iteration, alike
    assert [s.base_offset for s in last.log.left_cleaned] == [12]
