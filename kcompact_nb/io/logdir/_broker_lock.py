"""Whether a running broker holds a log dir: Kafka locks ``<log dir>/.lock`` while it runs (``LogManager``).

The lock is a POSIX record lock (Java's ``FileChannel.tryLock``); asking who holds it (``F_GETLK``) takes nothing
and writes nothing, so a reader can tell a live log dir from a copy or a stopped broker's.
"""

from __future__ import annotations

import fcntl
import os
import struct
from pathlib import Path

LOCK_FILE = ".lock"
_FLOCK = "hhqqi4x"
"""Linux's ``struct flock``: type, whence, start, length, pid (and its padding)."""


def held_by_a_running_broker(log_dir: Path) -> bool:
    """Whether another process holds ``log_dir``'s ``.lock`` (a broker running on it); False without the file."""
    try:
        fd = os.open(log_dir / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return False
    try:
        asked = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        held: int = struct.unpack(_FLOCK, fcntl.fcntl(fd, fcntl.F_GETLK, asked))[0]
    except OSError:
        return False
    finally:
        os.close(fd)
    return held != fcntl.F_UNLCK
