"""Kafka's compressed records, without a JVM: snappy against bytes of Kafka's snappy-java, framings, releases.

The byte-for-byte comparison with kafka-clients' ``MemoryRecordsBuilder`` is ``tests/broker/test_kafka_compression.py``
(it needs Java and Maven); these golden values were taken from the ``libsnappyjava.so`` that snappy-java
1.1.10.5 and 1.1.10.7 (Kafka 3.9.2 and 4.4.0) bundle, byte-identical in both.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import struct
import zlib

import cramjam
import lz4.frame
import pytest
import pyzstd
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KafkaVersion
from kcompact_nb.io import CodecUnavailableError
from kcompact_nb.record import _codec_releases as codec_releases
from kcompact_nb.record import _compression as compression
from kcompact_nb.record import _native_kernels
from kcompact_nb.record._libzstd import built_releases
from kcompact_nb.record._snappy import raw_compress

V44, V39 = KafkaVersion(4, 4, 0), KafkaVersion(3, 9, 2)
NATIVE = _native_kernels.NATIVE
needs_native = pytest.mark.skipif(NATIVE is None, reason="the C kernels were not built (no C compiler at install)")
SNAPPY_COMPRESSORS = [
    pytest.param(raw_compress, id="python"),
    pytest.param(getattr(NATIVE, "snappy_compress", None), id="C", marks=needs_native),
]


def snappy_inputs() -> list[tuple[str, bytes]]:
    rng = random.Random(2026)
    words = [bytes(rng.choice(b"abcdefghij0123456789") for _ in range(rng.randint(2, 12))) for _ in range(50)]
    return [
        ("empty", b""),
        ("short", b"kafka"),
        ("fifteen", b"0123456789abcde"),  # kInputMarginBytes: the first length with a main loop
        ("run-200", b"a" * 200),  # copies of 64, 64 and a remainder, offset 1
        ("text-3000", b" ".join(rng.choice(words) for _ in range(400))[:3000]),
        ("random-5000", rng.randbytes(5000)),  # incompressible: match skipping, one long literal
        ("text-70000", b" ".join(rng.choice(words) for _ in range(12000))[:70000]),  # two 64 KiB fragments
    ]


SNAPPY_JAVA = {
    "empty": "00",
    "short": "05106b61666b61",
    "fifteen": "0f38303132333435363738396162636465",
    "run-200": "c8010061fe0100fe0100fe01000d01",
    "text-3000": "sha256:e997a7ab380fba1f3d709ceff261f6eec242613a98635aeed949affc43d1125c",
    "random-5000": "sha256:226fb5e0486f0a31b937fc236b14cde262eb69869173493b1ae7fd677bc6ba9b",
    "text-70000": "sha256:7c3ffe2eff422ff3400f32a7083ee0710caa8864bda31567a961f21cd87d8e52",
}


@pytest.mark.parametrize("compress", SNAPPY_COMPRESSORS)
@pytest.mark.parametrize(("name", "data"), snappy_inputs(), ids=[n for n, _ in snappy_inputs()])
def test_raw_snappy_equals_snappy_javas_native_library(name, data, compress):
    out = compress(data)
    expected = SNAPPY_JAVA[name]
    assert (
        out.hex() if not expected.startswith("sha256:") else "sha256:" + hashlib.sha256(out).hexdigest()
    ) == expected


@given(
    st.binary(max_size=3000)
    | st.lists(st.sampled_from([b"ab", b"kafka ", b"\x00" * 9, b"zz"]), max_size=600).map(b"".join)
)
def test_raw_snappy_always_decodes_to_its_input(data):
    assert bytes(cramjam.snappy.decompress_raw(raw_compress(data))) == data


snappy_bodies = st.lists(
    st.one_of(
        st.binary(max_size=300),
        st.builds(lambda piece, times: piece * times, st.binary(min_size=1, max_size=40), st.integers(1, 2000)),
        st.sampled_from([b"kafka ", b"\x00", b'{"id": 17, "name": "x"}']),
    ),
    max_size=60,
).map(b"".join)


@needs_native
@settings(max_examples=60, deadline=None)
@given(snappy_bodies, st.booleans())
def test_the_c_snappy_compressor_writes_the_python_ones_bytes(data, top_bits_hash):
    """Random, repetitive and long inputs (several 64 KiB fragments, long literals and copies, offsets past
    2 KiB): snappy 1.1.10's compressor (1.1.8's with ``top_bits_hash``) in C gives the Python one's bytes."""
    assert NATIVE.snappy_compress(data, top_bits_hash) == raw_compress(data, top_bits_hash)
    assert NATIVE.snappy_compress(memoryview(data), top_bits_hash) == raw_compress(data, top_bits_hash)


@settings(max_examples=40, deadline=None)
@given(snappy_bodies)
def test_snappy_releases_differ_only_in_fragments_with_smaller_hash_tables(data):
    """1.1.8 and 1.1.10 hash the same 4 bytes into the same slot of a 16 KiB table (fragments over 8 KiB): their
    bytes are equal when every fragment has one, and both decode to the input."""
    older, newer = raw_compress(data, top_bits_hash=True), raw_compress(data)
    fragments = [len(data[start : start + 65536]) for start in range(0, len(data), 65536)]
    if all(size > 8192 for size in fragments):
        assert older == newer
    assert bytes(cramjam.snappy.decompress_raw(older)) == data


def test_the_snappy_release_follows_kafka_version():
    """Kafka 3.4 ships snappy-java 1.1.8.4 (snappy 1.1.8), 3.5 on 1.1.10.x, 2.7 1.1.7.7 (hashing as 1.1.8)."""
    text = b" ".join(b"key-%d value-%d" % (i, i * 7 % 13) for i in range(300))
    compress = compression.compress_records
    old, new = (compress("snappy", text, level=None, version=KafkaVersion.parse(v)) for v in ("3.4.1", "3.5.2"))
    assert old.exact and new.exact and old.data != new.data
    assert old.data[20:] == raw_compress(text, top_bits_hash=True) and new.data[20:] == raw_compress(text)
    assert compress("snappy", text, level=None, version=KafkaVersion.parse("2.7.2")) == old


@pytest.mark.usefixtures("kernels")  # the C compressor and the Python one behind the same framing
def test_snappy_framing_is_snappy_javas_stream_in_32_kib_blocks():
    body = bytes(range(256)) * 300  # 76,800 bytes: blocks of 32,768, 32,768 and 11,264
    data = compression.compress_records("snappy", body, level=None, version=V44).data
    assert data[:16] == b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)  # magic, version 1, compatible version 1
    position, blocks = 16, []
    while position < len(data):
        (length,) = struct.unpack_from(">i", data, position)
        blocks.append(bytes(cramjam.snappy.decompress_raw(data[position + 4 : position + 4 + length])))
        position += 4 + length
    assert [len(b) for b in blocks] == [32_768, 32_768, 11_264] and b"".join(blocks) == body


def test_gzip_is_javas_header_deflate_and_trailer():
    body = b"kafka " * 500
    data = compression.compress_records("gzip", body, level=None, version=V44).data
    # GZIPOutputStream.writeHeader: magic, deflate, no flags, mtime 0, XFL 0, OS 255 (Java 16 and later)
    assert data[:10] == bytes.fromhex("1f8b08000000000000ff") and gzip.decompress(data) == body
    assert struct.unpack("<II", data[-8:]) == (zlib.crc32(body), len(body))


def test_lz4_is_kafkas_frame_of_independent_64_kib_blocks():
    body = bytes(range(256)) * 300
    data = compression.compress_records("lz4", body, level=None, version=V44).data
    # Lz4BlockOutputStream: magic, FLG 0x60 (version 1, independent blocks, no checksums, no size), BD 0x40 (64 KiB)
    assert data[:6] == bytes.fromhex("04224d186040") and data[-4:] == b"\x00\x00\x00\x00"
    assert lz4.frame.decompress(data) == body


def test_zstd_is_a_streamed_frame_without_size_or_checksum():
    body = b"kafka " * 500
    data = compression.compress_records("zstd", body, level=None, version=V44).data
    params = zstandard.get_frame_parameters(data)
    assert (params.content_size, params.has_checksum) == (zstandard.CONTENTSIZE_UNKNOWN, False)
    assert zstandard.ZstdDecompressor().decompressobj().decompress(data) == body


@pytest.mark.parametrize(
    ("version", "zstd", "lz4", "snappy"),
    [("4.4.0", (1, 5, 7), (1, 10), (1, 1, 10)), ("4.3.1", (1, 5, 6), (1, 10), (1, 1, 10)),
     ("4.2.2", (1, 5, 6), (1, 10), (1, 1, 10)), ("4.1.2", (1, 5, 6), (1, 10), (1, 1, 10)),
     ("4.1.0", (1, 5, 6), (1, 9), (1, 1, 10)), ("4.0.2", (1, 5, 6), (1, 10), (1, 1, 10)),
     ("4.0.1", (1, 5, 6), (1, 9), (1, 1, 10)), ("3.9.2", (1, 5, 6), (1, 10), (1, 1, 10)),
     ("3.9.1", (1, 5, 6), (1, 9), (1, 1, 10)), ("3.8.0", (1, 5, 6), (1, 9), (1, 1, 10)),
     ("3.7.2", (1, 5, 6), (1, 9), (1, 1, 10)), ("3.7.1", (1, 5, 6), (1, 9), (1, 1, 10)),
     ("3.7.0", (1, 5, 5), (1, 9), (1, 1, 10)), ("3.5.2", (1, 5, 5), (1, 9), (1, 1, 10)),
     ("3.4.1", (1, 5, 2), (1, 9), (1, 1, 8)), ("3.3.2", (1, 5, 2), (1, 9), (1, 1, 8)),
     ("2.8.2", (1, 4, 9), (1, 9), (1, 1, 8)), ("2.1.1", (1, 3, 7), (1, 8), (1, 1, 7)),
     ("2.0.1", None, (1, 8), (1, 1, 7))],
)  # fmt: skip
def test_native_library_releases_follow_kafka_clients_poms(version, zstd, lz4, snappy):
    # kafka-clients' POMs (3.7.2 on) and gradle/dependencies.gradle at the tags: zstd-jni 1.5.2-1 (3.2-3.4),
    # 1.5.5-x (3.5-3.7.0), 1.5.6-x (3.7.1-4.3), 1.5.7-17 (4.4); lz4-java 1.8.0 (lz4 1.9) until 1.10.1 in 3.9.2,
    # 4.0.2, 4.1.2 and 4.2.0; snappy-java 1.1.8.x until 1.1.10.0 in 3.5.0
    parsed = KafkaVersion.parse(version)
    releases = (codec_releases.zstd_release(parsed), codec_releases.lz4_release(parsed))
    assert (*releases, codec_releases.snappy_release(parsed)) == (zstd, lz4, snappy)


def test_zstd_picks_the_binding_of_kafkas_libzstd_and_marks_others_estimated(monkeypatch):
    releases = [release for release, _ in compression._zstd_bindings()]
    assert releases[:2] == [(1, 5, 7), (1, 5, 6)]  # zstandard and pyzstd, as pyproject.toml pins them
    assert releases[2:] == built_releases()  # then the older ones make codecs built
    body = b"kafka " * 500
    assert compression.compress_records("zstd", body, level=None, version=V39).exact
    only_newest = [b for b in compression._zstd_bindings() if b[0] == (1, 5, 7)]
    monkeypatch.setattr(compression, "_zstd_bindings", lambda: only_newest)
    packed = compression.compress_records("zstd", body, level=None, version=V39)
    assert not packed.exact and zstandard.ZstdDecompressor().decompressobj().decompress(packed.data) == body


def test_lz4_hc_levels_1_and_2_are_exact_only_with_kafkas_lz4_release(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))  # the binding alone: lz4 1.10 built is test_liblz4.py's
    library = divmod(lz4.library_version_number() // 100, 100)
    for level in (1, 2):
        packed = compression.compress_records("lz4", b"kafka " * 500, level=level, version=V44)
        assert packed.exact == (library == (1, 10)) and lz4.frame.decompress(packed.data) == b"kafka " * 500
    assert compression.compress_records("lz4", b"kafka " * 500, level=3, version=V44).exact


def test_a_missing_codec_package_names_it(monkeypatch):
    monkeypatch.setattr(compression, "_module", lambda name: None)
    with pytest.raises(
        CodecUnavailableError, match=r"needs the Python package 'lz4' \(pip install lz4\); nothing was changed"
    ):
        compression.check_codec_available("lz4")
    with pytest.raises(CodecUnavailableError, match="'zstandard'"):
        compression.compress_records("zstd", b"x", level=None, version=V44)
    compression.check_codec_available("snappy")  # gzip and snappy need no package
    compression.check_codec_available("gzip")


def _fresh_zstandard_frame(body: bytes, level: int) -> bytes:
    """zstd-jni's stream (no checksum, no size, one flush, then the end) by a compressor made for this body alone."""
    stream = zstandard.ZstdCompressor(level=level, write_content_size=False, write_checksum=False).compressobj()
    return stream.compress(body) + stream.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) + stream.flush()


def _fresh_pyzstd_frame(body: bytes, level: int) -> bytes:
    """The same stream by a new ``pyzstd`` compressor."""
    options = {
        pyzstd.CParameter.compressionLevel: level,
        pyzstd.CParameter.contentSizeFlag: 0,
        pyzstd.CParameter.checksumFlag: 0,
    }
    stream = pyzstd.ZstdCompressor(options)
    return stream.compress(body, stream.CONTINUE) + stream.flush(stream.FLUSH_BLOCK) + stream.flush(stream.FLUSH_FRAME)


@pytest.mark.parametrize(
    ("version", "fresh_frame"),
    [
        pytest.param(V44, _fresh_zstandard_frame, id="4.4.0-zstandard-1.5.7"),
        pytest.param(V39, _fresh_pyzstd_frame, id="3.9.2-pyzstd-1.5.6"),
    ],
)
@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=3000), st.sampled_from([1, 3, 9])), min_size=1, max_size=6))
def test_zstd_batches_compressed_one_after_another_are_each_as_a_fresh_compressor_writes_them(
    version, fresh_frame, bodies
):
    # Kafka's libzstd release is the binding's: its compressors are reused from batch to batch and level to level
    bodies = [(b"kafka" + body, level) for body, level in bodies]  # Kafka never compresses an empty batch
    packed = [compression.compress_records("zstd", body, level=level, version=version) for body, level in bodies]
    assert [(p.data, p.exact) for p in packed] == [(fresh_frame(*b), True) for b in bodies]
