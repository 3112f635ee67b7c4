"""lz4 1.10.0 built from its sources for kcompact_nb's exact lz4 HC rewrites (``make codecs``).

lz4 1.10 gave the HC levels 1 and 2 a new algorithm, so their bytes depend on the lz4 release
(``kcompact_nb.record._liblz4`` says which Kafka releases bundle it and how it is called). Its sources, Debian's copy
of upstream's release tarball with its SHA-256 pinned and checked, are compiled once, ``lib/lz4.c`` and
``lib/lz4hc.c`` only, into :func:`kcompact_nb.record.liblz4_library`. Needs a C compiler and the network once.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from kcompact_nb.record import LIBLZ4_RELEASE, liblz4_built, liblz4_library
from tools.codec_build import compile_library, download_verified, unpack

SOURCE_URL = "http://deb.debian.org/debian/pool/main/l/lz4/lz4_1.10.0.orig.tar.gz"
"""Debian's copy of upstream's ``lz4-1.10.0.tar.gz`` (github.com/lz4/lz4 releases), byte for byte."""
SOURCE_SHA256 = "537512904744b35e232912055ccf8ec66d768639ff3abe5788d90d792ec5f48b"
RELEASE_TEXT = ".".join(map(str, LIBLZ4_RELEASE))


def build_liblz4(*, on_build: Callable[[], None] | None = None) -> bool:
    """Build lz4 1.10.0 unless it is built already; returns whether it was built now.

    Needs a C compiler (``$CC``, else ``cc``) and :data:`SOURCE_URL`. ``on_build`` is told before the build starts.
    Sources whose SHA-256 is not :data:`SOURCE_SHA256`, or a failed build, leave nothing behind and raise
    :class:`~kcompact_nb.record.NativeLibraryError`.
    """
    if liblz4_built():
        return False
    if on_build is not None:
        on_build()
    with tempfile.TemporaryDirectory(prefix=f"kcompact-liblz4-{RELEASE_TEXT}-") as scratch:
        work = Path(scratch)
        archive = work / SOURCE_URL.rsplit("/", 1)[-1]
        download_verified(SOURCE_URL, SOURCE_SHA256, archive)
        unpack(archive, work)
        lib = work / f"lz4-{RELEASE_TEXT}" / "lib"
        compile_library([lib / "lz4.c", lib / "lz4hc.c"], [lib], liblz4_library(), f"lz4 {RELEASE_TEXT}")
    return True
