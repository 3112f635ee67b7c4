"""The v2 record batch header as stored on disk, and the codecs a batch may use.

Batch header (``DefaultRecordBatch``), 61 bytes, big-endian::

    offset  field                  bytes   notes
    0       baseOffset             8
    8       batchLength            4       total batch size - 12 (LOG_OVERHEAD)
    12      partitionLeaderEpoch   4       not covered by the CRC
    16      magic                  1       2
    17      crc                    4       CRC-32C over bytes 21..end
    21      attributes             2       bits 0-2 codec, 3 LogAppendTime, 4 transactional,
                                           5 control, 6 hasDeleteHorizonMs
    23      lastOffsetDelta        4
    27      baseTimestamp          8       or the delete horizon when bit 6 is set
    35      maxTimestamp           8
    43      producerId             8
    51      producerEpoch          2
    53      baseSequence           4
    57      recordsCount           4
    61      records                ...     compressed as one block when the codec is not none
"""

from __future__ import annotations

import struct

# the core's constants, re-exported under the names the readers and the writer use
from kcompact_nb.core._config_keys import INT_MAX as INT_MAX
from kcompact_nb.core._config_keys import LONG_MAX as LONG_MAX
from kcompact_nb.core._sizes import LOG_OVERHEAD as LOG_OVERHEAD
from kcompact_nb.core._sizes import RECORD_BATCH_OVERHEAD

BATCH_OVERHEAD = RECORD_BATCH_OVERHEAD

HEADER = struct.Struct(">qiibIhiqqqhii")
"""All 13 header fields, in the order of the table above."""
LENGTH_AND_OFFSET = struct.Struct(">qi")
CRC = struct.Struct(">I")

MAGIC_POSITION = 16
CRC_POSITION = 17
ATTRIBUTES_POSITION = 21
MIN_BATCH_LENGTH = BATCH_OVERHEAD - LOG_OVERHEAD

CODEC_MASK = 0x07
LOG_APPEND_TIME_BIT = 0x08
TRANSACTIONAL_BIT = 0x10
CONTROL_BIT = 0x20
DELETE_HORIZON_BIT = 0x40

CODEC_NAMES = ("none", "gzip", "snappy", "lz4", "zstd")
"""Codec ids 0-4 (``CompressionType``); ids 5-7 are invalid."""
CODEC_PACKAGES = {"gzip": "gzip", "snappy": "python-snappy", "lz4": "lz4", "zstd": "zstandard"}
"""The pip package kafka-python needs for each codec (gzip is in the standard library)."""

