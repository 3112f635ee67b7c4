"""Package-level contracts: a light import, matching dependency lists, the CLI entry points."""

from __future__ import annotations

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
