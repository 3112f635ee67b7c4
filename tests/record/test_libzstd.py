"""Older libzstd releases built from their sources (``kcompact_nb.record._libzstd``, issue #30), and the whole
libzstd ``zstandard`` bundles, with which the C kernel decompresses (issue #29).

That each built release writes Kafka's bytes is checked against kafka-clients of the releases that bundle them
(tests/broker/test_kafka_compression.py); here: what is built, where, and what happens when it is not.
"""

from __future__ import annotations

import ctypes
import re
import shutil
import sys
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KafkaVersion
from kcompact_nb.io import (
    LIBZSTD_SOURCE_PACKAGES,
    NativeLibraryError,
    build_full_libzstd,
    build_libzstd,
    built_releases,
    full_libzstd,
    libzstd_dir,
)
from kcompact_nb.record import _compression as compression
from kcompact_nb.record import _libzstd
from kcompact_nb.record._codec_releases import KAFKA_CLIENTS_CODECS, zstd_release
from kcompact_nb.record._native_build import version_number

BODY = b" ".join(b'{"id": %d, "name": "user-%d", "active": true}' % (i, i % 97) for i in range(4000))


def test_every_libzstd_release_kafka_shipped_is_buildable_or_installed():
    shipped = {zstd_release(version) for version, _ in KAFKA_CLIENTS_CODECS} - {None}
    installed = {release for release, _ in compression._zstd_bindings()} - set(built_releases())
    assert shipped - set(LIBZSTD_SOURCE_PACKAGES) - installed == set()
    python_zstd = {
        r: req.removeprefix("zstd==") for r, req in LIBZSTD_SOURCE_PACKAGES.items() if req.startswith("zstd==")
    }
    assert all(version.startswith(".".join(map(str, r)) + ".") for r, version in python_zstd.items())  # 1.5.5.1: 1.5.5
    assert set(LIBZSTD_SOURCE_PACKAGES) - set(python_zstd) == {(1, 3, 7)}  # which python-zstd skipped


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
    other = min(r for r in LIBZSTD_SOURCE_PACKAGES if r != newest)
    (tmp_path / "libzstd" / ".".join(map(str, other))).mkdir(parents=True)
    shutil.copy(source, tmp_path / "libzstd" / ".".join(map(str, other)) / "libzstd.so")
    _libzstd._load.cache_clear()
    with pytest.raises(NativeLibraryError, match=rf"reports libzstd {newest[0]}0{newest[1]}0{newest[2]}, not "):
        _libzstd.libzstd_compress(other)(BODY, 3)
    _libzstd._load.cache_clear()


def test_a_release_with_no_sources_is_refused_by_name():
    with pytest.raises(
        NativeLibraryError, match=r"libzstd 1\.3\.6: not buildable here \(these are: 1\.3\.5, 1\.3\.7, "
    ):
        build_libzstd([(1, 3, 6)])


def test_a_failed_build_says_why_and_leaves_no_library(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    broken = tmp_path / "sources" / "lib"
    for folder in ("common", "compress"):
        (broken / folder).mkdir(parents=True)
    (broken / "compress" / "zstd_compress.c").write_text("this is not C\n")
    monkeypatch.setattr(_libzstd, "_sources", lambda version, work: broken)
    with pytest.raises(NativeLibraryError, match=r"compiling libzstd 1\.5\.5 with .* failed: "):
        build_libzstd([(1, 5, 5)])
    assert built_releases() == [] and not (tmp_path / "libzstd").exists()


def test_zstandards_whole_libzstd_is_built_under_its_release_and_reports_it():
    assert full_libzstd().is_file(), "zstandard's libzstd is not built: run make codecs"
    release = ".".join(map(str, zstandard.ZSTD_VERSION))
    assert full_libzstd() == libzstd_dir() / release / "libzstd-full.so"
    assert ctypes.CDLL(str(full_libzstd())).ZSTD_versionNumber() == version_number(zstandard.ZSTD_VERSION)
    assert build_full_libzstd() is False  # built once, then kept


def test_sources_of_another_release_than_zstandards_are_refused_and_leave_no_library(tmp_path, monkeypatch):
    """A ``zstandard`` linked to another libzstd than its sources hold (a distribution's build) gets nothing."""
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path / "cache"))

    def sources_of_1_5_4(requirement: str, work: Path) -> None:
        (work / "zstandard-0" / "zstd").mkdir(parents=True)
        defines = "#define ZSTD_VERSION_MAJOR    1\n#define ZSTD_VERSION_MINOR    5\n#define ZSTD_VERSION_RELEASE  4\n"
        (work / "zstandard-0" / "zstd" / "zstd.c").write_text(defines)

    monkeypatch.setattr(_libzstd, "_unpacked", sources_of_1_5_4)
    announced = []
    release = ".".join(map(str, zstandard.ZSTD_VERSION))
    with pytest.raises(
        NativeLibraryError, match=rf"'s sources hold libzstd 1\.5\.4, but zstandard decodes with {re.escape(release)} "
    ):
        build_full_libzstd(on_build=announced.append)
    assert announced == [tuple(zstandard.ZSTD_VERSION)]
    assert not full_libzstd().exists() and not full_libzstd().parent.exists()


def test_without_zstandard_no_libzstd_is_built_for_its_decoding_and_none_is_opened(monkeypatch):
    """``import kcompact_nb.io`` works without ``zstandard`` (zstd batches are then a missing codec's, as the
    segment dump test shows); there is no release to build, and the C kernel is given no libzstd of its own."""
    from kcompact_nb.record import _block_inflation

    monkeypatch.setitem(sys.modules, "zstandard", None)  # ``import zstandard`` raises ImportError
    assert _libzstd.bundled_release() is None and full_libzstd() is None
    with pytest.raises(NativeLibraryError, match="^zstandard is not installed"):
        build_full_libzstd()
    assert _block_inflation._open_full_libzstd(object()) is None


def test_a_release_built_after_the_releases_were_looked_up_is_found(tmp_path, monkeypatch):
    """``built_releases`` is looked up once per folder, and again after ``build_libzstd`` built one."""
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    assert built_releases() == []

    def build(release: tuple[int, int, int]) -> None:
        library = _libzstd._library(release)
        library.parent.mkdir(parents=True)
        library.write_bytes(b"a library")

    monkeypatch.setattr(_libzstd, "_build", build)
    assert build_libzstd([(1, 5, 5)]) == [(1, 5, 5)]
    assert built_releases() == [(1, 5, 5)]
