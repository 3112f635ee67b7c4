"""The v2 record codec: batches' bytes to records and back, byte for byte as Kafka's clients do.

Batch header layout (``batch_header``), framed batches decoded into core batches (``FramedBatchDecoder``: the records
parser, the block decoder, key numbering), the batch encoder and record encoder, each codec's compressor and Kafka's
decompression (batch by batch, and a block at a time so compressed batches decode as plain ones), and the C kernels
(``_native.c``) in one table (:mod:`kcompact_nb.io.codec._kernels`: ``KERNELS``), each kernel under one name with its C
function and its numpy or Python twin, which gives the same results; ``native_kernels.NATIVE`` (the built extension or
None) is the one switch between them.
"""

from __future__ import annotations

from kcompact_nb.io.codec import _batch_header as batch_header
from kcompact_nb.io.codec import _native_kernels as native_kernels
from kcompact_nb.io.codec._batch_encoder import KafkaBatchEncoder, encode_batch, raw_matches
from kcompact_nb.io.codec._block_batches import PACKED_MIN_RECORDS, BlockBatches, FramedBlock, record_batch
from kcompact_nb.io.codec._block_inflation import COPY, batch_codes
from kcompact_nb.io.codec._decompression import decompress_records
from kcompact_nb.io.codec._framed_batch_decoder import FramedBatchDecoder
from kcompact_nb.io.codec._kernels import (
    KERNELS,
    decode_plain_batches,
    key_numbering,
    latest_entries,
    native_offset_table,
    uncompressed_view,
)
from kcompact_nb.io.codec._key_numbering import KeyNumbering, release_key_table
from kcompact_nb.io.codec._latest_entries import SpanEntries
from kcompact_nb.io.codec._liblz4 import LIBLZ4_RELEASE, build_liblz4, liblz4_built, liblz4_dir
from kcompact_nb.io.codec._libzstd import SOURCE_PACKAGES as LIBZSTD_SOURCE_PACKAGES
from kcompact_nb.io.codec._libzstd import build_full_libzstd, build_libzstd, built_releases, full_libzstd, libzstd_dir
from kcompact_nb.io.codec._record_parser import NotPlain, RecordColumns, parse_records

__all__ = [
    "KERNELS",
    "SpanEntries",
    "latest_entries",
    "COPY",
    "LIBLZ4_RELEASE",
    "LIBZSTD_SOURCE_PACKAGES",
    "build_full_libzstd",
    "build_liblz4",
    "build_libzstd",
    "built_releases",
    "full_libzstd",
    "liblz4_built",
    "liblz4_dir",
    "libzstd_dir",
    "BlockBatches",
    "FramedBatchDecoder",
    "FramedBlock",
    "KafkaBatchEncoder",
    "KeyNumbering",
    "NotPlain",
    "PACKED_MIN_RECORDS",
    "RecordColumns",
    "batch_codes",
    "batch_header",
    "decode_plain_batches",
    "decompress_records",
    "encode_batch",
    "key_numbering",
    "native_kernels",
    "native_offset_table",
    "parse_records",
    "raw_matches",
    "record_batch",
    "release_key_table",
    "uncompressed_view",
]
