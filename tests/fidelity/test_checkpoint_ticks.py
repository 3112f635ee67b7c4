"""When the broker's recovery-point checkpoint ran during a conformance round (docs/cleaner-rules.md, section 8.5)."""

from __future__ import annotations

import time

from kcompact_nb.fidelity._checkpoint_ticks import (
    SWAP_TO_MESSAGE_MS,
    checkpoint_orders,
    checkpoints_between,
    passes_logged_before,
)


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


def test_a_run_just_before_a_pass_message_may_have_followed_its_swap():
    """A pass swaps its cleaned segments in, writes the cleaner's checkpoint and then logs: a recovery-point checkpoint
    run less than SWAP_TO_MESSAGE_MS before the message gives a second order, where it followed that pass (a 2.6.3
    round kept every snapshot of a merged group that the simulator's run before the pass deleted)."""
    stamp = "2026-11-29 06:08:32,724"
    at = int(time.mktime(time.strptime(stamp[:19], "%Y-%m-%d %H:%M:%S"))) * 1000 + 724
    messages = [f"[{stamp}] INFO Log cleaner thread 0 cleaned log t-0", "[2026-11-29 06:09:40,001] INFO ..."]
    assert checkpoint_orders(messages, []) == [[]]
    assert checkpoint_orders(messages, [at + 1]) == [[1]]  # after the message: after the pass
    assert checkpoint_orders(messages, [at - SWAP_TO_MESSAGE_MS - 1]) == [[0]]  # too early to follow its swap
    assert checkpoint_orders(messages, [at - 40]) == [[0], [1]]
    assert checkpoint_orders(messages, [at]) == [[0], [1]]  # the same ms: either
    assert checkpoint_orders(messages, [at - 40, at + 60_000]) == [[0, 1], [1, 1]]
