"""The side-by-side workload: seeded keyed records in producer-sized v2 batches, encoded once per use.

The same generator feeds the real broker (``produce_encoded_batches``) and, for the scaling runs that
need no broker, a partition directory written directly in the broker's layout.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kafka.record.default_records import DefaultRecordBatchBuilder  # type: ignore[import-untyped]

from kcompact_nb.core import Record, RecordBatch
from kcompact_nb.record import encode_batch

BASE_TS_MS = 1_767_225_600_000
"""Every workload record's timestamp (2026-01-01T00:00:00Z): no time-based roll inside the workload."""
TRIGGER_TS_MS = BASE_TS_MS + 3_600_000
"""The trigger record, an hour later, rolls the segment (``segment.ms=100``) so the workload is cleanable."""
PASS_NOW_MS = TRIGGER_TS_MS + 1
TRIGGER_KEY = b"trigger"


@dataclass(frozen=True)
class Workload:
    """``records`` keyed records over ``records // 10`` keys, 100-byte values, 5 % tombstones, batches of 100.

    ``codec`` compresses each batch as a Java producer does (Kafka's own framing, the codec's default level);
    ``values`` says what the values hold: ``"repeated"`` bytes (which every codec shrinks to almost nothing),
    ``"text"``, JSON-like objects of about 100 bytes with random fields (compressible as such text is), or
    ``"bytes"``, random bytes (no codec shrinks them: encrypted or already compressed payloads).
    """

    records: int
    seed: int = 42
    value_bytes: int = 100
    tombstone_ratio: float = 0.05
    batch_records: int = 100
    """About a Java producer's default 16 KiB ``batch.size`` of these records."""
    codec: str = "none"
    """The batches' ``compression.type`` (``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd``)."""
    values: str = "repeated"

    def __post_init__(self) -> None:
        if self.values not in VALUE_KINDS:
            raise ValueError(f"values must be one of {', '.join(VALUE_KINDS)}, not {self.values!r}")

    @property
    def keys(self) -> int:
        return max(self.records // 10, 1)

    def encoded_batches(self) -> Iterator[bytes]:
        """The workload's v2 batches (base offset 0, CRC set), in produce order."""
        rng = random.Random(self.seed)
        value = b"v" * self.value_bytes
        for start in range(0, self.records, self.batch_records):
            count = min(self.batch_records, self.records - start)
            keys = [b"key-%08d" % rng.randrange(self.keys) for _ in range(count)]
            records = [(k, None if rng.random() < self.tombstone_ratio else self._value(rng, value)) for k in keys]
            yield encode(records, BASE_TS_MS) if self.codec == "none" else compressed(records, self.codec)

    def _value(self, rng: random.Random, repeated: bytes) -> bytes:
        if self.values == "text":
            return json_value(rng)
        if self.values == "bytes":
            return rng.randbytes(self.value_bytes)
        return repeated


VALUE_KINDS = ("repeated", "text", "bytes")
"""What :attr:`Workload.values` may be."""


def json_value(rng: random.Random) -> bytes:
    """A JSON object of about 100 bytes whose fields vary as an order event's do."""
    status = rng.choice((b"NEW", b"PAID", b"SHIPPED", b"CANCELLED"))
    return b'{"user":"u%06d","order":%d,"amount":%d.%02d,"currency":"%s","status":"%s","ts":%d}' % (
        rng.randrange(1_000_000),
        rng.randrange(1 << 40),
        rng.randrange(10_000),
        rng.randrange(100),
        rng.choice((b"EUR", b"USD", b"GBP")),
        status,
        BASE_TS_MS + rng.randrange(86_400_000),
    )


def encode(records: list[tuple[bytes, bytes | None]], timestamp_ms: int) -> bytes:
    """One uncompressed v2 batch without producer id of ``(key, value)`` records."""
    builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    for delta, (key, value) in enumerate(records):
        builder.append(delta, timestamp_ms, key, value, [])
    return bytes(builder.build())


def compressed(records: list[tuple[bytes, bytes | None]], codec: str) -> bytes:
    """:func:`encode`'s batch with its records compressed by ``codec`` as Kafka's producer does (its framing, the
    codec's default level)."""
    rows = [Record(delta, BASE_TS_MS, key, value) for delta, (key, value) in enumerate(records)]
    return encode_batch(RecordBatch.build(rows, compression=codec, partition_leader_epoch=-1))


def trigger_batch() -> bytes:
    return encode([(TRIGGER_KEY, b"roll")], TRIGGER_TS_MS)


def write_partition_dir(workload: Workload, directory: Path) -> Path:
    """``<directory>/bench-0`` as the broker lays it out: the workload's segment, then the trigger's.

    Offsets are assigned as the broker would (the CRC does not cover the base offset).
    """
    folder = directory / "bench-0"
    folder.mkdir(parents=True, exist_ok=True)
    offset = 0
    with open(folder / f"{0:020d}.log", "wb") as handle:
        for data in workload.encoded_batches():
            handle.write(_at_offset(data, offset))
            offset += _record_count(data)
    (folder / f"{offset:020d}.log").write_bytes(_at_offset(trigger_batch(), offset))
    return folder


def _at_offset(data: bytes, base_offset: int) -> bytes:
    return struct.pack(">q", base_offset) + data[8:]


def _record_count(data: bytes) -> int:
    return int(struct.unpack_from(">i", data, 57)[0])


def write_segmented_partition_dir(workload: Workload, directory: Path, *, segment_bytes: int = 1 << 30) -> Path:
    """``<directory>/bench-0`` with the workload rolled at ``segment_bytes`` as a broker rolls (spec 2.3), then the
    trigger's segment: partitions bigger than one segment file may hold (Kafka's default ``segment.bytes``)."""
    folder = directory / "bench-0"
    folder.mkdir(parents=True, exist_ok=True)
    offset, size = 0, 0
    handle = open(folder / f"{0:020d}.log", "wb")  # noqa: SIM115 - replaced at each roll
    try:
        for data in workload.encoded_batches():
            if size > segment_bytes - len(data):
                handle.close()
                handle, size = open(folder / f"{offset:020d}.log", "wb"), 0  # noqa: SIM115
            handle.write(_at_offset(data, offset))
            offset += _record_count(data)
            size += len(data)
    finally:
        handle.close()
    (folder / f"{offset:020d}.log").write_bytes(_at_offset(trigger_batch(), offset))
    return folder
