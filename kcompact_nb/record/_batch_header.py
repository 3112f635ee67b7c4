"""The v2 record batch header as stored on disk, and the codecs a batch may use.

Its fields, byte offset by byte offset, are tabled once, in :mod:`kcompact_nb.record._record_sizes`;
the positions and masks below follow that table.
"""

from __future__ import annotations

import struct

# the sizes' constants, re-exported under the names the readers and the writer use
from kcompact_nb.record._record_batch import COMPRESSION_CODECS as COMPRESSION_CODECS
from kcompact_nb.record._record_sizes import LOG_OVERHEAD as LOG_OVERHEAD
from kcompact_nb.record._record_sizes import RECORD_BATCH_OVERHEAD as RECORD_BATCH_OVERHEAD

INT_MAX = 2**31 - 1
"""Java's ``Integer.MAX_VALUE``: the largest batch length and ``lastOffsetDelta``."""
LONG_MAX = 2**63 - 1
"""Java's ``Long.MAX_VALUE``: the largest offset and timestamp."""

HEADER = struct.Struct(">qiibIhiqqqhii")
"""All 13 header fields, in the order of the table above."""
LENGTH_AND_OFFSET = struct.Struct(">qi")
CRC = struct.Struct(">I")

LENGTH_POSITION = 8
MAGIC_POSITION = 16
CRC_POSITION = 17
ATTRIBUTES_POSITION = 21
MIN_BATCH_LENGTH = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD

CODEC_MASK = 0x07
LOG_APPEND_TIME_BIT = 0x08
TRANSACTIONAL_BIT = 0x10
CONTROL_BIT = 0x20
DELETE_HORIZON_BIT = 0x40


def java_long(value: int) -> int:
    """``value`` as Java's ``long`` arithmetic leaves it: wrapped into [-2^63, 2^63 - 1] (a sum past
    ``Long.MAX_VALUE`` is negative, as ``currentTime + deleteRetentionMs`` is in ``MemoryRecords.filterTo``)."""
    return (value + 2**63) % 2**64 - 2**63


CODEC_PACKAGES = {"gzip": "gzip", "snappy": "python-snappy", "lz4": "lz4", "zstd": "zstandard"}
"""The pip package kafka-python needs for each codec (gzip is in the standard library)."""
