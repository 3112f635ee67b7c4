"""The codec a broker stores a producer's batch with (``LogValidator``, ``BrokerCompressionType``).

The codecs, their levels and the encoders that write them are the record format's (:mod:`kcompact_nb.record`); what
is the topic's to decide (``compression.type`` and ``compression.<codec>.level``) is here.
"""

from __future__ import annotations

from kcompact_nb.core.model._config import TopicConfig

TOPIC_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
"""``compression.type`` values (``BrokerCompressionType``)."""


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
