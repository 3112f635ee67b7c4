"""``kcompact``: build the parser from the registry, run the chosen command, map errors to exit statuses."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Collection, Sequence

from kcompact_nb import __version__
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._registry import COMMANDS

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that stop a command as Ctrl-C does: its unfinished output is removed, the status is 128 + the signal."""


def build_parser(loaded: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The ``kcompact`` parser with one subparser per registered command.

    ``loaded`` names the commands whose modules are imported for their description and arguments (None: all);
    the others get their name and help only, enough for ``kcompact --help``.
    """
    parser = argparse.ArgumentParser(
        prog="kcompact",
        description="See, predict and test Kafka log compaction.",
        epilog="Exit status: 0 ok, 1 a check failed, 2 invalid input or usage, 3 a needed tool or package is "
        "missing, 130 interrupted (Ctrl-C), 141 output closed early (e.g. | head), 143 (129) stopped by SIGTERM "
        "(SIGHUP); a stopped command leaves no partial output.",
    )
    parser.add_argument("--version", action="version", version=f"kcompact_nb {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for entry in COMMANDS:
        if loaded is not None and entry.name not in loaded:
            subparsers.add_parser(entry.name, help=entry.help)
            continue
        command = entry.load()
        sub = subparsers.add_parser(command.name, help=entry.help, description=command.description)
        command.add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (``argv`` defaults to ``sys.argv[1:]``); returns the exit status."""
    chosen = parse_command_line(argv)
    return ExitCode.INVALID if chosen is None else run_command(*chosen)


def parse_command_line(argv: Sequence[str] | None = None) -> tuple[Command, argparse.Namespace] | None:
    """The chosen command, its module loaded, and its parsed arguments; None (the help printed to stderr) when
    ``argv`` (default ``sys.argv[1:]``) names no command. ``--help``, ``--version`` and usage errors exit here."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # kcompact's own options take no values, so the first word that is no option names the command
    chosen = next((word for word in argv if not word.startswith("-")), None)
    parser = build_parser(loaded=[] if chosen is None else [chosen])
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return None
    return next(c for c in COMMANDS if c.name == args.command).load(), args


class _Terminated(BaseException):
    """A SIGTERM or SIGHUP turned into an exception, so that ``finally`` blocks remove unfinished output."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, _frame: object) -> None:
    raise _Terminated(signum)


def run_command(command: Command, args: argparse.Namespace) -> int:
    """Run ``command`` and turn what it raises into a message on stderr and an :class:`ExitCode`."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _raise_terminated)
    try:
        status = int(command.run(args, sys.stdout))
        sys.stdout.flush()
        return status
    except _Terminated as stop:
        print(f"kcompact {command.name}: stopped by {signal.Signals(stop.signum).name}", file=sys.stderr)
        return 128 + stop.signum
    except BrokenPipeError:
        _discard_stdout()
        return ExitCode.BROKEN_PIPE
    except KeyboardInterrupt:
        print(f"kcompact {command.name}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as error:
        reported = _reported(command, error)
        if reported is None:
            raise
        return reported


def _reported(command: Command, error: Exception) -> ExitCode | None:
    """Print the one line for an error the command line reports and give its status; None for any other error."""
    # imported here, not at start: `kcompact --version` and `--help` load none of the layers
    from kcompact_nb.core import KcompactError
    from kcompact_nb.io import MissingCodecError
    from kcompact_nb.maven import MavenError, ToolMissingError

    if isinstance(error, MissingCodecError | ToolMissingError | MavenError):
        print(f"kcompact {command.name}: {error}", file=sys.stderr)
        return ExitCode.UNAVAILABLE
    if isinstance(error, KcompactError | OSError):
        text = _os_error_text(error) if isinstance(error, OSError) else str(error)
        print(f"kcompact {command.name}: {text}", file=sys.stderr)
        return ExitCode.INVALID
    return None


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again (Python's own advice)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _os_error_text(error: OSError) -> str:
    if isinstance(error, FileNotFoundError) and error.filename is not None:
        return f"{error.filename} does not exist"
    what = error.strerror or str(error)
    return f"{error.filename}: {what}" if error.filename is not None else what
