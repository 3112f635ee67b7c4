"""What one ``kcompact`` subcommand is: a name, its description, its arguments and what running it does."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO


@dataclass(frozen=True)
class Command:
    """One subcommand of ``kcompact``; :data:`kcompact_nb.cli._registry.COMMANDS` lists them all, with their help.

    ``add_arguments`` declares the command's arguments on its parser; ``run`` gets the parsed
    arguments and the stream for normal output and returns an :class:`ExitCode`. Errors raised as
    :class:`kcompact_nb.KcompactError` or ``OSError`` are reported by the caller (exit 2), so a
    command only handles the outcomes it gives a meaning of its own.
    """

    name: str
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]
