"""``log.cleaner.enable=false`` and ``log.cleaner.threads=0`` as a real broker takes them (issue #31).

With the cleaner disabled a broker never cleans: a compacted topic full of duplicates whose segments roll keeps
every record for several seconds (its configs let a running cleaner pass within one), and ``kcompact clean``
with the same broker config predicts no pass and writes the log dir as read. ``log.cleaner.threads=0`` passes
Kafka's ``ConfigDef`` (``atLeast(0)``), yet no broker starts with it, cleaner enabled or not: the dedupe buffer
check divides by it (``ArithmeticException: / by zero``); kcompact refuses it the same way, naming why.
"""

from __future__ import annotations

import shutil
import time

import pytest

from kcompact_nb import NewRecord
from kcompact_nb.broker import (
    DEFAULT_VERSION,
    KAFKA_3_VERSION,
    BrokerError,
    KafkaBroker,
    create_topic,
    partition_dir,
    produce_batches,
)
from kcompact_nb.io import read_partition_dir
from tests.cli.conftest import kcompact

from .conftest import BASE_TS_MS, require_java_and_maven

WAIT_S = 6.0
"""A running cleaner passes this topic within about a second (``log.cleaner.backoff.ms`` 100)."""
AT = str(BASE_TS_MS + 3_600_000)


def test_a_broker_with_its_cleaner_disabled_never_cleans_and_kcompact_predicts_so(tmp_path):
    require_java_and_maven()
    with KafkaBroker(DEFAULT_VERSION, overrides={"log.cleaner.enable": "false"}) as broker:
        create_topic(broker, "dups")
        batches = [[NewRecord(f"k{i % 3}".encode(), b"v", timestamp=BASE_TS_MS + 200 * i)] for i in range(12)]
        produce_batches(broker, "dups", batches)
        time.sleep(WAIT_S)
        assert "cleaned log" not in broker.cleaner_log()
        kept = [r.offset for _, r in read_partition_dir(partition_dir(broker, "dups")).log.records()]
        assert kept == list(range(12))
        source = tmp_path / "logs"
        shutil.copytree(
            broker.log_dir, source, ignore=shutil.ignore_patterns("__cluster_metadata-*", "*.lock", "*.tmp")
        )
    done = kcompact("clean", source, "--out", tmp_path / "out", "--at", AT, "--config", "log.cleaner.enable=false")
    assert done.returncode == 0, done.stderr
    assert "  no pass: log.cleaner.enable=false: the broker creates no log cleaner\n" in done.stdout
    again = read_partition_dir(tmp_path / "out" / "dups-0").log
    assert [r.offset for _, r in again.records()] == kept
    running = kcompact("clean", source, "--out", tmp_path / "running", "--at", AT)  # the same log with a cleaner
    assert running.returncode == 0 and "  cleaned dups-0:" in running.stdout, running.stdout + running.stderr


@pytest.mark.parametrize("version", [DEFAULT_VERSION, KAFKA_3_VERSION])
@pytest.mark.parametrize("enable", ["true", "false"])
def test_no_broker_starts_with_zero_cleaner_threads_and_kcompact_refuses_them(version, enable, tmp_path):
    require_java_and_maven()
    with pytest.raises(BrokerError, match=r"java\.lang\.ArithmeticException: / by zero"):
        KafkaBroker(version, overrides={"log.cleaner.threads": "0", "log.cleaner.enable": enable}).start()
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "cleaner-offset-checkpoint").write_text("0\n0\n")
    settings = ["--config", "log.cleaner.threads=0", "--config", f"log.cleaner.enable={enable}"]
    done = kcompact("clean", tmp_path / "logs", "--out", tmp_path / "out", "--kafka-version", version, *settings)
    assert done.returncode == 2
    assert "Invalid value 0 for configuration log.cleaner.threads: Kafka's broker does not start with it" in done.stderr
