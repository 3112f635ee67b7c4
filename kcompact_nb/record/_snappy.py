"""Google snappy's raw compressor as snappy-java runs it inside Kafka (``snappy::RawCompress``).

Kafka's snappy batches are compressed by the C++ library that snappy-java bundles (snappy 1.1.10 in
snappy-java 1.1.10.x, Kafka 3.5 on; 1.1.8 in 1.1.8.x, Kafka 2.8-3.4; 1.1.7 in 1.1.7.x, Kafka 2.0-2.7), built
without the CRC32 instruction, so its hash is the multiplicative one. The same input gives the same bytes
only with the same algorithm, so this module follows that compressor step by step; other snappy encoders
(cramjam's Rust one, newer C++ releases built with CRC32 hashing) produce other, equally valid, bytes.

The releases differ in one step only, which hash-table slot the 4 bytes at a position take: up to 1.1.8
the top bits of the 32-bit product (``HashBytes``: ``(bytes * 0x1e35a7bd) >> (32 - log2(table size))``), from
1.1.9 on (google/snappy commit 6835abd, "Change hash function for Compress") bits 18 and up, masked to the
table (``(bytes * 0x1e35a7bd) >> 18``). They agree for 16 KiB tables, fragments of more than 8 KiB; the match
search, the copies and literals are the same (``CompressFragment`` of 1.1.7, 1.1.8 and 1.1.10).

Raw format written here (``format_description.txt`` of snappy)::

    preamble   varint32         uncompressed length
    elements   tag byte + ...   low 2 bits of the tag: 0 literal, 1 copy with 1-byte offset,
                                2 copy with 2-byte offset (3, a 4-byte offset, is never written)

    literal    tag (len-1) << 2 when len <= 60, else (59 + n) << 2 followed by len-1 in n bytes (LE)
    copy-1     tag 1 | (len-4) << 2 | (offset >> 8) << 5, then offset & 0xff  (4 <= len < 12, offset < 2048)
    copy-2     tag 2 | (len-1) << 2, then offset as 2 bytes LE               (1 <= len <= 64)

The input is cut into fragments of 64 KiB, each compressed on its own with a hash table of 16-bit
positions sized to the fragment (a power of two in [256, 16384]).

The C kernels hold the same compressor (``snappy_compress`` in ``_native.c``, chosen where built by
``_compression``); this one runs otherwise, and tests hold both to the same bytes.
"""

from __future__ import annotations

import numpy

BLOCK_BYTES = 1 << 16
"""``kBlockSize``: input fragment compressed independently."""
_MIN_TABLE = 1 << 8
_MAX_TABLE_BITS = 14
_MAX_TABLE = 1 << _MAX_TABLE_BITS
_HASH_MULTIPLIER = 0x1E35A7BD
_INPUT_MARGIN = 15
"""``kInputMarginBytes``: the main loop stops this far before the fragment's end."""
NEWER_HASH_FROM = (1, 1, 9)
"""The first snappy release hashing with bits 18 and up of the product (before it: the top bits)."""


def raw_compress(data: bytes, top_bits_hash: bool = False) -> bytes:
    """``data`` in snappy's raw format, byte for byte as snappy 1.1.10 (no CRC32 hashing) writes it; as 1.1.7
    and 1.1.8 write it with ``top_bits_hash`` (see the module)."""
    out = bytearray(_varint32(len(data)))
    view = memoryview(data)
    for start in range(0, len(data), BLOCK_BYTES):
        _compress_fragment(bytes(view[start : start + BLOCK_BYTES]), out, top_bits_hash)
    return bytes(out)


def _varint32(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _table_size(fragment_bytes: int) -> int:
    """``CalculateTableSize``: the smallest power of two >= the fragment, within [256, 16384]."""
    if fragment_bytes > _MAX_TABLE:
        return _MAX_TABLE
    if fragment_bytes < _MIN_TABLE:
        return _MIN_TABLE
    return 1 << (fragment_bytes - 1).bit_length()


def _hash_slots(fragment: bytes, table_size: int, top_bits_hash: bool) -> list[int]:
    """The hash-table slot of the 4 bytes starting at each position (``TableEntry`` without CRC32; ``HashBytes``
    before 1.1.9), computed for all positions at once.

    ``(0x1e35a7bd * load32) >> 18`` in 32-bit arithmetic, masked to the table; with ``top_bits_hash``
    ``>> (32 - log2(table_size))``. Positions closer than 4 bytes to the end get no slot (never hashed).
    """
    if len(fragment) < 4:
        return []
    octets = numpy.frombuffer(fragment, dtype=numpy.uint8).astype(numpy.uint32)
    words = octets[:-3] | (octets[1:-2] << 8) | (octets[2:-1] << 16) | (octets[3:] << 24)
    shift = 33 - table_size.bit_length() if top_bits_hash else 32 - _MAX_TABLE_BITS
    hashes = (words * numpy.uint32(_HASH_MULTIPLIER)) >> numpy.uint32(shift)
    slots: list[int] = (hashes & numpy.uint32(table_size - 1)).tolist()
    return slots


def _compress_fragment(fragment: bytes, out: bytearray, top_bits_hash: bool) -> None:
    """``internal::CompressFragment`` for one fragment of at most 64 KiB, appended to ``out``."""
    size = len(fragment)
    ip = 0
    if size >= _INPUT_MARGIN:
        table_size = _table_size(size)
        slots = _hash_slots(fragment, table_size, top_bits_hash)
        ip = _compress_body(fragment, out, slots, [0] * table_size)
    if ip < size:
        _emit_literal(out, fragment, ip, size)


def _compress_body(data: bytes, out: bytearray, slots: list[int], table: list[int]) -> int:
    """The main loop over a zeroed hash ``table``; returns where the trailing literal starts (``emit_remainder``)."""
    ip_limit = len(data) - _INPUT_MARGIN
    ip = 0
    while True:
        next_emit, ip = ip, ip + 1
        found = _find_match(data, table, slots, ip, ip_limit)
        if found is None:
            return next_emit
        ip, candidate = found
        _emit_literal(out, data, next_emit, ip)
        ip, exhausted = _emit_matches(data, out, table, slots, (ip, candidate), ip_limit)
        if exhausted:
            return ip


def _find_match(data: bytes, table: list[int], slots: list[int], ip: int, ip_limit: int) -> tuple[int, int] | None:
    """Step 1: scan for a 4-byte match (``ip``, ``candidate``), or None near the end of the input.

    The first 16 positions are probed one by one; then "heuristic match skipping" looks at every
    ``skip >> 5``-th byte, ``skip`` growing by that step from 48.
    """
    skip = 32
    if ip_limit - ip >= 16:
        for position in range(ip, ip + 16):
            slot = slots[position]
            candidate = table[slot]
            table[slot] = position
            if data[candidate : candidate + 4] == data[position : position + 4]:
                return position, candidate
        ip += 16
        skip += 16
    while True:
        step = skip >> 5
        skip += step
        next_ip = ip + step
        if next_ip > ip_limit:
            return None
        slot = slots[ip]
        candidate = table[slot]
        table[slot] = ip
        if data[candidate : candidate + 4] == data[ip : ip + 4]:
            return ip, candidate
        ip = next_ip


def _emit_matches(
    data: bytes, out: bytearray, table: list[int], slots: list[int], match: tuple[int, int], ip_limit: int
) -> tuple[int, bool]:
    """Step 3: copies for as long as the bytes after each copy match again.

    Returns the next position and whether the input is nearly exhausted (the trailing literal starts there).
    """
    ip, candidate = match
    end = len(data)
    while True:
        matched = 4 + _match_length(data, candidate + 4, ip + 4, end)
        _emit_copy(out, ip - candidate, matched)
        ip += matched
        if ip >= ip_limit:
            return ip, True
        table[slots[ip - 1]] = ip - 1
        slot = slots[ip]
        candidate = table[slot]
        table[slot] = ip
        if data[candidate : candidate + 4] != data[ip : ip + 4]:
            return ip, False


def _match_length(data: bytes, earlier: int, later: int, end: int) -> int:
    """How many bytes from ``earlier`` equal those from ``later`` (``FindMatchLength``), up to ``end``."""
    limit = end - later
    matched, step = 0, 8
    while (
        matched + step <= limit
        and data[earlier + matched : earlier + matched + step] == data[later + matched : later + matched + step]
    ):
        matched += step
        step <<= 1
    step = min(step, limit - matched)
    while step > 0:  # the length lies in [matched, matched + step]: halve that range
        half = (step + 1) >> 1
        if data[earlier + matched : earlier + matched + half] == data[later + matched : later + matched + half]:
            matched += half
            step -= half
        else:
            step = half - 1
    return matched


def _emit_literal(out: bytearray, data: bytes, start: int, end: int) -> None:
    """``EmitLiteral``: a tag (and up to 4 length bytes), then ``data[start:end]``."""
    n = end - start - 1
    if n < 60:
        out.append(n << 2)
    else:
        count = (n.bit_length() - 1 >> 3) + 1
        out.append((59 + count) << 2)
        out += n.to_bytes(count, "little")
    out += data[start:end]


def _emit_copy(out: bytearray, offset: int, length: int) -> None:
    """``EmitCopy``: 64-byte copies while at least 68 remain, one of 60 if over 64, then the rest."""
    while length >= 68:
        _emit_copy_at_most_64(out, offset, 64)
        length -= 64
    if length > 64:
        _emit_copy_at_most_64(out, offset, 60)
        length -= 60
    _emit_copy_at_most_64(out, offset, length)


def _emit_copy_at_most_64(out: bytearray, offset: int, length: int) -> None:
    """``EmitCopyAtMost64``: the 2-byte form for short copies with offsets below 2048, else 3 bytes."""
    if length < 12 and offset < 2048:
        out.append(1 | (length - 4) << 2 | (offset >> 8) << 5)
        out.append(offset & 0xFF)
    else:
        out.append(2 | (length - 1) << 2)
        out += offset.to_bytes(2, "little")
