"""A real ZooKeeper-mode broker: Kafka 2.0.1, the oldest release line, with what it needs on Java 17 (``kafka_2.12``,
ZooKeeper 3.5.9). It cleans transactions as the simulator predicts, and no JVM outlives it, even when it fails to
start. Every line before 3.3 runs in the release matrix (``make matrix``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kcompact_nb.broker import BrokerError, KafkaBroker
from kcompact_nb.fidelity import catalog, run_differential

from .conftest import require_java_and_maven

OLDEST = "2.0.1"


def _processes_naming(folder: Path) -> list[int]:
    """Ids of the processes whose command line names ``folder`` (the JVMs of one run folder)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(folder).encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:  # the process ended meanwhile
            continue
    return found


def test_the_oldest_release_cleans_as_predicted_and_leaves_no_process(tmp_path: Path):
    require_java_and_maven()
    # two rounds of aborted and committed transactions: rule A by sequence (before 2.2.1), transaction bookkeeping
    # per source segment (before 2.2.2) and the log line's dirty section (before 2.6) all show on 2.0
    (workload,) = [w for w in catalog(["transactions"]) if w.seed == 603]
    with KafkaBroker(OLDEST, work_dir=tmp_path / "run") as broker:
        assert len(_processes_naming(tmp_path / "run")) == 2  # ZooKeeper and the broker
        assert "zookeeper.connect=127.0.0.1:" in (broker.run_dir / "server.properties").read_text()
        result = run_differential(broker, workload, tmp_path / "out", topic="zk-mode")
    assert result.passes > 0
    assert result.mismatches == []
    assert result.log_files_identical
    assert _processes_naming(tmp_path / "run") == []


def test_a_failed_start_stops_its_zookeeper_and_keeps_its_temporary_run_folder():
    require_java_and_maven()
    broker = KafkaBroker(OLDEST, overrides={"num.io.threads": "many"})
    with pytest.raises(BrokerError, match=r"(?s)exited during startup.*zookeeper\.log.*run folder kept: ") as error:
        broker.start()
    run_dir = Path(str(error.value).rsplit("run folder kept: ", 1)[1].rstrip(")"))
    try:
        assert _processes_naming(run_dir) == []
        assert "num.io.threads" in (run_dir / "logs" / "server.log").read_text()
        assert (run_dir / "logs" / "zookeeper.log").exists()
    finally:
        shutil.rmtree(run_dir)
