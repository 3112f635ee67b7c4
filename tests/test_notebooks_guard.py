"""Changing a cleaner rule that alters a stored output must fail the notebook test (issue #8).

A copy of notebook 03 runs through nbval in a subprocess twice: as committed (it must pass) and with
a first cell that changes the tombstone rule in the kernel, so tombstones are never retained
(``delete.retention.ms`` ignored). Its stored lifecycle (the offsets left after each pass) then differs
and nbval must fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "03-tombstones-transactions-producers.ipynb"
BROKEN_RULE = (
    "import kcompact_nb.core.cleaner._cleaning as cleaner\n"
    "cleaner.CleanerFilter.tombstone_rule = lambda self, batch: cleaner.RecordRule.TOMBSTONE_PAST_HORIZON\n"
    "# tombstones dropped by their first pass, whichever record loop asks"
)


def _copy(tmp_path: Path, name: str, *, perturb: bool) -> Path:
    """The notebook copied to ``tmp_path/notebooks/`` (next to a ``data`` link, as in the repository)."""
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    if perturb:
        cell = {
            "cell_type": "code",
            "execution_count": None,
            "id": "perturb",
            "metadata": {},
            "outputs": [],
            "source": BROKEN_RULE,
        }
        notebook["cells"].insert(0, cell)
    target = tmp_path / "notebooks" / name
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(notebook), encoding="utf-8")
    return target


def _nbval(path: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # keep the repository's addopts out
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "pytest", "--nbval", str(path), "-p", "no:cacheprovider", "-q"]
    command += ["--nbval-sanitize-with", str(ROOT / "notebooks" / "nbval-sanitize.cfg")]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    return tmp_path


def test_unchanged_copy_passes_and_a_changed_rule_fails(workspace: Path):
    unchanged = _nbval(_copy(workspace, "unchanged.ipynb", perturb=False), workspace)
    assert unchanged.returncode == 0, unchanged.stdout[-3000:]
    changed = _nbval(_copy(workspace, "changed.ipynb", perturb=True), workspace)
    assert changed.returncode == 1, changed.stdout[-3000:]
    assert "FAILED" in changed.stdout and "changed.ipynb::Cell" in changed.stdout
    assert (
        "Cell outputs differ" in changed.stdout and "offsets [1] remain" in changed.stdout
    )  # the tombstone at 2 gone in the first pass
