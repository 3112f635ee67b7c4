"""Error types of the record format, the floor every other error of kcompact_nb derives from.

:class:`KcompactError` is the base of every error the package raises deliberately; the rest are what bytes that
are not Kafka's v2 record format, or a codec that is not at hand, raise here (io's files and text add their own).
"""

from __future__ import annotations

from pathlib import Path


class KcompactError(Exception):
    """Base class of every error kcompact_nb raises deliberately."""


class KafkaModelError(KcompactError, ValueError):
    """An operation the Kafka model cannot perform (bad offsets, invalid batch)."""


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
