"""Recording Spark's class archive: the archive appears whole or not at all (kcompact_nb/spark/_class_recording.py)."""

from __future__ import annotations

import subprocess

import pytest

from kcompact_nb.spark import _class_recording


def test_the_archive_is_the_file_the_jvm_finished_and_a_failed_recording_leaves_none(tmp_path, monkeypatch):
    target = tmp_path / "spark-classes" / "pyspark-test.jsa"
    monkeypatch.setattr(_class_recording, "class_archive_path", lambda: target)
    written = []

    def jvm_writes_its_file(command, **_):
        partial = command[-1]
        written.append(partial)
        with open(partial, "wb") as out:
            out.write(b"classes")

    monkeypatch.setattr(_class_recording.subprocess, "run", jvm_writes_its_file)
    assert _class_recording.record_class_archive() == target and target.read_bytes() == b"classes"
    assert written[0] != str(target) and list(target.parent.iterdir()) == [target]
    assert _class_recording.record_class_archive() == target and len(written) == 1  # recorded once

    target.unlink()

    def jvm_fails_midway(command, **_):
        with open(command[-1], "wb") as out:
            out.write(b"cut")
        raise subprocess.CalledProcessError(1, command)

    monkeypatch.setattr(_class_recording.subprocess, "run", jvm_fails_midway)
    with pytest.raises(subprocess.CalledProcessError):
        _class_recording.record_class_archive()
    assert list(target.parent.iterdir()) == []
    assert _class_recording.main() == 0 and list(target.parent.iterdir()) == []


def test_without_java_nothing_is_recorded(monkeypatch, capsys):
    monkeypatch.setattr(_class_recording, "class_archive_path", lambda: None)
    assert _class_recording.record_class_archive() is None
    assert _class_recording.main() == 0
    assert "no Java" in capsys.readouterr().out
