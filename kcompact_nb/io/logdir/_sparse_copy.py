"""File copies that keep holes: a preallocated or sparse segment stays as small on disk as it was.

``shutil.copy2`` writes every byte, holes as zeros: a 64 MiB preallocated active segment holding a few KiB takes
64 MiB in the copy, a sparse 20 GiB one 20 GiB. :func:`copy_file` copies only the data regions the file system
reports (``SEEK_DATA``/``SEEK_HOLE``), leaves a hole wherever a whole block of zeros stands, and ends the copy at
the source's size; the bytes read back are the same, and so are the mode and times (as ``copy2`` copies them).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_BLOCK = 64 * 1024
"""The unit of the copy: a block of zeros this long (aligned in the file) becomes a hole."""
_ZEROS = bytes(_BLOCK)


def copy_file(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Copy ``source`` to ``target`` with its holes and its mode and times; returns ``target``."""
    with open(source, "rb") as reader:
        return copy_open_file(reader, target)


def copy_open_file(reader: BinaryIO, target: str | os.PathLike[str], *, length: int | None = None) -> Path:
    """Copy the file open as ``reader`` (its first ``length`` bytes, or all) to ``target``, with its holes, mode and
    times: the file that was opened, even if its path names another one by now; returns ``target``."""
    info = os.fstat(reader.fileno())
    size = info.st_size if length is None else min(length, info.st_size)
    with open(target, "wb") as writer:
        for start, end in _data_regions(reader.fileno(), size):
            _copy_region(reader, writer, start, end)
        writer.truncate(size)
    keep_mode_and_times(reader, target)
    return Path(target)


def keep_mode_and_times(reader: BinaryIO, target: str | os.PathLike[str]) -> None:
    """Give ``target`` the mode and times of the file open as ``reader``."""
    info = os.fstat(reader.fileno())
    os.chmod(target, stat.S_IMODE(info.st_mode))
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))


def _data_regions(fd: int, size: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each region holding data; the whole file where the file system cannot tell."""
    regions: list[tuple[int, int]] = []
    position = 0
    while position < size:
        try:
            start = os.lseek(fd, position, os.SEEK_DATA)
        except OSError as error:
            if error.errno == errno.ENXIO:  # nothing but a hole from position on
                break
            return [(0, size)]  # no SEEK_DATA on this file system: all of it is data
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        regions.append((start, end))
        position = end
    return regions


def _copy_region(reader: BinaryIO, writer: BinaryIO, start: int, end: int) -> None:
    """Copy ``[start, end)``; a block of zeros is skipped, left as a hole."""
    reader.seek(start)
    position = start
    while position < end:
        block = reader.read(min(_BLOCK, end - position))
        if not block:
            break
        if block != _ZEROS[: len(block)]:
            writer.seek(position)
            writer.write(block)
        position += len(block)
