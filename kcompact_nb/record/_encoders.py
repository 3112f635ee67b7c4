"""Compressed batches: Kafka's codecs and levels, and the encoders that size and write them.

A compressed batch's size is the size of bytes that only a real codec produces, so whoever builds one asks a
:class:`BatchEncoder` for them: :class:`~kcompact_nb.record.KafkaBatchEncoder` writes Kafka's bytes
(``MemoryRecordsBuilder`` with each codec's output stream) and is what logs use; :class:`EstimatingEncoder` only
estimates, and its sizes are marked ``estimated`` on the batch (``RecordBatch.size_estimated``) and on its segment.

Levels follow KIP-390 (``CompressionType``, ``compression.<codec>.level``, Kafka 3.8 and later):

======  ===================  ==============================================
codec   levels               default
======  ===================  ==============================================
gzip    1-9                  -1 (``Deflater.DEFAULT_COMPRESSION``, zlib's 6)
lz4     1-17                 9 (lz4-java's fast compressor; others use HC)
zstd    -131072-22           3
snappy  none                 -
======  ===================  ==============================================
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from kcompact_nb.record._codec_releases import KafkaRelease
from kcompact_nb.record._errors import KafkaModelError
from kcompact_nb.record._packed_records import record_keys, record_values
from kcompact_nb.record._record_batch import COMPRESSION_CODECS, RecordBatch
from kcompact_nb.record._record_sizes import RECORD_BATCH_OVERHEAD

DEFAULT_LEVELS = {"gzip": -1, "lz4": 9, "zstd": 3}
"""``CompressionType.<codec>.defaultLevel()``: what the cleaner always uses (``buildRetainedRecordsInto``)."""


@dataclass(frozen=True)
class EncodedBatch:
    """A batch's bytes as an encoder produced them.

    ``data`` is the whole batch (header, CRC, compressed records), or None when the encoder only
    estimated its size; ``estimated`` says the bytes (or size) may differ from what Kafka writes.
    """

    size_bytes: int
    data: bytes | None
    estimated: bool


class BatchEncoder(Protocol):
    """Encodes a batch whose ``compression`` names a codec (``MemoryRecordsBuilder`` + the codec's stream)."""

    def encode(self, batch: RecordBatch, *, level: int | None, kafka_version: KafkaRelease) -> EncodedBatch:
        """``batch`` with its records compressed by ``batch.compression`` at ``level`` (None: the default)
        as the given Kafka release writes it."""
        ...

    def check_available(self, codec: str) -> None:
        """Raise a clear error (a :class:`KcompactError`) naming what to install when ``codec`` cannot be encoded."""
        ...


@runtime_checkable
class PlacedEncoder(Protocol):
    """An encoder that also compresses batches laid out by :func:`~kcompact_nb.record.placed_batches` at once."""

    def encode_placed(
        self, batches: Sequence[RecordBatch], *, level: int | None, kafka_version: KafkaRelease
    ) -> list[EncodedBatch]:
        """What :meth:`BatchEncoder.encode` gives each batch, from the uncompressed bytes its records are spans of (a
        header, then the records section) without writing its records again."""
        ...


class EstimatingEncoder:
    """A size from zlib's fastest level over the keys and values, marked estimated.

    Not Kafka's bytes: a model that needs no codec at all (a test's, a what-if's) can size its batches with it.
    """

    def encode(self, batch: RecordBatch, *, level: int | None, kafka_version: KafkaRelease) -> EncodedBatch:
        fields = [f for f in (*record_keys(batch.records), *record_values(batch.records)) if f is not None]
        body = zlib.compress(b"".join(fields), 1)
        records_overhead = 2 * len(batch.records)  # about a length and a delta byte or two per record
        return EncodedBatch(RECORD_BATCH_OVERHEAD + len(body) + records_overhead, None, True)

    def check_available(self, codec: str) -> None:
        """Every codec can be estimated."""


def check_codec(codec: str, where: str) -> str:
    """``codec`` when it is one of Kafka's (``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd``); else a clear error."""
    if codec not in COMPRESSION_CODECS:
        message = f"{where}: unknown compression {codec!r}; expected one of {', '.join(COMPRESSION_CODECS)}"
        raise KafkaModelError(message)
    return codec


def compressed(
    batch: RecordBatch, encoder: BatchEncoder, *, level: int | None, kafka_version: KafkaRelease
) -> RecordBatch:
    """``batch`` (sized uncompressed) with the size and bytes of its compressed form; unchanged when
    its codec is ``none`` or it has no records (an empty batch is never compressed, ``writeEmptyHeader``)."""
    if not _compresses(batch):
        return batch
    encoded = encoder.encode(batch, level=level, kafka_version=kafka_version)
    return batch.stored_as(encoded.size_bytes, encoded.data, estimated=encoded.estimated)


def compressed_placed(
    batches: Sequence[RecordBatch], encoder: BatchEncoder, *, level: int | None, kafka_version: KafkaRelease
) -> list[RecordBatch]:
    """:func:`compressed` for batches :func:`~kcompact_nb.record.placed_batches` laid out: at once when the encoder
    is a :class:`PlacedEncoder`, else one by one."""
    if not isinstance(encoder, PlacedEncoder):
        return [compressed(batch, encoder, level=level, kafka_version=kafka_version) for batch in batches]
    chosen = [index for index, batch in enumerate(batches) if _compresses(batch)]
    encoded = encoder.encode_placed([batches[index] for index in chosen], level=level, kafka_version=kafka_version)
    stored = list(batches)
    for index, bytes_of in zip(chosen, encoded, strict=True):
        stored[index] = batches[index].stored_as(bytes_of.size_bytes, bytes_of.data, estimated=bytes_of.estimated)
    return stored


def _compresses(batch: RecordBatch) -> bool:
    """Whether ``batch`` is written compressed: a codec, and records (an empty batch never is: ``writeEmptyHeader``)."""
    return batch.compression != "none" and bool(batch.records)
