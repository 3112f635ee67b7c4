"""Kafka's v2 record format, the floor every other layer stands on: records and batches to bytes and back.

Records and v2 batches with their exact byte sizes (``DefaultRecord``, ``DefaultRecordBatch``), control records,
records held by column with their keys numbered (``PackedRecords``, ``KeyRegistry``: not Kafka's, the reader's), the
batch header's layout (``batch_header``), framed batches decoded into batches (``FramedBatchDecoder``: the records
parser, the block decoder, key numbering), the batch encoders (Kafka's bytes, or an estimate), each codec's
compressor and Kafka's decompression, and the C kernels (``c/``) in one table (``KERNELS``), each kernel under one
name with its C function and its numpy or Python twin, which gives the same results; ``native_kernels.NATIVE`` (the
built extension or None) is the one switch between them. Imports the standard library, numpy and the codecs'
bindings only; nothing is wired at import.
"""

from __future__ import annotations

from kcompact_nb.record import _batch_header as batch_header
from kcompact_nb.record import _native_kernels as native_kernels
from kcompact_nb.record._batch_encoder import (
    KafkaBatchEncoder,
    RebuiltBatches,
    batch_attributes_and_crc,
    encode_batch,
    placed_batches,
    stored_bytes,
)
from kcompact_nb.record._batch_header import java_long
from kcompact_nb.record._block_batches import BlockBatches, FramedBlock
from kcompact_nb.record._block_inflation import COPY, batch_codes
from kcompact_nb.record._cache_dir import cache_dir
from kcompact_nb.record._control_records import (
    ControlRecordType,
    control_record_key,
    control_record_type,
    end_txn_marker_value,
)
from kcompact_nb.record._crc import crc32c
from kcompact_nb.record._encoders import BatchEncoder, check_codec, compressed, compressed_placed
from kcompact_nb.record._errors import (
    CodecUnavailableError,
    CorruptBatchError,
    CrcMismatchError,
    InvalidMagicError,
    KafkaModelError,
    KcompactError,
    LogReadError,
    MissingCodecError,
    NativeLibraryError,
    OffsetOrderError,
    TruncatedBatchError,
)
from kcompact_nb.record._framed_batch_decoder import FramedBatchDecoder
from kcompact_nb.record._kernels import (
    decode_plain_batches,
    frame_batches,
    latest_entries,
    native_offset_table,
    uncompressed_view,
)
from kcompact_nb.record._key_numbering import release_key_table
from kcompact_nb.record._key_registry import KeyRegistry
from kcompact_nb.record._latest_entries import SpanEntries
from kcompact_nb.record._liblz4 import LIBLZ4_RELEASE, liblz4_built, liblz4_dir, liblz4_library
from kcompact_nb.record._libzstd import bundled_libzstd_release, full_libzstd, libzstd_dir, libzstd_library
from kcompact_nb.record._packed_records import PackedRecords, record_keys, record_offsets, record_values
from kcompact_nb.record._record import Record
from kcompact_nb.record._record_batch import (
    COMPRESSION_CODECS,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    RecordBatch,
    TimestampType,
)
from kcompact_nb.record._record_encoder import SpanColumns
from kcompact_nb.record._record_parser import NotPlain, RecordColumns, parse_records
from kcompact_nb.record._record_sizes import (
    RECORD_BATCH_OVERHEAD,
    Header,
    record_body_bytes,
    record_size_bytes,
    record_size_of_lengths,
    record_sizes_of_lengths,
)
from kcompact_nb.record._vector_decoder import PlainColumns

__all__ = [
    "batch_attributes_and_crc",
    "batch_codes",
    "batch_header",
    "BatchEncoder",
    "bundled_libzstd_release",
    "cache_dir",
    "check_codec",
    "CodecUnavailableError",
    "compressed",
    "compressed_placed",
    "COMPRESSION_CODECS",
    "control_record_key",
    "control_record_type",
    "ControlRecordType",
    "COPY",
    "CorruptBatchError",
    "CrcMismatchError",
    "decode_plain_batches",
    "encode_batch",
    "frame_batches",
    "end_txn_marker_value",
    "FramedBatchDecoder",
    "BlockBatches",
    "PlainColumns",
    "FramedBlock",
    "full_libzstd",
    "Header",
    "InvalidMagicError",
    "java_long",
    "crc32c",
    "KafkaBatchEncoder",
    "KafkaModelError",
    "KcompactError",
    "KeyRegistry",
    "latest_entries",
    "LIBLZ4_RELEASE",
    "liblz4_built",
    "liblz4_dir",
    "liblz4_library",
    "libzstd_dir",
    "libzstd_library",
    "LogReadError",
    "MissingCodecError",
    "native_kernels",
    "native_offset_table",
    "NativeLibraryError",
    "NO_PRODUCER_EPOCH",
    "NO_PRODUCER_ID",
    "placed_batches",
    "NO_SEQUENCE",
    "NO_TIMESTAMP",
    "NotPlain",
    "OffsetOrderError",
    "PackedRecords",
    "parse_records",
    "RebuiltBatches",
    "SpanColumns",
    "Record",
    "RECORD_BATCH_OVERHEAD",
    "record_keys",
    "record_offsets",
    "record_body_bytes",
    "record_size_bytes",
    "record_size_of_lengths",
    "record_sizes_of_lengths",
    "record_values",
    "RecordBatch",
    "RecordColumns",
    "release_key_table",
    "SpanEntries",
    "stored_bytes",
    "TimestampType",
    "TruncatedBatchError",
    "uncompressed_view",
]
