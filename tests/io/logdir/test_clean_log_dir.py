"""``io.clean_log_dir``: what ``kcompact clean`` does, from Python (issue #28): the broker's next cleaner
iteration over a real broker's log dir leaves Kafka's own files, read whole or streamed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import cast

import pytest

from kcompact_nb import BrokerConfig, NewRecord, PartitionLog, TopicConfig
from kcompact_nb.core import KafkaVersion, PassResult, segment_file_name
from kcompact_nb.fidelity import broker_settings, load_stage, pass_time_ms, topic_settings
from kcompact_nb.io import (
    ReadOptions,
    SegmentFileReader,
    clean_log_dir,
    read_index_file,
    write_broker_log_dir,
)
from kcompact_nb.io.files import OffsetPosition, segment_indexes
from kcompact_nb.io.logdir import SegmentFiles
from tests.io.kafka_bytes import reads_of, tree_digest

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples" / "kafka"
AT = 1_767_225_600_000
TOPIC = {"cleanup.policy": "compact", "segment.ms": 100, "min.cleanable.dirty.ratio": 0.01,
         "delete.retention.ms": 0, "segment.index.bytes": 4096}  # fmt: skip


def kafka_pass_ms(sample: str) -> int:
    """When Kafka's pass over the sample ran."""
    stages = (SAMPLES / sample / stage for stage in ("before", "after"))
    broker = broker_settings("4.4.0")
    return pass_time_ms(*(load_stage(stage, topic=topic_settings(), broker=broker) for stage in stages))


READS = pytest.mark.parametrize(
    ("on_disk_from_bytes", "hold_bytes"),
    [(None, False), (0, False), (None, True)],
    ids=["read-whole", "streamed", "held"],
)
"""Partitions read whole, streamed from their files, or held as their files' bytes (``kcompact clean``)."""


@READS
@pytest.mark.parametrize("sample", ["compaction-basic", "transactional"])
def test_clean_log_dir_leaves_the_files_kafka_left(sample, on_disk_from_bytes, hold_bytes, tmp_path):
    before, after = SAMPLES / sample / "before", SAMPLES / sample / "after"
    at = kafka_pass_ms(sample)
    source = tmp_path / "before"
    shutil.copytree(before, source)
    untouched = tree_digest(source)
    config = TopicConfig.from_properties(TOPIC, broker=BrokerConfig())
    cleaning = clean_log_dir(source, tmp_path / "out", now_ms=at, config=config, on_disk_from_bytes=on_disk_from_bytes,
                             hold_bytes=hold_bytes)  # fmt: skip
    assert tree_digest(source) == untouched
    assert cleaning.result is not None and cleaning.out == tmp_path / "out"
    (partition,) = [p.name for p in source.iterdir() if p.is_dir()]
    assert cleaning.result.name == partition
    ours, kafka = tmp_path / "out" / partition, after / partition
    assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in kafka.iterdir())
    assert [p.name for p in sorted(kafka.iterdir()) if p.read_bytes() != (ours / p.name).read_bytes()] == []


@pytest.mark.parametrize("sample", ["compaction-basic", "transactional"])
def test_a_streamed_cleaning_reads_its_logs_from_the_log_dir_it_wrote(sample, tmp_path):
    """The scratch folder a streamed pass wrote its groups to is gone once ``clean_log_dir`` returns: the logs it gives
    read their batches from ``out``, the same batches as those of the cleaning read whole."""
    config, at = TopicConfig.from_properties(TOPIC, broker=BrokerConfig()), kafka_pass_ms(sample)
    before = SAMPLES / sample / "before"
    whole = clean_log_dir(before, tmp_path / "whole", now_ms=at, config=config)
    streamed = clean_log_dir(before, tmp_path / "streamed", now_ms=at, config=config, on_disk_from_bytes=0)
    assert streamed.result is not None and streamed.result.groups == cast("PassResult", whole.result).groups
    for log in streamed.simulation.partitions():
        files = cast("SegmentFiles", log.storage).files
        assert sorted(files.values()) == sorted((tmp_path / "streamed" / log.name).glob("*.log"))
        in_memory = whole.simulation.log(log.topic, log.partition)
        assert [b.records for b in log.batches()] == [b.records for b in in_memory.batches()]
        assert [b.base_offset for b in log.batches()] == [b.base_offset for b in in_memory.batches()]


@pytest.mark.parametrize("clean", [True, False], ids=["clean_log_dir", "read_log_dir"])
def test_a_dir_that_keeps_changing_is_read_five_times_then_named(clean, tmp_path, monkeypatch):
    """Retries are not nested: clean_log_dir retries its whole job and reads the dir once per try."""
    from kcompact_nb.io import LogDirChangedError, LogReadError, read_log_dir
    from kcompact_nb.io.logdir import READ_ATTEMPTS, _log_reader

    source = tmp_path / "before"
    shutil.copytree(SAMPLES / "compaction-basic" / "before", source)
    reads: list[int] = []

    def changing_read(directory, *args, **kwargs):  # a broker rolls a segment while each read runs
        reads.append(1)
        (directory / f"{len(reads):020d}.log").touch()
        raise LogReadError(directory / "00000000000000000000.log", 0, "truncated while read")

    monkeypatch.setattr(_log_reader, "_load_partition", changing_read)
    with pytest.raises(LogDirChangedError) as raised:
        if clean:
            clean_log_dir(source, tmp_path / "out", now_ms=0)
        else:
            read_log_dir(source, ReadOptions(read_attempts=2))
    assert len(reads) == (READ_ATTEMPTS if clean else 2)
    message = str(raised.value)
    assert "truncated while read" in message and f"{len(reads):020d}.log" in message
    assert message.count("the broker changed this directory") == 1
    assert not (tmp_path / "out").exists()


def unique_keys_log_dir(folder: Path, *, segments: int, batches: int) -> list[Path]:
    """A log dir of one partition: ``segments`` segments of ``batches`` one-record batches, every key unique (a pass
    keeps every record), then an active segment of one batch; returns the inactive segments' ``.log`` files."""
    log = PartitionLog(
        "t", config=TopicConfig.from_properties({"cleanup.policy": "compact", "index.interval.bytes": 100})
    )
    for number in range(segments * batches):
        log.append([NewRecord(b"k%03d" % number, b"v" * 40, AT + number)], now_ms=AT + number)
        if number % batches == batches - 1:
            log.roll(now_ms=AT + number)
    log.append([NewRecord(b"last", b"v", AT + segments * batches)], now_ms=AT + segments * batches)
    write_broker_log_dir([log], folder)
    return sorted((folder / "t-0").glob("*.log"))[:-1]


@pytest.mark.parametrize(("version", "each_batch"), [("3.8.1", False), ("4.0.0", False), ("4.0.1", True)])
def test_a_cleaned_group_is_indexed_per_append_before_kafka_806(version, each_batch, tmp_path):
    """The cleaner appends each source segment's survivors (one read buffer each) to the group's cleaned segment:
    before 3.9.1 and 4.0.1 the index gets one entry per append, at each source segment's start (its last offset),
    once more than index.interval.bytes went by; from them, one per batch. Every key is unique: the bytes stay."""
    sources = unique_keys_log_dir(tmp_path / "before", segments=3, batches=4)
    starts = [sum(p.stat().st_size for p in sources[:i]) for i in range(len(sources))]
    last_offsets = [list(SegmentFileReader(p))[-1].last_offset for p in sources]
    broker = BrokerConfig.from_properties({"kafka.version": version})
    config = TopicConfig.from_properties({"cleanup.policy": "compact", "index.interval.bytes": 100}, broker=broker)
    cleaning = clean_log_dir(tmp_path / "before", tmp_path / "out", now_ms=AT + 100_000, broker=broker,
                             config=config)  # fmt: skip
    assert cleaning.result is not None and cleaning.result.groups == (tuple(int(p.name[:20]) for p in sources),)
    cleaned = tmp_path / "out" / "t-0" / "00000000000000000000.log"
    assert cleaned.read_bytes() == b"".join(p.read_bytes() for p in sources)
    entries = read_index_file(cleaned.with_suffix(".index")).entries
    if each_batch:
        assert entries == segment_indexes(SegmentFileReader(cleaned), index_interval_bytes=100).offset_index
        assert len(entries) == 3 * 4 - 1
    else:
        appends = zip(last_offsets[1:], starts[1:], strict=True)
        assert entries == tuple(OffsetPosition(last, start) for last, start in appends)
    # the record at offset n has timestamp at + n: each entry's largest timestamp so far is its own; the last
    # entry's is the segment's largest, so closing the segment adds none
    times = read_index_file(cleaned.with_suffix(".timeindex")).entries
    assert [(t.timestamp - AT, t.offset) for t in times] == [(e.offset, e.offset) for e in entries]
    assert times[-1].offset == last_offsets[-1]


@pytest.mark.parametrize("version", ["4.0.0", "4.0.2"])
def test_a_rewritten_segment_gets_new_indexes_even_with_the_same_bytes(version, tmp_path):
    """One segment per group (segment.bytes below two segments): the pass rewrites each with its bytes unchanged,
    in one append; before KAFKA-806 that append, the segment's first, gets no offset index entry, though the
    produced segment had one per batch."""
    sources = unique_keys_log_dir(tmp_path / "before", segments=2, batches=4)
    produced = [read_index_file(p.with_suffix(".index")).entries for p in sources]
    assert all(len(entries) == 3 for entries in produced)
    broker = BrokerConfig.from_properties({"kafka.version": version})
    properties = {"cleanup.policy": "compact", "index.interval.bytes": 100, "segment.bytes": 600}
    config = TopicConfig.from_properties(properties, broker=broker)
    cleaning = clean_log_dir(tmp_path / "before", tmp_path / "out", now_ms=AT + 100_000, broker=broker,
                             config=config)  # fmt: skip
    assert cleaning.result is not None and len(cleaning.result.groups) == 2
    for source, entries in zip(sources, produced, strict=True):
        ours = tmp_path / "out" / "t-0" / source.name
        assert ours.read_bytes() == source.read_bytes()
        index = read_index_file(ours.with_suffix(".index")).entries
        assert index == (entries if KafkaVersion.parse(version).indexes_each_batch else ())


@READS
def test_a_pass_that_throws_leaves_its_cleaned_files_read_whole_or_streamed(on_disk_from_bytes, hold_bytes, tmp_path):
    """The log a real 4.4.0 broker's pass failed on (``tests/core/cleaner/test_index_full.py``): a full time index in
    group 12-15 leaves a 444-byte ``.log.cleaned``, a 64-byte ``.index.cleaned`` and a 60-byte ``.timeindex.cleaned``
    (section 8.4), whether the pass read the partition whole or streamed it from its segment files."""
    from tests.core.cleaner.test_index_full import START_MS, failing_simulation

    sim = failing_simulation("4.4.0")
    source = write_broker_log_dir(sim.partitions_in_creation_order(), tmp_path / "before")
    untouched = tree_digest(source)
    topics = {log.topic: log.config for log in sim.partitions()}
    cleaning = clean_log_dir(
        source, tmp_path / "out", now_ms=START_MS + 200_000, broker=sim.broker, topic_configs=topics,
        on_disk_from_bytes=on_disk_from_bytes, hold_bytes=hold_bytes,
    )  # fmt: skip
    assert tree_digest(source) == untouched
    (failure,) = cleaning.simulation.cleaner.failures
    assert failure.name == "t-0" and cleaning.result is not None and cleaning.result.name == "other-0"
    left = {p.name: p.stat().st_size for p in (tmp_path / "out" / "t-0").iterdir() if p.name.endswith(".cleaned")}
    assert left == {"00000000000000000012.log.cleaned": 444, "00000000000000000012.index.cleaned": 64,
                    "00000000000000000012.timeindex.cleaned": 60}  # fmt: skip
    assert sim.clean() is None  # the in-memory pass leaves the same batches in its .cleaned segment
    (segment,) = sim.log("t").left_cleaned
    written = (tmp_path / "out" / "t-0" / "00000000000000000012.log.cleaned").read_bytes()
    read_back = SegmentFileReader(tmp_path / "out" / "t-0" / "00000000000000000012.log.cleaned")
    assert [b.base_offset for b in read_back] == [b.base_offset for b in segment.batches] == list(range(12, 18))
    assert len(written) == segment.size_bytes


def test_clean_reads_each_segment_file_once_and_copies_those_it_keeps(tmp_path):
    """Issue #38: ``kcompact clean`` reads each partition once. basic-0 is cleaned: the files of its cleaned groups are
    read once, by the read; every other file (basic-0's active segment, all of basic-1) is read once more, when it
    is copied unchanged (compared with the segment's bytes as it is copied: one read, not a check then a copy)."""
    from tests.io.logdir.test_unreadable_batch import CONFIG, kafka_pass_ms, two_partitions

    source = two_partitions(tmp_path / "logs")
    with reads_of(source) as reads:
        cleaning = clean_log_dir(source, tmp_path / "out", now_ms=kafka_pass_ms(), config=CONFIG)
    assert cleaning.result is not None and cleaning.result.name == "basic-0"
    cleaned = {f"basic-0/{segment_file_name(base)}" for group in cleaning.result.groups for base in group}
    assert len(cleaned) == 11  # every segment but the active one
    files = sorted(str(p.relative_to(source)) for p in source.glob("*/*.log"))
    assert reads == {name: 1 if name in cleaned else 2 for name in files}
    for name in set(files) - cleaned:
        assert (tmp_path / "out" / name).read_bytes() == (source / name).read_bytes()
