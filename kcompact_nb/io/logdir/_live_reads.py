"""Reading a log dir that a running broker changes: retry from a fresh listing, or say that it changed.

A broker appends to active segments, rolls new ones, and its cleaner swaps merged segments in and deletes
the old ones (``.cleaned`` -> ``.swap`` -> ``.log``, the old files renamed ``.deleted``) while a reader
lists and opens files. A read that fails (a file gone, a segment reaching past the next one's base offset
because a merged segment replaced it) is not corrupt data when the directory changed meanwhile: it is read
again from a fresh listing, a bounded number of times, and then reported as
:class:`LogDirChangedError`. A failure in a directory that did not change is the data's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from kcompact_nb.core import KcompactError
from kcompact_nb.io._errors import LogDirChangedError, LogReadError, LogWriteError

T = TypeVar("T")

READ_ATTEMPTS = 5
"""Reads of a changing directory before :class:`LogDirChangedError`."""

FileState = tuple[int, int, int]
"""A file's inode, size in bytes and modification time in ns: a replaced, grown or touched file differs."""


def directory_state(root: Path) -> dict[str, FileState]:
    """Every file of ``root`` and of its sub-folders (one level: a log dir's partitions) by relative path."""
    state: dict[str, FileState] = {}
    for folder in (root, *_sub_folders(root)):
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:  # a partition folder deleted or renamed meanwhile
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not entry.is_dir(follow_symlinks=False):
                state[os.path.relpath(entry.path, root)] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return state


def _sub_folders(root: Path) -> list[Path]:
    try:
        return [Path(entry.path) for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)]
    except FileNotFoundError:
        return []


def read_consistently(read: Callable[[], T], root: Path, *, attempts: int = READ_ATTEMPTS) -> T:
    """``read()``, again from the start while it fails and ``root`` changed during it.

    A failure in an unchanged directory is raised as it is (an ``OSError`` as the project's
    :class:`~kcompact_nb.io.LogReadError`); after ``attempts`` reads that failed in a changing directory,
    :class:`LogDirChangedError` names what changed and the last failure. With ``attempts=1`` the caller retries a
    larger job itself: the failure is raised as it is.
    """
    last: Exception | None = None
    changed: list[str] = []
    for _ in range(attempts):
        before = directory_state(root)
        try:
            return read()
        except (LogReadError, LogWriteError, OSError) as error:
            changed = changes_since(before, root)
            if not changed or attempts == 1:
                raise _as_read_error(error) from None
            last = error
    raise LogDirChangedError(root, attempts, changed, str(last))


def changes_since(before: dict[str, FileState], root: Path) -> list[str]:
    """What differs from ``before`` (a :func:`directory_state`): ``+NAME`` (new), ``-NAME`` (gone), ``~NAME``."""
    after = directory_state(root)
    added = [f"+{name}" for name in sorted(after.keys() - before.keys())]
    removed = [f"-{name}" for name in sorted(before.keys() - after.keys())]
    modified = [f"~{name}" for name in sorted(before.keys() & after.keys()) if before[name] != after[name]]
    return removed + added + modified


def _as_read_error(error: Exception) -> Exception:
    if isinstance(error, OSError) and not isinstance(error, KcompactError):
        what = "does not exist" if isinstance(error, FileNotFoundError) else (error.strerror or str(error))
        return LogReadError(error.filename or "", None, what)
    return error
