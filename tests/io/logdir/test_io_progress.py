"""The tqdm progress bar: off in tests and for small reads, on when asked or for big reads on a terminal."""

from __future__ import annotations

from kcompact_nb.io import ReadOptions, read_log_dir, read_partition_dir
from kcompact_nb.io.logdir._progress import PROGRESS_THRESHOLD_BYTES, ByteProgress, wants_progress
from tests.io.kafka_bytes import simple_batches, write_segments


def test_progress_is_off_unless_asked_or_big_on_a_terminal(monkeypatch):
    assert wants_progress(10, True) and not wants_progress(10**12, False)
    assert not wants_progress(PROGRESS_THRESHOLD_BYTES * 4, None)  # pytest's stderr is not a terminal
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert wants_progress(PROGRESS_THRESHOLD_BYTES, None) and not wants_progress(PROGRESS_THRESHOLD_BYTES - 1, None)
    monkeypatch.setenv("KCOMPACT_PROGRESS", "1")  # the environment is the CLI's to read (kcompact_nb.cli)
    assert not wants_progress(1, None)


def test_a_disabled_bar_costs_nothing_and_shows_nothing(capsys):
    with ByteProgress(100, "x", progress=False) as bar:
        bar.update(50)
    assert not bar.enabled and capsys.readouterr().err == ""


def test_reads_show_a_bar_when_asked(tmp_path, capsys):
    root = tmp_path / "logs"
    write_segments(root / "t-0", {0: simple_batches(range(50))})
    assert read_partition_dir(root / "t-0", ReadOptions(progress=True)).log.log_end_offset == 50
    assert "t-0" in capsys.readouterr().err
    assert read_log_dir(root, ReadOptions(progress=True)).logs["t-0"].log_end_offset == 50
    err = capsys.readouterr().err
    assert "logs" in err and "100%" in err
    read_log_dir(root)
    assert capsys.readouterr().err == ""
