"""The ``kcompact`` console script's entry: Ctrl-C is a quiet exit 130 even while the package is loading.

A console script imports its entry point's module before calling it; importing ``kcompact_nb`` takes a few
tenths of a second, and a Ctrl-C inside an import would end in a traceback. This module imports nothing of
the package until it can catch that.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""The status a shell reports for a process ended by SIGINT (``kcompact_nb.cli.ExitCode.INTERRUPTED``)."""

try:  # the one import before main(): a Ctrl-C inside it (a loaded machine is slow here) is a quiet exit too
    import signal
except KeyboardInterrupt:
    print("kcompact: interrupted", file=sys.stderr)
    raise SystemExit(INTERRUPTED) from None


def _interrupt_again(unraisable: sys.UnraisableHookArgs) -> None:
    """Python swallows a Ctrl-C that lands in a callback it runs for itself (an import lock's, say) and prints
    it as "Exception ignored"; raise it again where it can stop the command, and print nothing."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
        return
    sys.__unraisablehook__(unraisable)


def main() -> int:
    """Load the command line and run it; an interruption while loading exits like one while running."""
    sys.unraisablehook = _interrupt_again
    try:
        from kcompact_nb.cli import main as run

        return run()
    except KeyboardInterrupt:
        print("kcompact: interrupted", file=sys.stderr)
        return INTERRUPTED
