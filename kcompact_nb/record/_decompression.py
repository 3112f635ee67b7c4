"""The records section of a compressed batch read back as Kafka reads it (``Compression.wrapForInput``).

gzip follows ``java.util.zip.GZIPInputStream``, which Kafka's ``GzipCompression`` reads through: after
a member's trailer, bytes that start another well-formed gzip header are read as the next member, and
anything else after a trailer is ignored (``GZIPInputStream.readTrailer``: "ignore any malformed, do
nothing"). Python's ``gzip`` module refuses such trailing bytes, so the members are inflated here with
zlib. snappy, lz4 and zstd go through kafka-python's decoders (the framing Kafka writes).

The segment reader decompresses a block's batches at once (:mod:`kcompact_nb.record._block_inflation`): in C
where the kernels were built, reading each framing as this module does, and through :func:`decompress_records`
otherwise; a batch either leaves aside is decompressed here, batch by batch, which gives its error.
"""

from __future__ import annotations

import struct
import zlib

_GZIP_MAGIC = b"\x1f\x8b"
_DEFLATE = 8
_FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 0x02, 0x04, 0x08, 0x10


def decompress_records(codec: str, payload: bytes) -> bytes:
    """The uncompressed records of a batch whose records section (after the 61-byte header) is ``payload``.

    Raises whatever the codec's decoder raises on corrupt input (the caller names the batch).
    """
    if codec == "gzip":
        return gunzip_as_java(payload)
    import kafka.codec as kafka_codec  # kafka-python takes tenths of a second to load: only when a batch needs it

    decode = {"snappy": kafka_codec.snappy_decode, "lz4": kafka_codec.lz4_decode, "zstd": kafka_codec.zstd_decode}
    return bytes(decode[codec](payload))


def gunzip_as_java(data: bytes) -> bytes:
    """Inflate gzip members as ``GZIPInputStream`` does: concatenated members read, trailing garbage ignored.

    Raises ``zlib.error`` for a bad first header, corrupt deflate data or a CRC/size mismatch in a
    trailer, and ``EOFError`` when a member ends before its trailer.
    """
    out, rest = [], data
    while True:
        inflater = zlib.decompressobj(wbits=31)  # gzip wrapper: header parsed, CRC-32 and size checked
        out.append(inflater.decompress(rest))
        if not inflater.eof:
            raise EOFError("Unexpected end of ZLIB input stream")
        rest = inflater.unused_data
        if not rest or _gzip_header_length(rest) is None:
            return b"".join(out)


def _gzip_header_length(data: bytes) -> int | None:
    """The length of the gzip header ``data`` starts with, or None where ``GZIPInputStream.readHeader`` would fail."""
    if len(data) < 10 or data[:2] != _GZIP_MAGIC or data[2] != _DEFLATE:
        return None
    flags, end = data[3], 10
    if flags & _FEXTRA:
        if len(data) < end + 2:
            return None
        end += 2 + struct.unpack_from("<H", data, end)[0]
    for flag in (_FNAME, _FCOMMENT):
        if flags & flag:
            zero = data.find(b"\0", end)
            if zero < 0:
                return None
            end = zero + 1
    if flags & _FHCRC:
        if len(data) < end + 2 or struct.unpack_from("<H", data, end)[0] != zlib.crc32(data[:end]) & 0xFFFF:
            return None
        end += 2
    return end if end <= len(data) else None
