"""Older libzstd releases built from their sources by ``make codecs`` (``kcompact_nb.record._libzstd``, issue #30),
and the whole libzstd ``zstandard`` bundles, with which the C kernel decompresses (issue #29).

That each built release writes Kafka's bytes is checked against kafka-clients of the releases that bundle them
(tests/broker/test_kafka_compression.py); here: what is opened, from where, and what happens when it is not built
(building them: tests/test_build_codecs.py).
"""

from __future__ import annotations

import ctypes
import shutil
import sys

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KafkaVersion
from kcompact_nb.record import NativeLibraryError, _libzstd, full_libzstd, libzstd_dir, libzstd_library
from kcompact_nb.record import _compression as compression
from kcompact_nb.record._codec_releases import version_number
from kcompact_nb.record._libzstd import built_releases

BODY = b" ".join(b'{"id": %d, "name": "user-%d", "active": true}' % (i, i % 97) for i in range(4000))


def test_built_releases_compress_a_frame_that_decodes_to_the_body():
    """Every release ``make codecs`` built here (all of them in CI) loads, reports its release and round-trips."""
    built = built_releases()
    assert built, "no libzstd release built: run make codecs"
    for release in built:
        frame = _libzstd.libzstd_compress(release)(BODY, 3)
        assert zstandard.ZstdDecompressor().decompressobj().decompress(frame) == BODY
        assert zstandard.get_frame_parameters(frame).content_size == zstandard.CONTENTSIZE_UNKNOWN


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.binary(min_size=1, max_size=3000), st.sampled_from([1, 3, 9])), min_size=1, max_size=5))
def test_a_built_release_writes_each_frame_of_a_sequence_as_a_stream_of_its_own_would(bodies):
    """A thread's stream is restarted for every frame (a pass rewrites batch after batch): the same bytes as a new
    stream's, whatever frames and levels came before."""
    built = built_releases()
    assert built, "no libzstd release built: run make codecs"
    for release in (built[0], built[-1]):  # the newest and the oldest built
        reused = _libzstd.libzstd_compress(release)
        frames = [reused(body, level) for body, level in bodies]
        assert frames == [_libzstd.libzstd_compress(release)(body, level) for body, level in bodies]
        assert [zstandard.ZstdDecompressor().decompressobj().decompress(f) for f in frames] == [b for b, _ in bodies]


def test_without_a_built_release_kafkas_zstd_is_written_by_another_and_marked_estimated(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    assert built_releases() == [] and libzstd_dir() == tmp_path / "libzstd"
    written = compression.compress_records("zstd", BODY, level=None, version=KafkaVersion(3, 5, 2))
    assert not written.exact
    assert zstandard.ZstdDecompressor().decompressobj().decompress(written.data) == BODY


def test_a_library_that_is_not_the_release_it_is_filed_under_is_refused(tmp_path, monkeypatch):
    newest = max(built_releases(), default=None)
    if newest is None:
        pytest.fail("no libzstd release built: run make codecs")
    source = libzstd_dir() / ".".join(map(str, newest)) / "libzstd.so"
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    other = (1, 3, 5) if newest != (1, 3, 5) else (1, 5, 5)
    (tmp_path / "libzstd" / ".".join(map(str, other))).mkdir(parents=True)
    shutil.copy(source, tmp_path / "libzstd" / ".".join(map(str, other)) / "libzstd.so")
    _libzstd._load.cache_clear()
    with pytest.raises(NativeLibraryError, match=rf"reports libzstd {newest[0]}0{newest[1]}0{newest[2]}, not "):
        _libzstd.libzstd_compress(other)(BODY, 3)
    _libzstd._load.cache_clear()


def test_zstandards_whole_libzstd_is_built_under_its_release_and_reports_it():
    assert full_libzstd().is_file(), "zstandard's libzstd is not built: run make codecs"
    release = ".".join(map(str, zstandard.ZSTD_VERSION))
    assert full_libzstd() == libzstd_dir() / release / "libzstd-full.so"
    assert ctypes.CDLL(str(full_libzstd())).ZSTD_versionNumber() == version_number(zstandard.ZSTD_VERSION)


def test_without_zstandard_no_libzstd_is_built_for_its_decoding_and_none_is_opened(monkeypatch):
    """``import kcompact_nb.io`` works without ``zstandard`` (zstd batches are then a missing codec's, as the
    segment dump test shows); there is no release to build, and the C kernel is given no libzstd of its own."""
    from kcompact_nb.record import _block_inflation

    monkeypatch.setitem(sys.modules, "zstandard", None)  # ``import zstandard`` raises ImportError
    assert _libzstd.bundled_libzstd_release() is None and full_libzstd() is None
    assert _block_inflation._open_full_libzstd(object()) is None


def test_the_releases_built_are_those_filed_in_the_cache_folder_newest_first(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    for release in ((1, 3, 5), (1, 5, 5), (1, 4, 10)):
        libzstd_library(release).parent.mkdir(parents=True)
        libzstd_library(release).write_bytes(b"a library")
    (libzstd_dir() / "1.5.7").mkdir()  # zstandard's whole libzstd lives beside them, as libzstd-full.so
    (libzstd_dir() / "1.5.7" / "libzstd-full.so").write_bytes(b"a library")
    (libzstd_dir() / "notes").mkdir()
    (libzstd_dir() / "notes" / "libzstd.so").write_bytes(b"not filed under a release")
    assert libzstd_library((1, 5, 5)) == tmp_path / "libzstd" / "1.5.5" / "libzstd.so"
    assert built_releases() == [(1, 5, 5), (1, 4, 10), (1, 3, 5)]
