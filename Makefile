# Quick start: `make lab` (set up, then JupyterLab on the repository, opened at notebooks/) and `make test` (set up, then the whole suite).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kcompact-installed

.PHONY: setup codecs classes lab lint test bench bench-side-by-side fuzz matrix clean

# setup.py and the C sources too: the editable install builds the C kernels in place (kcompact_nb/record/c/).
$(STAMP): pyproject.toml setup.py $(wildcard kcompact_nb/record/c/*.c kcompact_nb/record/c/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# kcompact is installed into the virtual environment, not on the PATH: say where it is. The package's bytecode is
# compiled (only what changed since: well under a second) because an editable install compiles none, and where
# PYTHONDONTWRITEBYTECODE is set (CI machines, containers) every kcompact command, kernel and test process would
# otherwise compile every module of the package it imports again (about 0.2 s of `kcompact inspect`'s start, issue #41).
setup: $(STAMP)
	@$(BIN)/python -m compileall -q kcompact_nb kcompact_launcher.py
	@echo "kcompact_nb is installed in $(VENV): run $(BIN)/kcompact, or 'source $(BIN)/activate' to put kcompact on the PATH"

# The codec libraries Kafka releases bundle that no installed binding has, compiled once into ~/.cache/kcompact_nb (a C
# compiler needed): the libzstd releases of Kafka 2.1-3.7.0 (sources on PyPI) into libzstd/, and lz4 1.10.0 (Kafka
# 3.9.2, 4.0.2, 4.1.2, 4.2 on; Debian's copy of upstream's tarball) into liblz4/: their zstd rewrites, and lz4's at
# levels 1-2, are then exact, not estimated. And the whole libzstd zstandard bundles, with which the C kernel
# decompresses zstd batches as the Python decoder does.
codecs: setup
	$(BIN)/python -m tools.build_codecs

# Spark's classes as the driver JVM loads them, recorded once per Java and Spark into ~/.cache/kcompact_nb/spark-classes
# (a class-data-sharing archive, about 170 MB, a minute to record): every later local session maps it and starts
# 5-8 s sooner (kcompact_nb/spark/_class_archive.py, _class_recording.py). Without Java it records nothing, and sessions start as before.
classes: setup
	$(BIN)/python -c "from kcompact_nb.spark._class_recording import main; main()"

# JupyterLab refuses to run as root unless told; containers and CI machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# The project's python3 kernel spec (tools/jupyter) keeps JVM output out of cell outputs; conftest.py does
# the same for the kernels pytest starts. Lab's root is the repository, opened at notebooks/, so that the
# notebooks' relative links (../docs/...) resolve as they do in the repository. The notebooks are trusted:
# Lab draws their stored widget views (saved widget state) only in trusted notebooks. Lab's defaults come from
# tools/jupyter/lab/settings/overrides.json (no "Jupyter news?" popup over the figures, no update check; a
# user's own settings still apply over them); the browser test (tests/browser) serves Lab with the same flags.
LAB_FLAGS := --LabApp.app_settings_dir=$(CURDIR)/tools/jupyter/lab/settings \
	--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate
lab: setup classes
	$(BIN)/jupyter trust notebooks/*.ipynb
	JUPYTER_PATH=$(CURDIR)/tools/jupyter$(if $(JUPYTER_PATH),:$(JUPYTER_PATH)) \
		$(BIN)/jupyter lab --LabApp.default_url=/lab/tree/notebooks --ServerApp.ip=127.0.0.1 $(LAB_FLAGS) $(ALLOW_ROOT)

# ruff's rules and formatter, as configured in pyproject.toml ([tool.ruff]); `ruff format .` fixes the layout.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The tests that start Spark, JupyterLab or a browser, or run the notebooks, keep both cores busy on their own: they
# run one after another, after the others have run on two workers (pytest-xdist, a test file per worker). The broker
# tests mostly wait for a broker or its cleaner's back-off, so they run on two workers of their own (each starts its
# own brokers), except the two whose assertions allow only a scheduling slack: those run with the heavy ones.
# The first run names `tests`: pytest's --ignore does not apply to a testpaths entry (notebooks ran twice).
TIMED_BROKER_TESTS := tests/broker/test_forecast_kafka.py tests/broker/test_live_log_dir.py
HEAVY_TESTS := $(TIMED_BROKER_TESTS) tests/spark tests/browser notebooks tests/test_wheel_install.py \
	tests/test_bench_side_by_side.py
test: setup codecs classes
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations=10 tests --ignore=tests/broker $(addprefix --ignore=,$(HEAVY_TESTS))
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations=10 tests/broker $(addprefix --ignore=,$(TIMED_BROKER_TESTS))
	$(BIN)/python -m pytest --durations=25 $(HEAVY_TESTS)
	$(BIN)/python -m mypy

bench: setup
	$(BIN)/python -m bench

# Issue #9: our cleaner vs Kafka's own cleaner (needs Java 17 and Maven); rewrites bench/RESULTS.md.
bench-side-by-side: setup codecs
	$(BIN)/python -m bench side-by-side

# A longer fuzzing run of the segment reader and the text parsers (the suite runs 150 examples per test), and of
# kcat output against the real kcat and a real broker (the suite runs 8; each example creates a topic and runs kcat).
FUZZ_EXAMPLES ?= 5000
KCAT_FUZZ_EXAMPLES ?= 300
fuzz: setup
	KCOMPACT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/io/test_io_fuzz.py -q
	KCOMPACT_KCAT_FUZZ_EXAMPLES=$(KCAT_FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/broker/test_kcat_fuzz.py -q

# Issue #30: the release matrix, a nightly-style run (needs Java 17 and Maven): every release's compressed rewrites
# against its kafka-clients, then the whole catalog on the newest patch of every release line, 2.0.1 to 4.4.0
# (ZooKeeper mode before 3.3), one broker at a time; about 45 minutes on 2 shared cores. Rewrites the summary the
# notebooks show; the tables in README.md and docs/cleaner-rules.md follow its output.
matrix: setup codecs
	KCOMPACT_ORACLE_VERSIONS=all $(BIN)/python -m pytest tests/broker/test_kafka_compression.py -q
	$(BIN)/kcompact conformance --versions all --summary-json data/samples/conformance-matrix.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
