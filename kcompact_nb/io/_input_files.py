"""The files a reader is named: regular files, or the pipe of a shell's process substitution, read to a bound.

A FIFO waits for a writer, a device never ends (``/dev/zero``) and a folder or a symbolic link that loops is no
file at all: each is refused with what it is, before any read. The one exception is the pipe a shell hands over
for ``<(command)`` (``/dev/fd/N``), read to its end up to :data:`MAX_INPUT_BYTES`.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from kcompact_nb.core import KcompactError

MAX_INPUT_BYTES = 4 * 1024**3
"""The most bytes read from a pipe (4 GiB): more means a stream that never ends, not a file."""
_SHELL_PIPES = ("/dev/fd/", "/proc/self/fd/", "/dev/stdin")
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe), which waits for a writer"),
    (stat.S_ISCHR, "a character device, which may never end"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (``None`` when it is one, following symbolic links):
    ``a folder``, ``a FIFO ...``, ``a character device ...``, ``a symbolic link that loops``, ``missing``..."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link that loops (Too many levels of symbolic links)"
        if path.is_symlink():
            return f"a symbolic link to {os.readlink(path)}, which does not exist"
        return "missing" if error.errno == errno.ENOENT else (error.strerror or str(error))
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def shell_pipe(path: Path) -> bool:
    """``path`` is a pipe a shell handed over (``<(command)`` gives ``/dev/fd/63``), which is read like a file."""
    return str(path).startswith(_SHELL_PIPES) and stat.S_ISFIFO(os.stat(path).st_mode)


def checked_input(path: Path, what: str) -> Path:
    """``path`` when it can be read to its end: a regular file, or a shell's pipe; otherwise a one-line error."""
    kind = file_kind(path)
    if kind is None or (kind.startswith("a FIFO") and shell_pipe(path)):
        return path
    if kind == "missing":
        raise KcompactError(f"{what} {path} does not exist")
    if kind == "a folder":
        raise KcompactError(f"{what} {path} is a folder, not a file")
    raise KcompactError(f"{what} {path} is {kind}, not a regular file")


def read_input(path: Path, what: str, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path`` (see :func:`checked_input`), at most ``limit`` of them, else a one-line error."""
    with open(checked_input(path, what), "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise KcompactError(f"{what} {path} holds more than {limit:,} bytes; kcompact reads at most that much")
    return data
