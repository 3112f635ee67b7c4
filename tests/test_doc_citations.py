"""Every document the code, tests, tools and notebooks cite is in the repository (issue #28)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.md)\b")
"""``docs/real-broker.md``, ``cleaner-rules.md``, ``README.md``: a Markdown file named in text."""
WRITTEN = {"RESULTS-stream.md"}
"""Markdown files the project writes rather than cites (``python -m bench stream --output``)."""
CHECKERS = ("tests/test_docs.py", "tests/test_doc_citations.py")
"""The link checkers themselves, whose planted failures name missing documents on purpose."""
WHERE = ("kcompact_nb/", "tests/", "bench/", "tools/", "notebooks/", "docs/", "README.md", "Makefile", ".ci/")


def _tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return listed.split()


def _exists(name: str, tracked: list[str], citing: str) -> bool:
    if Path(name).name in WRITTEN:
        return True
    if name.startswith("../"):
        return (ROOT / citing).parent.joinpath(name).resolve().is_file()
    if "/" in name:
        return (ROOT / name).is_file() or any(path.endswith("/" + name) for path in tracked)
    return any(Path(path).name == name for path in tracked)


def test_every_cited_document_is_in_the_repository():
    tracked = _tracked()
    missing = set()
    for path in tracked:
        if (
            not path.startswith(WHERE)
            or path in CHECKERS
            or not (ROOT / path).is_file()
            or path.endswith((".jar", ".log", ".so"))
        ):
            continue
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        missing |= {(path, name) for name in CITED.findall(text) if not _exists(name, tracked, path)}
    assert sorted(missing) == []
