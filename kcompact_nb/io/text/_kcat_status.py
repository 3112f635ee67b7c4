"""kcat's own status lines, found where ``kcat ... 2>&1`` mixes them into the records.

kcat writes its status to stderr as ``% <message>\\n`` (``KC_INFO``/``KC_ERROR`` in kcat.c).
stderr is unbuffered; stdout, sent to a file or a pipe, is written by stdio in whole blocks
(4 KiB: glibc's buffer is the file's ``st_blksize``, 4096 for pipes and common filesystems), or
record by record with ``kcat -u`` (unbuffered). So a status line lands where kcat's stdout had
written a multiple of 4 KiB, or, under ``-u``, where a record ended: at a line start. Only there
is a known status line taken for stderr, and only when that is the one consistent reading of the
output: the file is read with and without them, and with each one kept as data; when more than
one reading succeeds and they differ, the output is refused (:func:`only_reading`). Output with
no status line at a block boundary or a line start is read as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from kcompact_nb.io._errors import DumpParseError
from kcompact_nb.io.text._kcat_records import KcatParse

#: Messages kcat prints while records are being written (kcat.c ``partition_at_eof``, ``consume_cb``).
_PROGRESS = rb"Reached (?:end of topic|stop timestamp for topic) \S+ \[-?[0-9]+\] at offset -?[0-9]+(?:: exiting)?"
#: Every message a consumer run prints at the default or a raised verbosity (kcat.c ``KC_INFO``, ``KC_ERROR``).
_ANY = (
    _PROGRESS
    + rb"|Auto-selecting \S+ mode|ERROR: |FATAL|Fatal error at |Error at |Group \S+ rebalanced|Waiting for group"
    + rb"|Broker \S+ \([0-9-]+\) throttled|KAFKA_CONFIG is deprecated|Rename KAFKA_CONFIG|Reading configuration from"
    + rb"|Automatically enabling api\.version\.request|Enable message offset reporting"
)
STATUS_LINE = re.compile(rb"% (?:" + _ANY + rb")[^\n]*\n")
#: stdio's block size for kcat's stdout written to a file or a pipe.
STDOUT_BLOCK = 4096

EMPTY_OUTPUT = (
    "output: it is empty, so no record was read; a topic or partition with no record leaves it empty, and so does "
    "a kcat that was stopped (killed, or without -e) before it wrote its first 4 KiB block: it may be cut"
)
_KEPT_READINGS = 16
"""Up to this many status lines, each is also tried as data; past it only with all and none of them."""

#: What to do instead, for error messages.
STDERR_ADVICE = "keep kcat's stderr out of the file (2>/dev/null or 2>kcat.err instead of 2>&1, or kcat -q)"


@dataclass(frozen=True)
class StdoutReading:
    """kcat output with the status lines taken for its stderr removed, and where they were (to name lines)."""

    original: bytes
    data: bytes
    status_lines: tuple[bytes, ...] = ()
    removed: tuple[tuple[int, int], ...] = ()  # (position in data, bytes removed before it), ascending

    def line_of(self, position: int) -> int:
        """The 1-based line number in the original output of ``data[position]``."""
        shift = 0
        for at, total in self.removed:
            if at > position:
                break
            shift = total
        return self.original.count(b"\n", 0, position + shift) + 1

    @property
    def status_texts(self) -> tuple[str, ...]:
        """The removed status lines as text, for people."""
        return tuple(s.rstrip(b"\n").decode("utf-8", errors="replace") for s in self.status_lines)


def mixed_stderr_caveats(reading: StdoutReading) -> tuple[str, ...]:
    """What output with kcat's stderr mixed in cannot tell apart (nothing when none was found)."""
    if not reading.status_lines:
        return ()
    return (
        f"status lines: {len(reading.status_lines)} of kcat's own lines stood where its stdout blocks or records end "
        "and were "
        "skipped, the one reading of the output that fits its format; a key, value or header holding such a line "
        f"at exactly that place together with another one would lose it. To read such data exactly, {STDERR_ADVICE}.",
    )


def terminal_line_ends(data: bytes, terminator: bytes) -> bool:
    """``data`` is kcat output that went through a pseudo-terminal, for a format whose records end in
    ``terminator`` (holding ``\\n``): its ``onlcr`` turns each ``\\n`` a program writes into ``\\r\\n``, as
    ``docker exec -t``, ``kubectl exec -t``, ``ssh -t`` and ``script`` capture it, so every line ends in ``\\r\\n``
    (``\\r\\r\\n`` where the format itself ends in ``\\r\\n``, and ``\\r\\n`` after kcat's own status lines, which
    start with ``%``, when its stderr went through the same terminal)."""
    lines = data.count(b"\n")
    if b"\n" not in terminator or lines == 0 or data.count(b"\r\n") != lines:
        return False
    if not terminator.endswith(b"\r\n"):
        return True
    ended = data.split(b"\n")[:-1]
    doubled = [line.endswith(b"\r\r") for line in ended]
    return any(doubled) and all(twice or line.startswith(b"%") for twice, line in zip(doubled, ended, strict=True))


TERMINAL_ADVICE = (
    "every line ends in \\r\\n where kcat wrote \\n: the output went through a pseudo-terminal (docker exec -t, "
    "kubectl exec -t, ssh -t, script), which adds a \\r before each line end, so every record would read with a "
    "trailing \\r; take the output without a terminal (docker exec / kubectl exec without -t, or kcat ... > FILE "
    "where kcat runs), or read it with -J, whose JSON lines are exact either way"
)


def as_printed(original: bytes) -> StdoutReading:
    """The output read as it is: nothing taken for stderr."""
    return StdoutReading(original, original)


def without_stderr(original: bytes, keep: frozenset[int] = frozenset()) -> StdoutReading:
    """The output with every status line at a stdout block boundary or a line start removed, except those starting
    at ``keep``."""
    pieces: list[bytes] = []
    statuses: list[bytes] = []
    removed: list[tuple[int, int]] = []
    position = written = total = 0
    while position < len(original):
        if written % STDOUT_BLOCK == 0 or original[position - 1 : position] in (b"", b"\n"):
            while position not in keep and (match := STATUS_LINE.match(original, position)):
                statuses.append(match.group())
                total += match.end() - position
                removed.append((written, total))
                position = match.end()
        block_end = position + STDOUT_BLOCK - written % STDOUT_BLOCK
        line_end = original.find(b"\n", position, block_end)
        piece = original[position : block_end if line_end < 0 else line_end + 1]
        pieces.append(piece)
        position += len(piece)
        written += len(piece)
    return StdoutReading(original, b"".join(pieces), tuple(statuses), tuple(removed))


def status_starts(reading: StdoutReading) -> list[int]:
    """Where in the original output each removed status line started."""
    return [at + total - len(line) for (at, total), line in zip(reading.removed, reading.status_lines, strict=True)]


def only_reading(original: bytes, parse: Callable[[StdoutReading], KcatParse], source: str) -> KcatParse:
    """``parse`` of the one consistent reading of ``original``; refused when status-like text makes two.

    Without status lines at block boundaries the output is read as it is. Otherwise it is read
    without them, as it is, and with each of them kept as data: exactly one reading may succeed
    (or several giving the same records).
    """
    if not original.strip():
        parsed = parse(as_printed(original))
        return replace(parsed, caveats=(*parsed.caveats, EMPTY_OUTPUT))
    mixed = without_stderr(original)
    if not mixed.status_lines:
        return parse(mixed)
    readings = [mixed, as_printed(original)]
    if len(mixed.status_lines) <= _KEPT_READINGS:  # each kept as data too: a value may hold such a line
        readings += [without_stderr(original, frozenset([start])) for start in status_starts(mixed)]
    found: list[tuple[StdoutReading, KcatParse]] = []
    first_error: DumpParseError | None = None
    for reading in readings:
        try:
            parsed = parse(reading)
        except DumpParseError as error:
            first_error = first_error or error
            continue
        if found and parsed.messages != found[0][1].messages:
            raise _ambiguous(source, found[0][0], reading)
        found.append((reading, parsed))
    if not found:
        assert first_error is not None
        raise first_error
    return found[0][1]


def _ambiguous(source: str, one: StdoutReading, other: StdoutReading) -> DumpParseError:
    """Names the first status-like line that one reading takes for stderr and the other for data."""
    position = min(set(status_starts(one)) ^ set(status_starts(other)))
    text = STATUS_LINE.match(one.original, position)
    shown = one.original[position : text.end() - 1 if text else position + 80][:120]
    return DumpParseError(
        source,
        one.original.count(b"\n", 0, position) + 1,
        f"the output can be read in more than one way: {shown!r} stands where kcat's stdout ends a 4 KiB block or "
        "a record (kcat -u), "
        "so it may be kcat's status line (its stderr mixed in) or part of a record's key, value or headers; "
        + STDERR_ADVICE,
    )
