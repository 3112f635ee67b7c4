"""When the broker's recovery-point checkpoint ran during a conformance round (docs/cleaner-rules.md, section 8.5)."""

from __future__ import annotations

import time

from kcompact_nb.fidelity._checkpoint_ticks import checkpoints_between, passes_logged_before


def test_the_runs_between_two_rewrites_of_the_checkpoint_file_are_a_fixed_rate_apart():
    assert checkpoints_between(1_000, 1_000, 60_000) == []  # not rewritten: no run in the round
    assert checkpoints_between(1_000, 61_003, 60_000) == [61_003]
    assert checkpoints_between(1_000, 181_004, 60_000) == [61_004, 121_004, 181_004]
    assert checkpoints_between(None, 5_000, 60_000) == [5_000]  # the file appeared during the round
    assert checkpoints_between(None, None, 60_000) == []


def test_each_run_counts_the_pass_messages_logged_before_it():
    """A pass logs its message when it ends; the broker's log4j time is local time, as the machine's."""
    stamp = "2026-11-29 06:08:32,724"
    at = int(time.mktime(time.strptime(stamp[:19], "%Y-%m-%d %H:%M:%S"))) * 1000 + 724
    messages = [f"[{stamp}] INFO Log cleaner thread 0 cleaned log t-0", "[2026-11-29 06:09:40,001] INFO ..."]
    assert passes_logged_before(messages, [at, at + 1, at + 70_000]) == [0, 1, 2]
