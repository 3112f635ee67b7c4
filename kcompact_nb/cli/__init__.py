"""The ``kcompact`` command line (also ``python -m kcompact_nb``): every command's parsing and printing.

Commands are listed in :mod:`kcompact_nb.cli._registry`, one module each. This package is the only
place that reads the wall clock or the environment for defaults (:mod:`kcompact_nb.cli._defaults`);
every command exits with an :class:`ExitCode`.
"""

from __future__ import annotations

from kcompact_nb.cli._exit import ExitCode
from kcompact_nb.cli._main import build_parser, main, parse_command_line, run_command

__all__ = ["ExitCode", "build_parser", "main", "parse_command_line", "run_command"]
