"""The ``kcompact`` console script's entry: Ctrl-C is a quiet exit 130 even while the package is loading.

A console script imports its entry point's module before calling it, and loading the package takes a few tenths
of a second. A KeyboardInterrupt raised inside an import is not always a KeyboardInterrupt by the time it comes
out (numpy turns it into an ImportError, a class body into a RuntimeError), so this module's first instruction
blocks SIGINT: a Ctrl-C while the package loads waits as a pending signal, and is answered by a quiet exit 130
once loading is done. The command then runs with SIGINT unblocked (its Ctrl-C is a KeyboardInterrupt, which
removes unfinished output), and SIGINT is blocked again while the interpreter exits. Only the interpreter's own
start, before this module's first instruction, is Python's.
"""

from __future__ import annotations

try:  # the first instruction: a Ctrl-C on either of these lines (a loaded machine is slow here) is quiet too
    import signal

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
except KeyboardInterrupt:
    import sys

    print("kcompact: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

import sys

INTERRUPTED = 130
"""The status a shell reports for a process ended by SIGINT (``kcompact_nb.cli.ExitCode.INTERRUPTED``)."""


def _interrupt_again(unraisable: sys.UnraisableHookArgs) -> None:
    """Python swallows a Ctrl-C that lands in a callback it runs for itself (a weak reference's, say) and prints
    it as "Exception ignored"; raise it again where it can stop the command, and print nothing."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
        return
    sys.__unraisablehook__(unraisable)


def main() -> int:
    """Load the command line with SIGINT blocked, then run it with SIGINT unblocked."""
    sys.unraisablehook = _interrupt_again
    try:
        from kcompact_nb.cli import main as run

        if signal.SIGINT in signal.sigpending():  # Ctrl-C while loading: the command never starts
            raise KeyboardInterrupt
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        try:
            return run()
        finally:  # the command is done: a Ctrl-C now would only interrupt the interpreter's exit
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except KeyboardInterrupt:
        print("kcompact: interrupted", file=sys.stderr)
        return INTERRUPTED
