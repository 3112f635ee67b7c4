"""When the broker's recovery-point checkpoint ran during a conformance round (docs/cleaner-rules.md, section 8.5)."""

from __future__ import annotations

import time

from kcompact_nb.fidelity._checkpoint_ticks import (
    RUN_SPREAD_MS,
    checkpoint_orders,
    checkpoints_between,
    passes_logged_before,
)
from kcompact_nb.fidelity._compare import cleaner_messages, log_line_facts


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


CLEANER_LOG = """[2026-11-29 16:53:39,101] INFO Starting the log cleaner (kafka.log.LogCleaner)
[2026-11-29 16:53:40,101] INFO [kafka-log-cleaner-thread-0]: 
\tLog cleaner thread 0 cleaned log t-0 (dirty section = [0, 50])
\t0.0 MB of log processed in 0.1 seconds (0.0 MB/sec).
\tIndexed 0.0 MB in 0.0 seconds (0.0 Mb/sec, 50.0% of total time)
\tBuffer utilization: 0.0%
\tCleaned 0.0 MB in 0.0 seconds (0.0 Mb/sec, 50.0% of total time)
\tStart size: 0.0 MB (50 messages)
\tEnd size: 0.0 MB (8 messages)
\t83.3% size reduction (84.0% fewer messages)
 (kafka.log.LogCleaner)
"""


def test_a_pass_message_is_timed_by_its_log_record_on_the_line_before_it():
    """Kafka formats the pass's message from "%n\\tLog cleaner thread ...": its log record's time is on the line
    before (a harness that read the time from the "cleaned log" line found none and put every checkpoint run before
    every pass)."""
    (message,) = cleaner_messages(CLEANER_LOG, "t-0")
    assert message.splitlines()[0] == "[2026-11-29 16:53:40,101] INFO [kafka-log-cleaner-thread-0]: "
    assert log_line_facts(message)[0] == "Log cleaner thread 0 cleaned log t-0 (dirty section = [0, 50])"
    at = int(time.mktime(time.strptime("2026-11-29 16:53:40", "%Y-%m-%d %H:%M:%S"))) * 1000 + 101
    assert passes_logged_before([message], [at, at + 1]) == [0, 1]
