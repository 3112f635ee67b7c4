"""The records section of a compressed batch, byte for byte as Kafka writes it (``Compression.wrapForOutput``).

``MemoryRecordsBuilder`` writes the records through the codec's output stream; each stream frames the
codec's output its own way, and the codec library decides the compressed bytes. Measured against
``MemoryRecordsBuilder`` of kafka-clients 4.4.0 and 3.9.2 (``tests/broker/test_kafka_compression.py``):

======  =========================================================  =======================================
codec   Kafka's stream                                             here
======  =========================================================  =======================================
gzip    ``GzipOutputStream``: java.util.zip's 10-byte header       zlib raw deflate (window 15, memLevel 8)
        (mtime 0, XFL 0, OS 255 from Java 16 on), deflate at the   at the same level, the same header and
        level (-1 = 6), CRC-32 and size (little-endian)            trailer
snappy  snappy-java's ``SnappyOutputStream``: magic ``\\x82SNAPPY\\0`` the same framing around
        version 1, compatible version 1 (int32 BE each), then     :func:`kcompact_nb.record._snappy.raw_compress`
        per 32 KiB of input: int32 BE length + raw snappy block    (the algorithm of the release's snappy; in C
                                                                   when the kernels were built)
lz4     ``Lz4BlockOutputStream``: LZ4 frame, FLG 0x60 (version 1,  ``lz4.frame`` with 64 KiB independent
        independent blocks, no checksums, no size), BD 0x40        blocks and no checksums or size: the same
        (64 KiB), header checksum, blocks (LE32 length, bit 31 =   frame; level 9 is lz4-java's fast
        stored), end mark 0; level 9 fast compressor, others HC    compressor, other levels its HC ones
                                                                   (``LZ4_compress_HC`` per block; levels
                                                                   1-2 of lz4 1.10 by :mod:`._liblz4`)
zstd    zstd-jni's ``ZstdOutputStreamNoFinalizer`` behind a 16 KiB a streaming compressor (no checksum, no
        buffer: streamed data, one flush (ends the block), the    content size) fed the data, flushed once,
        end of the frame                                           then ended; libzstd of the same release
======  =========================================================  =======================================

Where the bytes depend on the native library Kafka bundles, the release matters (``_codec_releases``:
libzstd, lz4 and snappy per ``kafka.version``); with no matching library here the bytes are still a valid
batch but marked estimated. Empty inputs never reach here: Kafka never compresses an empty batch (``writeEmptyHeader``).
"""

from __future__ import annotations

import importlib
import struct
import threading
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from kcompact_nb.record._codec_releases import KafkaRelease, lz4_release, snappy_release, zstd_release
from kcompact_nb.record._encoders import DEFAULT_LEVELS
from kcompact_nb.record._errors import CodecUnavailableError, KafkaModelError
from kcompact_nb.record._kernels import snappy_compress
from kcompact_nb.record._liblz4 import LIBLZ4_RELEASE, liblz4_built, liblz4_compress_hc
from kcompact_nb.record._libzstd import built_releases, libzstd_compress
from kcompact_nb.record._snappy import NEWER_HASH_FROM

_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
"""ID1 ID2, CM 8 (deflate), FLG 0, MTIME 0, XFL 0, OS 255 (``GZIPOutputStream.writeHeader``, Java 16+)."""
_ZLIB_DEFAULT_LEVEL = 6
"""``Deflater.DEFAULT_COMPRESSION`` (-1) is zlib's ``Z_DEFAULT_COMPRESSION``, level 6."""
_SNAPPY_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
_SNAPPY_BLOCK_BYTES = 32 * 1024
"""``SnappyOutputStream.DEFAULT_BLOCK_SIZE``."""
_SNAPPY_REPRODUCED = ((1, 1, 7), (1, 1, 8), (1, 1, 10))
"""The snappy releases :func:`kcompact_nb.record._snappy.raw_compress` follows, checked against kafka-clients'
bytes (tests/broker/test_kafka_compression.py): snappy-java 1.1.7.x (Kafka 2.0-2.7), 1.1.8.x (2.8-3.4) and
1.1.10.x (3.5 on)."""
_LZ4_FAST_LEVEL = 9
"""``CompressionType.LZ4.defaultLevel()``: ``Lz4BlockOutputStream`` then uses the fast compressor."""
_LZ4_BLOCK_BYTES = 64 * 1024
"""``Lz4BlockOutputStream.BLOCKSIZE_64KB``."""

Compress = Callable[[bytes, int], bytes]
"""``compress(data, level)`` by one release of a codec library."""

PACKAGES = {"snappy": None, "gzip": None, "lz4": "lz4", "zstd": "zstandard"}
"""The pip package each codec's encoder needs (gzip and snappy need none)."""


@dataclass(frozen=True)
class CompressedRecords:
    """A compressed records section; ``exact`` is False when it may differ from Kafka's bytes."""

    data: bytes
    exact: bool


def compress_records(codec: str, body: bytes, *, level: int | None, version: KafkaRelease) -> CompressedRecords:
    """``body`` (the uncompressed records of a batch) as Kafka ``version`` compresses it with ``codec`` at ``level``.

    ``level`` None is the codec's default, which the cleaner always uses (``buildRetainedRecordsInto``).
    Raises :class:`CodecUnavailableError` when the codec's Python package is missing.
    """
    return records_compressor(codec, level=level, version=version)(body)


def records_compressor(codec: str, *, level: int | None, version: KafkaRelease) -> Callable[[bytes], CompressedRecords]:
    """:func:`compress_records` with ``codec``, ``level`` and ``version``, its library release looked up once: for the
    many batches a pass rewrites."""
    chosen = DEFAULT_LEVELS.get(codec, -1) if level is None else level
    if codec == "gzip":
        return lambda body: CompressedRecords(_gzip(body, chosen), True)
    if codec == "snappy":
        release = snappy_release(version)
        top_bits_hash, exact = release < NEWER_HASH_FROM, release in _SNAPPY_REPRODUCED
        return lambda body: CompressedRecords(_snappy(body, top_bits_hash), exact)
    if codec == "lz4":
        if chosen < 3:  # lz4.frame runs levels 1-2 with its fast compressor; lz4-java's HC runs them
            hc, exact = _of_release(_lz4_hc_compressors(), lz4_release(version))
            return lambda body: CompressedRecords(_lz4_hc_frame(body, chosen, hc), exact)
        return lambda body: CompressedRecords(_lz4_fast_frame(body, chosen), True)
    if codec == "zstd":
        compress, exact = _of_release(_available_zstd_bindings(), zstd_release(version))
        return lambda body: CompressedRecords(compress(body, chosen), exact)
    raise KafkaModelError(f"not a compression codec: {codec!r}; expected gzip, snappy, lz4 or zstd")


def check_codec_available(codec: str) -> None:
    """Raise :class:`CodecUnavailableError` when ``codec``'s encoder cannot run here (before any work starts)."""
    if codec == "zstd":
        _available_zstd_bindings()
    if codec == "lz4":
        _required("lz4.frame", "lz4")


def _gzip(body: bytes, level: int) -> bytes:
    deflater = zlib.compressobj(_ZLIB_DEFAULT_LEVEL if level == -1 else level, zlib.DEFLATED, -zlib.MAX_WBITS)
    deflated = deflater.compress(body) + deflater.flush()
    return _GZIP_HEADER + deflated + struct.pack("<II", zlib.crc32(body), len(body) & 0xFFFFFFFF)


def _snappy(body: bytes, top_bits_hash: bool) -> bytes:
    compress = snappy_compress.selected()  # snappy's compressor in C when built, its Python twin otherwise
    blocks = [_SNAPPY_HEADER]
    for start in range(0, len(body), _SNAPPY_BLOCK_BYTES):
        block = compress(body[start : start + _SNAPPY_BLOCK_BYTES], top_bits_hash)
        blocks += (struct.pack(">i", len(block)), block)
    return b"".join(blocks)


def _lz4_fast_frame(body: bytes, level: int) -> bytes:
    """lz4.frame's frame of 64 KiB independent blocks, no checksums or size: its fast compressor at level 9."""
    frame = _required("lz4.frame", "lz4")
    data = frame.compress(
        body,
        compression_level=0 if level == _LZ4_FAST_LEVEL else level,
        block_size=frame.BLOCKSIZE_MAX64KB,
        block_linked=False,
        content_checksum=False,
        block_checksum=False,
        store_size=False,
    )
    return bytes(data)


def _lz4_hc_compressors() -> list[tuple[tuple[int, int], Compress]]:
    """(lz4 major and minor release, compress one block with HC at a level): the ``lz4`` binding's, then lz4 1.10's
    when ``make codecs`` built it (:mod:`kcompact_nb.record._liblz4`)."""
    binding = divmod(_required("lz4", "lz4").library_version_number() // 100, 100)
    compressors: list[tuple[tuple[int, int], Compress]] = [(binding, _lz4_binding_hc)]
    if liblz4_built():
        compressors.append((LIBLZ4_RELEASE[:2], liblz4_compress_hc()))
    return compressors


def _lz4_binding_hc(block: bytes, level: int) -> bytes:
    block_codec = _required("lz4.block", "lz4")
    return bytes(block_codec.compress(block, mode="high_compression", compression=level, store_size=False))


def _lz4_hc_frame(body: bytes, level: int, compress: Compress) -> bytes:
    """The frame of ``Lz4BlockOutputStream`` around lz4's HC compressor ``compress`` at ``level``, block by block."""
    frame = _required("lz4.frame", "lz4")
    header = frame.compress(b"", block_size=frame.BLOCKSIZE_MAX64KB, block_linked=False, store_size=False)[:7]
    parts = [header]
    for start in range(0, len(body), _LZ4_BLOCK_BYTES):
        block = body[start : start + _LZ4_BLOCK_BYTES]
        packed = compress(block, level)
        if len(packed) >= len(block):  # incompressible: stored, length with bit 31 set
            parts += (struct.pack("<I", len(block) | 0x80000000), block)
        else:
            parts += (struct.pack("<I", len(packed)), packed)
    parts.append(b"\x00\x00\x00\x00")
    return b"".join(parts)


def _available_zstd_bindings() -> list[tuple[tuple[int, int, int], Compress]]:
    """:func:`_zstd_bindings`, looked up once for each batch, or each run of batches, a pass rewrites; none is
    :class:`CodecUnavailableError`."""
    bindings = _zstd_bindings()
    if not bindings:
        raise CodecUnavailableError("zstd", "zstandard")
    return bindings


def _zstd_bindings() -> list[tuple[tuple[int, int, int], Compress]]:
    """(libzstd release, compress) for each zstd binding installed: ``zstandard``, then ``pyzstd``, then the older
    releases built by ``make codecs`` (:mod:`kcompact_nb.record._libzstd`)."""
    bindings: list[tuple[tuple[int, int, int], Compress]] = []
    zstandard = _module("zstandard")
    if zstandard is not None:
        bindings.append((tuple(zstandard.ZSTD_VERSION), _zstandard_stream))  # type: ignore[arg-type]
    pyzstd = _module("pyzstd")
    if pyzstd is not None:
        bindings.append((tuple(pyzstd.zstd_version_info[:3]), _pyzstd_stream))  # type: ignore[arg-type]
    if bindings:  # the built releases write Kafka's bytes; zstd batches are read through an installed binding
        bindings += _built_zstd(tuple(built_releases()))
    return bindings


@cache
def _built_zstd(releases: tuple[tuple[int, int, int], ...]) -> list[tuple[tuple[int, int, int], Compress]]:
    """(release, compress) of each built libzstd release, made once (a pass asks for every batch it rewrites)."""
    return [(release, libzstd_compress(release)) for release in releases]


def _zstandard_stream(body: bytes, level: int) -> bytes:
    zstandard = _required("zstandard", "zstd")
    stream = _zstd_compressor("zstandard", level).compressobj()  # each compressobj starts a new frame
    return bytes(stream.compress(body) + stream.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) + stream.flush())


def _pyzstd_stream(body: bytes, level: int) -> bytes:
    stream = _zstd_compressor("pyzstd", level)
    try:
        return bytes(
            stream.compress(body, stream.CONTINUE) + stream.flush(stream.FLUSH_BLOCK) + stream.flush(stream.FLUSH_FRAME)
        )
    except BaseException:  # a frame left open would begin the next batch's bytes: the compressor goes with it
        _ZSTD_COMPRESSORS.made.pop(("pyzstd", level), None)
        raise


class _ThreadsCompressors(threading.local):
    """This thread's zstd compressors by (binding, level): one may not run two frames at once, and each frame starts
    afresh (``zstandard``'s ``compressobj``, ``pyzstd``'s next frame after ``FLUSH_FRAME``), so one compressor writes
    every batch's bytes as a new one would."""

    def __init__(self) -> None:
        self.made: dict[tuple[str, int], Any] = {}


_ZSTD_COMPRESSORS = _ThreadsCompressors()


def _zstd_compressor(binding: str, level: int) -> Any:
    """This thread's compressor of ``binding`` (``zstandard`` or ``pyzstd``) at ``level``, made once: making one took
    3/4 of a small batch's compression (zstd-jni's stream: no checksum, no content size)."""
    made = _ZSTD_COMPRESSORS.made
    compressor = made.get((binding, level))
    if compressor is None:
        module = _required(binding, "zstd")
        if binding == "zstandard":
            compressor = module.ZstdCompressor(level=level, write_content_size=False, write_checksum=False)
        else:
            parameters = module.CParameter
            options = {parameters.compressionLevel: level, parameters.contentSizeFlag: 0, parameters.checksumFlag: 0}
            compressor = module.ZstdCompressor(options)
        made[(binding, level)] = compressor
    return compressor


def _of_release(
    compressors: Sequence[tuple[tuple[int, ...], Compress]], wanted: tuple[int, ...] | None
) -> tuple[Compress, bool]:
    """The compressor of the ``wanted`` library release, exact; else the first one, estimated."""
    for release, compress in compressors:
        if release == wanted:
            return compress, True
    return compressors[0][1], False


def _required(name: str, codec: str) -> ModuleType:
    """The imported module, or :class:`CodecUnavailableError` naming the pip package that provides it."""
    module = _module(name)
    if module is None:
        raise CodecUnavailableError(codec, name.split(".")[0])
    return module


def _module(name: str) -> ModuleType | None:
    """The imported module, or None when its package is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
