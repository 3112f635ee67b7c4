"""Build the libzstd releases older Kafka releases bundle, for their exact zstd rewrites: ``make codecs``.

Each is compiled once from its sources (PyPI's ``zstd`` source distributions) into the cache folder
(``$KCOMPACT_CACHE_DIR``, else ``~/.cache/kcompact_nb``); releases already built are kept. See
``kcompact_nb.io.codec._libzstd``.
"""

from __future__ import annotations

import sys
import time

from kcompact_nb.io import LIBZSTD_SOURCE_PACKAGES, NativeLibraryError, build_libzstd, libzstd_dir


def main() -> int:
    started = time.monotonic()

    def announce(release: tuple[int, int, int]) -> None:
        print(f"building libzstd {'.'.join(map(str, release))} into {libzstd_dir()}", flush=True)

    try:
        built = build_libzstd(on_build=announce)
    except NativeLibraryError as error:
        print(f"make codecs: {error}", file=sys.stderr)
        return 1
    kept = len(LIBZSTD_SOURCE_PACKAGES) - len(built)
    print(f"libzstd: {len(built)} built in {time.monotonic() - started:.0f} s, {kept} already there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
