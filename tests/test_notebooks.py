"""Static checks of the committed notebooks: valid, public API only, stored without figure payloads."""

from __future__ import annotations

import html
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbval.plugin import get_sanitize_patterns

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PRIVATE_IMPORT = re.compile(r"kcompact_nb(\.\w+)*\._\w")
PAYLOAD_MIME = re.compile(r"plotly|widget|javascript|html")
MAX_PAYLOAD_BYTES = 4096
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
DOLLAR_DIGIT = re.compile(r"\$\s*\d[\d.]*")


def _strip_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "strip_notebook_figures", ROOT / "tools" / "strip_notebook_figures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _code(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def dollar_digits(markdown: str) -> list[str]:
    """``$``-digit sequences JupyterLab's MathJax may pair into maths: outside code spans, escaped or not.

    Seen in JupyterLab 4: ``\\$2.69, lime \\$0.49`` and ``&#36;2.69, lime &#36;0.49`` both render as maths
    (MathJax reads the rendered text); inside a code span (`` `$2.69` ``) a dollar is plain text.
    """
    prose = html.unescape(CODE.sub("", markdown))
    return [prose[max(m.start() - 10, 0) : m.end()] for m in DOLLAR_DIGIT.finditer(prose)]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 7


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_valid_nbformat_4_with_the_python3_kernel(path):
    notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_cells_use_the_public_api_only(path):
    private = [line for source in _code(path) for line in source.splitlines() if PRIVATE_IMPORT.search(line)]
    assert private == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_markdown_has_no_dollar_digit_that_renders_as_maths(path):
    assert [hit for cell in _markdown(path) for hit in dollar_digits(cell)] == []


def test_the_dollar_scan_finds_what_jupyterlab_renders_as_maths():
    assert dollar_digits(r"Grape \$2.69, lime \$0.49") == [r"Grape \$2.69", r"69, lime \$0.49"]
    assert dollar_digits("Grape &#36;2.69 and $ 3") == ["Grape $2.69", "$2.69 and $ 3"]
    assert dollar_digits("Grape `$2.69`, lime `$0.49`\n```\nprint('$1')\n```\n") == []
    assert dollar_digits("costs in $USD") == []


def test_the_private_import_scan_finds_private_imports():
    found = [
        PRIVATE_IMPORT.search(s) is not None
        for s in (
            "from kcompact_nb.core.cleaner._cleaner import clean_pass",
            "import kcompact_nb.core.cleaner._cleaner as c",
            "from kcompact_nb.cli._main import main",
            "from kcompact_nb.core import explain",
            "from kcompact_nb.widgets import CompactionStepper",
        )
    ]
    assert found == [True, True, True, False, False]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_figure_or_widget_payloads_are_committed(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in notebook["metadata"]
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            for mime, data in output.get("data", {}).items():
                size = len(json.dumps(data))
                assert not (PAYLOAD_MIME.search(mime) and size > MAX_PAYLOAD_BYTES), f"{mime}: {size} bytes"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebooks_are_stripped(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    hint = f"run: python tools/strip_notebook_figures.py {path.relative_to(ROOT)}"
    assert _strip_tool().strip(notebook) == notebook, hint


def test_strip_clears_ignored_outputs_and_widget_state_only():
    figure = {
        "data": {"application/vnd.plotly.v1+json": {"data": [1] * 5000}},
        "output_type": "display_data",
        "metadata": {},
    }
    table = {"name": "stdout", "output_type": "stream", "text": "offset 3\n"}
    notebook = {
        "metadata": {"widgets": {"state": {}}, "kernelspec": {"name": "python3"}},
        "cells": [
            {
                "cell_type": "code",
                "source": "# NBVAL_IGNORE_OUTPUT\nfig",
                "metadata": {"execution": {"a": 1}},
                "outputs": [figure],
            },
            {"cell_type": "code", "source": "fig", "metadata": {"tags": ["nbval-ignore-output"]}, "outputs": [figure]},
            {"cell_type": "code", "source": "print(3)", "metadata": {}, "outputs": [table]},
            {"cell_type": "markdown", "source": "text", "metadata": {}},
        ],
    }
    stripped = _strip_tool().strip(notebook)
    assert stripped["metadata"] == {"kernelspec": {"name": "python3"}}
    assert [c.get("outputs") for c in stripped["cells"]] == [[], [], [table], None]
    assert stripped["cells"][0]["metadata"] == {}


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in NOTEBOOKS if p.name not in readme] == []


def _sanitize(text: str) -> str:
    """What nbval does with ``--nbval-sanitize-with``: every pattern of the file replaced, in order."""
    patterns = get_sanitize_patterns((ROOT / "notebooks" / "nbval-sanitize.cfg").read_text(encoding="utf-8"))
    assert len(patterns) == 4
    for regex, replacement in patterns:
        text = re.sub(regex, replacement, text)
    return text


def test_sanitizer_removes_only_what_varies():
    assert _sanitize("<Widget at 0x7f3a2b1c9d00>") == "<Widget at 0xADDRESS>"
    assert _sanitize("Wall time: 1.2 s\n") == "Wall time: TIMING\n"
    assert _sanitize("26/01/01 10:00:00 WARN NativeCodeLoader: no native\nrows 3\n") == "rows 3\n"
    assert _sanitize("1 passed in 3.31s") == "1 passed in DURATION"
    kept = (
        "Buffer utilization: 87.5%\nt=604,800,001 ms\n"
        "0.0 MB of log processed in 0.0 seconds (Infinity MB/sec).\noffset 0x10"
    )
    assert _sanitize(kept) == kept
