"""Argument types shared by the commands: they refuse values no Kafka time or count can take."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from kcompact_nb.core import UnitError, parse_bytes

LAST_ISO_MS = 253_402_300_799_999
"""9999-12-31T23:59:59.999Z: the last instant an ISO-8601 time shows, the latest time a command accepts."""


def epoch_ms(text: str) -> int:
    """``--now-ms``: milliseconds since 1970-01-01T00:00:00Z, from 0 to :data:`LAST_ISO_MS`."""
    return _in_iso_range(_whole_number(text, "milliseconds"), text)


def instant_ms(text: str) -> int:
    """``--at``: epoch milliseconds, or an ISO-8601 date and time (UTC when it has no offset), as for ``--now-ms``."""
    value = text.strip()
    if value.lstrip("-").isdigit():
        return epoch_ms(value)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected epoch milliseconds (1767225600000) or an ISO-8601 time (2026-01-01T00:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _in_iso_range(round(moment.timestamp() * 1000), text)


def _in_iso_range(value: int, text: str) -> int:
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is before 1970-01-01T00:00:00Z; give a time from then on")
    if value > LAST_ISO_MS:
        raise argparse.ArgumentTypeError(
            f"{text} is after 9999-12-31T23:59:59.999Z ({LAST_ISO_MS} ms); give an earlier time"
        )
    return value


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """``--config``, ``--config-file`` and ``--kafka-version``: the configs a command judges a log dir by."""
    parser.add_argument(
        "--config", action="append", default=[], metavar="[TOPIC:]NAME=VALUE",
        help="a topic config for every topic (segment.ms=100) or for one (orders:segment.ms=100), or a broker "
        "config (log.cleaner.threads=2, kafka.version=3.9.2); repeatable",
    )  # fmt: skip
    parser.add_argument(
        "--config-file", type=Path, metavar="FILE",
        help="broker properties (server.properties lines), TOPIC:NAME=VALUE lines and kafka-configs.sh --describe "
        "output, in one file",
    )  # fmt: skip
    parser.add_argument(
        "--kafka-version", default=None, metavar="V", help="the Kafka release whose rules apply (default: 4.4.0)"
    )


def positive_int(text: str) -> int:
    """A count of 1 or more."""
    value = _whole_number(text, "")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1; give 1 or more")
    return value


def partition_number(text: str) -> int:
    """A partition number: 0 or more."""
    value = _whole_number(text, "")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is below 0; partitions are numbered from 0")
    return value


def _whole_number(text: str, unit: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{' of ' + unit if unit else ''}") from None


STREAM_FROM_DEFAULT = "1 GiB"
"""Partitions with at least this many bytes of segment files are streamed instead of read whole. Streaming is the
faster way and takes less memory (bench/RESULTS.md's (a') rows against (a)), but a partition read whole is a
consistent copy of a live log dir, whose broker replaces and deletes segment files while a streamed one is read."""


def add_stream_from(parser: argparse.ArgumentParser) -> None:
    """``--stream-from SIZE``: from which partition size segment files are streamed (bounded memory)."""
    parser.add_argument(
        "--stream-from", type=size_bytes, default=STREAM_FROM_DEFAULT, metavar="SIZE",
        help="stream the segment files of partitions of at least SIZE (512MiB, 2GiB, 0 for every partition) "
        "one at a time, as Kafka's cleaner reads them, in memory that does not grow with the partition; smaller "
        "partitions are read whole, each file once into memory, a consistent copy even while a running broker "
        f"replaces their files, and streamed from there as fast (default: {STREAM_FROM_DEFAULT})",
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
