"""The steps a stepper shows: the frames that change the partition, with the checks made on each.

A scenario's ``expect`` and ``snapshot`` steps change nothing, so they are not steps of their own
here: they are noted on the step whose partition they check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kcompact_nb.core import Frame, Timeline


@dataclass(frozen=True)
class Shown:
    """One stepper position: the frame shown and the check steps (``expect``, ``snapshot``) made on it."""

    position: int
    frame: Frame
    checks: tuple[Frame, ...] = ()


class Steps:
    """Positions over a :class:`Timeline`; frames are computed as positions are first asked for.

    ``is_check(frame)`` tells the frames of check steps, which join the position before them.
    """

    def __init__(self, timeline: Timeline, is_check: Callable[[Frame], bool]) -> None:
        self.timeline = timeline
        self._is_check = is_check
        self._shown: list[Frame] = []
        self._checks: list[list[Frame]] = []
        self._scanned = 0

    def __len__(self) -> int:
        """Positions known so far."""
        self._scan()
        return len(self._shown)

    @property
    def exhausted(self) -> bool:
        """True once every frame is computed: the last position known is the last one."""
        return self.timeline.exhausted

    def at(self, position: int) -> Shown:
        """Position ``position`` with all its checks (frames are computed up to the next position).

        Raises ``IndexError`` past the last position.
        """
        while len(self) <= position + 1 and self.timeline.extend():
            pass
        return Shown(position, self._shown[position], tuple(self._checks[position]))

    def known(self, position: int) -> Frame | None:
        """The frame of position ``position`` when it is computed already, else None (computes nothing)."""
        self._scan()
        return self._shown[position] if position < len(self._shown) else None

    def last_known(self) -> Frame:
        """The frame of the last position known so far (computes nothing)."""
        self._scan()
        return self._shown[-1]

    def first_with_pass(self) -> Frame | None:
        """The frame of the first position known whose step ran a cleaner pass (computes nothing)."""
        self._scan()
        return next((frame for frame in self._shown if frame.passes), None)

    def _scan(self) -> None:
        frames = self.timeline.frames
        for frame in frames[self._scanned :]:
            if self._shown and self._is_check(frame):
                self._checks[-1].append(frame)
            else:
                self._shown.append(frame)
                self._checks.append([])
        self._scanned = len(frames)
