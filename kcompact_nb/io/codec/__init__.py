"""The v2 record codec: batches' bytes to records and back, byte for byte as Kafka's clients do.

Batch header layout (``batch_header``), the records parser and its numpy decoder, key numbering, the batch
encoder and record encoder, each codec's compressor and Kafka's decompression (batch by batch, and a block at a time
so compressed batches decode as plain ones), and the C kernels
(``_native.c``), chosen in one place, :mod:`~kcompact_nb.io.codec.native_kernels` (``NATIVE``: the built
extension or None), where each kernel's numpy or Python twin gives the same results.
"""

from __future__ import annotations

from kcompact_nb.io.codec import _batch_header as batch_header
from kcompact_nb.io.codec import _native_kernels as native_kernels
from kcompact_nb.io.codec._batch_encoder import KafkaBatchEncoder, encode_batch, raw_matches
from kcompact_nb.io.codec._block_batches import PACKED_MIN_RECORDS, BlockBatches, FramedBlock, record_batch
from kcompact_nb.io.codec._block_inflation import COPY, batch_codes, uncompressed_view
from kcompact_nb.io.codec._decompression import decompress_records
from kcompact_nb.io.codec._framed_batch_decoder import FramedBatchDecoder
from kcompact_nb.io.codec._key_numbering import KeyNumbering, key_numbering, release_key_table
from kcompact_nb.io.codec._libzstd import SOURCE_PACKAGES as LIBZSTD_SOURCE_PACKAGES
from kcompact_nb.io.codec._libzstd import build_libzstd, built_releases, libzstd_dir
from kcompact_nb.io.codec._offset_table import native_offset_table
from kcompact_nb.io.codec._record_parser import NotPlain, RecordColumns, parse_records
from kcompact_nb.io.codec._vector_decoder import decode_plain_batches

__all__ = [
    "COPY",
    "LIBZSTD_SOURCE_PACKAGES",
    "build_libzstd",
    "built_releases",
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
