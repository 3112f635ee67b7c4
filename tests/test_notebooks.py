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

from kcompact_nb.widgets._figures import LivePlot

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PRIVATE_IMPORT = re.compile(r"kcompact_nb(\.\w+)*\._\w")
PAYLOAD_MIME = re.compile(r"plotly|widget|javascript|html")
MAX_PAYLOAD_BYTES = 4096
MAX_STORED_FIGURE_BYTES = 96 * 1024
MAX_MODEL_STATE_BYTES = 256 * 1024
"""A saved widget model's state at most: a LivePlot's figure fits, plotly's FigureWidget bundle not."""
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


WIDGET_NOTEBOOKS = [p for p in NOTEBOOKS if any("kcompact_nb.widgets" in source for source in _code(p))]
"""The notebooks whose cells show widgets (steppers, the what-if explorer)."""


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
    assert [p.name[:2] for p in WIDGET_NOTEBOOKS] == ["01", "02", "04"]


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
def test_no_figure_payloads_are_committed(path):
    """Only cells tagged to store their figures (the first notebook's, so that it opens drawn) keep a figure,
    of at most MAX_STORED_FIGURE_BYTES."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    tool = _strip_tool()
    for cell in notebook["cells"]:
        largest = MAX_STORED_FIGURE_BYTES if tool.stores_figures(cell) else MAX_PAYLOAD_BYTES
        for output in cell.get("outputs", []):
            for mime, data in output.get("data", {}).items():
                size = len(json.dumps(data))
                assert not (PAYLOAD_MIME.search(mime) and size > largest), f"{mime}: {size} bytes"


def test_the_first_notebook_opens_with_its_figures_drawn():
    notebook = json.loads(NOTEBOOKS[0].read_text(encoding="utf-8"))
    outputs = [o for c in notebook["cells"] for o in c.get("outputs", [])]
    stored = [o for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    figures = [c for c in notebook["cells"] if "layout_figure(" in "".join(c["source"])]
    assert NOTEBOOKS[0].name == "00-partition-model.ipynb" and len(stored) == len(figures) == 1
    assert stored[0]["data"]["application/vnd.plotly.v1+json"]["layout"]["title"]["text"].startswith("fruit-prices-0")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_view_has_the_saved_state_of_every_model_it_shows(path):
    """Opened before it runs, JupyterLab draws a widget view from the notebook's saved widget state; a model
    missing there shows "Error displaying widget: model not found"."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    tool = _strip_tool()
    models = tool.widget_models(notebook)
    missing = {view: tool.reachable_models(view, models)[1] for view in tool.widget_views(notebook)}
    assert {view: ids for view, ids in missing.items() if ids} == {}


@pytest.mark.parametrize("path", WIDGET_NOTEBOOKS, ids=lambda p: p.name)
def test_widget_notebooks_store_their_widgets_with_figures_drawn_by_live_plots(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    tool = _strip_tool()
    models = tool.widget_models(notebook)
    assert list(tool.widget_views(notebook)), f"run: python tools/strip_notebook_figures.py --execute {path.name}"
    figures = [m for m in models.values() if m["state"].get("figure", {}).get("data")]
    assert figures and {m["model_name"] for m in figures} == {"AnyModel"}
    assert {m["state"]["_esm"] for m in figures} == {LivePlot._esm}  # the module as it is now, saved with them
    largest = max(len(json.dumps(m)) for m in models.values())
    assert largest <= MAX_MODEL_STATE_BYTES, "a FigureWidget's own state (plotly's widget bundle) was saved"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebooks_are_stripped(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    hint = f"run: python tools/strip_notebook_figures.py {path.relative_to(ROOT)}"
    assert _strip_tool().strip(notebook) == notebook, hint


def _view(model_id: str) -> dict[str, object]:
    view = {"model_id": model_id, "version_major": 2, "version_minor": 0}
    return {"data": {"application/vnd.jupyter.widget-view+json": view}, "output_type": "display_data", "metadata": {}}


def _model(**state: object) -> dict[str, object]:
    return {"model_name": "BoxModel", "model_module": "@jupyter-widgets/controls", "state": state}


def test_strip_clears_figures_and_unsaved_widget_views_and_keeps_saved_ones():
    figure = {
        "data": {"application/vnd.plotly.v1+json": {"data": [1] * 5000}},
        "output_type": "display_data",
        "metadata": {},
    }
    table = {"name": "stdout", "output_type": "stream", "text": "offset 3\n"}
    saved = {
        "box": _model(children=["IPY_MODEL_child"], layout="IPY_MODEL_layout"),
        "child": _model(),
        "layout": _model(),
        "orphan": _model(),
        "half": _model(children=["IPY_MODEL_gone"]),
    }
    state = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": saved}}
    notebook = {
        "metadata": {"widgets": state, "kernelspec": {"name": "python3"}},
        "cells": [
            {
                "cell_type": "code",
                "source": "# NBVAL_IGNORE_OUTPUT\nfig",
                "metadata": {"execution": {"a": 1}},
                "outputs": [figure, _view("box")],
            },
            {"cell_type": "code", "source": "fig", "metadata": {"tags": ["nbval-ignore-output"]}, "outputs": [figure]},
            {"cell_type": "code", "source": "print(3)", "metadata": {}, "outputs": [table, _view("half")]},
            {"cell_type": "code", "source": "w", "metadata": {}, "outputs": [_view("unknown")]},
            {"cell_type": "markdown", "source": "text", "metadata": {}},
        ],
    }
    stripped = _strip_tool().strip(notebook)
    kept = {name: saved[name] for name in ("box", "child", "layout")}
    assert stripped["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"] == kept
    assert [c.get("outputs") for c in stripped["cells"]] == [[_view("box")], [], [table], [], None]
    assert stripped["cells"][0]["metadata"] == {}
    assert _strip_tool().strip(stripped) == stripped


def test_widget_ids_are_numbered_in_the_order_the_views_reach_them():
    def run(ids: dict[str, str]) -> dict[str, object]:
        saved = {
            ids["box"]: _model(children=[f"IPY_MODEL_{ids['child']}"], layout=f"IPY_MODEL_{ids['layout']}"),
            ids["child"]: _model(),
            ids["layout"]: _model(),
        }
        state = {"application/vnd.jupyter.widget-state+json": {"state": saved}}
        cell = {"cell_type": "code", "source": "w", "metadata": {}, "outputs": [_view(ids["box"])]}
        return {"metadata": {"widgets": state}, "cells": [cell]}

    tool = _strip_tool()
    first = tool.renumbered(run({"box": "1" * 32, "child": "2" * 32, "layout": "3" * 32}))  # ids the kernel drew
    assert first == tool.renumbered(run({"box": "7" * 32, "child": "8" * 32, "layout": "9" * 32}))
    (view,) = tool.widget_views(first)
    saved, missing = tool.reachable_models(view, tool.widget_models(first))
    assert len(saved) == 3 and missing == set()


def test_strip_drops_the_widget_state_when_no_view_is_kept():
    state = {"application/vnd.jupyter.widget-state+json": {"state": {"box": _model()}}}
    notebook = {"metadata": {"widgets": state}, "cells": [{"cell_type": "code", "source": "x", "outputs": []}]}
    assert _strip_tool().strip(notebook)["metadata"] == {}


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


def test_strip_keeps_the_plotly_figures_of_cells_tagged_to_store_them_and_nothing_else_of_them():
    figure = {
        "data": {"application/vnd.plotly.v1+json": {"data": []}, "text/html": "<div>plotly.js</div>"},
        "output_type": "display_data",
        "metadata": {},
    }
    tagged = {"tags": ["kcompact-stored-figure"]}
    notebook = {
        "metadata": {"kernelspec": {"name": "python3"}},
        "cells": [
            {"cell_type": "code", "source": "# NBVAL_IGNORE_OUTPUT\nfig", "metadata": tagged, "outputs": [figure]},
            {"cell_type": "code", "source": "# NBVAL_IGNORE_OUTPUT\nfig", "metadata": {}, "outputs": [figure]},
        ],
    }
    stripped = _strip_tool().strip(notebook)
    kept = {**figure, "data": {"application/vnd.plotly.v1+json": {"data": []}}}
    assert [c["outputs"] for c in stripped["cells"]] == [[kept], []]
