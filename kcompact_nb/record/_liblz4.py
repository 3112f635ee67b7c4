"""lz4 1.10, the release inside lz4-java 1.10 and later, built here from its sources for exact lz4 HC rewrites.

lz4-java's HC compressor (``LZ4HCJNICompressor``) compresses each block with lz4's ``LZ4_compress_HC`` at
``compression.lz4.level``. lz4 1.10 gave the HC levels 1 and 2 a new algorithm, so their bytes depend on the lz4
release: Kafka 3.9.2, 4.0.2, 4.1.2 and 4.2 on bundle lz4 1.10 (``_codec_releases``), the ``lz4`` binding installed
with the package bundles lz4 1.9.4. lz4 1.10.0's sources (Debian's copy of upstream's release tarball, its SHA-256
pinned and checked) are compiled once by ``make codecs`` (``tools/liblz4_build.py``: a C compiler and the network
are needed once), ``lib/lz4.c`` and ``lib/lz4hc.c`` only, into ``<cache>/liblz4/1.10.0/liblz4.so``
(:func:`liblz4_library`), and called here through ``ctypes``, as lz4-java's JNI calls them. Without it those batches
are written by the binding's lz4 and marked estimated.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache
from pathlib import Path

from kcompact_nb.record._cache_dir import cache_dir
from kcompact_nb.record._codec_releases import version_number
from kcompact_nb.record._errors import NativeLibraryError

LIBLZ4_RELEASE = (1, 10, 0)
"""The lz4 release lz4-java 1.10.1 to 1.11.2 bundle (Kafka 3.9.2 to 4.4.0)."""

_LIBRARY = "liblz4.so"
_RELEASE_TEXT = ".".join(map(str, LIBLZ4_RELEASE))


def liblz4_dir() -> Path:
    """Where the built library lives: ``<cache>/liblz4/1.10.0/liblz4.so`` (the cache: :func:`cache_dir`)."""
    return cache_dir() / "liblz4"


def liblz4_built() -> bool:
    """Whether ``make codecs`` built lz4 1.10.0 into :func:`liblz4_dir`."""
    return liblz4_library().is_file()


def liblz4_compress_hc() -> Callable[[bytes, int], bytes]:
    """``compress(block, level)``: one block by the built lz4's ``LZ4_compress_HC``, as lz4-java's HC compressor.

    The destination holds ``LZ4_compressBound(len(block))`` bytes, as in ``Lz4BlockOutputStream`` (whose buffer is
    sized for a whole 64 KiB block), so lz4 never runs in its limited-output mode.
    """
    library = _load()

    def compress(block: bytes, level: int) -> bytes:
        capacity = library.LZ4_compressBound(len(block))
        output = ctypes.create_string_buffer(capacity)
        written = library.LZ4_compress_HC(block, output, len(block), capacity, level)
        if written <= 0:
            raise NativeLibraryError(f"lz4 {_RELEASE_TEXT}: LZ4_compress_HC failed on a {len(block)}-byte block")
        return output.raw[:written]

    return compress


def liblz4_library() -> Path:
    """Where ``make codecs`` puts lz4 1.10.0: ``<cache>/liblz4/1.10.0/liblz4.so``."""
    return liblz4_dir() / _RELEASE_TEXT / _LIBRARY


@cache
def _load() -> ctypes.CDLL:
    library = ctypes.CDLL(str(liblz4_library()))
    integer, text = ctypes.c_int, ctypes.c_char_p
    signatures = {
        "LZ4_compress_HC": ([text, ctypes.c_char_p, integer, integer, integer], integer),
        "LZ4_compressBound": ([integer], integer),
        "LZ4_versionNumber": ([], integer),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(library, name)
        function.argtypes, function.restype = arguments, result
    number = library.LZ4_versionNumber()
    if number != version_number(LIBLZ4_RELEASE):
        raise NativeLibraryError(f"{liblz4_library()}: reports lz4 {number}, not {_RELEASE_TEXT}: run make codecs")
    return library
