"""Segment bytes for tests, made with kafka-python's builder (independently of kcompact_nb's encoder).

kafka-python writes batches the way a producer does (base offset 0, no leader epoch, no
control or delete-horizon bits); the fields a broker sets are patched in here and the CRC
recomputed, as docs/real-broker.md, section 6, describes.
"""

from __future__ import annotations

import builtins
import gzip
import hashlib
import io
import os
import struct
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
# (offset delta, timestamp, key, value, headers)
Rec = tuple[int, int, "bytes | None", "bytes | None", Sequence[tuple[str, "bytes | None"]]]


def rec(
    delta: int, ts: int, key: bytes | None, value: bytes | None, headers: Sequence[tuple[str, bytes | None]] = ()
) -> Rec:
    return (delta, ts, key, value, headers)


def kafka_batch(
    records: Sequence[Rec],
    *,
    base_offset: int,
    codec: str = "none",
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
    control: bool = False,
    leader_epoch: int = 0,
    log_append_time: int | None = None,
    delete_horizon: int | None = None,
    last_offset_delta: int | None = None,
) -> bytes:
    """One v2 batch as a broker stores it."""
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=CODECS[codec],
        is_transactional=transactional,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        batch_size=1 << 30,
    )
    if delete_horizon is not None:
        builder._first_timestamp = delete_horizon  # deltas relative to the horizon, as the cleaner writes them
        builder._max_timestamp = delete_horizon
    for delta, ts, key, value, headers in records:
        builder.append(delta, ts, key, value, list(headers))
    buf = builder.build()
    struct.pack_into(">q", buf, 0, base_offset)
    struct.pack_into(">i", buf, 12, leader_epoch)
    attributes = struct.unpack_from(">h", buf, 21)[0]
    if control:
        attributes |= 0x20
    if delete_horizon is not None:
        attributes |= 0x40
        struct.pack_into(">q", buf, 27, delete_horizon)
    if log_append_time is not None:
        attributes |= 0x08
        struct.pack_into(">q", buf, 35, log_append_time)
    if not records:
        struct.pack_into(">qq", buf, 27, -1, -1)
    if last_offset_delta is not None:
        struct.pack_into(">i", buf, 23, last_offset_delta)
    struct.pack_into(">h", buf, 21, attributes)
    struct.pack_into(">I", buf, 17, calc_crc32c(memoryview(buf)[21:]))
    return bytes(buf)


def marker_batch(
    offset: int, producer_id: int, producer_epoch: int, *, commit: bool, ts: int, coordinator_epoch: int = 0
) -> bytes:
    """A COMMIT/ABORT control batch (78 bytes)."""
    key = struct.pack(">hh", 0, 1 if commit else 0)
    value = struct.pack(">hi", 0, coordinator_epoch)
    return kafka_batch(
        [rec(0, ts, key, value)],
        base_offset=offset,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        transactional=True,
        control=True,
    )


def simple_batches(offsets: Iterable[int], *, ts: int = 1_000, value_size: int = 10, keys: int = 3) -> list[bytes]:
    """One single-record batch per offset, key ``k<offset % keys>``, value of ``value_size`` bytes."""
    return [kafka_batch([rec(0, ts + o, b"k%d" % (o % keys), b"v" * value_size)], base_offset=o) for o in offsets]


def every_batch_kind() -> list[bytes]:
    """One segment's batches of every kind a decoder meets (210 offsets, 209 records, 1 marker)."""
    big = b"x" * 300  # lengths above 63 take multi-byte varints
    many = [rec(i, 1_000 + 97 * i, b"k%d" % (i % 7), big if i % 5 else None) for i in range(200)]
    headers = [rec(0, 5, b"h", b"v", [("trace", b"1"), ("nil", None), ("\u00e9", big)]), rec(1, 6, None, b"keyless")]
    return [
        kafka_batch(many, base_offset=0),
        kafka_batch(headers, base_offset=200, log_append_time=9_999),
        kafka_batch(many[:3], base_offset=202, codec="gzip"),
        kafka_batch(
            [rec(0, 7, b"k", None)], base_offset=205, delete_horizon=86_400_000, producer_id=4, producer_epoch=1
        ),
        kafka_batch([], base_offset=206, last_offset_delta=3, producer_id=4, producer_epoch=1),
        kafka_batch(
            [rec(0, 8, b"t", b"1"), rec(2, 9, b"t", b"2")],
            base_offset=210,
            producer_id=5,
            producer_epoch=0,
            transactional=True,
        ),
        marker_batch(213, 5, 0, commit=True, ts=10),
    ]


def write_segments(partition_dir: Path, segments: dict[int, Sequence[bytes]]) -> Path:
    """Write ``{base offset: batches}`` as segment files of ``partition_dir``."""
    partition_dir.mkdir(parents=True, exist_ok=True)
    for base, batches in segments.items():
        (partition_dir / f"{base:020d}.log").write_bytes(b"".join(batches))
    return partition_dir


def tree_digest(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root`` plus its mtime (to prove readers change nothing)."""
    digest = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest[str(path.relative_to(root))] = (
                f"{hashlib.sha256(path.read_bytes()).hexdigest()}@{path.stat().st_mtime_ns}"
            )
    return digest


@contextmanager
def reads_of(root: Path, suffix: str = ".log") -> Iterator[Counter[str]]:
    """Count, while the block runs, how often each file under ``root`` whose name ends with ``suffix`` is opened for
    reading (its path relative to ``root``): how many times a reader, a pass or a copy went through it."""
    opened: Counter[str] = Counter()
    real = builtins.open

    def counting(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        path = Path(os.fsdecode(file)) if isinstance(file, (str, bytes, os.PathLike)) else None
        if path is not None and "r" in mode and path.name.endswith(suffix) and path.is_relative_to(root):
            opened[str(path.relative_to(root))] += 1
        return real(file, mode, *args, **kwargs)

    builtins.open = io.open = counting
    try:
        yield opened
    finally:
        builtins.open = io.open = real


def file_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def as_gzip(plain: bytes, *, trailing: bytes = b"", members: int = 1) -> bytes:
    """``plain`` (an uncompressed batch) with its records gzip-compressed, split into ``members`` gzip members,
    followed by ``trailing`` bytes; length and CRC fixed."""
    body = plain[61:]
    cut = len(body) // members
    parts = [body[i * cut : (i + 1) * cut if i < members - 1 else len(body)] for i in range(members)]
    out = bytearray(plain[:61] + b"".join(gzip.compress(p, mtime=0) for p in parts) + trailing)
    struct.pack_into(">i", out, 8, len(out) - 12)
    struct.pack_into(">h", out, 21, struct.unpack_from(">h", out, 21)[0] | 1)
    struct.pack_into(">I", out, 17, calc_crc32c(memoryview(out)[21:]))
    return bytes(out)
