"""The ``kcompact`` console script's entry: Ctrl-C is a quiet exit 130 from this module's first instruction on.

A console script imports its entry point's module before calling it, and loading the package and the chosen
command's module takes a few tenths of a second. A KeyboardInterrupt raised inside an import is not always a
KeyboardInterrupt by the time it comes out (numpy turns it into an ImportError, a class body into a RuntimeError),
so this module's first instruction blocks SIGINT: a Ctrl-C while the command line is parsed and the command's module
loads waits as a pending signal, and is answered by a quiet exit 130 once loading is done. Threads started while
loading (numpy's) inherit the block, so the signal waits for the main thread whatever thread the kernel would pick.
The command then runs with SIGINT unblocked (its Ctrl-C is a KeyboardInterrupt, which removes unfinished output),
and once it is done SIGINT is ignored by the whole process: the interpreter's exit puts Python's own handlers back
to the default action, which would kill the process from any thread that took the signal (exit -2, not the
command's status). Only the interpreter's own start, before this module's first instruction, is Python's.
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
INVALID = 2
"""No command named: the help was printed (``kcompact_nb.cli.ExitCode.INVALID``)."""


def _interrupt_again(unraisable: sys.UnraisableHookArgs) -> None:
    """Python swallows a Ctrl-C that lands in a callback it runs for itself (a weak reference's, say) and prints
    it as "Exception ignored"; raise it again where it can stop the command, and print nothing."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
        return
    sys.__unraisablehook__(unraisable)


def main() -> int:
    """Load the command line and the chosen command with SIGINT blocked, then run it with SIGINT unblocked."""
    sys.unraisablehook = _interrupt_again
    try:
        from kcompact_nb.cli import parse_command_line, run_command

        chosen = parse_command_line()
        if signal.SIGINT in signal.sigpending():  # Ctrl-C while loading: the command never starts
            raise KeyboardInterrupt
        if chosen is None:
            return INVALID
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        try:
            return run_command(*chosen)
        finally:  # the command is done: a Ctrl-C now would only interrupt the interpreter's exit
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        print("kcompact: interrupted", file=sys.stderr)
        return INTERRUPTED
