"""The exit statuses every ``kcompact`` command returns (one convention, documented in the README)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a ``kcompact`` exit status means, the same for every command.

    ``OK`` (0): done, and everything checked passed. ``FAILED`` (1): the command ran and what it
    checks failed (a scenario ``expect``, a conformance mismatch, invalid data in a dumped file).
    ``INVALID`` (2): invalid input or usage (bad arguments, a missing or unreadable file, a file that is
    not what the command reads, an invalid scenario or config); nothing was checked. ``UNAVAILABLE``
    (3): a tool or package the input needs is not installed (Java and Maven for ``conformance``, a
    codec package for compressed batches). ``INTERRUPTED`` (130) and ``BROKEN_PIPE`` (141): stopped by
    Ctrl-C, or the reader of the output went away (``| head``), the statuses a shell reports for a
    process ended by SIGINT or SIGPIPE. ``TERMINATED`` (143): stopped by SIGTERM (SIGHUP gives 129, 128 + its
    number, as a shell reports it); a stopped command leaves no partial output.
    """

    OK = 0
    FAILED = 1
    INVALID = 2
    UNAVAILABLE = 3
    INTERRUPTED = 130
    TERMINATED = 143
    BROKEN_PIPE = 141
