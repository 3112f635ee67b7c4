"""The steps ``make codecs`` shares between the codec libraries it builds: fetch sources, check them, compile.

:mod:`tools.libzstd_build` and :mod:`tools.liblz4_build` build a codec library release Kafka bundles into the folder
where kcompact_nb opens it (``kcompact_nb.record.libzstd_library``, ``liblz4_library``): its sources fetched (by pip,
or from a URL whose pinned SHA-256 is checked before anything is unpacked), unpacked, and compiled with ``$CC`` (else
``cc``) into a shared library, installed whole or not at all. Every failure is a :class:`NativeLibraryError` saying
which step failed and why.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request
from collections.abc import Iterable
from pathlib import Path

from kcompact_nb.record import NativeLibraryError

DOWNLOAD_TIMEOUT_S = 60
CHUNK_BYTES = 1 << 20


def download_verified(url: str, sha256: str, target: Path) -> None:
    """``url``'s bytes into ``target``, refused (and deleted) unless their SHA-256 is ``sha256`` (hex)."""
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response, target.open("wb") as out:
            while chunk := response.read(CHUNK_BYTES):
                digest.update(chunk)
                out.write(chunk)
    except OSError as error:  # URLError, HTTPError and timeouts among them
        target.unlink(missing_ok=True)
        raise NativeLibraryError(f"downloading {url} failed: {error}") from None
    if digest.hexdigest() != sha256:
        target.unlink()
        raise NativeLibraryError(
            f"{url}: its SHA-256 is {digest.hexdigest()}, not the pinned {sha256}: refused, nothing was built"
        )


def unpack(archive: Path, into: Path) -> None:
    """The tar archive's files into ``into`` (none outside it: tarfile's ``data`` filter)."""
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")


def compile_library(sources: Iterable[Path | str], include_dirs: Iterable[Path], target: Path, what: str) -> None:
    """The C ``sources`` compiled into the shared library ``target`` (``-O2``, its own symbols bound to itself).

    ``target`` appears whole or not at all, whoever else builds it meanwhile; ``what`` names the library in errors.
    """
    compiler = os.environ.get("CC") or "cc"
    command = [compiler, "-O2", "-fPIC", "-shared", "-Wl,-Bsymbolic", *(f"-I{d}" for d in include_dirs)]
    with tempfile.TemporaryDirectory(prefix="kcompact-build-") as scratch:
        staged = Path(scratch) / target.name
        run([*command, *map(str, sources), "-o", str(staged)], f"compiling {what} with {compiler}")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.partial")
        shutil.move(staged, partial)
        os.replace(partial, target)


def run(command: list[str], what: str) -> None:
    """Run ``command``; :class:`NativeLibraryError` with its last line of errors when it fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise NativeLibraryError(f"{what}: {command[0]} is not installed") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise NativeLibraryError(f"{what} failed: {last}")
