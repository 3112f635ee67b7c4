"""Argument types shared by the commands: they refuse values no Kafka time or count can take."""

from __future__ import annotations

import argparse


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
