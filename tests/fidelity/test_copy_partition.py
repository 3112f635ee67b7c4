"""The differential harness's copies of a live broker's partition folder, while the broker deletes files in it.

Before 2.8 a broker's recovery-point checkpoint deletes producer snapshots at any moment
(``deleteSnapshotsAfterRecoveryPointCheckpoint``, after writing its file): a copy that listed one and then met it
gone starts again, and the harness copies between checkpoint runs (a 2.1.1 conformance run under load met both).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from kcompact_nb.broker import _cleaner
from kcompact_nb.broker._cleaner import COPY_ATTEMPTS, copy_partition
from kcompact_nb.fidelity import _checkpoint_ticks as checkpoint_ticks
from kcompact_nb.fidelity._checkpoint_ticks import SETTLE_MS, checkpointed_ms, copy_between_checkpoints
from kcompact_nb.io import RECOVERY_POINT_CHECKPOINT

SNAPSHOT = "00000000000000000006.snapshot"


def _broker(log_dir: Path) -> SimpleNamespace:
    """What ``copy_partition`` reads of a broker: its log dir and its cleaner log."""
    partition = log_dir / "orders-0"
    partition.mkdir(parents=True)
    for name in ("00000000000000000000.log", "00000000000000000000.index", SNAPSHOT):
        (partition / name).write_bytes(name.encode())
    (log_dir / "cleaner-offset-checkpoint").write_text("0\n2\norders 0 6\nother 0 9\n")
    (log_dir / RECOVERY_POINT_CHECKPOINT).write_text("0\n2\nother 0 12\norders 0 7\n")
    return SimpleNamespace(log_dir=log_dir, cleaner_log=lambda: "")


def _copies_deleting_the_snapshot(folder: Path, *, times: int, taken_again: bool):
    """``shutil.copytree`` as it meets a broker that deletes the snapshot after the listing, ``times`` times (and,
    with ``taken_again``, takes a snapshot of that name again before each copy)."""
    copytree, left = shutil.copytree, [times]

    def copy_function(source: str, target: str) -> object:
        if source.endswith(SNAPSHOT) and left[0] > 0:
            left[0] -= 1
            Path(source).unlink()
        return shutil.copy2(source, target)

    def racing_copytree(source: Path, target: Path, *, ignore: object = None) -> object:
        if taken_again:
            (folder / SNAPSHOT).write_bytes(b"taken again")
        return copytree(source, target, ignore=ignore, copy_function=copy_function)

    return racing_copytree


def test_a_copy_that_meets_a_file_the_broker_deleted_starts_again(tmp_path, monkeypatch):
    broker = _broker(tmp_path / "data")
    racing = _copies_deleting_the_snapshot(broker.log_dir / "orders-0", times=1, taken_again=False)
    monkeypatch.setattr(_cleaner.shutil, "copytree", racing)
    copied = copy_partition(broker, "orders", tmp_path / "copy")
    assert sorted(p.name for p in copied.iterdir()) == ["00000000000000000000.index", "00000000000000000000.log"]
    assert (copied / "00000000000000000000.log").read_bytes() == b"00000000000000000000.log"
    assert (tmp_path / "copy" / "cleaner-offset-checkpoint").read_text() == "0\n1\norders 0 6\n"
    # the recovery point the broker's last checkpoint run wrote: the harness gives it to the simulated runs
    assert (tmp_path / "copy" / RECOVERY_POINT_CHECKPOINT).read_text() == "0\n1\norders 0 7\n"


def test_a_broker_that_deletes_at_every_copy_fails_it_naming_the_file(tmp_path, monkeypatch):
    broker = _broker(tmp_path / "data")
    racing = _copies_deleting_the_snapshot(broker.log_dir / "orders-0", times=COPY_ATTEMPTS, taken_again=True)
    monkeypatch.setattr(_cleaner.shutil, "copytree", racing)
    with pytest.raises(shutil.Error, match=SNAPSHOT):
        copy_partition(broker, "orders", tmp_path / "copy")


def _checkpoint_written(log_dir: Path, at_ms: int) -> None:
    """A recovery-point checkpoint run writing its file at ``at_ms`` (wall ms)."""
    path = log_dir / RECOVERY_POINT_CHECKPOINT
    path.write_text("0\n0\n")
    os.utime(path, ns=(at_ms * 1_000_000, at_ms * 1_000_000))


def test_a_copy_waits_for_a_checkpoint_run_to_settle_and_is_taken_again_when_one_ran_during_it(tmp_path, monkeypatch):
    """The harness's copies (before and after a round) show no checkpoint run half done: the run writes its file
    first and deletes snapshots after, so the copy waits SETTLE_MS after a write and is taken again when the file
    changed during it; what it returns is the run the copy shows."""
    broker = _broker(tmp_path / "data")
    now_ms = time.time_ns() // 1_000_000
    _checkpoint_written(broker.log_dir, now_ms - 100)
    slept: list[float] = []
    copies: list[int | None] = []

    def copy_while_a_run_starts(broker_: object, topic: str, destination: Path, **_: object) -> Path:
        copies.append(checkpointed_ms(broker.log_dir))
        if len(copies) == 1:  # a run writes its file during the first copy
            _checkpoint_written(broker.log_dir, now_ms - SETTLE_MS - 50)
        return destination

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        _checkpoint_written(broker.log_dir, now_ms - SETTLE_MS - 1_000)  # the settled run, long ago by then

    monkeypatch.setattr(checkpoint_ticks.time, "sleep", sleep)
    monkeypatch.setattr(checkpoint_ticks, "copy_partition", copy_while_a_run_starts)
    written = copy_between_checkpoints(broker, "orders", tmp_path / "copy")
    assert len(slept) == 1 and 1.8 < slept[0] <= SETTLE_MS / 1000  # waited for the run 100 ms ago to settle
    assert copies == [now_ms - SETTLE_MS - 1_000, now_ms - SETTLE_MS - 50]
    assert written == now_ms - SETTLE_MS - 50
