"""Compressed batches in the model: Kafka's codecs and levels, and the encoder the core sizes them with.

A compressed batch's size is the size of bytes that only a real codec produces, so the core (which has
no codec library) asks a :class:`BatchEncoder` for them. :mod:`kcompact_nb.io` provides the one that writes
Kafka's bytes (``MemoryRecordsBuilder`` with each codec's output stream) and registers it as the default
when imported; without it the core falls back to :class:`EstimatingEncoder`, whose sizes are marked
``estimated`` on the batch (``RecordBatch.size_estimated``) and on its segment.

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
from dataclasses import dataclass, replace
from typing import Protocol

from kcompact_nb.core.model._config import TopicConfig
from kcompact_nb.core.model._errors import KafkaModelError
from kcompact_nb.core.model._packed_records import record_keys, record_values
from kcompact_nb.core.model._record_sizes import RECORD_BATCH_OVERHEAD
from kcompact_nb.core.model._records import COMPRESSION_CODECS, RecordBatch
from kcompact_nb.core.model._versions import KafkaVersion

DEFAULT_LEVELS = {"gzip": -1, "lz4": 9, "zstd": 3}
"""``CompressionType.<codec>.defaultLevel()``: what the cleaner always uses (``buildRetainedRecordsInto``)."""
TOPIC_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
"""``compression.type`` values (``BrokerCompressionType``)."""


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
    """Encodes a model batch whose ``compression`` names a codec (``MemoryRecordsBuilder`` + the codec's stream)."""

    def encode(self, batch: RecordBatch, *, level: int | None, kafka_version: KafkaVersion) -> EncodedBatch:
        """``batch`` with its records compressed by ``batch.compression`` at ``level`` (None: the default)
        as the given Kafka release writes it."""
        ...

    def check_available(self, codec: str) -> None:
        """Raise a clear error (a :class:`KcompactError`) naming what to install when ``codec`` cannot be encoded."""
        ...


class EstimatingEncoder:
    """The core's fallback: a size from zlib's fastest level over the keys and values, marked estimated.

    Not Kafka's bytes: it only keeps the model going where no real codec is at hand (import
    :mod:`kcompact_nb.io` for Kafka's exact bytes).
    """

    def encode(self, batch: RecordBatch, *, level: int | None, kafka_version: KafkaVersion) -> EncodedBatch:
        fields = [f for f in (*record_keys(batch.records), *record_values(batch.records)) if f is not None]
        body = zlib.compress(b"".join(fields), 1)
        records_overhead = 2 * len(batch.records)  # about a length and a delta byte or two per record
        return EncodedBatch(RECORD_BATCH_OVERHEAD + len(body) + records_overhead, None, True)

    def check_available(self, codec: str) -> None:
        """Every codec can be estimated."""


_DEFAULT: list[BatchEncoder] = [EstimatingEncoder()]


def default_encoder() -> BatchEncoder:
    """The encoder logs use unless given one: io's Kafka encoder, which the package root sets before any of its
    modules runs (``kcompact_nb/__init__.py``); core's own estimate only where none was set."""
    return _DEFAULT[0]


def set_default_encoder(encoder: BatchEncoder) -> None:
    """Make ``encoder`` the one new logs and passes use by default (the package root sets io's Kafka encoder)."""
    _DEFAULT[0] = encoder


def check_codec(codec: str, where: str) -> str:
    """``codec`` when it is one of Kafka's (``none``, ``gzip``, ``snappy``, ``lz4``, ``zstd``); else a clear error."""
    if codec not in COMPRESSION_CODECS:
        message = f"{where}: unknown compression {codec!r}; expected one of {', '.join(COMPRESSION_CODECS)}"
        raise KafkaModelError(message)
    return codec


def topic_level(config: TopicConfig, codec: str) -> int | None:
    """The topic's ``compression.<codec>.level`` (None for snappy and none, which have no level)."""
    levels = {
        "gzip": config.compression_gzip_level,
        "lz4": config.compression_lz4_level,
        "zstd": config.compression_zstd_level,
    }
    return levels.get(codec)


def stored_compression(config: TopicConfig, producer_codec: str) -> tuple[str, int | None]:
    """The codec and level a broker stores a producer's batch with (``LogValidator``), level None for
    the producer's own bytes or a codec without levels.

    ``compression.type`` ``producer`` keeps the producer's codec and bytes; a codec equal to the
    producer's keeps them too (``validateMessagesAndAssignOffsetsCompressed``: in-place assignment);
    any other value recompresses with that codec at the topic's ``compression.<codec>.level``
    (``BrokerCompressionType.targetCompression``), ``uncompressed`` meaning none.
    """
    target = config.compression_type
    if target == "producer":
        return producer_codec, None
    codec = "none" if target == "uncompressed" else target
    if codec == producer_codec:
        return codec, None
    return codec, topic_level(config, codec)


def compressed(
    batch: RecordBatch, encoder: BatchEncoder, *, level: int | None, kafka_version: KafkaVersion
) -> RecordBatch:
    """``batch`` (sized uncompressed) with the size and bytes of its compressed form; unchanged when
    its codec is ``none`` or it has no records (an empty batch is never compressed, ``writeEmptyHeader``)."""
    if batch.compression == "none" or not batch.records:
        return batch
    encoded = encoder.encode(batch, level=level, kafka_version=kafka_version)
    return replace(batch, size_bytes=encoded.size_bytes, raw=encoded.data, size_estimated=encoded.estimated)
