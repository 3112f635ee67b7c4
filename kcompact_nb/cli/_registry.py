"""Every ``kcompact`` subcommand, in the order ``kcompact --help`` lists them.

A new command is one module defining a :class:`Command` and one line here.
"""

from __future__ import annotations

from kcompact_nb.cli._clean import CLEAN
from kcompact_nb.cli._command import Command
from kcompact_nb.cli._conformance import CONFORMANCE
from kcompact_nb.cli._dump import DUMP
from kcompact_nb.cli._forecast import FORECAST
from kcompact_nb.cli._inspect import INSPECT
from kcompact_nb.cli._kcat import KCAT
from kcompact_nb.cli._scenario import SCENARIO

COMMANDS: tuple[Command, ...] = (
    SCENARIO,
    DUMP,
    INSPECT,
    CLEAN,
    FORECAST,
    KCAT,
    CONFORMANCE,
)
