"""Benchmarks of the io layer: reading uncompressed segment files (target: >= 150,000 records/s on one core), and
encoding batches with each codec as Kafka writes them (bytes are the uncompressed records in)."""

from __future__ import annotations

import struct
from dataclasses import replace
from functools import cache, partial
from pathlib import Path

from kafka.record.default_records import DefaultRecordBatchBuilder  # type: ignore[import-untyped]

from bench._runner import Measurement, benchmark, scratch_dir, timed
from kcompact_nb.core import DEFAULT_KAFKA_VERSION, KafkaVersion, Record, RecordBatch
from kcompact_nb.io import SegmentFileReader, read_partition_dir
from kcompact_nb.record import KafkaBatchEncoder

RECORDS = 100_000
VALUE = b"v" * 100
TARGET = ">= 150,000 records/s"
CRC_IMPLEMENTATION = "C crc32c"
"""The reader checks CRC-32C with the ``crc32c`` package (a dependency), never kafka-python's pure-Python fallback."""


@cache
def segment_dir(records_per_batch: int) -> Path:
    """A partition directory with one segment of RECORDS records (100-byte values), written once per run."""
    root = scratch_dir("kcompact-bench-") / "bench-0"
    root.mkdir()
    with open(root / f"{0:020d}.log", "wb") as handle:
        for base in range(0, RECORDS, records_per_batch):
            builder = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
            for i in range(records_per_batch):
                builder.append(i, 1_700_000_000_000 + base + i, b"key-%d" % ((base + i) % 10_000), VALUE, [])
            data = builder.build()
            struct.pack_into(">q", data, 0, base)  # the CRC does not cover the base offset
            handle.write(data)
    return root


def _read_segment(records_per_batch: int, *, verify_crc: bool) -> Measurement:
    path = segment_dir(records_per_batch) / f"{0:020d}.log"

    def work() -> tuple[int, int]:
        count = sum(len(b.records) for b in SegmentFileReader(path, verify_crc=verify_crc))
        return count, path.stat().st_size

    return timed(work)


@benchmark(f"io: segment read, batches of 50, CRC checked ({CRC_IMPLEMENTATION})", target=TARGET)
def read_batches_of_50() -> Measurement:
    return _read_segment(50, verify_crc=True)


@benchmark("io: segment read, batches of 50, CRC not checked", target=TARGET)
def read_batches_of_50_without_crc() -> Measurement:
    return _read_segment(50, verify_crc=False)


@benchmark(f"io: segment read, 1-record batches, CRC checked ({CRC_IMPLEMENTATION})", target=TARGET)
def read_single_record_batches() -> Measurement:
    return _read_segment(1, verify_crc=True)


@benchmark(f"io: partition dir -> PartitionLog, batches of 50 ({CRC_IMPLEMENTATION})", target=TARGET)
def read_partition_log() -> Measurement:
    directory = segment_dir(50)

    def work() -> tuple[int, int]:
        log = read_partition_dir(directory).log
        return sum(len(b.records) for b in log.batches()), log.size_bytes

    return timed(work)


ENCODE_RECORDS = 20_000
"""Records per codec benchmark: 20 batches of 1,000 (about 117 KiB uncompressed each)."""


@cache
def compressible_batches() -> tuple[RecordBatch, ...]:
    """Batches of 1,000 records with JSON-like 100-byte values, as a pass rewrites them (uncompressed model)."""
    batches = []
    for base in range(0, ENCODE_RECORDS, 1_000):
        records = [
            Record(
                base + i,
                1_700_000_000_000 + i,
                b"key-%d" % ((base + i) % 997),
                (b'{"price": %6d, "note": "' % i).ljust(99, b"x") + b"}",
            )
            for i in range(1_000)
        ]
        batches.append(RecordBatch.build(records))
    return tuple(batches)


def _encode(codec: str, kernels: str = "C") -> Measurement:
    """Encode the batches with ``codec``; ``kernels="python"`` without the C kernels (snappy's Python compressor)."""
    from kcompact_nb.record import native_kernels

    encoder, version = KafkaBatchEncoder(), KafkaVersion.parse(DEFAULT_KAFKA_VERSION)
    batches = [replace(b, compression=codec) for b in compressible_batches()]

    def work() -> tuple[int, int]:
        for batch in batches:
            encoder.encode(batch, level=None, kafka_version=version)
        return ENCODE_RECORDS, sum(b.size_bytes for b in compressible_batches())

    native = native_kernels.NATIVE
    if kernels == "C" and native is None:
        return Measurement(float("nan"), note="not built here: no C compiler at install")
    native_kernels.NATIVE = native if kernels == "C" else None
    try:
        return timed(work)
    finally:
        native_kernels.NATIVE = native


for _codec in ("none", "gzip", "snappy", "lz4", "zstd"):
    benchmark(f"io: encode batches of 1,000 records, {_codec} (Kafka's bytes)", target="")(partial(_encode, _codec))
benchmark("io: encode batches of 1,000 records, snappy without the C kernels (Kafka's bytes)", target="")(
    partial(_encode, "snappy", "python")
)


# -- the decoders compared (issue #19: the decoder chosen by measurement) ------------------------------------
DECODER_RECORDS = 1_000_000


@cache
def workload_segment() -> Path:
    """The side-by-side workload's segment file (1M records in batches of 100, 100-byte values), written once."""
    from bench._workload import Workload, write_partition_dir

    return write_partition_dir(Workload(DECODER_RECORDS), scratch_dir("kcompact-bench-decoders-")) / f"{0:020d}.log"


def _decode(decoder: str) -> Measurement:
    """Read every batch of the workload's segment (CRC checked, keys numbered, values left in the bytes)."""
    from kcompact_nb.record import native_kernels

    path, native = workload_segment(), native_kernels.NATIVE
    if decoder == "C" and native is None:
        return Measurement(float("nan"), note="not built here: no C compiler at install")

    def work() -> tuple[int, int]:
        reader = SegmentFileReader(path)
        batches = reader if decoder != "record parser" else reader.decoded(reader.decode_batch)
        return sum(len(b.records) for b in batches), path.stat().st_size

    native_kernels.NATIVE = native if decoder == "C" else None
    try:
        return timed(work)
    finally:
        native_kernels.NATIVE = native


for _decoder, _what in (
    ("C", "blocks decoded by the C kernels"),
    ("numpy", "blocks decoded by numpy"),
    ("record parser", "batch by batch, the record parser"),
):
    benchmark(f"io: 1M-record segment read, {_what}", target="")(partial(_decode, _decoder))
