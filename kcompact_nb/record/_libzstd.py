"""The libzstd releases inside older Kafka releases' zstd-jni, built here from their sources for exact zstd rewrites.

A zstd batch is only Kafka's, byte for byte, when the same libzstd release compressed it (``_codec_releases``:
zstd-jni 1.5.5-1 holds libzstd 1.5.5). The bindings installed with the package bundle 1.5.6 (``pyzstd``) and 1.5.7
(``zstandard``); the releases before are compiled from their own sources: a source distribution on PyPI that holds
libzstd's ``lib/`` folder (the ``zstd`` package's, python-zstd, whose versions follow libzstd's: ``1.5.5.1`` holds
libzstd 1.5.5; for 1.3.7, which it skipped, ``blosc`` 1.7.0's copy), and its compression half (``lib/common``,
``lib/compress``, single-threaded) becomes
``<cache>/libzstd/<release>/libzstd.so``, called through ``ctypes`` with libzstd's stable streaming API, as zstd-jni's
``ZstdOutputStream`` calls it: ``ZSTD_initCStream`` at the level, the data, ``ZSTD_flushStream``, ``ZSTD_endStream``.

:func:`build_libzstd` builds them (``make codecs``: a C compiler and PyPI are needed once); a release not built is
written by another release and marked estimated, as before.

``make codecs`` also builds (:func:`build_full_libzstd`) the whole libzstd, compression and decompression, that
``zstandard`` bundles (the segment reader's Python decoder), from that binding's own source distribution: its
single-file ``zstd/zstd.c``, compiled with the options it sets there (no legacy frames, no assembly), into
``<cache>/libzstd/<release>/libzstd-full.so``. The C kernel decompresses zstd batches with it
(``_block_inflation.inflatable_in_c``): another release, such as the system's, refuses other corrupt frames.
"""

from __future__ import annotations

import ctypes
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from kcompact_nb.record._cache_dir import cache_dir
from kcompact_nb.record._errors import NativeLibraryError
from kcompact_nb.record._native_build import compile_library, run, unpack, version_number

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

_LIBRARY = "libzstd.so"
_FULL_LIBRARY = "libzstd-full.so"


def libzstd_dir() -> Path:
    """Where built releases live: ``<cache>/libzstd/<release>/libzstd.so`` (the cache: :func:`cache_dir`)."""
    return cache_dir() / "libzstd"


def built_releases() -> list[Release]:
    """The releases of :data:`SOURCE_PACKAGES` built in :func:`libzstd_dir`, newest first.

    Looked up once per folder in a process (a pass rewriting zstd batches asks for every batch: 11 files looked up
    each time took 0.7 s of a 1M-record pass), again after :func:`build_libzstd` built one."""
    return list(_built_in(libzstd_dir()))


@cache
def _built_in(folder: Path) -> tuple[Release, ...]:
    return tuple(r for r in sorted(SOURCE_PACKAGES, reverse=True) if (folder / _text(r) / _LIBRARY).is_file())


def libzstd_compress(release: Release) -> Callable[[bytes, int], bytes]:
    """``compress(body, level)`` by the built ``release``, as zstd-jni's ``ZstdOutputStream`` drives it."""
    return _StreamingCompressor(_load(release)).compress


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
        known = ", ".join(_text(r) for r in sorted(SOURCE_PACKAGES))
        raise NativeLibraryError(f"libzstd {', '.join(map(_text, unknown))}: not buildable here (these are: {known})")
    built = []
    for release in wanted:
        if _library(release).is_file():
            continue
        if on_build is not None:
            on_build(release)
        _build(release)
        _built_in.cache_clear()
        built.append(release)
    return built


def bundled_release() -> Release | None:
    """The libzstd release the ``zstandard`` binding decodes with (the segment reader's Python decoding), or None
    without ``zstandard`` (zstd batches are then a missing codec's, however the kernels were built)."""
    try:
        import zstandard
    except ImportError:
        return None
    major, minor, patch = zstandard.ZSTD_VERSION
    return major, minor, patch


def full_libzstd() -> Path | None:
    """Where :func:`build_full_libzstd` puts the whole libzstd of :func:`bundled_release`:
    ``<cache>/libzstd/<release>/libzstd-full.so``; None without ``zstandard``."""
    release = bundled_release()
    return None if release is None else libzstd_dir() / _text(release) / _FULL_LIBRARY


def build_full_libzstd(*, on_build: Callable[[Release], None] | None = None) -> bool:
    """Build :func:`full_libzstd` from the installed ``zstandard``'s source distribution unless it is built; returns
    whether it was built now.

    Needs a C compiler (``$CC``, else ``cc``) and PyPI. ``on_build`` is told of the release before its build starts.
    A failed build, or sources of another release than the binding reports (a ``zstandard`` linked to a system
    libzstd), leave nothing behind and raise :class:`NativeLibraryError`.
    """
    release, library = bundled_release(), full_libzstd()
    if release is None or library is None:
        raise NativeLibraryError("zstandard is not installed: no libzstd release to build for its decoding")
    if library.is_file():
        return False
    if on_build is not None:
        on_build(release)
    import zstandard

    requirement = f"zstandard=={zstandard.__version__}"
    with tempfile.TemporaryDirectory(prefix=f"kcompact-libzstd-{_text(release)}-full-") as scratch:
        work = Path(scratch)
        _unpacked(requirement, work)
        (source,) = [c for c in work.rglob("zstd.c") if c.parent.name == "zstd"]  # the single-file libzstd
        held = _release_of(source)
        if held != release:
            raise NativeLibraryError(
                f"{requirement}'s sources hold libzstd {_text(held)}, but zstandard decodes with {_text(release)} "
                "(linked to another libzstd): nothing built"
            )
        compile_library([source], [], library, f"libzstd {_text(release)} ({requirement})")
    return True


def _release_of(source: Path) -> Release:
    """The release libzstd's C ``source`` says it is (``zstd.h``'s ``ZSTD_VERSION_MAJOR``, ``_MINOR``, ``_RELEASE``)."""
    text = source.read_text(errors="replace")
    found = [re.search(rf"#define ZSTD_VERSION_{part}\s+(\d+)", text) for part in ("MAJOR", "MINOR", "RELEASE")]
    major, minor, patch = (int(match.group(1)) if match else -1 for match in found)
    return major, minor, patch


def _build(release: Release) -> None:
    with tempfile.TemporaryDirectory(prefix=f"kcompact-libzstd-{_text(release)}-") as scratch:
        lib = _sources(SOURCE_PACKAGES[release], Path(scratch))
        sources = sorted(str(p) for folder in ("common", "compress") for p in (lib / folder).glob("*.c"))
        compile_library(sources, [lib, lib / "common"], _library(release), f"libzstd {_text(release)}")


def _sources(requirement: str, work: Path) -> Path:
    """libzstd's ``lib/`` folder in the PyPI source distribution ``requirement``, downloaded and unpacked in ``work``
    (the folder holding ``zstd.h`` beside ``common/`` and ``compress/``)."""
    _unpacked(requirement, work)
    (lib,) = [h.parent for h in work.rglob("zstd.h") if (h.parent / "compress").is_dir()]
    return lib


def _unpacked(requirement: str, work: Path) -> None:
    """The PyPI source distribution ``requirement`` downloaded and unpacked in ``work``."""
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
    run([*download, requirement, "-d", str(work)], f"downloading {requirement}'s sources from PyPI")
    (archive,) = work.glob("*.tar.gz")
    unpack(archive, work)


def _library(release: Release) -> Path:
    return libzstd_dir() / _text(release) / _LIBRARY


def _text(release: Release) -> str:
    return ".".join(map(str, release))


class _OutBuffer(ctypes.Structure):
    _fields_ = [("dst", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


class _InBuffer(ctypes.Structure):
    _fields_ = [("src", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


@cache
def _load(release: Release) -> ctypes.CDLL:
    library = ctypes.CDLL(str(_library(release)))
    stream, size, out, inp = ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(_OutBuffer), ctypes.POINTER(_InBuffer)
    signatures = {
        "ZSTD_createCStream": ([], stream),
        "ZSTD_freeCStream": ([stream], size),
        "ZSTD_initCStream": ([stream, ctypes.c_int], size),
        "ZSTD_compressStream": ([stream, out, inp], size),
        "ZSTD_flushStream": ([stream, out], size),
        "ZSTD_endStream": ([stream, out], size),
        "ZSTD_compressBound": ([size], size),
        "ZSTD_isError": ([size], ctypes.c_uint),
        "ZSTD_getErrorName": ([size], ctypes.c_char_p),
        "ZSTD_versionNumber": ([], ctypes.c_uint),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(library, name)
        function.argtypes, function.restype = arguments, result
    number = library.ZSTD_versionNumber()
    if number != version_number(release):
        raise NativeLibraryError(
            f"{_library(release)}: reports libzstd {number}, not {_text(release)}: run make codecs"
        )
    return library


class _CStream:
    """A libzstd compression stream, freed with this object (a thread's, when the thread ends)."""

    def __init__(self, library: ctypes.CDLL) -> None:
        self._library = library
        self.handle: int = library.ZSTD_createCStream()
        if not self.handle:
            raise NativeLibraryError("libzstd could not allocate a compression stream")

    def __del__(self) -> None:
        self._library.ZSTD_freeCStream(self.handle)


class _StreamingCompressor:
    """One frame by libzstd's stable streaming API: no checksum, no content size (the size is not pledged)."""

    def __init__(self, library: ctypes.CDLL) -> None:
        self._library = library
        self._streams = threading.local()
        """Each thread's stream, made once and restarted by ``ZSTD_initCStream`` for every frame: making one (its
        workspace allocated on the first frame) took most of a small batch's compression."""

    def compress(self, body: bytes, level: int) -> bytes:
        zstd = self._library
        capacity = zstd.ZSTD_compressBound(len(body)) + 1024
        output = ctypes.create_string_buffer(capacity)
        source = ctypes.create_string_buffer(body, len(body))
        out = _OutBuffer(ctypes.cast(output, ctypes.c_void_p), capacity, 0)
        inp = _InBuffer(ctypes.cast(source, ctypes.c_void_p), len(body), 0)
        stream = self._stream()
        self._check(zstd.ZSTD_initCStream(stream, level))  # a new frame, whatever the last one left
        while inp.pos < inp.size:
            self._check(zstd.ZSTD_compressStream(stream, ctypes.byref(out), ctypes.byref(inp)))
        while self._check(zstd.ZSTD_flushStream(stream, ctypes.byref(out))):
            pass
        while self._check(zstd.ZSTD_endStream(stream, ctypes.byref(out))):
            pass
        return output.raw[: out.pos]

    def _stream(self) -> int:
        stream: _CStream | None = getattr(self._streams, "stream", None)
        if stream is None:
            stream = self._streams.stream = _CStream(self._library)
        return stream.handle

    def _check(self, code: int) -> int:
        if self._library.ZSTD_isError(code):
            raise NativeLibraryError(f"libzstd failed: {self._library.ZSTD_getErrorName(code).decode()}")
        return code
