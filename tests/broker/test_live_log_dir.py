"""A running broker's log dir, read while it produces and cleans (issue #31, "Reading a live log dir").

A dedicated Kafka broker (its cleaner woken every 50 ms) holds two compacted topics of two partitions each;
a producer writes about 250 keyed records a second per partition, tombstones among them, so segments roll
every 100 ms of record time and the cleaner swaps merged segments in and deletes old ones all the time.
Meanwhile ``inspect --json``, ``dump`` (text and ``--json``), ``clean --out`` (each partition read whole, and
streamed: ``--stream-from 0``) and ``read_log_dir`` run in a loop. Every run either succeeds with a consistent
result (segments in order, offsets and checkpoints never going back, no broker temporary or lock file copied) or
fails with the one message that the broker changed the directory while it was read; the broker logs no error.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaProducer

from kcompact_nb import PartitionLog
from kcompact_nb.broker import DEFAULT_VERSION, KafkaBroker, create_topic
from kcompact_nb.core import IN_FLIGHT_FILE_SUFFIXES
from kcompact_nb.io import LogDirChangedError, ReadOptions, read_log_dir
from tests.cli.conftest import kcompact

from .conftest import require_java_and_maven

TOPICS = ("live-a", "live-b")
PARTITIONS = 2
RATE_PER_PARTITION = 250
LOOP_S = 40.0
MIN_RUNS = 3
"""Reads of each kind, whatever the time they take (the producer writes for up to 3 minutes meanwhile)."""
CHANGED = "the broker changed this directory while it was read"


@pytest.fixture(scope="module")
def live_broker() -> Iterator[KafkaBroker]:
    """A broker of its own (its log dir holds only this test's topics), the cleaner checking every 50 ms."""
    require_java_and_maven()
    with KafkaBroker(DEFAULT_VERSION, overrides={"log.cleaner.backoff.ms": "50"}) as broker:
        for topic in TOPICS:
            create_topic(broker, topic, partitions=PARTITIONS)
        yield broker


class _Producer(threading.Thread):
    """Keyed records and tombstones to every partition at a steady rate until stopped (at most 3 minutes)."""

    def __init__(self, broker: KafkaBroker) -> None:
        super().__init__(daemon=True)
        self.broker = broker
        self.stopped = threading.Event()
        self.sent = 0

    def run(self) -> None:
        producer = KafkaProducer(bootstrap_servers=self.broker.bootstrap_servers, linger_ms=5, acks=1)
        deadline = time.monotonic() + 180
        tick = 0
        try:
            while not self.stopped.is_set() and time.monotonic() < deadline:
                for topic in TOPICS:
                    for partition in range(PARTITIONS):
                        for i in range(RATE_PER_PARTITION // 20):
                            key = f"k{(tick * 7 + i) % 40}".encode()
                            value = None if (tick + i) % 20 == 0 else b"v" * 80
                            producer.send(topic, key=key, value=value, partition=partition)
                            self.sent += 1
                tick += 1
                time.sleep(0.05)
            producer.flush()
        finally:
            producer.close()


def _check_log(log: PartitionLog) -> None:
    bases = [segment.base_offset for segment in log.segments]
    assert bases == sorted(set(bases))
    for segment, following in zip(log.segments, [*bases[1:], None], strict=True):
        for batch in segment.batches:
            assert batch.base_offset >= segment.base_offset
            assert following is None or batch.last_offset < following


class _Progress:
    """Per partition: the highest log end offset and cleaner checkpoint seen so far, which never go back."""

    def __init__(self) -> None:
        self.ends: dict[str, int] = {}
        self.checkpoints: dict[str, int] = {}

    def saw(self, name: str, end: int, checkpoint: int | None) -> None:
        assert end >= self.ends.get(name, 0), f"{name}: log end offset went back to {end}"
        self.ends[name] = end
        if checkpoint is not None:
            assert checkpoint >= self.checkpoints.get(name, 0), f"{name}: cleaner checkpoint went back"
            self.checkpoints[name] = checkpoint


def _inspect(log_dir: Path, progress: _Progress, _out: Path, *streamed: str) -> str | None:
    done = kcompact("inspect", log_dir, "--json", *streamed)
    if done.returncode != 0:
        return done.stderr
    for partition in json.loads(done.stdout)["partitions"]:
        progress.saw(partition["name"], partition["log_end_offset"], partition["cleaner_checkpoint"])
    return None


def _dump_text(log_dir: Path, _progress: _Progress, _out: Path) -> str | None:
    done = kcompact("dump", log_dir / f"{TOPICS[0]}-0", "--no-records")
    return None if done.returncode == 0 else done.stderr + done.stdout[-300:]


def _dump_json(log_dir: Path, progress: _Progress, _out: Path) -> str | None:
    done = kcompact("dump", log_dir / f"{TOPICS[1]}-1", "--json")
    if done.returncode != 0:
        return done.stderr
    state = json.loads(done.stdout)
    progress.saw(f"{TOPICS[1]}-1", state["log_end_offset"], None)
    return None


def _clean(log_dir: Path, _progress: _Progress, out: Path, *streamed: str) -> str | None:
    done = kcompact("clean", log_dir, "--out", out, *streamed)
    if done.returncode != 0:
        assert not out.exists()
        return done.stderr
    copied = [p for p in out.rglob("*") if p.name.endswith(IN_FLIGHT_FILE_SUFFIXES)]
    assert copied == [], f"a broker's temporary or lock files were copied: {copied}"
    for log in read_log_dir(out, ReadOptions(topics=TOPICS)).logs.values():
        _check_log(log)
    return None


def _read(log_dir: Path, progress: _Progress, _out: Path) -> str | None:
    try:
        loaded = read_log_dir(log_dir, ReadOptions(topics=TOPICS))
    except LogDirChangedError as error:
        return str(error)
    for log in loaded.logs.values():
        _check_log(log)
        progress.saw(log.name, log.log_end_offset, log.cleaner_checkpoint)
    return None


def _inspect_streamed(log_dir: Path, progress: _Progress, out: Path) -> str | None:
    """Every partition read on disk: explained from its files, read again after the scan (as the scan found them)."""
    return _inspect(log_dir, progress, out, "--stream-from", "0")


def _clean_streamed(log_dir: Path, progress: _Progress, out: Path) -> str | None:
    """Every partition read on disk: its pass streams its files after the scan (as the scan found them)."""
    return _clean(log_dir, progress, out, "--stream-from", "0")


RUNS = (_inspect, _dump_text, _dump_json, _clean, _read, _inspect_streamed, _clean_streamed)


def test_reads_of_a_live_log_dir_are_consistent_or_say_the_broker_changed_it(live_broker, tmp_path):
    producer = _Producer(live_broker)
    producer.start()
    progress = _Progress()
    failures: dict[str, list[str]] = {run.__name__: [] for run in RUNS}
    counts = dict.fromkeys(failures, 0)
    cleaned_before = live_broker.cleaner_log().count("cleaned log")
    try:
        time.sleep(2)  # a few segments and passes first
        deadline = time.monotonic() + LOOP_S
        number = 0
        # at least LOOP_S and MIN_RUNS rounds of every read: a loaded machine takes longer, not fewer reads
        while time.monotonic() < deadline or number < MIN_RUNS * len(RUNS):
            run = RUNS[number % len(RUNS)]
            message = run(live_broker.log_dir, progress, tmp_path / f"out{number}")
            counts[run.__name__] += 1
            if message is not None:
                failures[run.__name__].append(message)
            number += 1
    finally:
        producer.stopped.set()
        producer.join(timeout=30)
    passes = live_broker.cleaner_log().count("cleaned log") - cleaned_before
    assert passes >= 10, f"the broker's cleaner ran only {passes} times: the directory hardly changed"
    assert producer.sent > 0 and min(counts.values()) >= MIN_RUNS, counts
    unexplained = {name: [m for m in messages if CHANGED not in m] for name, messages in failures.items()}
    assert unexplained == dict.fromkeys(failures, []), unexplained
    assert "ERROR" not in live_broker.log_tail(lines=10_000)
