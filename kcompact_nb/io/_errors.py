"""Error types of the io layer; each derives from :class:`kcompact_nb.KcompactError`."""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.core import KcompactError


class LogReadError(KcompactError, ValueError):
    """Input that is not a valid Kafka log, checkpoint or dump; names the file and where it went wrong.

    ``position`` is ``None`` for a problem that has no place in the file (a wrong name, a missing file).
    """

    def __init__(self, file: str | Path, position: int | None, reason: str, *, unit: str = "byte position") -> None:
        self.file = str(file)
        self.position = position
        self.reason = reason
        message = f"{self.file}: {reason}" if position is None else f"{self.file}: {reason} (at {unit} {position})"
        super().__init__(message)


class CorruptBatchError(LogReadError):
    """A record batch that Kafka's log recovery would truncate at (``CorruptRecordException``)."""


class TruncatedBatchError(CorruptBatchError):
    """The file ends inside a batch: fewer bytes left than the batch's length field announces."""


class CrcMismatchError(CorruptBatchError):
    """The CRC-32C stored in the batch header does not match the bytes it covers."""


class InvalidMagicError(CorruptBatchError):
    """A batch whose magic byte is not 2 (legacy 0/1 message sets are not supported)."""


class OffsetOrderError(CorruptBatchError):
    """Batch offsets that go backwards, overlap, or fall outside the segment's offset range."""


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


class CodecUnavailableError(KcompactError, ImportError):
    """A batch must be compressed with a codec whose Python package is not installed; nothing was changed."""

    def __init__(self, codec: str, package: str, message: str | None = None) -> None:
        self.codec = codec
        self.package = package
        default = (
            f"writing {codec}-compressed batches as Kafka does needs the Python package {package!r} "
            f"(pip install {package}); nothing was changed"
        )
        super().__init__(message or default)


class NativeLibraryError(KcompactError, OSError):
    """A codec library release that could not be built or loaded (``make codecs``); nothing was changed."""


class MissingCodecError(CodecUnavailableError):
    """A compressed batch read from a file whose codec's Python package is not installed."""

    def __init__(self, file: str | Path, position: int, codec: str, package: str) -> None:
        self.file = str(file)
        self.position = position
        message = (
            f"{self.file}: batch at byte position {position} is {codec}-compressed; "
            f"install the Python package {package!r} to decode it (pip install {package})"
        )
        super().__init__(codec, package, message)


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
