"""The house rules of docs/architecture.md, checked on every import of kcompact_nb (all of them: top-level,
inside functions, under ``TYPE_CHECKING``).

- Layers: a package imports only the packages below it (``ALLOWED``; ``import kcompact_nb`` counts as core,
  whose user-facing names the root re-exports); core's and io's parts likewise (``CORE_PARTS``, ``IO_PARTS``; io's parts
  share io's errors, ``kcompact_nb.io._errors``); core nothing outside the standard library but numpy, and the
  record format beneath it the codecs' bindings besides.
- Faces: a package is imported through its ``__init__`` only: never another package's ``_private`` module,
  never a subpackage of another package; a part of core or io imports another part through that part's face.
- No import cycle between modules.
- Outside the package, ``bench/`` and ``tools/`` use public names only: no ``_private`` module of kcompact_nb.

The checker runs on a planted tree too, to show that it fails when a rule is broken.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "kcompact_nb"

ALLOWED: dict[str, frozenset[str]] = {
    "record": frozenset(),
    "core": frozenset({"record"}),
    "io": frozenset({"core", "record"}),
    "viz": frozenset({"core"}),
    "scenario": frozenset({"io", "core"}),
    "maven": frozenset({"core"}),
    "spark": frozenset({"maven", "io", "core"}),
    "broker": frozenset({"maven", "io", "core"}),
    "widgets": frozenset({"viz", "scenario", "core"}),
    "fidelity": frozenset({"broker", "scenario", "io", "core"}),
    "cli": frozenset(
        {"fidelity", "widgets", "broker", "spark", "maven", "scenario", "viz", "io", "core", "record", PACKAGE}
    ),
    PACKAGE: frozenset({"core", "cli"}),
}
"""Package -> the packages it may import (``kcompact_nb`` itself: its ``__init__`` and ``__main__``)."""
CORE_PARTS: dict[str, frozenset[str]] = {
    "model": frozenset(),
    "cleaner": frozenset({"model"}),
    "simulation": frozenset({"model", "cleaner"}),
    "views": frozenset({"model", "cleaner", "simulation"}),
    "forecasting": frozenset({"model", "cleaner", "simulation", "views"}),
}
"""Core's parts -> the parts each may import (through their faces)."""
IO_PARTS: dict[str, frozenset[str]] = {
    "files": frozenset(),
    "text": frozenset(),
    "logdir": frozenset({"files"}),
}
"""io's parts -> the parts each may import (through their faces)."""
PARTS = {"core": CORE_PARTS, "io": IO_PARTS}
CORE_THIRD_PARTY = frozenset({"numpy"})
RECORD_THIRD_PARTY = CORE_THIRD_PARTY | {"kafka", "crc32c", "lz4", "snappy", "zstandard", "pyzstd"}
"""The record format also reads and writes with the codecs' bindings: kafka-python's record module and codecs,
crc32c, lz4, python-snappy, zstandard and pyzstd."""
THIRD_PARTY = {"core": CORE_THIRD_PARTY, "record": RECORD_THIRD_PARTY}


@dataclass(frozen=True)
class Import:
    """One import statement's target module, as found in ``module`` at ``line``."""

    module: str
    target: str
    line: int


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``: dotted name -> file."""
    return {module_name(path, root): path for path in sorted((root / PACKAGE).rglob("*.py"))}


def imports(root: Path) -> Iterator[Import]:
    """Every import of every module, targets resolved: ``from a.b import c`` is ``a.b.c`` when that is a module."""
    known = modules(root)
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                yield from (Import(name, alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(name, is_package, node.level, node.module)
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    yield Import(name, candidate if candidate in known else base, node.lineno)


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def package_of(module: str) -> str:
    """``kcompact_nb.io.text._kcat`` -> ``io``; the root's modules (``__init__``, ``__main__``) -> ``kcompact_nb``."""
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1].startswith("__")):
        return PACKAGE
    return parts[1]


def part_of(module: str) -> str | None:
    """``kcompact_nb.io.text._kcat`` -> ``text``: the part of core or io a module is in, if any."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in PARTS.get(parts[1], {}) else None


def layer_violations(root: Path) -> list[str]:
    """Arrows the layers do not allow, between packages and between core's parts."""
    found = []
    for imp in imports(root):
        where = f"{imp.module}:{imp.line} imports {imp.target}"
        if imp.target.split(".")[0] != PACKAGE:
            top = imp.target.split(".")[0]
            source = package_of(imp.module)
            if source in THIRD_PARTY and top not in sys.stdlib_module_names and top not in THIRD_PARTY[source]:
                found.append(
                    f"{where}: {source} uses the standard library and {', '.join(sorted(THIRD_PARTY[source]))} only"
                )
            continue
        source, target = package_of(imp.module), package_of(imp.target)
        if imp.target == PACKAGE:
            target = "core"  # the root package re-exports core's user-facing names (and its version)
        if source != target and target not in ALLOWED[source]:
            found.append(f"{where}: {source} may import {', '.join(sorted(ALLOWED[source])) or 'no other package'}")
        part, target_part = part_of(imp.module), part_of(imp.target)
        allowed = PARTS[source][part] if part else frozenset()
        if part and target_part and source == target and part != target_part and target_part not in allowed:
            found.append(f"{where}: {source}'s {part} may import {', '.join(sorted(allowed)) or 'no other part'}")
    return list(dict.fromkeys(found))


def face_violations(root: Path) -> list[str]:
    """Imports that pass a package's face: another package's private module or subpackage, another part's module."""
    found = []
    for imp in imports(root):
        parts = imp.target.split(".")
        if parts[0] != PACKAGE or len(parts) < 3:
            continue
        where = f"{imp.module}:{imp.line} imports {imp.target}"
        source, target = package_of(imp.module), package_of(imp.target)
        if source != target:
            found.append(f"{where}: import kcompact_nb.{target} (its face), not a module inside it")
            continue
        part, target_part = part_of(imp.module), part_of(imp.target)
        if target_part and part != target_part and len(parts) > 3:
            found.append(
                f"{where}: import kcompact_nb.{target}.{target_part} (the part's face), not a module inside it"
            )
    return list(dict.fromkeys(found))


def import_cycles(root: Path) -> list[list[str]]:
    """Strongly connected groups of modules that import each other (directly or around a loop)."""
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for imp in imports(root):
        if imp.target in known and imp.target != imp.module:
            graph[imp.module].add(imp.target)
    return [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    groups.append(group)
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return groups


SCRIPT_FOLDERS = ("bench", "tools")
"""Code outside the package that uses it as users do: through public names only."""


def private_imports_outside(root: Path) -> list[str]:
    """Imports of a kcompact_nb module whose name has a ``_private`` part, in ``bench/`` and ``tools/``."""
    known = modules(root)
    found = []
    for folder in SCRIPT_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                targets: list[str] = []
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    base = node.module
                    targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
                for target in dict.fromkeys(targets):
                    parts = target.split(".")
                    if parts[0] == PACKAGE and any(p.startswith("_") and not p.startswith("__") for p in parts):
                        found.append(f"{path.relative_to(root).as_posix()}:{node.lineno} imports {target}")
    return found


def test_every_arrow_points_down_the_layers():
    assert layer_violations(ROOT) == []


def test_packages_are_imported_through_their_faces():
    assert face_violations(ROOT) == []


def test_no_module_import_cycle():
    assert import_cycles(ROOT) == []


def test_bench_and_tools_use_public_names_only():
    assert private_imports_outside(ROOT) == []


def test_every_package_has_a_face_with_all():
    faces = [p for p in (ROOT / PACKAGE).rglob("__init__.py")]
    missing = [str(p.relative_to(ROOT)) for p in faces if "__all__" not in p.read_text(encoding="utf-8")]
    assert missing == []
    assert {p.name for p in (ROOT / PACKAGE).iterdir() if (p / "__init__.py").exists()} == set(ALLOWED) - {PACKAGE}


PLANTED = {
    "kcompact_nb/__init__.py": "from kcompact_nb.core import Thing\n__all__ = ['Thing']\n",
    "kcompact_nb/core/__init__.py": "from kcompact_nb.core.model import Thing\n__all__ = ['Thing']\n",
    "kcompact_nb/core/model/__init__.py": "from kcompact_nb.core.model._thing import Thing\n__all__ = ['Thing']\n",
    "kcompact_nb/core/model/_thing.py": (
        "import plotly\n"  # core beyond the standard library and numpy
        "def f():\n    from kcompact_nb.viz import figure\n"  # an upward arrow, deferred
        "class Thing: ...\n"
    ),
    "kcompact_nb/core/cleaner/__init__.py": "from kcompact_nb.core.cleaner._pass import clean\n__all__ = ['clean']\n",
    "kcompact_nb/core/cleaner/_pass.py": "from kcompact_nb.core.model._thing import Thing\nclean = Thing\n",
    "kcompact_nb/viz/__init__.py": "from kcompact_nb.viz._figure import figure\n__all__ = ['figure']\n",
    "kcompact_nb/viz/_figure.py": "from kcompact_nb.core.model import Thing\nfigure = Thing\n",
    "kcompact_nb/io/__init__.py": "__all__ = []\n",
    "kcompact_nb/io/text/__init__.py": "from kcompact_nb.io.text._kcat import k\n__all__ = ['k']\n",
    "kcompact_nb/io/text/_kcat.py": "from kcompact_nb.io.logdir import log\nk = 1\n",  # text below logdir
    "kcompact_nb/io/logdir/__init__.py": "from kcompact_nb.io.logdir._log import log\n__all__ = ['log']\n",
    "kcompact_nb/io/logdir/_log.py": (
        "from kcompact_nb.io.files._index import i\n"  # past the part's face
        "from kcompact_nb.io import _errors\n"  # io's shared errors: allowed
        "log = 1\n"
    ),
    "kcompact_nb/io/files/__init__.py": "__all__ = []\n",
    "kcompact_nb/io/files/_index.py": "i = 1\n",
    "kcompact_nb/io/_errors.py": "",
    "kcompact_nb/io/_reader.py": "from . import _writer\n",
    "kcompact_nb/io/_writer.py": "from kcompact_nb.io import _reader\nfrom ..scenario import run\n",
    "bench/bench_pass.py": (
        "from kcompact_nb.core import Thing\n"  # a face: fine
        "from kcompact_nb.core.cleaner._pass import clean\n"
        "import kcompact_nb.core.model._thing as thing\n"
        "from bench._runner import timed\n"  # bench's own private module: not kcompact_nb's
    ),
    "tools/make.py": "from kcompact_nb.io import _reader\n",
    "kcompact_nb/record/__init__.py": "__all__ = []\n",
    "kcompact_nb/record/_batch.py": (
        "import kafka\n"  # a codec binding: the record format's to use
        "import pandas\n"
        "from kcompact_nb.core import Thing\n"  # the floor imports nothing above it
    ),
}


def test_the_checker_finds_planted_violations(tmp_path):
    for name, text in PLANTED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    layers = layer_violations(tmp_path)
    assert layers == [
        "kcompact_nb.core.model._thing:1 imports plotly: core uses the standard library and numpy only",
        "kcompact_nb.core.model._thing:3 imports kcompact_nb.viz: core may import record",
        "kcompact_nb.io._writer:2 imports kcompact_nb.scenario: io may import core, record",
        "kcompact_nb.io.text._kcat:1 imports kcompact_nb.io.logdir: io's text may import no other part",
        "kcompact_nb.record._batch:2 imports pandas: "
        "record uses the standard library and crc32c, kafka, lz4, numpy, pyzstd, snappy, zstandard only",
        "kcompact_nb.record._batch:3 imports kcompact_nb.core: record may import no other package",
    ]
    assert face_violations(tmp_path) == [
        "kcompact_nb.core.cleaner._pass:1 imports kcompact_nb.core.model._thing: "
        "import kcompact_nb.core.model (the part's face), not a module inside it",
        "kcompact_nb.io.logdir._log:1 imports kcompact_nb.io.files._index: "
        "import kcompact_nb.io.files (the part's face), not a module inside it",
        "kcompact_nb.viz._figure:1 imports kcompact_nb.core.model: "
        "import kcompact_nb.core (its face), not a module inside it",
    ]
    assert import_cycles(tmp_path) == [
        ["kcompact_nb.core.model", "kcompact_nb.core.model._thing", "kcompact_nb.viz", "kcompact_nb.viz._figure"],
        ["kcompact_nb.io._reader", "kcompact_nb.io._writer"],
    ]
    assert private_imports_outside(tmp_path) == [
        "bench/bench_pass.py:2 imports kcompact_nb.core.cleaner._pass",
        "bench/bench_pass.py:3 imports kcompact_nb.core.model._thing",
        "tools/make.py:1 imports kcompact_nb.io._reader",
    ]


@pytest.mark.parametrize(
    ("module", "is_package", "level", "target", "expected"),
    [
        ("kcompact_nb.broker._cleaner", False, 1, "_broker", "kcompact_nb.broker._broker"),
        ("kcompact_nb.broker", True, 1, "_broker", "kcompact_nb.broker._broker"),
        ("kcompact_nb.io._writer", False, 2, "scenario", "kcompact_nb.scenario"),
        ("kcompact_nb.io._writer", False, 1, None, "kcompact_nb.io"),
    ],
)
def test_relative_imports_resolve_as_python_resolves_them(module, is_package, level, target, expected):
    assert _absolute(module, is_package, level, target) == expected


ARCHITECTURE_DOC = ROOT / "docs" / "architecture.md"


def documented_layers(doc: str) -> dict[str, frozenset[str]]:
    """The ``package | may import`` table of docs/architecture.md."""
    table = doc.split("<!-- layers:", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+) \|$", table, re.MULTILINE)
    return {package: frozenset(re.findall(r"`(\w+)`", allowed)) for package, allowed in rows}


def test_the_documented_layers_are_the_enforced_ones():
    expected = {package: allowed - {PACKAGE} for package, allowed in ALLOWED.items() if package != PACKAGE}
    assert documented_layers(ARCHITECTURE_DOC.read_text(encoding="utf-8")) == expected


@pytest.mark.parametrize("package", sorted(PARTS))
def test_the_documented_parts_are_the_enforced_ones(package):
    doc = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    rows = re.findall(rf"^\| `{package}\.(\w+)` \| .+ \| (.+) \|$", doc, re.MULTILINE)
    assert {part: frozenset(re.findall(r"`(\w+)`", allowed)) for part, allowed in rows} == PARTS[package]


def test_io_holds_its_parts_and_what_they_share_only():
    io = ROOT / PACKAGE / "io"
    assert {p.name for p in io.iterdir() if p.suffix == ".py"} == {"__init__.py", "_errors.py", "_input_files.py"}
    assert {p.name for p in io.iterdir() if (p / "__init__.py").exists()} == set(IO_PARTS)


def test_paths_and_kafka_links_in_the_architecture_document_hold():
    doc = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:kcompact_nb|tests|notebooks|tools|docs)/[\w./-]+)`", doc))
    assert "kcompact_nb/core/model/_log_loader.py" in paths
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []
    used = set(re.findall(r"\]\[(\w+)\]", doc))
    defined = dict(re.findall(r"^\[(\w+)\]: (\S+)$", doc, re.MULTILINE))
    assert used <= set(defined)
    assert [url for url in defined.values() if "/blob/4.4.0/" not in url] == []


FACES_OF_USE = ("record", "core", "io")
"""The faces held to their users: every name on them is called from outside the package (issue #38)."""


def names_used_outside(root: Path, package: str) -> set[str]:
    """The names of ``kcompact_nb.<package>``'s face imported by another package, ``bench/``, ``tools/`` or a notebook
    (``import kcompact_nb`` counts as core's, whose user-facing names the root re-exports)."""
    faces = {f"{PACKAGE}.{package}"} | ({PACKAGE} if package == "core" else set())
    return {name for user, face, name in _face_imports(root) if face in faces and user != package}


@cache
def _face_imports(root: Path) -> tuple[tuple[str, str, str], ...]:
    """(the package, folder or ``notebooks`` importing, the module imported from, the name) of every ``from
    kcompact_nb... import name`` in the package, ``bench/``, ``tools/`` and the notebooks' code cells."""
    texts = [(package_of(module_name(p, root)), p.read_text(encoding="utf-8")) for p in (root / PACKAGE).rglob("*.py")]
    texts += [
        (folder, p.read_text(encoding="utf-8")) for folder in SCRIPT_FOLDERS for p in (root / folder).rglob("*.py")
    ]
    for notebook in sorted((root / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        texts += [("notebooks", "".join(c["source"])) for c in cells if c["cell_type"] == "code"]
    found = []
    for user, text in texts:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(PACKAGE):
                found += [(user, node.module or "", alias.name) for alias in node.names]
    return tuple(found)


@pytest.mark.parametrize("package", FACES_OF_USE)
def test_a_face_lists_what_its_users_call(package):
    """What only the tests use is kept off the face (on the face of the part that holds it); error classes stay,
    for users catch them."""
    face = importlib.import_module(f"{PACKAGE}.{package}").__all__
    unused = [n for n in face if n not in names_used_outside(ROOT, package) and not n.endswith("Error")]
    assert unused == []
