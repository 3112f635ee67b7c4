"""lz4 1.10.0 built from its sources (``kcompact_nb.record._liblz4``, issue #30), for lz4's HC levels 1-2.

That it writes Kafka's bytes is checked against kafka-clients 4.4.0 and 3.9.2 (tests/broker/test_kafka_compression.py);
here: what is built and loaded, that it is what Kafka's lz4 1.10 releases are written with, and what happens when it
is not built (building: tests/test_build_codecs.py).
"""

from __future__ import annotations

import lz4.frame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KafkaVersion
from kcompact_nb.record import LIBLZ4_RELEASE, NativeLibraryError, _liblz4, liblz4_built, liblz4_dir, liblz4_library
from kcompact_nb.record import _compression as compression
from tools.codec_build import compile_library

V44, V40 = KafkaVersion(4, 4, 0), KafkaVersion(4, 0, 0)  # lz4-java 1.11.2 (lz4 1.10) and 1.8.0 (lz4 1.9)
BODY = b" ".join(b'{"id": %d, "name": "user-%d", "active": true}' % (i, i % 97) for i in range(4000))


def require_built() -> None:
    if not liblz4_built():
        pytest.fail(f"lz4 {'.'.join(map(str, LIBLZ4_RELEASE))} is not built in {liblz4_dir()}: run make codecs")


def test_the_built_library_is_lz4_1_10_0():
    require_built()
    assert _liblz4._load().LZ4_versionNumber() == 11000  # LZ4_VERSION_NUMBER: major * 100 * 100 + minor * 100 + patch
    assert LIBLZ4_RELEASE == (1, 10, 0)


def test_kafkas_lz4_1_10_releases_are_written_by_it_and_lz4_1_9_releases_by_the_binding():
    """Levels 1-2 of lz4 1.10 (a new algorithm there) are not lz4 1.9's: each release gets its own, exactly."""
    require_built()
    for level in (1, 2):
        newer = compression.compress_records("lz4", BODY, level=level, version=V44)
        older = compression.compress_records("lz4", BODY, level=level, version=V40)
        assert newer.exact and older.exact and newer.data != older.data
        assert newer.data == compression._lz4_hc_frame(BODY, level, _liblz4.liblz4_compress_hc())
        assert older.data == compression._lz4_hc_frame(BODY, level, compression._lz4_binding_hc)
        assert lz4.frame.decompress(newer.data) == lz4.frame.decompress(older.data) == BODY


@settings(max_examples=25, deadline=None)
@given(chunk=st.binary(max_size=3000), repeats=st.integers(1, 60), level=st.sampled_from([1, 2]))
def test_any_records_compress_to_kafkas_frame_that_decodes_to_them(chunk, repeats, level):
    require_built()
    body = chunk * repeats or b"k"  # Kafka never compresses an empty batch (writeEmptyHeader)
    packed = compression.compress_records("lz4", body, level=level, version=V44)
    # Lz4BlockOutputStream: magic, FLG 0x60 (independent blocks, no checksums, no size), BD 0x40 (64 KiB blocks)
    assert packed.exact and packed.data[:6] == bytes.fromhex("04224d186040") and packed.data[-4:] == bytes(4)
    assert lz4.frame.decompress(packed.data) == body


@settings(max_examples=20, deadline=None)
@given(chunk=st.binary(min_size=1, max_size=2000), repeats=st.integers(1, 40), level=st.integers(3, 17))
def test_lz4_1_9_and_1_10_agree_at_the_other_hc_levels(chunk, repeats, level):
    """Why the binding's lz4 1.9 writes levels 3-17 of Kafka's lz4 1.10 releases exactly: only 1-2 changed."""
    require_built()
    block = (chunk * repeats)[: 64 * 1024]
    assert _liblz4.liblz4_compress_hc()(block, level) == compression._lz4_binding_hc(block, level)


def test_without_the_built_library_kafkas_lz4_1_10_is_written_by_the_binding_and_marked_estimated(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    assert not liblz4_built() and liblz4_dir() == tmp_path / "liblz4"
    for level in (1, 2):
        written = compression.compress_records("lz4", BODY, level=level, version=V44)
        assert not written.exact and lz4.frame.decompress(written.data) == BODY


def test_a_library_that_is_not_lz4_1_10_0_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    impostor = tmp_path / "impostor.c"  # lz4 1.9.4's version number behind the same functions
    impostor.write_text(
        "int LZ4_versionNumber(void) { return 10904; }\n"
        "int LZ4_compressBound(int size) { return size + size / 255 + 16; }\n"
        "int LZ4_compress_HC(const char* s, char* d, int n, int c, int l) { return 0; }\n"
    )
    compile_library([impostor], [], liblz4_library(), "an impostor")
    _liblz4._load.cache_clear()
    try:
        with pytest.raises(NativeLibraryError, match=r"liblz4\.so: reports lz4 10904, not 1\.10\.0: run make codecs"):
            compression.compress_records("lz4", BODY, level=1, version=V44)
    finally:
        _liblz4._load.cache_clear()
