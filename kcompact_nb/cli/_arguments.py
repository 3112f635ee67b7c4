"""Argument types shared by the commands: they refuse values no Kafka time or count can take."""

from __future__ import annotations

import argparse

from kcompact_nb.core import UnitError, parse_bytes


def epoch_ms(text: str) -> int:
    """``--now-ms``: milliseconds since 1970-01-01T00:00:00Z, 0 or more."""
    value = _whole_number(text, "milliseconds")
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"{value} is before 1970-01-01T00:00:00Z; give milliseconds since then, 0 or more"
        )
    return value


def positive_int(text: str) -> int:
    """A count of 1 or more."""
    value = _whole_number(text, "")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1; give 1 or more")
    return value


def _whole_number(text: str, unit: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{' of ' + unit if unit else ''}") from None


STREAM_FROM_DEFAULT = "1 GiB"
"""Partitions with at least this many bytes of segment files are streamed instead of read whole."""


def add_stream_from(parser: argparse.ArgumentParser) -> None:
    """``--stream-from SIZE``: from which partition size segment files are streamed (bounded memory)."""
    parser.add_argument(
        "--stream-from", type=size_bytes, default=STREAM_FROM_DEFAULT, metavar="SIZE",
        help="stream the segment files of partitions of at least SIZE (512MiB, 2GiB, 0 for every partition) "
        "one at a time, as Kafka's cleaner reads them, in memory that does not grow with the partition; smaller "
        f"partitions are read whole, which is faster (default: {STREAM_FROM_DEFAULT})",
    )  # fmt: skip


def size_bytes(text: str) -> int:
    """A size: ``512MiB``, ``1 GiB``, ``0`` (plain bytes), 0 or more."""
    try:
        value = parse_bytes(text)
    except UnitError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is below 0 bytes")
    return value
