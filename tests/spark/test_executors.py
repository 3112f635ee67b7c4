"""The package shipped to executors as a zip, and executors whose Python cannot run the decoders named up front.

A real worker of the shared session runs another interpreter here (``SparkContext.pythonExec``, what
``$PYSPARK_PYTHON`` sets); tests/spark/test_engines.py ships the zip to a cluster whose Python lacks kcompact_nb.
"""

from __future__ import annotations

import subprocess
import sys
import weakref
import zipfile
from pathlib import Path

import pytest

import kcompact_nb
from kcompact_nb.spark import ExecutorPythonError, _executors, load_kcat
from kcompact_nb.spark._executors import package_zip


@pytest.fixture
def fresh_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_executors, "_READY", weakref.WeakKeyDictionary())


def kcat_file(tmp_path: Path) -> Path:
    path = tmp_path / "k.json"
    path.write_text(
        '{"topic":"t","partition":0,"offset":6,"tstype":"create","ts":2000,"broker":1,"key":"a","payload":null}\n'
    )
    return path


def test_the_zip_holds_the_package_sources_and_is_built_once_per_content(tmp_path, monkeypatch):
    monkeypatch.setenv("KCOMPACT_CACHE_DIR", str(tmp_path))
    built = package_zip.__wrapped__()
    assert built.parent == tmp_path and built.name.startswith(f"kcompact_nb-{kcompact_nb.__version__}-")
    with zipfile.ZipFile(built) as archive:
        names = set(archive.namelist())
    package = Path(kcompact_nb.__file__).parent
    expected = {
        f"kcompact_nb/{p.relative_to(package).as_posix()}"
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert names == expected and {"kcompact_nb/spark/_load_log_dir.py", "kcompact_nb/py.typed"} <= names
    stamp = built.stat().st_mtime_ns
    assert package_zip.__wrapped__() == built and built.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == [built.name]


def venv(tmp_path: Path, packages: Path | None = None) -> Path:
    """A Python without pip; ``packages`` (a site-packages folder) made visible through a .pth line."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    if packages is not None:
        (next((tmp_path / "venv" / "lib").glob("python3*/site-packages")) / "deps.pth").write_text(f"{packages}\n")
    return tmp_path / "venv" / "bin" / "python"


def failure(spark, python: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(spark.sparkContext, "pythonExec", python)
    with pytest.raises(ExecutorPythonError) as caught:
        load_kcat(spark, kcat_file(tmp_path), topic="t")
    message = str(caught.value)
    assert message.endswith(
        ". Install kcompact_nb's dependencies (pip install kcompact_nb) into that Python, "
        "or point PYSPARK_PYTHON (of the driver, or of the Spark Connect server) at one that has them; "
        "decoder='jvm' needs no Python workers for log dirs"
    )
    return message.split(". Install")[0]


def test_a_worker_python_without_kcompact_nb_is_named(spark, tmp_path, monkeypatch, fresh_check):
    site_packages = Path(sys.modules["pyarrow"].__file__).parents[1]  # pyspark's worker needs pyarrow, kcompact_nb more
    python = venv(tmp_path, site_packages)
    # A local worker runs in this checkout, where kcompact_nb/ is importable from the working folder;
    # an executor's is not.
    monkeypatch.setitem(spark.sparkContext.environment, "PYTHONSAFEPATH", "1")
    assert failure(spark, str(python), tmp_path, monkeypatch) == (
        f"the executors' Python cannot run kcompact_nb's decoders: {python} (Python {sys.version.split()[0]}) "
        "cannot import kcompact_nb: No module named 'kcompact_nb'"
    )


def test_a_worker_python_without_pyspark_s_own_needs_is_named(spark, tmp_path, monkeypatch, fresh_check):
    python = venv(tmp_path)
    assert failure(spark, str(python), tmp_path, monkeypatch) == (
        f"the executors' Python cannot run kcompact_nb's decoders: {python} did not run a Spark Python worker "
        "(ModuleNotFoundError: No module named 'pyarrow')"
    )


def test_a_worker_python_that_does_not_start_is_named(spark, tmp_path, monkeypatch, fresh_check):
    python = tmp_path / "no-such-python"
    assert failure(spark, str(python), tmp_path, monkeypatch) == (
        f"the executors' Python cannot run kcompact_nb's decoders: {python} did not run a Spark Python worker "
        f'(Cannot run program "{python}": error=2, No such file or directory)'
    )


def test_the_check_runs_once_per_session(spark, tmp_path, fresh_check):
    assert load_kcat(spark, kcat_file(tmp_path), topic="t").count() == 1
    assert _executors._READY.get(spark) is True
