"""io's cache folder: the environment's answer at each call, though the folder is made once per answer."""

from __future__ import annotations

from pathlib import Path

from kcompact_nb.record import libzstd_dir


def test_the_cache_folder_follows_the_environment_from_call_to_call(tmp_path, monkeypatch):
    monkeypatch.delenv("KCOMPACT_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert (
        libzstd_dir()
        == tmp_path / "home" / ".cache" / "kcompact_nb" / "libzstd"
        == Path.home() / ".cache" / "kcompact_nb" / "libzstd"
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert libzstd_dir() == tmp_path / "xdg" / "kcompact_nb" / "libzstd"
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path / "explicit"))
    assert libzstd_dir() == tmp_path / "explicit" / "libzstd"
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("KCOMPACT_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert libzstd_dir() == tmp_path / "elsewhere" / ".cache" / "kcompact_nb" / "libzstd"
