"""Error types of the io layer (Kafka's files and text); each derives from :class:`kcompact_nb.KcompactError`.

The record format's errors (a corrupt batch, a missing codec) are :mod:`kcompact_nb.record`'s; io raises them too
and re-exports them from here for its parts.
"""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.record import CodecUnavailableError as CodecUnavailableError
from kcompact_nb.record import CorruptBatchError as CorruptBatchError
from kcompact_nb.record import CrcMismatchError as CrcMismatchError
from kcompact_nb.record import InvalidMagicError as InvalidMagicError
from kcompact_nb.record import KcompactError
from kcompact_nb.record import LogReadError as LogReadError
from kcompact_nb.record import MissingCodecError as MissingCodecError
from kcompact_nb.record import NativeLibraryError as NativeLibraryError
from kcompact_nb.record import OffsetOrderError as OffsetOrderError
from kcompact_nb.record import TruncatedBatchError as TruncatedBatchError


class NotASegmentError(LogReadError):
    """A file or directory that is not a Kafka segment, partition directory or log directory."""


class IndexFileError(LogReadError):
    """A ``.index``, ``.timeindex``, ``.txnindex`` or ``.snapshot`` file that is not in Kafka's format."""


class CheckpointFormatError(LogReadError):
    """A checkpoint file that is not Kafka's ``CheckpointFile`` text format."""


class DumpParseError(LogReadError):
    """Text that is not ``kafka-dump-log.sh`` or kcat output of the expected form."""

    def __init__(self, file: str | Path, line: int | None, reason: str) -> None:
        super().__init__(file, line, reason, unit="line")


class LogWriteError(KcompactError, ValueError):
    """A partition log that cannot be written as asked (target exists, inconsistent batch)."""


class LogDirChangedError(LogReadError):
    """A log dir (or partition dir) that kept changing while it was read: a broker is running on it."""

    def __init__(self, path: str | Path, attempts: int, changed: list[str], last_error: str) -> None:
        shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
        reason = (
            f"the broker changed this directory while it was read ({attempts} {'read' if attempts == 1 else 'reads'}; "
            f"last changes: {shown}); the last "
            f"failure, caused by the change: {last_error}. Read it again, or read a copy (cp -a) or a stopped "
            "broker's log dir"
        )
        super().__init__(path, None, reason)
        self.changed = changed
