"""Segment files' bytes read into memory on a thread, readable while they arrive (issue #41).

A partition that holds its files' bytes (``ReadOptions.hold_bytes``) reads each file once; the copy into memory
(page faults on fresh memory and the reads, both without the GIL) runs on the machine's second core while the
header scan frames and checks the bytes already there, instead of before it. Each file is read to the size it had
when opened: a running broker's appends after that are not the read's, and a file cut meanwhile ends early (the
scan then meets its truncated tail, as a read of a cut file does).
"""

from __future__ import annotations

import mmap
import os
import threading
from pathlib import Path
from typing import Protocol

_CHUNK_BYTES = 4 << 20
"""Bytes read at a time: the scan trails the read by at most this much."""
_MAPPED_FROM = 1 << 20
"""Files of at least this many bytes are held in an anonymous mapping, its zero pages mapped as the read first writes
them (a ``bytearray`` zero-fills every page on the caller's thread first: 0.27 s of 630 MB); smaller ones in a
``bytearray``, so that a log dir of many small files does not take a mapping each."""


class ByteReader(Protocol):
    """What a segment's framing reads: an open file, or :class:`HeldReader`."""

    def seek(self, position: int, /) -> int: ...

    def read(self, size: int, /) -> bytes: ...


class HeldBytes:
    """One file's bytes, filled by :func:`read_held` on its thread: :meth:`view` once whole, :meth:`reader` to read
    them as they arrive."""

    def __init__(self, inode: int, size: int) -> None:
        self.inode = inode
        self.size = size
        self._buffer: mmap.mmap | bytearray = mmap.mmap(-1, size) if size >= max(_MAPPED_FROM, 1) else bytearray(size)
        self._filled = 0
        self._done = False
        self._error: BaseException | None = None
        self._arrived = threading.Condition()

    def view(self) -> memoryview:
        """The whole file's bytes (waits for them), read-only."""
        return memoryview(self._buffer)[: self._until(self.size)].toreadonly()

    def reader(self) -> HeldReader:
        """A reader of the bytes (``seek``, ``read``) that waits for those not there yet."""
        return HeldReader(self)

    def between(self, start: int, end: int) -> bytes:
        """A copy of the bytes from ``start`` to ``end`` (waits for them; fewer where the file ended)."""
        end = self._until(end)
        return bytes(memoryview(self._buffer)[start:end]) if end > start else b""

    def _until(self, end: int) -> int:
        """Wait until the bytes before ``end`` are there or the file ended; how many of them there are."""
        with self._arrived:
            while self._filled < end and not self._done:
                self._arrived.wait()
            if self._error is not None:
                raise self._error
            return min(end, self._filled)

    def fill(self, handle: int) -> None:
        """Read the file open as ``handle`` into the buffer (on :func:`read_held`'s thread)."""
        view = memoryview(self._buffer)
        try:
            while self._filled < self.size:
                got = os.readv(handle, [view[self._filled : min(self._filled + _CHUNK_BYTES, self.size)]])
                if got == 0:  # cut since it was opened
                    break
                with self._arrived:
                    self._filled += got
                    self._arrived.notify_all()
        except BaseException as error:  # raised to the reader waiting for the bytes
            self._error = error
        finally:
            with self._arrived:
                self._done = True
                self._arrived.notify_all()


class HeldReader:
    """A file-like reader of :class:`HeldBytes` (what a segment's framing reads): each ``read`` a copy of the bytes."""

    def __init__(self, held: HeldBytes) -> None:
        self._held = held
        self._position = 0

    def seek(self, position: int) -> int:
        self._position = position
        return position

    def read(self, size: int) -> bytes:
        data = self._held.between(self._position, self._position + size)
        self._position += len(data)
        return data


def read_held(files: list[Path]) -> dict[Path, HeldBytes]:
    """Each file opened now (inode, size) and read into memory, in order, on one thread; the bytes are readable at
    once, as they arrive."""
    opened: list[tuple[int, HeldBytes]] = []
    try:
        for file in files:
            handle = os.open(file, os.O_RDONLY)
            info = os.fstat(handle)
            opened.append((handle, HeldBytes(info.st_ino, info.st_size)))
    except BaseException:
        for handle, _ in opened:
            os.close(handle)
        raise

    def fill() -> None:
        for handle, held in opened:
            try:
                held.fill(handle)
            finally:
                os.close(handle)

    threading.Thread(target=fill, name="kcompact-held-bytes", daemon=True).start()
    return {file: held for file, (_, held) in zip(files, opened, strict=True)}
