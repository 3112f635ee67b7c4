"""kcat output with its stderr mixed in (``2>&1``) where kcat puts it: where its stdout's 4 KiB blocks end."""

from __future__ import annotations

BLOCK = 4096


def mixed_in(stdout: bytes, *status_lines: bytes, block: int = 0) -> bytes:
    """``stdout`` with ``status_lines`` written after its first ``block`` blocks (0: before any record)."""
    at = block * BLOCK
    assert at <= len(stdout), "stdio writes a block only when it is full"
    return stdout[:at] + b"".join(status_lines) + stdout[at:]
