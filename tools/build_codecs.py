"""Build the codec libraries Kafka releases bundle that no installed binding has, for exact rewrites: ``make codecs``
(``python -m tools.build_codecs`` from the repository's root).

Each is compiled once from its sources into the cache folder (``$KCOMPACT_CACHE_DIR``, else
``~/.cache/kcompact_nb``) where kcompact_nb opens it; those already built are kept: the libzstd releases of Kafka
2.1-3.7.0 (PyPI's ``zstd`` source distributions; :mod:`tools.libzstd_build`) and lz4 1.10.0, whose HC levels 1 and 2
Kafka 3.9.2, 4.0.2, 4.1.2 and 4.2 on write (Debian's copy of upstream's tarball; :mod:`tools.liblz4_build`). And the
whole libzstd the ``zstandard`` binding bundles, with which the C kernel decompresses zstd batches (its own source
distribution).
"""

from __future__ import annotations

import sys
import time

from kcompact_nb.record import LIBLZ4_RELEASE, NativeLibraryError, liblz4_dir, libzstd_dir
from tools.liblz4_build import build_liblz4
from tools.libzstd_build import SOURCE_PACKAGES, build_full_libzstd, build_libzstd


def main() -> int:
    started = time.monotonic()
    lz4 = ".".join(map(str, LIBLZ4_RELEASE))

    def announce_libzstd(release: tuple[int, int, int]) -> None:
        print(f"building libzstd {'.'.join(map(str, release))} into {libzstd_dir()}", flush=True)

    def announce_liblz4() -> None:
        print(f"building lz4 {lz4} into {liblz4_dir()}", flush=True)

    def announce_full_libzstd(release: tuple[int, int, int]) -> None:
        print(f"building zstandard's whole libzstd {'.'.join(map(str, release))} into {libzstd_dir()}", flush=True)

    try:
        built = build_libzstd(on_build=announce_libzstd)
        lz4_built = build_liblz4(on_build=announce_liblz4)
        full_built = build_full_libzstd(on_build=announce_full_libzstd)
    except NativeLibraryError as error:
        print(f"make codecs: {error}", file=sys.stderr)
        return 1
    kept = len(SOURCE_PACKAGES) - len(built)
    print(f"libzstd: {len(built)} built, {kept} already there; lz4 {lz4}: {'built' if lz4_built else 'already there'}")
    print(f"zstandard's whole libzstd: {'built' if full_built else 'already there'}")
    print(f"make codecs: {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
