"""The differential harness's copy of a live broker's partition folder, while the broker deletes files in it.

Before 2.8 a broker's recovery-point checkpoint deletes producer snapshots at any moment
(``deleteSnapshotsAfterRecoveryPointCheckpoint``): a copy that listed one and then met it gone starts again.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from kcompact_nb.broker import _cleaner
from kcompact_nb.broker._cleaner import COPY_ATTEMPTS, copy_partition

SNAPSHOT = "00000000000000000006.snapshot"


def _broker(log_dir: Path) -> SimpleNamespace:
    """What ``copy_partition`` reads of a broker: its log dir and its cleaner log."""
    partition = log_dir / "orders-0"
    partition.mkdir(parents=True)
    for name in ("00000000000000000000.log", "00000000000000000000.index", SNAPSHOT):
        (partition / name).write_bytes(name.encode())
    (log_dir / "cleaner-offset-checkpoint").write_text("0\n1\norders 0 6\n")
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


def test_a_broker_that_deletes_at_every_copy_fails_it_naming_the_file(tmp_path, monkeypatch):
    broker = _broker(tmp_path / "data")
    racing = _copies_deleting_the_snapshot(broker.log_dir / "orders-0", times=COPY_ATTEMPTS, taken_again=True)
    monkeypatch.setattr(_cleaner.shutil, "copytree", racing)
    with pytest.raises(shutil.Error, match=SNAPSHOT):
        copy_partition(broker, "orders", tmp_path / "copy")
