"""When the broker's recovery-point checkpoint ran during a conformance round (docs/cleaner-rules.md, section 8.5)."""

from __future__ import annotations

import time

from kcompact_nb.fidelity._checkpoint_ticks import (
    RUN_SPREAD_MS,
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


def test_a_run_shortly_before_pass_messages_may_have_followed_their_swaps():
    """A pass swaps its cleaned segments in, syncs the cleaner's checkpoint and then logs; a recovery-point
    checkpoint run writes and syncs its file and then deletes snapshots. A run that wrote its file less than
    RUN_SPREAD_MS before passes' messages gives an order per such pass, where it followed them (a 2.6.3 round kept
    every snapshot of a merged group that the simulator's run before the pass deleted)."""
    stamp = "2026-11-29 06:08:32,724"
    at = int(time.mktime(time.strptime(stamp[:19], "%Y-%m-%d %H:%M:%S"))) * 1000 + 724
    later = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime((at + 1_000) // 1000)) + ",724"
    messages = [f"[{stamp}] INFO Log cleaner thread 0 cleaned log t-0", f"[{later}] INFO Log cleaner thread 0 ..."]
    assert checkpoint_orders(messages, []) == [[]]
    assert checkpoint_orders(messages, [at + 1_001]) == [[2]]  # after both messages: after both passes
    assert checkpoint_orders(messages, [at - RUN_SPREAD_MS - 1]) == [[0]]  # too early to follow a swap
    assert checkpoint_orders(messages, [at - RUN_SPREAD_MS + 500]) == [[0], [1]]  # the second pass is too far
    assert checkpoint_orders(messages, [at]) == [[0], [1], [2]]  # the same ms as the first message: either
    assert checkpoint_orders(messages, [at - 40, at + 60_000]) == [[0, 2], [1, 2], [2, 2]]
