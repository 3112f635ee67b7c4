"""Defaults the command line takes from the machine: the wall clock and the environment.

This is the only module of the package that reads either; everything below the CLI takes the
time (``now_ms``) and switches (``progress``) as parameters.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

PROGRESS_VARIABLE = "KCOMPACT_PROGRESS"
"""``0`` never shows a progress bar on long reads, ``1`` shows one for any read size."""


def wall_clock_ms() -> int:
    """Milliseconds since the epoch now (the default of every ``--now-ms``)."""
    return time.time_ns() // 1_000_000


def progress_setting(environ: Mapping[str, str] | None = None) -> bool | None:
    """``$KCOMPACT_PROGRESS`` as the readers' ``progress`` parameter (``None``: big reads on a terminal)."""
    switch = (os.environ if environ is None else environ).get(PROGRESS_VARIABLE)
    if switch is None:
        return None
    return switch.strip().lower() not in ("", "0", "false", "no")
