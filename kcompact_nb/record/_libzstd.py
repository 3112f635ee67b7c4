"""The libzstd releases inside older Kafka releases' zstd-jni, built from their sources, for exact zstd rewrites.

A zstd batch is only Kafka's, byte for byte, when the same libzstd release compressed it (``_codec_releases``:
zstd-jni 1.5.5-1 holds libzstd 1.5.5). The bindings installed with the package bundle 1.5.6 (``pyzstd``) and 1.5.7
(``zstandard``); the releases before are compiled from their own sources by ``make codecs`` (``tools/libzstd_build.py``:
a C compiler and PyPI are needed once), their compression half into ``<cache>/libzstd/<release>/libzstd.so``
(:func:`libzstd_library`), called here through ``ctypes`` with libzstd's stable streaming API, as zstd-jni's
``ZstdOutputStream`` calls it: ``ZSTD_initCStream`` at the level, the data, ``ZSTD_flushStream``, ``ZSTD_endStream``.
A release not built is written by another release and marked estimated.

``make codecs`` also builds the whole libzstd, compression and decompression, that ``zstandard`` bundles (the segment
reader's Python decoder) into :func:`full_libzstd`: the C kernel decompresses zstd batches with it
(``_block_inflation.inflatable_in_c``): another release, such as the system's, refuses other corrupt frames.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

from kcompact_nb.record._cache_dir import cache_dir
from kcompact_nb.record._codec_releases import version_number
from kcompact_nb.record._errors import NativeLibraryError

Release = tuple[int, int, int]

_LIBRARY = "libzstd.so"
_FULL_LIBRARY = "libzstd-full.so"


def libzstd_dir() -> Path:
    """Where built releases live: ``<cache>/libzstd/<release>/libzstd.so`` (the cache: :func:`cache_dir`)."""
    return cache_dir() / "libzstd"


def built_releases() -> list[Release]:
    """The releases built in :func:`libzstd_dir` (a :func:`libzstd_library` each), newest first.

    Looked up once per folder in a process (a pass rewriting zstd batches asks for every batch: 11 files looked up
    each time took 0.7 s of a 1M-record pass): a process started before ``make codecs`` built one does not see it."""
    return list(_built_in(libzstd_dir()))


@cache
def _built_in(folder: Path) -> tuple[Release, ...]:
    filed = (_release_named(entry.parent.name) for entry in folder.glob(f"*/{_LIBRARY}") if entry.is_file())
    return tuple(sorted((release for release in filed if release is not None), reverse=True))


def _release_named(name: str) -> Release | None:
    """The release a folder is named after (``1.5.5``), None for any other name."""
    parts = name.split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def libzstd_library(release: Release) -> Path:
    """Where ``make codecs`` puts ``release``'s compression half: ``<cache>/libzstd/<release>/libzstd.so``."""
    return libzstd_dir() / _text(release) / _LIBRARY


def libzstd_compress(release: Release) -> Callable[[bytes, int], bytes]:
    """``compress(body, level)`` by the built ``release``, as zstd-jni's ``ZstdOutputStream`` drives it."""
    return _StreamingCompressor(_load(release)).compress


def bundled_libzstd_release() -> Release | None:
    """The libzstd release the ``zstandard`` binding decodes with (the segment reader's Python decoding), or None
    without ``zstandard`` (zstd batches are then a missing codec's, however the kernels were built)."""
    try:
        import zstandard
    except ImportError:
        return None
    major, minor, patch = zstandard.ZSTD_VERSION
    return major, minor, patch


def full_libzstd() -> Path | None:
    """Where ``make codecs`` puts the whole libzstd of :func:`bundled_libzstd_release`:
    ``<cache>/libzstd/<release>/libzstd-full.so``; None without ``zstandard``."""
    release = bundled_libzstd_release()
    return None if release is None else libzstd_dir() / _text(release) / _FULL_LIBRARY


def _text(release: Release) -> str:
    return ".".join(map(str, release))


class _OutBuffer(ctypes.Structure):
    _fields_ = [("dst", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


class _InBuffer(ctypes.Structure):
    _fields_ = [("src", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


@cache
def _load(release: Release) -> ctypes.CDLL:
    library = ctypes.CDLL(str(libzstd_library(release)))
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
            f"{libzstd_library(release)}: reports libzstd {number}, not {_text(release)}: run make codecs"
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
