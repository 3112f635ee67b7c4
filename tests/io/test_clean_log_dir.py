"""``io.clean_log_dir``: what ``kcompact clean`` does, from Python (issue #28): the broker's next cleaner
iteration over a real broker's log dir leaves Kafka's own files, read whole or streamed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kcompact_nb import BrokerConfig, TopicConfig
from kcompact_nb.fidelity import broker_settings, load_stage, pass_time_ms, topic_settings
from kcompact_nb.io import clean_log_dir
from tests.io.kafka_bytes import tree_digest

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
TOPIC = {"cleanup.policy": "compact", "segment.ms": 100, "min.cleanable.dirty.ratio": 0.01,
         "delete.retention.ms": 0, "segment.index.bytes": 4096}  # fmt: skip


@pytest.mark.parametrize("scan_from_bytes", [None, 0], ids=["read-whole", "streamed"])
@pytest.mark.parametrize("sample", ["compaction-basic", "transactional"])
def test_clean_log_dir_leaves_the_files_kafka_left(sample, scan_from_bytes, tmp_path):
    before, after = SAMPLES / sample / "before", SAMPLES / sample / "after"
    broker = broker_settings("4.4.0")
    at = pass_time_ms(
        load_stage(before, topic=topic_settings(), broker=broker),
        load_stage(after, topic=topic_settings(), broker=broker),
    )
    source = tmp_path / "before"
    shutil.copytree(before, source)
    untouched = tree_digest(source)
    config = TopicConfig.from_properties(TOPIC, broker=BrokerConfig())
    cleaning = clean_log_dir(source, tmp_path / "out", now_ms=at, config=config, scan_from_bytes=scan_from_bytes)
    assert tree_digest(source) == untouched
    assert cleaning.result is not None and cleaning.out == tmp_path / "out"
    (partition,) = [p.name for p in source.iterdir() if p.is_dir()]
    assert cleaning.result.name == partition
    ours, kafka = tmp_path / "out" / partition, after / partition
    assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in kafka.iterdir())
    assert [p.name for p in sorted(kafka.iterdir()) if p.read_bytes() != (ours / p.name).read_bytes()] == []


@pytest.mark.parametrize("clean", [True, False], ids=["clean_log_dir", "read_log_dir"])
def test_a_dir_that_keeps_changing_is_read_five_times_then_named(clean, tmp_path, monkeypatch):
    """Retries are not nested: clean_log_dir retries its whole job and reads the dir once per try."""
    from kcompact_nb.io import READ_ATTEMPTS, LogDirChangedError, LogReadError, read_log_dir
    from kcompact_nb.io.logdir import _log_reader

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
            read_log_dir(source, read_attempts=2)
    assert len(reads) == (READ_ATTEMPTS if clean else 2)
    message = str(raised.value)
    assert "truncated while read" in message and f"{len(reads):020d}.log" in message
    assert message.count("the broker changed this directory") == 1
    assert not (tmp_path / "out").exists()
