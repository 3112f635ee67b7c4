"""libzstd releases built from their sources for kcompact_nb's exact zstd rewrites and decoding (``make codecs``).

The releases inside older Kafka releases' zstd-jni that no installed binding bundles (``kcompact_nb.record._libzstd``
says how they are called) are compiled from a source distribution on PyPI that holds libzstd's ``lib/`` folder (the
``zstd`` package's, python-zstd, whose versions follow libzstd's: ``1.5.5.1`` holds libzstd 1.5.5; for 1.3.7, which it
skipped, ``blosc`` 1.7.0's copy): their compression half (``lib/common``, ``lib/compress``, single-threaded) becomes
:func:`kcompact_nb.record.libzstd_library`. And the whole libzstd ``zstandard`` bundles, compression and
decompression, from that binding's own source distribution: its single-file ``zstd/zstd.c``, compiled with the
options it sets there (no legacy frames, no assembly), into :func:`kcompact_nb.record.full_libzstd`, with which the C
kernel decompresses zstd batches. Needs a C compiler and PyPI once.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from kcompact_nb.record import NativeLibraryError, bundled_libzstd_release, full_libzstd, libzstd_library
from tools.codec_build import compile_library, run, unpack

Release = tuple[int, int, int]

SOURCE_PACKAGES: dict[Release, str] = {
    (1, 3, 5): "zstd==1.3.5.1",
    (1, 3, 7): "blosc==1.7.0",
    (1, 3, 8): "zstd==1.3.8.1",
    (1, 4, 0): "zstd==1.4.0.0",
    (1, 4, 3): "zstd==1.4.3.2",
    (1, 4, 4): "zstd==1.4.4.0",
    (1, 4, 5): "zstd==1.4.5.1",
    (1, 4, 9): "zstd==1.4.9.1",
    (1, 5, 0): "zstd==1.5.0.4",
    (1, 5, 2): "zstd==1.5.2.6",
    (1, 5, 5): "zstd==1.5.5.1",
}
"""libzstd release -> the PyPI source distribution holding its sources: every release a Kafka release's zstd-jni
bundled that the installed bindings do not."""


def build_libzstd(
    releases: Iterable[Release] | None = None, *, on_build: Callable[[Release], None] | None = None
) -> list[Release]:
    """Build the ``releases`` (default: every one of :data:`SOURCE_PACKAGES`) not built yet; returns those built.

    Needs a C compiler (``$CC``, else ``cc``) and PyPI (``pip download``). ``on_build`` is told of each release
    before its build starts. A failed build leaves nothing behind and raises :class:`NativeLibraryError`.
    """
    wanted = sorted(SOURCE_PACKAGES) if releases is None else sorted(set(releases))
    unknown = [r for r in wanted if r not in SOURCE_PACKAGES]
    if unknown:
        known = ", ".join(text(r) for r in sorted(SOURCE_PACKAGES))
        raise NativeLibraryError(f"libzstd {', '.join(map(text, unknown))}: not buildable here (these are: {known})")
    built = []
    for release in wanted:
        if libzstd_library(release).is_file():
            continue
        if on_build is not None:
            on_build(release)
        build(release)
        built.append(release)
    return built


def build_full_libzstd(*, on_build: Callable[[Release], None] | None = None) -> bool:
    """Build :func:`~kcompact_nb.record.full_libzstd` from the installed ``zstandard``'s source distribution unless it
    is built; returns whether it was built now.

    Needs a C compiler (``$CC``, else ``cc``) and PyPI. ``on_build`` is told of the release before its build starts.
    A failed build, or sources of another release than the binding reports (a ``zstandard`` linked to a system
    libzstd), leave nothing behind and raise :class:`NativeLibraryError`.
    """
    release, library = bundled_libzstd_release(), full_libzstd()
    if release is None or library is None:
        raise NativeLibraryError("zstandard is not installed: no libzstd release to build for its decoding")
    if library.is_file():
        return False
    if on_build is not None:
        on_build(release)
    import zstandard

    requirement = f"zstandard=={zstandard.__version__}"
    with tempfile.TemporaryDirectory(prefix=f"kcompact-libzstd-{text(release)}-full-") as scratch:
        work = Path(scratch)
        unpacked(requirement, work)
        (source,) = [c for c in work.rglob("zstd.c") if c.parent.name == "zstd"]  # the single-file libzstd
        held = release_of(source)
        if held != release:
            raise NativeLibraryError(
                f"{requirement}'s sources hold libzstd {text(held)}, but zstandard decodes with {text(release)} "
                "(linked to another libzstd): nothing built"
            )
        compile_library([source], [], library, f"libzstd {text(release)} ({requirement})")
    return True


def release_of(source: Path) -> Release:
    """The release libzstd's C ``source`` says it is (``zstd.h``'s ``ZSTD_VERSION_MAJOR``, ``_MINOR``, ``_RELEASE``)."""
    found = [re.search(rf"#define ZSTD_VERSION_{part}\s+(\d+)", source.read_text(errors="replace")) for part in
             ("MAJOR", "MINOR", "RELEASE")]  # fmt: skip
    major, minor, patch = (int(match.group(1)) if match else -1 for match in found)
    return major, minor, patch


def build(release: Release) -> None:
    """One release's compression half, from :data:`SOURCE_PACKAGES`."""
    with tempfile.TemporaryDirectory(prefix=f"kcompact-libzstd-{text(release)}-") as scratch:
        lib = sources(SOURCE_PACKAGES[release], Path(scratch))
        files = sorted(str(p) for folder in ("common", "compress") for p in (lib / folder).glob("*.c"))
        compile_library(files, [lib, lib / "common"], libzstd_library(release), f"libzstd {text(release)}")


def sources(requirement: str, work: Path) -> Path:
    """libzstd's ``lib/`` folder in the PyPI source distribution ``requirement``, downloaded and unpacked in ``work``
    (the folder holding ``zstd.h`` beside ``common/`` and ``compress/``)."""
    unpacked(requirement, work)
    (lib,) = [h.parent for h in work.rglob("zstd.h") if (h.parent / "compress").is_dir()]
    return lib


def unpacked(requirement: str, work: Path) -> None:
    """The PyPI source distribution ``requirement`` downloaded and unpacked in ``work``."""
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
    run([*download, requirement, "-d", str(work)], f"downloading {requirement}'s sources from PyPI")
    (archive,) = work.glob("*.tar.gz")
    unpack(archive, work)


def text(release: Release) -> str:
    return ".".join(map(str, release))
