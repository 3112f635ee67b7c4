"""The ``kcompact`` console script's entry: Ctrl-C is a quiet exit 130 even while the package is loading.

A console script imports its entry point's module before calling it; importing ``kcompact_nb`` takes a few
tenths of a second, and a Ctrl-C inside an import would end in a traceback. This module imports nothing of
the package until it can catch that.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""The status a shell reports for a process ended by SIGINT (``kcompact_nb.cli.ExitCode.INTERRUPTED``)."""


def main() -> int:
    """Load the command line and run it; an interruption while loading exits like one while running."""
    try:
        from kcompact_nb.cli import main as run

        return run()
    except KeyboardInterrupt:
        print("kcompact: interrupted", file=sys.stderr)
        return INTERRUPTED
