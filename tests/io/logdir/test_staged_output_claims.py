"""Staged output never loses or replaces someone's data (issue #40): the rename that puts it in place is the claim,
names stay short, links and mount points are written through and into, copies keep their holes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kcompact_nb.io import LogWriteError
from kcompact_nb.io.logdir import STAGING_MARK, staged_dir
from kcompact_nb.io.logdir._sparse_copy import copy_file


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text)


def test_of_two_writers_of_one_new_target_the_second_is_refused_and_replaces_nothing(tmp_path):
    target = tmp_path / "out"
    refusal = pytest.raises(LogWriteError, match="another writer filled it while this one worked")
    with refusal, staged_dir(target) as first:
        _write(first, "first.txt", "first")
        with staged_dir(target) as second:  # starts later, finishes first
            _write(second, "second.txt", "second")
        assert sorted(p.name for p in target.iterdir()) == ["second.txt"]
    assert sorted(p.name for p in target.iterdir()) == ["second.txt"]
    assert [p for p in tmp_path.iterdir() if STAGING_MARK in p.name] == []


def test_a_writer_that_may_replace_does(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    _write(target, "old.txt", "old")
    with staged_dir(target, replace=True) as staging:
        _write(staging, "new.txt", "new")
    assert sorted(p.name for p in target.iterdir()) == ["new.txt"]


def test_an_empty_target_is_claimed(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    with staged_dir(target) as staging:
        _write(staging, "a.txt", "a")
    assert (target / "a.txt").read_text() == "a"


def test_a_long_target_name_makes_no_staging_name_too_long(tmp_path):
    target = tmp_path / ("x" * 250)
    with staged_dir(target) as staging:
        assert len(staging.name) < 100
        _write(staging, "a.txt", "a")
    assert (target / "a.txt").read_text() == "a"


def test_two_long_names_that_share_their_start_get_their_own_staging_folders(tmp_path):
    one, two = tmp_path / ("y" * 200 + "1"), tmp_path / ("y" * 200 + "2")
    with staged_dir(one) as a, staged_dir(two) as b:
        assert a.name.split(STAGING_MARK)[1][:8] != b.name.split(STAGING_MARK)[1][:8]


def test_a_symbolic_link_to_an_empty_folder_is_written_through(tmp_path):
    folder, link = tmp_path / "real", tmp_path / "link"
    folder.mkdir()
    link.symlink_to(folder)
    with staged_dir(link) as staging:
        _write(staging, "a.txt", "a")
    assert link.is_symlink() and (folder / "a.txt").read_text() == "a"


def _mounted(folder: Path) -> bool:
    folder.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(folder)], capture_output=True).returncode == 0


def test_an_empty_mount_point_is_written_into(tmp_path):
    target = tmp_path / "mnt"
    if not _mounted(target):
        pytest.skip("mounting a tmpfs needs root (CAP_SYS_ADMIN), which this run lacks")
    try:
        with staged_dir(target) as staging:
            assert staging.parent == target  # on the mount's own file system
            _write(staging, "a.txt", "a")
        assert sorted(p.name for p in target.iterdir()) == ["a.txt"]
        with pytest.raises(LogWriteError, match="another writer filled it"), staged_dir(target):
            _write(target, "theirs.txt", "theirs")
        assert sorted(p.name for p in target.iterdir()) == ["a.txt", "theirs.txt"]
    finally:
        subprocess.run(["umount", str(target)], check=True)


def test_a_copy_keeps_the_holes_and_zero_blocks_of_its_source(tmp_path):
    source, target = tmp_path / "sparse.log", tmp_path / "copy.log"
    with open(source, "wb") as handle:
        handle.write(b"data" * 1000)
        handle.seek(64 * 1024 * 1024)
        handle.write(b"end")
        handle.write(bytes(3 * 1024 * 1024))  # written zeros: no hole in the source, one in the copy
    os.utime(source, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    copy_file(source, target)
    assert target.read_bytes() == source.read_bytes()
    assert target.stat().st_blocks * 512 < 1024 * 1024
    assert target.stat().st_mtime_ns == source.stat().st_mtime_ns


def test_a_copy_of_a_file_of_only_a_hole_is_that_hole(tmp_path):
    source, target = tmp_path / "hole", tmp_path / "copy"
    with open(source, "wb") as handle:
        handle.truncate(10_000_000)
    copy_file(source, target)
    assert (target.stat().st_size, target.stat().st_blocks) == (10_000_000, 0)


def test_a_copied_tree_keeps_its_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x" * 100)
    shutil.copytree(tmp_path / "a", tmp_path / "b", copy_function=copy_file)
    assert (tmp_path / "b" / "f").read_bytes() == b"x" * 100
