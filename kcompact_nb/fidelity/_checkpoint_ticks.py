"""When a broker's recovery-point checkpoint ran during a round, and how many cleaner passes preceded each run.

Before 2.8 the checkpoint task (every ``log.flush.offset.checkpoint.interval.ms``, at a fixed rate from 30 s after
the broker started) deletes old producer snapshots (spec 8.5), so which snapshots the "after" copy holds depends on
whether it ran during the round, and before or after a pass. Each run rewrites ``recovery-point-offset-checkpoint``:
its modification times before and after the round give the runs in between, and the cleaner log's times of the
round's passes say how many passes came before each. The run writes the file first and deletes the snapshots
after: a copy is taken between runs, once the last one had time to delete (:func:`copy_between_checkpoints`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import datetime
from itertools import product
from pathlib import Path

from kcompact_nb.broker import BrokerError, KafkaBroker, copy_partition
from kcompact_nb.io import RECOVERY_POINT_CHECKPOINT

CHECKPOINT_INTERVAL_PROPERTY = "log.flush.offset.checkpoint.interval.ms"
DEFAULT_CHECKPOINT_INTERVAL_MS = 60_000
_LOGGED_AT = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")


def checkpointed_ms(log_dir: Path) -> int | None:
    """When the broker last wrote ``recovery-point-offset-checkpoint`` in ``log_dir`` (wall ms), if it did."""
    path = log_dir / RECOVERY_POINT_CHECKPOINT
    return path.stat().st_mtime_ns // 1_000_000 if path.is_file() else None


SETTLE_MS = 2_000
"""Time a checkpoint run is given to delete its snapshots after writing the file, before a copy is taken."""
COPIES = 5


def copy_between_checkpoints(broker: KafkaBroker, topic: str, destination: Path) -> int | None:
    """Copy the partition (:func:`~kcompact_nb.broker.copy_partition`) at least ``SETTLE_MS`` after the last
    checkpoint run and with none during the copy; returns when that run wrote the file (:func:`checkpointed_ms`)."""
    for _ in range(COPIES):
        written = checkpointed_ms(broker.log_dir)
        if written is not None and (wait_ms := written + SETTLE_MS - time.time_ns() // 1_000_000) > 0:
            time.sleep(wait_ms / 1000)
            continue  # look again: another run may have begun meanwhile
        copy_partition(broker, topic, destination)
        if checkpointed_ms(broker.log_dir) == written:
            return written
    raise BrokerError(
        f"{broker.log_dir}: the recovery-point checkpoint ran during, or less than {SETTLE_MS} ms before, each of "
        f"{COPIES} attempts to copy the partition"
    )


def checkpoints_between(before_ms: int | None, after_ms: int | None, interval_ms: int) -> list[int]:
    """The checkpoint runs after the one last seen at ``before_ms`` up to the one last seen at ``after_ms``, oldest
    first (the task runs at a fixed rate)."""
    if after_ms is None or after_ms == before_ms:
        return []
    runs = [after_ms]
    while before_ms is not None and runs[-1] - interval_ms > before_ms + interval_ms // 2:
        runs.append(runs[-1] - interval_ms)
    return runs[::-1]


RUN_SPREAD_MS = 5_000
"""How far apart the time a recovery-point checkpoint run wrote its file and the time it deleted snapshots, and a
pass's swap and its message, may be: each is a sync to disk apart (the checkpoint file's; the cleaner checkpoint's,
which a pass writes before it logs), seconds on a busy disk."""


def checkpoint_orders(messages: Sequence[str], times_ms: Sequence[int]) -> list[list[int]]:
    """How many of the round's passes may have preceded each checkpoint run, the order of the log's times first.

    A pass logs its message when it ends (:func:`passes_logged_before`); a run that wrote its file less than
    ``RUN_SPREAD_MS`` before the messages of the next passes may have deleted its snapshots after their swaps, so
    each such pass gives another order.
    """
    logged = [at for at in map(_logged_ms, messages) if at is not None]
    choices = []
    for run_ms, before in zip(times_ms, passes_logged_before(messages, times_ms), strict=True):
        close = sum(1 for at in logged[before:] if at - run_ms <= RUN_SPREAD_MS)
        choices.append(range(before, before + close + 1))
    return [list(order) for order in product(*choices) if list(order) == sorted(order)]


def passes_logged_before(messages: Sequence[str], times_ms: Sequence[int]) -> list[int]:
    """For each time, how many of the round's pass messages the broker logged before it (a pass logs at its end)."""
    logged = [_logged_ms(message) for message in messages]
    return [sum(1 for at in logged if at is not None and at < time) for time in times_ms]


def _logged_ms(message: str) -> int | None:
    """The wall ms of a broker log line's ``[yyyy-MM-dd HH:mm:ss,SSS]`` prefix, read in the machine's time zone (the
    broker's JVM writes it so)."""
    match = _LOGGED_AT.match(message)
    if match is None:
        return None
    return int(datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f").timestamp() * 1000)
