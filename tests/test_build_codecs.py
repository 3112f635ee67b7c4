"""``make codecs`` (``tools/build_codecs.py``): the codec library releases Kafka bundles that no installed binding has,
built from their sources where kcompact_nb opens them (issues #29, #30, #38: the builders live in ``tools/``, the
package only opens what they built). That each built release writes Kafka's bytes is checked in tests/record and
against kafka-clients (tests/broker/test_kafka_compression.py); here: what is built, from what, and what a failure
leaves behind."""

from __future__ import annotations

import hashlib
import io
import re
import sys
import tarfile
from pathlib import Path

import pytest
import zstandard

from kcompact_nb.record import NativeLibraryError, full_libzstd, liblz4_built, libzstd_library
from kcompact_nb.record._codec_releases import KAFKA_CLIENTS_CODECS, zstd_release
from kcompact_nb.record._compression import _zstd_bindings
from kcompact_nb.record._libzstd import built_releases
from tools import liblz4_build, libzstd_build
from tools.codec_build import download_verified
from tools.liblz4_build import build_liblz4
from tools.libzstd_build import SOURCE_PACKAGES, build_full_libzstd, build_libzstd


def test_every_libzstd_release_kafka_shipped_is_buildable_or_installed():
    shipped = {zstd_release(version) for version, _ in KAFKA_CLIENTS_CODECS} - {None}
    installed = {release for release, _ in _zstd_bindings()} - set(built_releases())
    assert shipped - set(SOURCE_PACKAGES) - installed == set()
    python_zstd = {r: req.removeprefix("zstd==") for r, req in SOURCE_PACKAGES.items() if req.startswith("zstd==")}
    assert all(version.startswith(".".join(map(str, r)) + ".") for r, version in python_zstd.items())  # 1.5.5.1: 1.5.5
    assert set(SOURCE_PACKAGES) - set(python_zstd) == {(1, 3, 7)}  # which python-zstd skipped


def test_a_release_with_no_sources_is_refused_by_name():
    with pytest.raises(
        NativeLibraryError, match=r"libzstd 1\.3\.6: not buildable here \(these are: 1\.3\.5, 1\.3\.7, "
    ):
        build_libzstd([(1, 3, 6)])


def test_only_releases_not_built_yet_are_built_and_then_found(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    built = []

    def build(release: tuple[int, int, int]) -> None:
        libzstd_library(release).parent.mkdir(parents=True)
        libzstd_library(release).write_bytes(b"a library")
        built.append(release)

    monkeypatch.setattr(libzstd_build, "build", build)
    assert build_libzstd([(1, 5, 5), (1, 3, 5)]) == [(1, 3, 5), (1, 5, 5)]
    assert build_libzstd([(1, 5, 5), (1, 4, 0)]) == [(1, 4, 0)]
    assert built == [(1, 3, 5), (1, 5, 5), (1, 4, 0)]
    assert built_releases() == [(1, 5, 5), (1, 4, 0), (1, 3, 5)]  # this process had not looked in this folder


def test_a_failed_build_says_why_and_leaves_no_library(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    broken = tmp_path / "sources" / "lib"
    for folder in ("common", "compress"):
        (broken / folder).mkdir(parents=True)
    (broken / "compress" / "zstd_compress.c").write_text("this is not C\n")
    monkeypatch.setattr(libzstd_build, "sources", lambda version, work: broken)
    with pytest.raises(NativeLibraryError, match=r"compiling libzstd 1\.5\.5 with .* failed: "):
        build_libzstd([(1, 5, 5)])
    assert built_releases() == [] and not (tmp_path / "libzstd").exists()


def test_zstandards_whole_libzstd_is_built_once():
    assert full_libzstd().is_file(), "zstandard's libzstd is not built: run make codecs"
    assert build_full_libzstd() is False  # built once, then kept


def test_sources_of_another_release_than_zstandards_are_refused_and_leave_no_library(tmp_path, monkeypatch):
    """A ``zstandard`` linked to another libzstd than its sources hold (a distribution's build) gets nothing."""
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path / "cache"))

    def sources_of_1_5_4(requirement: str, work: Path) -> None:
        (work / "zstandard-0" / "zstd").mkdir(parents=True)
        defines = "#define ZSTD_VERSION_MAJOR    1\n#define ZSTD_VERSION_MINOR    5\n#define ZSTD_VERSION_RELEASE  4\n"
        (work / "zstandard-0" / "zstd" / "zstd.c").write_text(defines)

    monkeypatch.setattr(libzstd_build, "unpacked", sources_of_1_5_4)
    announced = []
    release = ".".join(map(str, zstandard.ZSTD_VERSION))
    with pytest.raises(
        NativeLibraryError, match=rf"'s sources hold libzstd 1\.5\.4, but zstandard decodes with {re.escape(release)} "
    ):
        build_full_libzstd(on_build=announced.append)
    assert announced == [tuple(zstandard.ZSTD_VERSION)]
    assert not full_libzstd().exists() and not full_libzstd().parent.exists()


def test_without_zstandard_no_libzstd_is_built_for_its_decoding(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # ``import zstandard`` raises ImportError
    with pytest.raises(NativeLibraryError, match="^zstandard is not installed"):
        build_full_libzstd()


def test_lz4_sources_that_are_not_the_pinned_ones_are_refused_and_nothing_is_built(tmp_path, monkeypatch):
    tampered = tmp_path / "lz4_1.10.0.orig.tar.gz"
    with tarfile.open(tampered, "w:gz") as tar:
        source = b"int LZ4_versionNumber(void) { return 11000; }\n"
        member = tarfile.TarInfo("lz4-1.10.0/lib/lz4.c")
        member.size = len(source)
        tar.addfile(member, io.BytesIO(source))
    monkeypatch.setattr(liblz4_build, "SOURCE_URL", tampered.as_uri())
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path / "cache"))
    pinned = liblz4_build.SOURCE_SHA256
    with pytest.raises(NativeLibraryError, match=rf"SHA-256 is [0-9a-f]{{64}}, not the pinned {pinned}"):
        build_liblz4()
    assert not liblz4_built() and not (tmp_path / "cache").exists()


def test_a_download_whose_sha256_matches_is_kept_whole(tmp_path):
    payload = bytes(range(256)) * 5000
    (tmp_path / "sources.tar.gz").write_bytes(payload)
    target = tmp_path / "downloaded"
    download_verified((tmp_path / "sources.tar.gz").as_uri(), hashlib.sha256(payload).hexdigest(), target)
    assert target.read_bytes() == payload
    with pytest.raises(NativeLibraryError, match=r"downloading file:///.*missing failed: "):
        download_verified((tmp_path / "missing").as_uri(), hashlib.sha256(payload).hexdigest(), tmp_path / "other")
    assert not (tmp_path / "other").exists()
