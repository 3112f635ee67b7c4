"""A plain ``pip install`` of the wheel, used outside the checkout (issue #31, "A complete pip install").

The wheel is built from a copy of the repository's files (the build leaves no ``build/`` or egg-info in that
copy) and installed into a fresh virtual environment in a temporary folder. Its dependencies come from this
test environment (a ``.pth`` line naming its site-packages, so the test takes seconds, not the minutes of
installing pyspark again); the package, its data, its C kernels and the ``kcompact`` entry point come from the
wheel alone, which the test checks. From there, outside the checkout: the command line runs, the Maven-backed
paths (a real broker's jars, the JVM segment-file source for Spark) work from the recipes inside the wheel,
nothing is written into site-packages, and without Java or Maven the command says so with exit status 3.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from kcompact_nb.maven import missing_tools

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "samples" / "kafka" / "compaction-basic" / "before"


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The virtual environment the wheel is installed into (its folder)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(base / "dist"), str(source)],
        capture_output=True, text=True, cwd=base, env=_clean_environ(),
    )  # fmt: skip
    if built.returncode != 0 and "No matching distribution found for setuptools" in built.stderr:
        pytest.skip("pip cannot fetch setuptools for the isolated build (no access to PyPI)")
    assert built.returncode == 0, built.stderr
    left = sorted(p.name for p in source.iterdir() if p.name == "build" or p.name.endswith(".egg-info"))
    assert left == [], f"the build left {left} in the source tree"
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (wheel,) = (base / "dist").glob("kcompact_nb-*.whl")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-deps",
         str(wheel)],
        check=True, capture_output=True, env=_clean_environ(),
    )  # fmt: skip
    site = Path(_venv_value(venv, "sysconfig.get_paths()['purelib']"))
    (site / "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    yield venv


def _venv_value(venv: Path, expression: str) -> str:
    code = f"import sysconfig, sys; print({expression})"
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, env=_clean_environ()
    )
    return done.stdout.strip()


def _site_files(venv: Path) -> set[str]:
    site = Path(_venv_value(venv, "sysconfig.get_paths()['purelib']"))
    return {str(p.relative_to(site)) for p in site.rglob("*") if "__pycache__" not in p.parts}


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*args], capture_output=True, text=True, cwd=cwd, env=env or _clean_environ())


def test_the_installed_package_comes_from_the_wheel_with_its_data(wheel_env, tmp_path):
    code = (
        "import kcompact_nb, kcompact_launcher, kcompact_nb.record._native as c; "
        "from kcompact_nb.maven import recipe; "
        "print(kcompact_nb.__file__, kcompact_launcher.__file__, c.__file__, recipe('kafka-broker'), "
        "recipe('spark-kafka'))"
    )
    found = _run(str(wheel_env / "bin" / "python"), "-c", code, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    site = _venv_value(wheel_env, "sysconfig.get_paths()['purelib']")
    assert all(path.startswith(site) for path in found.stdout.split()), found.stdout


def test_the_command_line_runs_outside_the_checkout(wheel_env, tmp_path):
    shutil.copytree(SAMPLE, tmp_path / "logs")
    kcompact = str(wheel_env / "bin" / "kcompact")
    inspected = _run(kcompact, "inspect", "logs", "--now-ms", "1767225600000", cwd=tmp_path)
    assert inspected.returncode == 0, inspected.stderr
    assert inspected.stdout.startswith("Log dir logs: 1 partition, judged at 2026-01-01T00:00:00.000Z")
    cleaned = _run(kcompact, "clean", "logs", "--out", "out", "--at", "1767225600000", cwd=tmp_path)
    assert cleaned.returncode == 0 and (tmp_path / "out" / "cleaner-offset-checkpoint").is_file(), cleaned.stderr


@pytest.mark.skipif(bool(missing_tools(("java", "javac", "mvn"))), reason="needs Java 17 (a JDK) and Maven on PATH")
def test_the_maven_backed_paths_work_from_the_wheel_and_write_nothing_into_it(wheel_env, tmp_path):
    before = _site_files(wheel_env)
    code = (
        "import warnings; warnings.simplefilter('error', RuntimeWarning); "
        "from kcompact_nb.broker import KafkaBroker, resolve_classpath; "
        "from kcompact_nb.spark import session_settings; "
        "print(resolve_classpath('4.4.0')); print(session_settings(environ={}).conf['spark.jars'])\n"
        "with KafkaBroker('4.4.0') as broker: print(broker.is_running())"
    )
    env = {**_clean_environ(), "KCOMPACT_CACHE_DIR": str(tmp_path / "built")}  # the JVM source compiled anew
    done = _run(str(wheel_env / "bin" / "python"), "-c", code, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    classpath, jars, running = done.stdout.splitlines()
    assert running == "True"
    assert (Path(classpath) / "kafka_2.13-4.4.0.jar").is_file()
    assert any(Path(jar).parent == tmp_path / "built" and "segment-source" in jar for jar in jars.split(","))
    assert _site_files(wheel_env) == before


def test_without_java_or_maven_a_command_says_so_with_status_3(wheel_env, tmp_path):
    env = {**_clean_environ(), "PATH": str(wheel_env / "bin")}
    done = _run(str(wheel_env / "bin" / "kcompact"), "conformance", cwd=tmp_path, env=env)
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == (
        "kcompact conformance: conformance needs java and mvn on PATH (Java 17 or newer, Maven 3; on Debian: "
        "apt-get install openjdk-17-jdk-headless maven)\n"
    )


def _clean_environ() -> dict[str, str]:
    """This process's environment without the test run's Python path (the checkout must not be importable)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
