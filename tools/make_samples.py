"""Write small Kafka partition directories from a REAL broker into data/samples/kafka/ (re-runnable).

Usage: ``python tools/make_samples.py --out DIR [--version 4.4.0]``. Needs java and mvn. ``--out`` has no default:
a new run differs from the bundled samples in what the broker's clock decides (below), which notebooks 03 and 05
print, so it writes elsewhere unless told ``--out data/samples/kafka`` (then re-execute those notebooks:
``python tools/strip_notebook_figures.py --execute notebooks/03-*.ipynb notebooks/05-*.ipynb``).
Each sample is ``<out>/<sample>/<stage>/`` = a one-partition log dir (``<topic>-0/`` + ``cleaner-offset-checkpoint``)
plus ``records.jsonl`` (what Spark's Kafka source would read, see data/samples/README.md) and ``dump.txt``
(``kafka.tools.DumpLogSegments --print-data-log --deep-iteration`` of every ``.log`` file, Kafka 3.9.2's tool).
Record timestamps are fixed (from 2026-01-01T00:00:00Z) so time-based rolls are repeatable; producer ids,
marker timestamps and delete horizons come from the broker's clock and differ between runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kafka import KafkaProducer  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kcompact_nb import NewRecord  # noqa: E402
from kcompact_nb.broker import (  # noqa: E402
    DEFAULT_VERSION,
    KAFKA_3_VERSION,
    KafkaBroker,
    alter_topic_configs,
    consume_rows,
    copy_partition,
    create_topic,
    dump_log_segments,
    produce,
    produce_batches,
    rows_to_jsonl,
    wait_for_cleaner,
    wait_for_offsets,
)
from kcompact_nb.fidelity import HOLD  # noqa: E402

BASE_TS_MS = 1_767_225_600_000
RELEASE = {"min.cleanable.dirty.ratio": "0.01"}  # after HOLD (ratio 1.0, never exceeded) kept the cleaner waiting


def rec(key: str, value: str | None, at_ms: int) -> NewRecord:
    return NewRecord(key.encode(), None if value is None else value.encode(), timestamp=BASE_TS_MS + at_ms)


class Sampler:
    """Captures stages of topics of one broker into ``out``."""

    def __init__(self, broker: KafkaBroker, out: Path) -> None:
        self.broker, self.out = broker, out
        self.manifest: dict[str, dict[str, object]] = {}

    def capture(self, sample: str, stage: str, topic: str) -> None:
        target = self.out / sample / stage
        shutil.rmtree(target, ignore_errors=True)
        folder = copy_partition(self.broker, topic, target)
        (target / "records.jsonl").write_text(rows_to_jsonl(consume_rows(self.broker, topic)))
        logs = sorted(folder.glob("*.log"))
        (target / "dump.txt").write_text(dump_log_segments(logs).replace(str(folder.parent) + "/", ""))

    def clean(self, topic: str, configs: dict[str, str], trigger_offset: int) -> int:
        alter_topic_configs(self.broker, topic, {**configs, **RELEASE})
        reached = wait_for_cleaner(self.broker, topic, trigger_offset)
        alter_topic_configs(self.broker, topic, {**configs, **HOLD})
        return reached


def basic(s: Sampler) -> None:
    """30 keyed records over 6 keys, 3 records per segment, a tombstone; one cleaner pass."""
    configs = create_topic(s.broker, "basic", configs=HOLD)
    records = [rec(f"k{i % 6}", f"v{i}", i * 40) for i in range(30)] + [rec("k2", None, 1200)]
    produce(s.broker, "basic", records)
    trigger = produce(s.broker, "basic", [rec("k0", "roll", 1400)])[0]
    s.capture("compaction-basic", "before", "basic")
    s.clean("basic", configs, trigger)
    s.capture("compaction-basic", "after", "basic")


def tombstones(s: Sampler) -> None:
    """A tombstone kept and stamped with a delete horizon by pass 1, removed by pass 2 (delete.retention.ms=0)."""
    configs = create_topic(s.broker, "tomb", configs={**HOLD, "delete.retention.ms": "0"})
    produce(s.broker, "tomb", [rec("a", "1", 0), rec("b", "1", 10), rec("a", None, 20)])
    first = produce(s.broker, "tomb", [rec("c", "roll1", 500)])[0]
    s.capture("tombstone-lifecycle", "0-produced", "tomb")
    s.clean("tomb", configs, first)
    s.capture("tombstone-lifecycle", "1-first-pass", "tomb")
    produce(s.broker, "tomb", [rec("d", "1", 600)])
    second = produce(s.broker, "tomb", [rec("c", "roll2", 1000)])[0]
    s.clean("tomb", configs, second)
    s.capture("tombstone-lifecycle", "2-second-pass", "tomb")


def transactional(s: Sampler) -> None:
    """A committed and an aborted transaction (markers use the broker clock), then a plain roll trigger."""
    configs = create_topic(s.broker, "txn", configs=HOLD)
    producer = KafkaProducer(bootstrap_servers=s.broker.bootstrap_servers, transactional_id="sample-txn")
    producer.init_transactions()
    for commit, (key, value) in ((True, ("x", "committed")), (False, ("y", "aborted"))):
        producer.begin_transaction()
        for i in range(2):
            producer.send("txn", key=f"{key}{i}".encode(), value=value.encode(), partition=0)
        producer.flush()
        producer.commit_transaction() if commit else producer.abort_transaction()
    producer.close()
    time.sleep(0.3)  # > segment.ms after the last marker's wall-clock timestamp
    trigger = produce(s.broker, "txn", [NewRecord(b"z", b"roll")])[0]
    s.capture("transactional", "before", "txn")
    s.clean("txn", configs, trigger)
    s.capture("transactional", "after", "txn")


def idempotent(s: Sampler) -> None:
    """An idempotent producer (producer id, epoch, sequences); its last batch stays as an empty shell."""
    configs = create_topic(s.broker, "idem", configs=HOLD)
    produce(s.broker, "idem", [rec(f"k{i % 3}", f"v{i}", i * 40) for i in range(9)], idempotent=True)
    trigger = produce(s.broker, "idem", [rec("k0", "roll", 800)])[0]  # a different (non-idempotent) producer
    s.capture("idempotent-producer", "before", "idem")
    s.clean("idem", configs, trigger)
    s.capture("idempotent-producer", "after", "idem")


def compressed(s: Sampler) -> None:
    """``compression.type=zstd`` on the topic, the producer uncompressed: the broker recompresses each batch of
    four records (zstd level 3); the pass rewrites partly kept zstd batches and stamps the tombstone's."""
    configs = create_topic(s.broker, "zipped", configs={**HOLD, "compression.type": "zstd"})
    records = [rec(f"k{i % 5}", f"value-{i}-" + "x" * (i % 7), i * 10) for i in range(20)] + [rec("k3", None, 200)]
    produce_batches(s.broker, "zipped", [records[i : i + 4] for i in range(0, len(records), 4)])
    trigger = produce(s.broker, "zipped", [rec("k0", "roll", 600)])[0]
    s.capture("compressed-topic", "before", "zipped")
    s.clean("zipped", {**configs, "compression.type": "zstd"}, trigger)
    s.capture("compressed-topic", "after", "zipped")


def rule_b(s: Sampler) -> None:
    """Spec 15 rule B: is the emptied batch just before the first uncleanable offset kept (61-byte shell)?

    k@0 plain; y@1 aborted data; ABORT@2 rolls the active segment (``segment.ms`` is one minute and the
    data is stamped two minutes before the broker's wall clock, which stamps the markers); the same
    producer then commits z@3 + COMMIT@4 in that active segment, so y@1 is not its last batch (rule A).
    Cleanable range [0, 2); high watermark 5. With rule B on the first uncleanable offset y@1 stays as
    an empty batch; with rule B on the high watermark it goes.
    """
    configs = create_topic(s.broker, "ruleb", configs={**HOLD, "segment.ms": "60000"})
    data_ms = int(time.time() * 1000) - 120_000
    produce(s.broker, "ruleb", [NewRecord(b"k", b"plain", timestamp=data_ms)])
    producer = KafkaProducer(bootstrap_servers=s.broker.bootstrap_servers, transactional_id="sample-ruleb")
    producer.init_transactions()
    for commit, key in ((False, b"y"), (True, b"z")):
        producer.begin_transaction()
        producer.send("ruleb", key=key, value=b"1", partition=0, timestamp_ms=data_ms)
        producer.flush()
        producer.commit_transaction() if commit else producer.abort_transaction()
    producer.close()
    wait_for_offsets(s.broker, "ruleb", end=5)  # markers are written after commit/abort returns
    s.capture(f"rule-b-kafka-{s.broker.version}", "before", "ruleb")
    s.clean("ruleb", configs, 2)
    s.capture(f"rule-b-kafka-{s.broker.version}", "after", "ruleb")


SAMPLES: list[Callable[[Sampler], None]] = [basic, tombstones, transactional, idempotent, compressed, rule_b]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, required=True,
        help="where to write the samples (data/samples/kafka replaces the bundled ones: see the module docstring)",
    )  # fmt: skip
    parser.add_argument("--version", default=DEFAULT_VERSION)
    parser.add_argument("--rule-b-version", default=KAFKA_3_VERSION, help="also run the rule-B probe here")
    parser.add_argument("--only", nargs="*", default=None, metavar="SAMPLE",
                        help=f"make only these samples (of {', '.join(m.__name__ for m in SAMPLES)})")  # fmt: skip
    args = parser.parse_args(argv)
    chosen = [m for m in SAMPLES if args.only is None or m.__name__ in args.only]
    with KafkaBroker(args.version) as broker:
        sampler = Sampler(broker, args.out)
        for make in chosen:
            make(sampler)
    if args.rule_b_version:
        with KafkaBroker(args.rule_b_version) as broker:
            rule_b(Sampler(broker, args.out))
    (args.out / "samples.json").write_text(json.dumps({"broker_version": args.version}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
