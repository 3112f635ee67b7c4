"""The table of the C kernels and their twins: each hot loop under one name, its C function and its numpy or Python
twin side by side, with the same signature and the same results (tests/record/test_native.py and the ``kernels``
fixture of tests/io).

Callers call the name; it runs the C function while the extension is built (``_native_kernels.NATIVE``, the one
switch) and the twin otherwise. Where the C kernel works a whole block at once and
the twin batch by batch or key by key, a thin ``..._in_c`` adapter beside the twin gives it the twin's signature.
"""

from __future__ import annotations

from typing import Any

from kcompact_nb.record._batch_framing import frame_in_c, frame_with_python
from kcompact_nb.record._block_inflation import UncompressedView, inflate_in_c, inflate_with_python
from kcompact_nb.record._crc import crc32c
from kcompact_nb.record._key_numbering import KeyNumbering, NativeKeyNumbering, native_key_numbering
from kcompact_nb.record._latest_entries import NumberedLatestEntries, SpanEntries, latest_entries_in_c
from kcompact_nb.record._native_kernels import Kernel, c_kernels
from kcompact_nb.record._offset_table import NativeOffsetTable, no_offset_table, offset_table_in_c
from kcompact_nb.record._packed_records import PackedRecords
from kcompact_nb.record._record_encoder import (
    Placed,
    PlacedBatches,
    SpanColumns,
    placed_batches_in_c,
    placed_batches_in_python,
    placed_records_section_in_c,
    placed_records_section_in_python,
    records_section_in_c,
    records_section_in_python,
)
from kcompact_nb.record._record_sizes import records_size
from kcompact_nb.record._snappy import raw_compress
from kcompact_nb.record._vector_decoder import PlainColumns, decode_plain_in_c, decode_plain_with_numpy


def _snappy_in_c(data: Any, top_bits_hash: bool) -> bytes:
    compressed: bytes = c_kernels().snappy_compress(data, top_bits_hash)
    return compressed


decode_plain_batches: Kernel[[bytes, Any, Any, Any, Any, Any, Any], PlainColumns] = Kernel(
    "decode_plain_batches", ("decode_plain",), decode_plain_in_c, decode_plain_with_numpy
)
"""The records of a block's plain uncompressed batches, as columns (:mod:`kcompact_nb.record._vector_decoder`)."""

uncompressed_view: Kernel[[bytes, Any, Any, Any], UncompressedView | None] = Kernel(
    "uncompressed_view", ("inflate_batches", "inflatable_codecs", "open_zstd"), inflate_in_c, inflate_with_python
)
"""A block's batches laid out as if uncompressed (:mod:`kcompact_nb.record._block_inflation`)."""

key_numbering: Kernel[[Any], KeyNumbering | NativeKeyNumbering] = Kernel(
    "key_numbering", ("KeyTable",), native_key_numbering, KeyNumbering
)
"""A numbering of keys given as byte spans into a :class:`KeyRegistry` (:mod:`kcompact_nb.record._key_numbering`)."""

records_section: Kernel[[Any, int, int], bytes] = Kernel(
    "records_section", ("records_section",), records_section_in_c, records_section_in_python
)
"""The records section of a rebuilt batch (:mod:`kcompact_nb.record._record_encoder`)."""

placed_records_section: Kernel[[PackedRecords, int, int, int], Placed] = Kernel(
    "placed_records_section",
    ("placed_records_section",),
    placed_records_section_in_c,
    placed_records_section_in_python,
)
"""The records section of a batch rebuilt from spans of its source's bytes, and where its keys and values land
(:mod:`kcompact_nb.record._record_encoder`)."""

placed_batches: Kernel[[bytes, SpanColumns, Any, Any], PlacedBatches] = Kernel(
    "placed_batches", ("placed_batches",), placed_batches_in_c, placed_batches_in_python
)
"""Whole uncompressed batches rebuilt from spans of a block's bytes, their headers and CRC-32C written, and where their
keys and values land (:mod:`kcompact_nb.record._record_encoder`)."""

snappy_compress: Kernel[[Any, bool], bytes] = Kernel(
    "snappy_compress", ("snappy_compress",), _snappy_in_c, raw_compress
)
"""snappy-java's raw compressor, for one block (:mod:`kcompact_nb.record._snappy`)."""

native_offset_table: Kernel[[], NativeOffsetTable | None] = Kernel(
    "native_offset_table", ("OffsetTable",), offset_table_in_c, no_offset_table
)
"""A streamed pass's offset table of key bytes, or None for a dict (:mod:`kcompact_nb.record._offset_table`)."""

latest_entries: Kernel[[], SpanEntries] = Kernel(
    "latest_entries", ("OffsetTable",), latest_entries_in_c, NumberedLatestEntries
)
"""Where a streamed offset-bucket tally keeps each key's entry (:mod:`kcompact_nb.record._latest_entries`)."""

frame_batches: Kernel[[bytes, bool], tuple[list[int], int]] = Kernel(
    "frame_batches", ("frame_batches",), frame_in_c, frame_with_python
)
"""A block of a segment file framed into its whole CRC-checked batches (:mod:`kcompact_nb.record._batch_framing`)."""

KERNELS: tuple[Kernel[..., Any], ...] = (
    frame_batches,
    crc32c,
    decode_plain_batches,
    uncompressed_view,
    key_numbering,
    records_section,
    placed_records_section,
    placed_batches,
    records_size,
    snappy_compress,
    native_offset_table,
    latest_entries,
)
"""Every kernel: the C extension's exports (their ``native`` names) each belong to one of these."""
