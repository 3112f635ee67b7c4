"""Package-level contracts: a light import, matching dependency lists, the CLI entry points."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import kcompact_nb

ROOT = Path(__file__).resolve().parents[1]


def test_import_loads_no_heavy_packages():
    code = (
        "import sys, kcompact_nb; "
        "heavy = sorted(m for m in ('pyspark', 'plotly', 'ipywidgets', 'pandas') if m in sys.modules); "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_names_are_exported():
    for name in kcompact_nb.__all__:
        assert hasattr(kcompact_nb, name), name


def _notebook_code() -> list[str]:
    cells = [c for p in sorted((ROOT / "notebooks").glob("*.ipynb")) for c in json.loads(p.read_text())["cells"]]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _readme_code() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.DOTALL)


def _imported_from_the_package(code: str) -> set[str]:
    kept = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    nodes = ast.walk(ast.parse(kept))
    return {a.name for n in nodes if isinstance(n, ast.ImportFrom) and n.module == "kcompact_nb" for a in n.names}


def test_the_package_face_is_what_users_call():
    """Every name notebooks and the README import from ``kcompact_nb`` is on its face, every name on its face is
    one the README, docs or notebooks speak of, and it is all core's (plumbing stays on core's face only)."""
    face = set(kcompact_nb.__all__) - {"__version__"}
    used = set().union(*map(_imported_from_the_package, _notebook_code() + _readme_code()))
    assert {"NewRecord", "Simulation", "explain"} <= used
    assert used - face == set()
    notebooks = (json.loads(p.read_text())["cells"] for p in (ROOT / "notebooks").glob("*.ipynb"))
    texts = [p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]]
    texts += ["".join(c["source"]) for cells in notebooks for c in cells]
    spoken = set(re.findall(r"\w+", "\n".join(texts)))
    assert sorted(face - spoken) == []
    assert face <= set(kcompact_nb.core.__all__)
    assert {"cyclic_gc_paused", "clean_pass"} <= set(kcompact_nb.core.__all__) - face


def _requirement(spec: str) -> tuple[str, str]:
    match = re.match(r"^([A-Za-z0-9_.-]+)\s*((?:[<>=!]=?\s*[0-9.]+\s*,?\s*)*)", spec.strip())
    assert match, spec
    return match.group(1).lower(), (match.group(2) or "").replace(" ", "")


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = dict(_requirement(s) for s in project["dependencies"] + project["optional-dependencies"]["test"])
    conda: dict[str, str] = {}
    text = (ROOT / "environment.yml").read_text()
    # Conda packages at two spaces, PyPI-only ones in the pip section at six (but not `-e .`).
    for line in text.split("\ndependencies:\n", 1)[1].splitlines():
        item = re.match(r"^(?:  |      )- ([^\s:-]+.*)$", line)
        if item:
            name, bound = _requirement(item.group(1))
            conda[name] = bound
    tooling = {"python=3.11", "openjdk=17", "pip", "make", "maven", "c-compiler"}
    conda = {k: v for k, v in conda.items() if k not in {t.split("=")[0] for t in tooling}}
    assert conda == declared


def test_cli_version_through_python_dash_m():
    out = subprocess.run([sys.executable, "-m", "kcompact_nb", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"kcompact_nb {kcompact_nb.__version__}"
