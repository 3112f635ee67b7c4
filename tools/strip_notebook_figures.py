"""Keep committed notebooks small and openable: drop the outputs nbval does not compare, keep the ones it does,
and keep each widget with a saved state that shows it before the notebook runs.

Usage: ``python tools/strip_notebook_figures.py [--execute] NOTEBOOK...``

- Code cells marked ``# NBVAL_IGNORE_OUTPUT`` / ``# NBVAL_SKIP`` (or tagged ``nbval-ignore-output`` /
  ``nbval-skip``) lose their outputs (figures, whose payloads are large and never compared), except widget
  views whose models are in the notebook's saved widget state.
- A code cell tagged ``kcompact-stored-figure`` keeps its plotly figures (as plain plotly outputs, nothing else of
  them), so that the notebook opens with them drawn before it runs (the first notebook a reader opens).
- The notebook-level ``widgets`` metadata keeps only the models those views reach; a widget view whose
  models are not all saved is dropped: JupyterLab would show "Error displaying widget: model not found".
- Per-cell ``execution`` timestamps are removed, so re-running a notebook changes only what changed.

``--execute`` first runs each notebook in place (kernel ``python3``, the repository root on ``PYTHONPATH``)
and saves the widget state as JupyterLab's "Save Widget State Automatically" does (the widgets' figures are
saved with them, as the state of their ``LivePlot`` widgets). Opened before it runs, a notebook shows its
widgets as they were at the end of the run: controls and figures drawn, answering clicks once the notebook
runs. Model ids are numbered in the order the views reach them, so running a notebook again changes only what
its widgets show.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
IGNORE_MARKERS = ("NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP")
IGNORE_TAGS = ("nbval-ignore-output", "nbval-skip")
STORED_FIGURE_TAG = "kcompact-stored-figure"
PLOTLY = "application/vnd.plotly.v1+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MODEL_REFERENCE = "IPY_MODEL_"
WIDGET_ID_NAMESPACE = uuid.UUID("6f1d3c2a-5b7e-4c1d-9a8f-2e4b6d8c0a1f")
"""Numbered widget model ids are uuid5 names in this namespace (they look like the kernel's ids)."""

# Run in the kernel after the notebook's last cell: prints the state of every live widget.
SAVE_STATE_CODE = """
import json as _json
import ipywidgets as _widgets

print(_json.dumps(_widgets.Widget.get_manager_state()))
"""


def output_ignored(cell: dict[str, Any]) -> bool:
    """True when nbval does not compare this code cell's outputs (comment marker or tag)."""
    source = "".join(cell.get("source", ""))
    tags = cell.get("metadata", {}).get("tags", [])
    return any(m in source for m in IGNORE_MARKERS) or any(t in tags for t in IGNORE_TAGS)


def widget_models(notebook: dict[str, Any]) -> dict[str, Any]:
    """Model id -> saved state of every model in the notebook's ``widgets`` metadata (empty without one)."""
    saved = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {})
    models: dict[str, Any] = saved.get("state", {})
    return models


def referenced_models(value: Any) -> Iterator[str]:
    """Model ids named by ``IPY_MODEL_`` references anywhere in ``value`` (a model's state)."""
    if isinstance(value, str) and value.startswith(MODEL_REFERENCE):
        yield value[len(MODEL_REFERENCE) :]
    elif isinstance(value, dict):
        for item in value.values():
            yield from referenced_models(item)
    elif isinstance(value, list):
        for item in value:
            yield from referenced_models(item)


def reachable_models(model_id: str, models: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(saved, missing): the models a view of ``model_id`` needs, split by whether ``models`` has them."""
    saved: set[str] = set()
    missing: set[str] = set()
    pending = [model_id]
    while pending:
        current = pending.pop()
        if current in saved or current in missing:
            continue
        if current not in models:
            missing.add(current)
            continue
        saved.add(current)
        pending.extend(referenced_models(models[current].get("state", {})))
    return saved, missing


def widget_views(notebook: dict[str, Any]) -> Iterator[str]:
    """The model id of every widget view among the notebook's outputs."""
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                yield view["model_id"]


def renumbered(notebook: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``notebook`` whose widget models have ids numbered in the order its views reach them.

    The kernel names models with random ids; numbered, a notebook run again changes only where its widgets did.
    """
    models = widget_models(notebook)
    order: list[str] = []
    pending = list(reversed(list(widget_views(notebook))))
    while pending:
        model_id = pending.pop()
        if model_id in order or model_id not in models:
            continue
        order.append(model_id)
        pending.extend(reversed(list(referenced_models(models[model_id].get("state", {})))))
    text = json.dumps(notebook)
    for number, model_id in enumerate(order):
        text = text.replace(model_id, uuid.uuid5(WIDGET_ID_NAMESPACE, str(number)).hex)
    renamed: dict[str, Any] = json.loads(text)
    return renamed


def _kept_output(output: dict[str, Any], models: dict[str, Any]) -> bool:
    """An ignored cell's output is kept when it is a widget view whose models are all saved."""
    view = output.get("data", {}).get(WIDGET_VIEW)
    return view is not None and not reachable_models(view["model_id"], models)[1]


def stores_figures(cell: dict[str, Any]) -> bool:
    """True when the cell is tagged to keep its plotly figures."""
    return STORED_FIGURE_TAG in cell.get("metadata", {}).get("tags", [])


def _stored_figure(output: dict[str, Any]) -> dict[str, Any] | None:
    """A plotly output reduced to its plotly data (and text), or None for any other output."""
    data = output.get("data", {})
    if PLOTLY not in data:
        return None
    kept = {mime: value for mime, value in data.items() if mime in (PLOTLY, "text/plain")}
    return {**output, "data": kept}


def strip(notebook: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``notebook`` without figure outputs, unsaved widget views, unused widget state and timestamps."""
    stripped = json.loads(json.dumps(notebook))
    models = widget_models(stripped)
    for cell in stripped["cells"]:
        cell.get("metadata", {}).pop("execution", None)
        if cell["cell_type"] != "code":
            continue
        ignored = output_ignored(cell)
        figures = [f for f in map(_stored_figure, cell["outputs"]) if f is not None] if stores_figures(cell) else []
        cell["outputs"] = figures or [
            o
            for o in cell["outputs"]
            if _kept_output(o, models) or (not ignored and WIDGET_VIEW not in o.get("data", {}))
        ]
    used: set[str] = set()
    for model_id in widget_views(stripped):
        used |= reachable_models(model_id, models)[0]
    metadata = stripped.get("metadata", {})
    metadata.pop("widgets", None)
    if used:
        state = {model_id: models[model_id] for model_id in sorted(used)}
        metadata["widgets"] = {WIDGET_STATE: {"version_major": 2, "version_minor": 0, "state": state}}
    return stripped


def strip_file(path: Path) -> bool:
    """Strip ``path`` in place (nbformat's JSON layout); True when it changed."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    stripped = strip(notebook)
    if stripped == notebook:
        return False
    path.write_text(json.dumps(stripped, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def _kernel_environment() -> None:
    """This checkout importable in the kernel, and the project's kernel spec (tools/jupyter: capture_fd_output
    False) keeping JVM lines out of outputs, as under nbval."""
    for variable, path in (("PYTHONPATH", ROOT), ("JUPYTER_PATH", ROOT / "tools" / "jupyter")):
        os.environ[variable] = os.pathsep.join(filter(None, [str(path), os.environ.get(variable)]))


def execute(path: Path) -> float:
    """Run ``path`` top to bottom in place and save its widget state; returns the seconds it took."""
    import nbformat
    from nbclient import NotebookClient

    _kernel_environment()
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(SAVE_STATE_CODE))
    client = NotebookClient(
        notebook, kernel_name="python3", store_widget_state=False, resources={"metadata": {"path": str(path.parent)}}
    )
    started = time.monotonic()
    client.execute()
    saver = notebook.cells.pop()
    printed = "".join(o["text"] for o in saver.outputs if o.get("name") == "stdout")
    notebook.metadata["widgets"] = {WIDGET_STATE: json.loads(printed)}
    numbered = renumbered(json.loads(nbformat.writes(notebook)))
    path.write_text(json.dumps(numbered, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--execute", action="store_true", help="run each notebook in place first")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        took = f", executed in {execute(path):.1f} s" if args.execute else ""
        changed = strip_file(path)
        print(f"{path}: {'stripped' if changed else 'already stripped'}{took}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
