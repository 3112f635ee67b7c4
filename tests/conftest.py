"""Shared test helpers: compacted logs built through the public API."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from kcompact_nb import BrokerConfig, NewRecord, PartitionLog, TopicConfig
from kcompact_nb.core import InMemoryStorage, RecordBatch, Segment
from kcompact_nb.core.cleaner._cleaner_manager import CleanerManager
from kcompact_nb.record import native_kernels


def compacted_log(topic: str = "t", **properties: Any) -> PartitionLog:
    """A compacted partition log with Kafka property overrides given as ``segment_bytes=...``."""
    props: dict[str, Any] = {"cleanup.policy": "compact"}
    props.update({name.replace("_", "."): value for name, value in properties.items()})
    return PartitionLog(topic, config=TopicConfig.from_properties(props))


def rec(key: str | None, value: str | None = "0123456789", timestamp: int | None = None, **kw: Any) -> NewRecord:
    return NewRecord(
        None if key is None else key.encode(),
        None if value is None else value.encode(),
        timestamp=timestamp,
        **kw,
    )


class CountingStorage(InMemoryStorage):
    """A log's batches in its segments, counting how often each segment's are read (a copy the engine runs forward
    on reads plain ones: its passes are the engine's, not the caller's)."""

    def __init__(self) -> None:
        self.reads: Counter[int] = Counter()

    def batches(self, segment: Segment, position: int) -> Iterable[RecordBatch]:
        self.reads[segment.base_offset] += 1
        return super().batches(segment, position)

    def detached(self) -> InMemoryStorage:
        return InMemoryStorage()


def segment_layout(log: PartitionLog) -> list[tuple[int, int, list[int]]]:
    """(base offset, size in bytes, batch last offsets) of every segment."""
    return [(s.base_offset, s.size_bytes, [b.last_offset for b in s.batches]) for s in log.segments]


@pytest.fixture
def fruit_log() -> PartitionLog:
    """Spec 13.1's worked example: segment.bytes 1000, keys k0-k2, offsets 0-29."""
    log = compacted_log(segment_bytes=1000)
    for i in range(30):
        log.append([rec(f"k{i % 3}", timestamp=0)], now_ms=0)
    return log


def offsets_in_log(log: PartitionLog) -> list[int]:
    """Offsets of every record present, control records included (Kafka's ``offsetsInLog``)."""
    return [r.offset for _, r in log.records()]


def keys_in_log(log: PartitionLog) -> list[str]:
    """Keys of data records with a value, in log order (Kafka's ``keysInLog``)."""
    return [r.key.decode() for b, r in log.records() if not b.is_control and r.value is not None and r.key is not None]


def last_offsets_per_batch(log: PartitionLog) -> list[int]:
    return [b.last_offset for b in log.batches()]


def cleaned_mixed_log(
    at: int = 1_767_225_600_000, codec: str = "none", *, index_interval_bytes: int = 4096, kafka_version: str = "4.4.0"
) -> PartitionLog:
    """A log cleaned once holding every kind of batch the cleaner writes: rebuilt batches, a delete-horizon
    batch, 61-byte empty shells, COMMIT and ABORT markers, an idempotent producer's batch, untouched originals;
    its data batches compressed with ``codec`` by the producer (``compression.type=producer`` keeps it)."""
    properties = {"cleanup.policy": "compact", "delete.retention.ms": 5000}
    properties["index.interval.bytes"] = index_interval_bytes
    broker = BrokerConfig.from_properties({"kafka.version": kafka_version})
    log = PartitionLog("ours", config=TopicConfig.from_properties(properties, broker=broker), broker=broker)
    log.append(
        [NewRecord(b"a", b"1", at), NewRecord(b"b", b"1", at), NewRecord(b"a", b"2", at)], now_ms=at, compression=codec
    )
    log.append([NewRecord(b"c", None, at)], now_ms=at, compression=codec)
    log.append(
        [NewRecord(b"d", b"1", at, headers=(("h", b"x"),))],
        now_ms=at,
        producer_id=7,
        producer_epoch=0,
        base_sequence=0,
        compression=codec,
    )
    log.append([NewRecord(b"d", b"2", at)], now_ms=at, compression=codec)
    log.append(
        [NewRecord(b"e", b"1", at)], now_ms=at, producer_id=9, producer_epoch=1, transactional=True, compression=codec
    )
    log.append_end_txn_marker(9, 1, commit=False, now_ms=at)
    log.append(
        [NewRecord(b"f", b"1", at)], now_ms=at, producer_id=8, producer_epoch=0, transactional=True, compression=codec
    )
    log.append_end_txn_marker(8, 0, commit=True, now_ms=at)
    log.roll(now_ms=at)
    log.append([NewRecord(b"z", b"1", at)], now_ms=at, compression=codec)
    assert CleanerManager(log.broker).clean_once([log], now_ms=at + 1000) is not None
    return log


@pytest.fixture(params=["C", "numpy"])
def kernels(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on the C kernels (:mod:`kcompact_nb.record._native`) and again on their numpy and Python twins:
    :data:`NATIVE` None switches every kernel of the table (:mod:`kcompact_nb.record._kernels`) to its twin."""
    if request.param == "C" and native_kernels.NATIVE is None:
        pytest.skip("the C kernels were not built (no C compiler at install): tests/record/test_native.py says why")
    if request.param == "numpy":
        monkeypatch.setattr(native_kernels, "NATIVE", None)
    return str(request.param)
