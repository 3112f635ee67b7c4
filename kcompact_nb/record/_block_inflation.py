"""A block of framed batches as if written uncompressed, so its compressed batches' records decode as columns.

The block decoder (:mod:`kcompact_nb.record._vector_decoder`) reads uncompressed batches; a compressed batch is
turned into one here: its 61-byte header with the codec bits cleared, then its records section decompressed as
Kafka reads it (:func:`kcompact_nb.record._decompression.decompress_records`), exactly the batch the segment
reader's own decoding parses. ``uncompressed_view`` lays every batch of a block out that way, one after
another: uncompressed batches copied, compressed ones inflated, and each other batch (no records, an unknown codec,
records that do not decompress) as its header alone, which the block decoder never reads as plain, so the reader's
own decoding gives its records or its error.

The C kernel (``inflate_batches`` in ``_native.c``) decompresses a whole block at once with the codecs' own
libraries (zlib, liblz4, libzstd, opened at run time; snappy decoded in C), a big block's batches in two runs on two
threads (the same bytes), and needs no Python codec package; it inflates a batch only when its records read cleanly
under the strictest reading of the codec's framing, and leaves every other batch, as the Python twin below does when
decompression fails. Both give the same view for every block (tests/record/test_block_inflation.py). A codec whose
library in C is another release than the one the Python twin decodes with (``lz4``'s and ``zstandard``'s bundled
ones) stays with the twin: releases differ in the corrupt frames they refuse (libzstd 1.5.4, Debian 12's, reads some
that 1.5.7, Kafka 4.4's, refuses). For zstd the kernel is given the twin's own release where ``make codecs`` built
it (``tools/libzstd_build.py``).
"""

from __future__ import annotations

import ctypes
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy

from kcompact_nb.record import _batch_header as L
from kcompact_nb.record._codec_releases import version_number
from kcompact_nb.record._decompression import decompress_records
from kcompact_nb.record._libzstd import full_libzstd
from kcompact_nb.record._native_kernels import c_kernels

COPY = 0
"""The code of a batch copied as it is (uncompressed); 1 to 4 are the codecs' ids (gzip, snappy, lz4, zstd)."""
HEADER_ONLY = 255
"""The code of a batch laid out as its header alone."""
_CODEC_BITS_BYTE = L.ATTRIBUTES_POSITION + 1
_NOT_INFLATED = frozenset((COPY, HEADER_ONLY))
"""The codes of batches laid out without decompressing anything."""


@dataclass(frozen=True)
class UncompressedView:
    """Every batch of a block as if written uncompressed: batch ``b`` is ``data[starts[b]:ends[b]]`` (int64 arrays),
    its header alone (:data:`L.RECORD_BATCH_OVERHEAD` bytes) when its records are not there."""

    data: bytes
    starts: Any
    ends: Any

    def has_records(self) -> Any:
        """Whether each batch's records are in the view (a bool array)."""
        return self.ends - self.starts > L.RECORD_BATCH_OVERHEAD


def batch_codes(attributes: Any, counts: Any) -> Any:
    """How ``uncompressed_view`` lays out batches of these attributes and records counts (int64 arrays): a
    uint8 array of :data:`COPY`, a codec's id (compressed records) or :data:`HEADER_ONLY` (no records to read, or
    an unknown codec)."""
    codec_ids = attributes & L.CODEC_MASK
    inflated = (codec_ids < len(L.COMPRESSION_CODECS)) & (counts > 0)
    return numpy.where(codec_ids == 0, COPY, numpy.where(inflated, codec_ids, HEADER_ONLY)).astype(numpy.uint8)


def inflate_in_c(block: bytes, starts: Any, ends: Any, codes: Any) -> UncompressedView | None:
    """The batches ``block[starts[b]:ends[b]]`` (int64 arrays) laid out by their ``codes`` (:func:`batch_codes`) as
    if uncompressed, or None when none of them has compressed records (the block reads as it is): by the C kernel's
    ``inflate_batches`` when it inflates all their codecs, else by the Python twin (:func:`inflate_with_python`)."""
    codec_ids = _codec_ids(codes)
    if not codec_ids:
        return None
    native = c_kernels()
    if {L.COMPRESSION_CODECS[c] for c in codec_ids} <= inflatable_in_c(native):
        places = numpy.empty((2, len(codes)), numpy.int64)
        data = native.inflate_batches(block, starts, ends, codes, places[0], places[1])
        return UncompressedView(data, places[0], places[1])
    return _inflate_with_python(block, starts.tolist(), ends.tolist(), codes.tolist())


@cache
def inflatable_in_c(native: Any) -> frozenset[str]:
    """The codecs the C kernel inflates as the Python twin does: those whose library it opened, lz4 and zstd only when
    that library is the release the twin's package bundles.

    First gives the kernel the twin's libzstd where ``make codecs`` built it (:func:`~._libzstd.full_libzstd`), in
    place of the system's."""
    zstd_in_c = _open_full_libzstd(native)
    return frozenset(codec for codec in native.inflatable_codecs() if _same_release(codec, zstd_in_c))


_SYSTEM_LIBRARIES: dict[str, tuple[str, str, str, Callable[[Any], int]]] = {
    "lz4": ("liblz4.so.1", "LZ4_versionNumber", "lz4", lambda module: module.library_version_number()),
    "zstd": ("libzstd.so.1", "ZSTD_versionNumber", "zstandard", lambda module: version_number(module.ZSTD_VERSION)),
}
"""codec -> the system library the C kernel opens, its version function, and the Python package the twin decodes
with and how it tells its library's version (major * 10000 + minor * 100 + patch)."""


def _open_full_libzstd(native: Any) -> int | None:
    """The version number of the built libzstd the kernel now decompresses zstd with, or None where none was built
    or it does not open (the kernel keeps the system's)."""
    library = full_libzstd()
    if library is None or not library.is_file():
        return None
    try:
        return int(native.open_zstd(str(library)))
    except (OSError, AttributeError):  # AttributeError: a kernel built before open_zstd
        return None


def _same_release(codec: str, zstd_in_c: int | None) -> bool:
    if codec not in _SYSTEM_LIBRARIES:
        return True  # gzip: Python's zlib is the system's; snappy: decoded in C by the project
    library, function, package, version_of = _SYSTEM_LIBRARIES[codec]
    try:
        # zstd: the built libzstd the kernel was given, else the system's it opened, as for lz4
        in_c = zstd_in_c if codec == "zstd" and zstd_in_c is not None else getattr(ctypes.CDLL(library), function)()
        bundled = version_of(importlib.import_module(package))
    except (OSError, AttributeError, ImportError):
        return False
    return bool(in_c == bundled)


def inflate_with_python(block: bytes, starts: Any, ends: Any, codes: Any) -> UncompressedView | None:
    """:func:`inflate_in_c`'s twin, batch by batch with the codecs' Python packages."""
    if not _codec_ids(codes):
        return None
    return _inflate_with_python(block, starts.tolist(), ends.tolist(), codes.tolist())


def _inflate_with_python(block: bytes, starts: list[int], ends: list[int], codes: list[int]) -> UncompressedView:
    """The batches laid out batch by batch with the codecs' Python packages."""
    parts, bounds, position = [], [], 0
    for start, end, code in zip(starts, ends, codes, strict=True):
        part = block[start:end] if code == COPY else _inflated(block[start:end], code)
        parts.append(part)
        bounds.append((position, position + len(part)))
        position += len(part)
    view_starts, view_ends = numpy.array(bounds, numpy.int64).reshape(-1, 2).T.copy()  # each row contiguous
    return UncompressedView(b"".join(parts), view_starts, view_ends)


def _codec_ids(codes: Any) -> set[int]:
    """The codecs' codes of the batches with compressed records (a set of a few ids: cheap for a rewritten batch's
    one code)."""
    return set(codes.tolist()) - _NOT_INFLATED


def _inflated(batch: bytes, code: int) -> bytes:
    """The batch's header with the codec bits cleared, then its records decompressed (its header alone when they
    do not decompress: the reader's own decoding then says why)."""
    header = bytearray(batch[: L.RECORD_BATCH_OVERHEAD])
    header[_CODEC_BITS_BYTE] &= ~L.CODEC_MASK
    if code == HEADER_ONLY:
        return bytes(header)
    try:
        records = decompress_records(L.COMPRESSION_CODECS[code], batch[L.RECORD_BATCH_OVERHEAD :])
    except Exception:  # noqa: BLE001 - any failure here is the reader's to report, batch by batch
        return bytes(header)
    return bytes(header) + records
