"""kcat's own status lines, found where ``kcat ... 2>&1`` mixes them into the records.

kcat writes its status to stderr as ``% <message>\\n`` (``KC_INFO``/``KC_ERROR`` in kcat.c).
stderr is unbuffered but stdout, sent to a file or a pipe, is written in blocks (4 KiB here),
so a status line lands wherever the last block ended: between records, or inside one. The
messages a consumer prints are known; those that report progress during consumption
(``Reached end of topic``, ``Reached stop timestamp``) are recognised anywhere, the others only
where a record could start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Messages kcat prints while records are being written (kcat.c ``partition_at_eof``, ``consume_cb``).
_PROGRESS = rb"Reached (?:end of topic|stop timestamp for topic) \S+ \[-?[0-9]+\] at offset -?[0-9]+(?:: exiting)?"
#: Every message a consumer run prints at the default or a raised verbosity (kcat.c ``KC_INFO``, ``KC_ERROR``).
_ANY = (
    _PROGRESS
    + rb"|Auto-selecting \S+ mode|ERROR: |FATAL|Fatal error at |Error at |Group \S+ rebalanced|Waiting for group"
    + rb"|Broker \S+ \([0-9-]+\) throttled|KAFKA_CONFIG is deprecated|Rename KAFKA_CONFIG|Reading configuration from"
    + rb"|Automatically enabling api\.version\.request|Enable message offset reporting"
)
PROGRESS_LINE = re.compile(rb"% (?:" + _PROGRESS + rb")\n")
STATUS_LINE = re.compile(rb"% (?:" + _ANY + rb")[^\n]*(?:\n|\Z)")
_STATUS_SUFFIX = re.compile(rb"% (?:" + _ANY + rb")[^\n]*\Z")

#: What to do instead, for error messages.
STDERR_ADVICE = "keep kcat's stderr out of the file (2>/dev/null or 2>kcat.err instead of 2>&1, or kcat -q)"


def mixed_stderr_caveats(status_lines: int) -> tuple[str, ...]:
    """What ``-f`` output with kcat's stderr mixed in cannot tell apart (nothing when there was none)."""
    if not status_lines:
        return ()
    return (
        f"status lines: {status_lines} of kcat's own lines were found in the output and skipped; a key or value "
        "that contains such a line verbatim would lose it. To read such data exactly, " + STDERR_ADVICE + ".",
    )


def status_suffix(line: bytes) -> int | None:
    """Where a kcat status line starts inside ``line`` (one physical line), if it ends the line."""
    match = _STATUS_SUFFIX.search(line)
    return None if match is None else match.start()


@dataclass
class StrippedOutput:
    """kcat ``-f`` output with its progress lines removed, and where they were (to name lines)."""

    original: bytes
    data: bytes
    status_lines: list[bytes] = field(default_factory=list)
    _removed: list[tuple[int, int]] = field(default_factory=list)  # (position in data, bytes removed so far)

    @classmethod
    def of(cls, original: bytes) -> StrippedOutput:
        pieces, removed, statuses, start, total = [], [], [], 0, 0
        for match in PROGRESS_LINE.finditer(original):
            pieces.append(original[start : match.start()])
            total += match.end() - match.start()
            removed.append((match.start() - (total - (match.end() - match.start())), total))
            statuses.append(match.group().rstrip(b"\n"))
            start = match.end()
        pieces.append(original[start:])
        return cls(original, b"".join(pieces), statuses, removed)

    def line_of(self, position: int) -> int:
        """The 1-based line number in the original output of ``data[position]``."""
        shift = 0
        for at, total in self._removed:
            if at > position:
                break
            shift = total
        return self.original.count(b"\n", 0, position + shift) + 1
