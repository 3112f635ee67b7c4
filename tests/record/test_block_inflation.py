"""A block's compressed batches laid out as uncompressed ones: the C kernel against the Python twin, and the reader.

``inflate_batches`` (C) may leave a batch as its header alone where the Python twin inflates it (it reads every
framing in its strictest form), but where it inflates a batch it must give the twin's bytes, on valid and on
corrupted records sections; on the framings Kafka's clients write (several gzip members, several xerial snappy
blocks, several lz4 blocks, several zstd frames) it inflates every batch. Reading a segment file must give the
batches and the errors that decoding it batch by batch gives (the record parser and kafka-python), on both kernels.
zstd is inflated in C with the libzstd release the twin's ``zstandard`` bundles, which ``make codecs`` builds (the
suite runs it first).
"""

from __future__ import annotations

import ctypes
import struct
import zlib
from collections.abc import Callable
from typing import Any

import cramjam
import lz4.block
import lz4.frame
import numpy
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.util import calc_crc32c

from kcompact_nb.io import CorruptBatchError, SegmentFileReader
from kcompact_nb.record import _block_inflation, _native_kernels, full_libzstd, libzstd_dir
from kcompact_nb.record._block_inflation import COPY, HEADER_ONLY, batch_codes
from kcompact_nb.record._codec_releases import version_number
from kcompact_nb.record._decompression import decompress_records
from kcompact_nb.record._kernels import uncompressed_view
from tests.io.kafka_bytes import CODECS, kafka_batch, rec

NATIVE = _native_kernels.NATIVE
needs_native = pytest.mark.skipif(NATIVE is None, reason="the C kernels were not built (no C compiler at install)")
HEADER_BYTES = 61


# -- each codec's framings, as Kafka's clients and other producers write them ---------------------------------
def gzip_member(data: bytes, flags: int, level: int) -> bytes:
    """One gzip member whose header has ``flags`` (FHCRC 2, FEXTRA 4, FNAME 8, FCOMMENT 16) and their fields."""
    header = bytearray(b"\x1f\x8b\x08" + bytes([flags]) + b"\x00\x00\x00\x00\x00\xff")
    if flags & 4:
        header += struct.pack("<H", 3) + b"xyz"
    if flags & 8:
        header += b"name.json\x00"
    if flags & 16:
        header += b"a comment\x00"
    if flags & 2:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    deflater = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflater.compress(data) + deflater.flush()
    return bytes(header) + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def gzip_framing(body: bytes, cuts: list[int], flags: int, level: int) -> bytes:
    """GZIPOutputStream's single member, or several members (split at ``cuts``), as GZIPInputStream reads them."""
    return b"".join(gzip_member(part, flags, level) for part in split(body, cuts))


def snappy_framing(body: bytes, cuts: list[int], xerial: bool) -> bytes:
    """snappy-java's xerial framing (a block per part), or one raw snappy block."""
    if not xerial:
        return bytes(cramjam.snappy.compress_raw(body))
    blocks = [bytes(cramjam.snappy.compress_raw(part)) for part in split(body, cuts) if part]
    header = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    return header + b"".join(struct.pack(">i", len(block)) + block for block in blocks)


def lz4_framing(body: bytes, cuts: list[int], stored: bool) -> bytes:
    """Kafka's LZ4 frame (independent 64 KiB blocks, no checksums or size), a block per part, stored or compressed."""
    header = lz4.frame.compress(b"", block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False, store_size=False)
    blocks = []
    for part in split(body, cuts):
        if part:
            packed = lz4.block.compress(part, store_size=False)
            blocks.append(
                struct.pack("<I", len(part) | 1 << 31) + part if stored else struct.pack("<I", len(packed)) + packed
            )
    return header[:7] + b"".join(blocks) + b"\x00\x00\x00\x00"


def lz4_library_framing(body: bytes, linked: bool, checksums: bool) -> bytes:
    """lz4.frame's own frames: linked blocks, content and block checksums, the content size."""
    return bytes(
        lz4.frame.compress(
            body, block_linked=linked, content_checksum=checksums, block_checksum=checksums, store_size=checksums
        )
    )


def zstd_framing(body: bytes, cuts: list[int], checksum: bool, skippable: bool) -> bytes:
    """zstd frames one after another (a part each), with checksums and a skippable frame first if asked."""
    compressor = zstandard.ZstdCompressor(level=3, write_checksum=checksum, write_content_size=checksum)
    frames = b"".join(compressor.compress(part) for part in split(body, cuts))
    return (b"\x50\x2a\x4d\x18" + struct.pack("<I", 4) + b"skip" if skippable else b"") + frames


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the positions ``cuts`` (sorted, clipped to its length)."""
    points = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


ONE_BLOCK: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda body: gzip_framing(body, [], 0, 6),
    "snappy": lambda body: snappy_framing(body, [], False),
    "lz4": lambda body: lz4_framing(body, [], False),
    "zstd": lambda body: zstd_framing(body, [], False, False),
}
"""Each codec's simplest framing: one member, block or frame."""
cuts = st.lists(st.integers(0, 4000), max_size=4)
FRAMINGS: dict[str, st.SearchStrategy[Callable[[bytes], bytes]]] = {
    "gzip": st.builds(
        lambda c, f, lv: lambda body: gzip_framing(body, c, f, lv),
        cuts,
        st.sampled_from([0, 2, 4, 8, 30]),
        st.integers(0, 9),
    ),
    "snappy": st.builds(lambda c, x: lambda body: snappy_framing(body, c, x), cuts, st.booleans()),
    "lz4": st.one_of(
        st.builds(lambda c, s: lambda body: lz4_framing(body, c, s), cuts, st.booleans()),
        st.builds(lambda lk, ck: lambda body: lz4_library_framing(body, lk, ck), st.booleans(), st.booleans()),
    ),
    "zstd": st.builds(lambda c, ck, sk: lambda body: zstd_framing(body, c, ck, sk), cuts, st.booleans(), st.booleans()),
}
bodies = st.one_of(
    st.binary(min_size=1, max_size=3000),
    st.builds(lambda word, n: word * n, st.binary(min_size=1, max_size=40), st.integers(1, 300)),
)


@st.composite
def mutations(draw: st.DrawFn) -> Callable[[bytes], bytes]:
    """A corruption of a records section: a byte changed, the end cut off, or bytes appended."""
    kind = draw(st.sampled_from(["byte", "cut", "append"]))
    at, value = draw(st.integers(0, 1 << 16)), draw(st.integers(0, 255))
    extra = draw(st.binary(min_size=1, max_size=12))
    if kind == "byte":
        return lambda data: data[: at % len(data)] + bytes([value]) + data[at % len(data) + 1 :] if data else data
    if kind == "cut":
        return lambda data: data[: at % max(len(data), 1)]
    return lambda data: data + extra


# -- the kernel against its twin --------------------------------------------------------------------------------
def header_with(codec_id: int) -> bytes:
    """A 61-byte batch header whose attributes name ``codec_id`` (the rest is not read by the inflation)."""
    return bytes(21) + struct.pack(">h", codec_id) + bytes(38)


def views(batches: list[bytes], codes: list[int]) -> tuple[Any, Any]:
    """The C kernel's and the Python twin's views of a block of these batches."""
    block = b"".join(batches)
    ends = numpy.cumsum([len(b) for b in batches], dtype=numpy.int64)
    starts = ends - numpy.array([len(b) for b in batches], numpy.int64)
    assert NATIVE is not None
    _block_inflation.inflatable_in_c(NATIVE)  # gives the kernel the twin's libzstd, as the reader's first block does
    view_starts, view_ends = numpy.empty(len(batches), numpy.int64), numpy.empty(len(batches), numpy.int64)
    data = NATIVE.inflate_batches(block, starts, ends, numpy.array(codes, numpy.uint8), view_starts, view_ends)
    native = _block_inflation.UncompressedView(data, view_starts, view_ends)
    python = _block_inflation._inflate_with_python(block, starts.tolist(), ends.tolist(), codes)
    return native, python


def parts(view: Any) -> list[bytes]:
    return [view.data[s:e] for s, e in zip(view.starts.tolist(), view.ends.tolist(), strict=True)]


@needs_native
@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_kafkas_framings_inflate_in_c_as_in_python(codec, data):
    """Every framing Kafka's clients read (several members, blocks or frames) inflates in C, to the twin's bytes."""
    body, framing = data.draw(bodies), data.draw(FRAMINGS[codec])
    payload = framing(body)
    assert decompress_records(codec, payload) == body
    batch = header_with(CODECS[codec]) + payload
    native, python = views([batch], [CODECS[codec]])
    expected = header_with(0) + body
    assert parts(native) == parts(python) == [expected]


@needs_native
@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_corrupted_records_inflate_in_c_only_as_in_python(codec, data):
    """On a corrupted records section C inflates nothing the twin does not, and the same bytes where it does."""
    body, framing, mutate = data.draw(bodies), data.draw(FRAMINGS[codec]), data.draw(mutations())
    batch = header_with(CODECS[codec]) + mutate(framing(body))
    native, python = views([batch], [CODECS[codec]])
    if codec not in _block_inflation.inflatable_in_c(NATIVE):
        # the system library is another release than the twin's: the reader takes the twin's view
        starts, ends = numpy.array([0], numpy.int64), numpy.array([len(batch)], numpy.int64)
        read = uncompressed_view(batch, starts, ends, numpy.array([CODECS[codec]], numpy.uint8))
        assert read is not None and parts(read) == parts(python)
        return
    (ours,), (theirs,) = parts(native), parts(python)
    assert ours in (theirs, header_with(0))


XERIAL = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
RAW = bytes(cramjam.snappy.compress_raw(b"records " * 20))
FRAME = lz4_framing(b"records " * 20, [], False)
ZSTD = zstd_framing(b"records " * 20, [], True, False)
EDGES = [
    ("snappy", b"\x00"),  # nothing, as announced
    ("snappy", b"\x00\x00"),  # a literal after the announced nothing
    ("snappy", b"\x05\x00a\x01\x00"),  # a copy from offset 0
    ("snappy", b"\x05\x00a\x01\x05"),  # a copy from before the output
    ("snappy", b"\x06\x00a\x01\x01"),  # one byte short of the length it announces
    ("snappy", RAW + b"\x00"),  # a tag after the announced length is filled
    ("snappy", b"\x05\xf0\x04\x00\x00\x00abcde"),  # a literal length of 4 extra bytes beyond the input
    ("snappy", XERIAL + struct.pack(">i", -4) + RAW),  # a negative block size
    ("snappy", XERIAL + struct.pack(">i", 0) + RAW),  # an empty block
    ("snappy", XERIAL + struct.pack(">i", len(RAW) + 1) + RAW),  # a block longer than the rest
    ("snappy", XERIAL + struct.pack(">i", len(RAW)) + RAW + b"\x00\x00"),  # a block size cut short
    ("snappy", XERIAL[:8] + struct.pack("<ii", 1, 1) + struct.pack(">i", len(RAW)) + RAW),  # little-endian version
    ("gzip", gzip_framing(b"records", [], 0, 6) + b"\x1f\x8b\x08\x02" + bytes(8)),  # then a header with a bad FHCRC
    ("gzip", gzip_framing(b"records", [], 0, 6) + gzip_framing(b"more", [], 0, 6)[:-3]),  # a second member cut
    ("gzip", gzip_framing(b"records", [], 0, 6)[:-1]),  # a trailer cut
    ("gzip", b"\x1f\x8b\x08\x00" + bytes(6)),  # a header alone
    ("lz4", FRAME + b"trailing"),  # bytes after the frame (lz4.frame ignores them)
    ("lz4", FRAME + FRAME),  # a second frame (lz4.frame reads the first only)
    ("lz4", b"\x50\x2a\x4d\x18" + struct.pack("<I", 4) + b"skip" + FRAME),  # a skippable frame first
    ("lz4", FRAME[:-4]),  # no end mark
    ("zstd", ZSTD[:-5]),  # a frame cut short (zstandard's stream reader returns what it read)
    ("zstd", ZSTD + b"trailing"),  # bytes after the frame
    ("zstd", b"\x50\x2a\x4d\x18" + struct.pack("<I", 4) + b"skip"),  # a skippable frame alone
    ("zstd", b""),  # nothing at all
    # corrupt frames libzstd 1.5.4 (Debian 12's) reads and 1.5.7 (zstandard's, Kafka 4.4's) refuses
    ("zstd", bytes.fromhex("28b52ffd00009d000060962c138e6a05a7fab30c6fe20100ed159524")),
    ("zstd", bytes.fromhex("28b52ffd00005d000020951fa2240100c9281c1128b52ffd000001000028b52ffd0000010000")),
]


@needs_native
@pytest.mark.parametrize(("codec", "payload"), EDGES)
def test_framing_edges_inflate_in_c_only_as_in_python(codec, payload):
    """Malformed or unusual framings: C inflates what the twin inflates, to the same bytes, or leaves the batch."""
    native, python = views([header_with(CODECS[codec]) + payload], [CODECS[codec]])
    (ours,), (theirs,) = parts(native), parts(python)
    assert ours in (theirs, header_with(0))


@needs_native
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["none", "gzip", "snappy", "lz4", "zstd", "empty", "unknown"]), bodies), max_size=6
    )
)
def test_a_block_of_every_kind_of_batch_lays_out_alike(specs):
    """Copied, inflated and header-only batches one after another, at the same positions in C and in Python."""
    batches, codes = [], []
    for kind, body in specs:
        if kind in ("none", "empty", "unknown"):
            batches.append(header_with({"none": 0, "empty": 2, "unknown": 6}[kind]) + body)
            codes.append(COPY if kind == "none" else HEADER_ONLY)
        else:
            batches.append(header_with(CODECS[kind]) + ONE_BLOCK[kind](body))
            codes.append(CODECS[kind])
    native, python = views(batches, codes)
    assert native.data == python.data
    assert native.starts.tolist() == python.starts.tolist() and native.ends.tolist() == python.ends.tolist()


@needs_native
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["none", "gzip", "snappy", "lz4", "zstd", "empty", "corrupt"]), bodies),
        min_size=2,
        max_size=8,
    )
)
def test_two_threads_lay_a_block_out_as_one_does(specs):
    """A block inflated by two threads (a run of its batches each, joined in order) gives one thread's bytes and
    places, whatever its batches: copied, inflated, header only or left as their header (corrupt records)."""
    batches, codes = [], []
    for kind, body in specs:
        if kind in ("none", "empty"):
            batches.append(header_with({"none": 0, "empty": 2}[kind]) + body)
            codes.append(COPY if kind == "none" else HEADER_ONLY)
        else:
            codec = "gzip" if kind == "corrupt" else kind
            payload = ONE_BLOCK[codec](body)
            batches.append(header_with(CODECS[codec]) + (payload[:-1] if kind == "corrupt" else payload))
            codes.append(CODECS[codec])
    block = b"".join(batches)
    ends = numpy.cumsum([len(b) for b in batches], dtype=numpy.int64)
    starts = ends - numpy.array([len(b) for b in batches], numpy.int64)
    assert NATIVE is not None
    _block_inflation.inflatable_in_c(NATIVE)
    laid_out, codes_array = [], numpy.array(codes, numpy.uint8)
    for threads in (1, 2):
        view_starts, view_ends = numpy.empty(len(batches), numpy.int64), numpy.empty(len(batches), numpy.int64)
        data = NATIVE.inflate_batches(block, starts, ends, codes_array, view_starts, view_ends, threads)
        laid_out.append((data, view_starts.tolist(), view_ends.tolist()))
    assert laid_out[0] == laid_out[1]
    python = _block_inflation._inflate_with_python(block, starts.tolist(), ends.tolist(), codes)
    assert laid_out[0][2][-1] == len(laid_out[0][0]) and laid_out[0][1][0] == 0
    ours = [laid_out[1][0][s:e] for s, e in zip(laid_out[1][1], laid_out[1][2], strict=True)]
    for mine, theirs, (kind, _) in zip(ours, parts(python), specs, strict=True):
        assert mine == theirs or (kind == "corrupt" and mine == header_with(0))


def test_batches_are_laid_out_by_their_codec_and_count():
    """Records to inflate only where a known codec holds some; a block with none is read as it is."""
    attributes = numpy.array([0, 1, 2, 3, 4, 4, 5, 7, 0x10 | 1], numpy.int64)  # the last one transactional, gzip
    counts = numpy.array([0, 3, 3, 3, 3, 0, 3, 3, 3], numpy.int64)
    assert batch_codes(attributes, counts).tolist() == [COPY, 1, 2, 3, 4, HEADER_ONLY, HEADER_ONLY, HEADER_ONLY, 1]
    plain = kafka_batch([rec(0, 1, b"k", b"v")], base_offset=0)
    empty = kafka_batch([], base_offset=1, codec="gzip")
    starts, ends = numpy.array([0, len(plain)], numpy.int64), numpy.array([len(plain), len(plain) + len(empty)])
    codes = batch_codes(numpy.array([0, 1], numpy.int64), numpy.array([1, 0], numpy.int64))
    assert uncompressed_view(plain + empty, starts, ends, codes) is None


@needs_native
def test_a_codec_whose_library_is_missing_is_inflated_in_python(monkeypatch):
    """Without libzstd (say) a block with zstd batches is laid out by the Python twin, to the same view."""
    batches = [header_with(4) + zstd_framing(b"records " * 30, [100], False, False), header_with(0) + b"plain"]
    codes = numpy.array([4, COPY], numpy.uint8)
    ends = numpy.cumsum([len(b) for b in batches], dtype=numpy.int64)
    starts = ends - numpy.array([len(b) for b in batches], numpy.int64)
    with_c = uncompressed_view(b"".join(batches), starts, ends, codes)

    class WithoutZstd:
        def __getattr__(self, name: str) -> Any:
            return getattr(NATIVE, name)

        def inflatable_codecs(self) -> tuple[str, ...]:
            return ("gzip", "snappy", "lz4")

        def inflate_batches(self, *args: Any) -> bytes:
            raise AssertionError("the C kernel was asked for a codec it cannot inflate")

    monkeypatch.setattr(_native_kernels, "NATIVE", WithoutZstd())
    in_python = uncompressed_view(b"".join(batches), starts, ends, codes)
    assert with_c is not None and in_python is not None
    assert (in_python.data, in_python.ends.tolist()) == (with_c.data, with_c.ends.tolist())
    assert in_python.data == header_with(0) + b"records " * 30 + header_with(0) + b"plain"


@needs_native
def test_every_codec_inflates_in_c_here():
    """zlib, liblz4 and libzstd are on this machine (the libraries Python's codec packages stand on)."""
    assert NATIVE is not None and set(NATIVE.inflatable_codecs()) == {"gzip", "snappy", "lz4", "zstd"}


@pytest.fixture
def inflatable_in_c_again() -> Any:
    """:func:`_block_inflation.inflatable_in_c` worked out again in the test, and again after it."""
    _block_inflation.inflatable_in_c.cache_clear()
    yield _block_inflation.inflatable_in_c
    _block_inflation.inflatable_in_c.cache_clear()


@needs_native
def test_zstd_inflates_in_c_with_the_libzstd_make_codecs_built(inflatable_in_c_again):
    assert full_libzstd().is_file(), "zstandard's libzstd is not built: run make codecs"
    assert "zstd" in inflatable_in_c_again(NATIVE)
    assert NATIVE.open_zstd(str(full_libzstd())) == version_number(zstandard.ZSTD_VERSION)


@needs_native
def test_without_the_built_libzstd_zstd_inflates_in_c_only_when_the_systems_is_the_twins_release(
    inflatable_in_c_again, tmp_path, monkeypatch
):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    assert not full_libzstd().is_file()
    system = ctypes.CDLL("libzstd.so.1").ZSTD_versionNumber()
    assert ("zstd" in inflatable_in_c_again(NATIVE)) == (system == version_number(zstandard.ZSTD_VERSION))


@needs_native
def test_a_library_that_is_not_a_whole_libzstd_is_refused_and_the_one_in_use_kept():
    assert NATIVE is not None
    with pytest.raises(OSError, match=r"no-such-libzstd\.so"):
        NATIVE.open_zstd("no-such-libzstd.so")
    compression_only = libzstd_dir() / "1.5.5" / "libzstd.so"  # make codecs builds its compression half
    with pytest.raises(OSError, match=r"no ZSTD_createDCtx in it \(not a libzstd with decompression\)"):
        NATIVE.open_zstd(str(compression_only))
    native, python = views([header_with(4) + ZSTD], [4])
    assert parts(native) == parts(python) == [header_with(0) + b"records " * 20]


# -- the reader: the same batches, or the same error, as decoding batch by batch ------------------------------
record_specs = st.lists(
    st.tuples(
        st.one_of(st.none(), st.binary(max_size=12)),
        st.one_of(st.none(), st.binary(max_size=30), st.binary(min_size=100, max_size=400)),
        st.booleans(),  # a record header (the block decoder leaves such batches to the record parser)
    ),
    min_size=1,
    max_size=30,
)


def compressed_batch(records: list[tuple[Any, Any, bool]], base_offset: int, codec: str, payload_of: Any) -> bytes:
    """A batch of ``records`` whose records section is ``payload_of(uncompressed section)`` marked ``codec``."""
    rows = [rec(i, 1_000 + i, k, v, [("h", b"x")] if h else []) for i, (k, v, h) in enumerate(records)]
    plain = kafka_batch(rows, base_offset=base_offset)
    out = bytearray(plain[:HEADER_BYTES] + payload_of(plain[HEADER_BYTES:]))
    struct.pack_into(">i", out, 8, len(out) - 12)
    struct.pack_into(">h", out, 21, struct.unpack_from(">h", out, 21)[0] | CODECS[codec])
    struct.pack_into(">I", out, 17, calc_crc32c(memoryview(out)[21:]))
    return bytes(out)


def outcome(reader: SegmentFileReader, batches: Any) -> tuple[list[Any], Any]:
    """Each batch's fields and records, then the error that ended the reading (its kind, position and reason)."""
    read = []
    try:
        for batch in batches:
            records = [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in batch.records]
            read.append((batch.base_offset, batch.last_offset, batch.compression, batch.size_bytes, records))
    except CorruptBatchError as error:
        return read, (type(error), error.position, error.reason)
    return read, None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_reading_compressed_batches_matches_decoding_them_one_by_one(kernels, tmp_path_factory, data):
    """A segment of compressed batches (every codec, several framings, some corrupted) among uncompressed ones: the
    batches and the error that iterating the reader gives (keys numbered or not) are those of
    :meth:`SegmentFileReader.decode_batch`, batch by batch."""
    batches, offset = [], 0
    for _ in range(data.draw(st.integers(1, 5))):
        codec = data.draw(st.sampled_from(["none", "gzip", "snappy", "lz4", "zstd"]))
        framing = data.draw(FRAMINGS[codec]) if codec != "none" else lambda body: body
        mutate = data.draw(st.one_of(st.none(), mutations())) if codec != "none" else None
        records = data.draw(record_specs)
        batches.append(
            compressed_batch(
                records, offset, codec, framing if mutate is None else lambda b, f=framing, m=mutate: m(f(b))
            )
        )
        offset += len(records)
    path = tmp_path_factory.mktemp("inflation") / "00000000000000000000.log"
    path.write_bytes(b"".join(batches))
    number_keys = data.draw(st.booleans())
    whole = SegmentFileReader(path, keep_raw=False, number_keys=number_keys)
    one_by_one = SegmentFileReader(path, keep_raw=False, number_keys=number_keys)
    assert outcome(whole, whole) == outcome(one_by_one, one_by_one.decoded(one_by_one.decode_batch))
