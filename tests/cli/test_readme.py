"""The README's command lines, run as a newcomer would from the repository root: they work as it says,
write nothing into the repository, and the conda route starts JupyterLab as ``make lab`` does."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import KCOMPACT

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL)


def readme_commands() -> list[list[str]]:
    """Every ``kcompact ...`` line of the README's bash blocks that reads the bundled data, without its comment
    (the others illustrate a reader's own files, or need brokers)."""
    commands = []
    for block in bash_blocks(README):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == ["kcompact"] and any(word.startswith("data/") for word in words):
                commands.append(words[1:])
    return commands


def untracked_files() -> set[str]:
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return set(done.stdout.splitlines())


def test_the_readme_shows_the_commands_it_documents():
    names = [words[0] for words in readme_commands()]
    assert names.count("dump") == 3 and names.count("inspect") == 1 and names.count("scenario") == 1


@pytest.mark.parametrize("words", readme_commands(), ids=lambda w: " ".join(w)[:60])
def test_every_readme_command_succeeds_and_writes_nothing_into_the_repository(words):
    before = untracked_files()
    done = subprocess.run([str(KCOMPACT), *words], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert untracked_files() == before


def test_the_conda_route_starts_jupyterlab_as_make_lab_does():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    lab_recipe = makefile.split("\nlab:", 1)[1].split("\n\n", 1)[0]
    conda = next(block for block in bash_blocks(README) if "conda activate" in block)
    jupyter = next(line for line in conda.splitlines() if "jupyter lab" in line)
    for setting in ("tools/jupyter", "--LabApp.default_url=/lab/tree/notebooks", "--ServerApp.ip=127.0.0.1"):
        assert setting in lab_recipe and setting in jupyter
    assert "--notebook-dir" not in lab_recipe + jupyter  # Lab's root is the repository: ../docs links resolve
    assert "jupyter trust notebooks/*.ipynb" in lab_recipe and "jupyter trust notebooks/*.ipynb" in conda


def test_the_readme_says_how_to_run_kcompact_after_make():
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ".venv/bin/kcompact" in quick_start and "source .venv/bin/activate" in quick_start
    planned = subprocess.run(["make", "-n", "setup"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "run .venv/bin/kcompact, or 'source .venv/bin/activate'" in planned.stdout  # make prints it after setup


def test_the_readme_gives_the_time_and_disk_of_make_test():
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"`make test` takes about \d+ minutes", quick_start)
    assert re.search(r"uses about [\d.]+ GB of disk", re.sub(r"\s+", " ", quick_start))
    assert "is rebuilt" not in README  # .venv is reinstalled into, never rebuilt
