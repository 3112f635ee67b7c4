"""Differential fidelity (issue: proof of fidelity): seeded workloads through Kafka's cleaner and the simulator.

Every workload of :func:`kcompact_nb.fidelity.catalog` (all categories: key distributions, multi-record
batches, idempotent and transactional producers, keyless records, tombstones over several passes,
min/max compaction lag, ``compact,delete`` retention, partial passes on a full offset map, compressed
batches of every codec, rule B's emptied last batch, segments rolled by size, a cleaned index that fills up,
rolls by full indexes and by ``max.compaction.lag.ms``) runs on both Kafka lines. Each round is produced with the
cleaner held, copied, cleaned by the broker and compared with the simulator: segments, batches, records,
checkpoint, every batch's bytes, every file of the partition folder (a failed pass's ``.cleaned`` files
included), the segments the model's appends roll, and every pass's log line or uncleanable WARN.
"""

from __future__ import annotations

import pytest

from kcompact_nb.core import ConfigError, KafkaVersion
from kcompact_nb.core.model import RuleB
from kcompact_nb.fidelity import (
    HOLD,
    DifferentialResult,
    RoundResult,
    Workload,
    broker_settings,
    catalog,
    load_round,
    run_differential,
    topic_settings,
)
from kcompact_nb.io.files import decode_txn_index

from .conftest import BROKER_VERSIONS, require_java_and_maven, topic_refusal

WORKLOADS = catalog()


def release_pairs(*, refused: bool) -> list[pytest.ParameterSet]:
    """(release, workload) for every release the run's brokers cover: the workloads the release runs, or those it
    refuses (e.g. ``segment.bytes`` below 1 MiB from 4.1, ``internal.segment.bytes`` before 4.1).

    A test parametrizes ``kafka_broker`` with them at session scope, so that each release's broker is started once:
    pytest then groups its tests by parameter value, the release's, and a workload (unhashable) by its place in
    the list, which no other of the test's parameters shares (each test names its workload parameter apart)."""
    return [
        pytest.param(version, workload, id=f"kafka-{version}-{workload.name}")
        for version in BROKER_VERSIONS
        for workload in WORKLOADS
        if (workload.refusal_on(version) is not None) == refused
    ]


AGREED, REFUSED = release_pairs(refused=False), release_pairs(refused=True)


@pytest.mark.fidelity
@pytest.mark.parametrize(("kafka_broker", "workload"), AGREED, indirect=["kafka_broker"], scope="session")
def test_workload_agrees_with_kafka(kafka_broker, workload, tmp_path):
    require_java_and_maven()
    result = run_differential(kafka_broker, workload, tmp_path, topic=f"diff-{workload.name}")
    assert result.mismatches == []
    # Kafka really cleaned in every round, unless its cleaner had marked the partition uncleanable (section 8.4)
    assert all(r.kafka_passes or r.uncleanable for r in result.rounds)
    assert_category_happened(result)


@pytest.mark.fidelity
@pytest.mark.parametrize(("kafka_broker", "refused"), REFUSED, indirect=["kafka_broker"], scope="session")
def test_a_workload_the_release_refuses_is_refused_alike_by_kafka_and_the_simulator(kafka_broker, refused):
    """The broker refuses to create the workload's topic, and the simulator's refusal starts with its words."""
    require_java_and_maven()
    theirs = topic_refusal(kafka_broker, f"refused-{refused.name}", {**HOLD, **every_config(refused)})
    ours = simulator_refusal(kafka_broker.version, refused)
    assert theirs is not None and ours is not None and ours.startswith(theirs), (theirs, ours)


@pytest.mark.parametrize(("version", "workload"), REFUSED)
def test_the_simulator_refuses_a_workload_for_the_release_that_refuses_it(version: str, workload: Workload) -> None:
    """Without a broker: the simulator's topic for the workload, under that release, is refused in its name."""
    refusal = simulator_refusal(version, workload)
    assert refusal is not None and f"kafka.version is {version}" in refusal
    assert all(simulator_refusal(other, workload) is None for other in BROKER_VERSIONS if other != version)


def simulator_refusal(version: str, workload: Workload) -> str | None:
    """The simulator's refusal of the workload's topic as the differential declares it on Kafka ``version``."""
    try:
        topic_settings(every_config(workload), broker=broker_settings(version, workload.broker))
    except ConfigError as error:
        return str(error)
    return None


def every_config(workload: Workload) -> dict[str, str]:
    """The topic configs the workload sets at creation, throughout, and in its phases, at once."""
    phases = {k: v for round_ in workload.rounds for phase in round_.phases for k, v in phase.configs.items()}
    return {**workload.create, **phases, **workload.kept}


def assert_category_happened(result: DifferentialResult) -> None:
    """The rule a category exists for really applied on the broker (so agreement is not vacuous)."""
    category, first = result.workload.category, result.rounds[0]
    before = load_round(first.folder, result.workload, version=result.version, stage="before")
    after = load_round(first.folder, result.workload, version=result.version, stage="after")
    trigger_offset = before.log_end_offset - 1
    if category == "keyless":
        assert any(r.key is None for b in before.batches() for r in b.records)
        assert not any(r.key is None for b in after.batches() for r in b.records)
    elif category == "min-lag":
        assert 0 < after.cleaner_checkpoint < trigger_offset  # the recent segments stayed dirty
    elif category == "compact-delete":
        assert after.log_start_offset > before.log_start_offset  # retention removed the old segments
    elif category == "partial":
        assert first.kafka_passes >= 2  # the first pass stopped on a full offset map
    elif category == "transactions":
        assert any(b.is_control for b in before.batches())
        if "aborted-over" in result.workload.name:
            assert_aborted_entry_kept_as_stored(result)
    elif category == "rule-b":
        # the emptied batch ending the cleaned range stays on 3.9.2-4.3 only (high watermark from 4.4)
        ending = [b for b in after.batches() if b.last_offset == trigger_offset - 1]
        kept = KafkaVersion.parse(result.version).rule_b is RuleB.FIRST_UNCLEANABLE_OFFSET
        assert [len(b.records) for b in ending] == ([0] if kept else [])
    elif category == "segment-bytes":
        assert len(before.segments) >= 4 and after.cleaner_checkpoint == trigger_offset  # rolled by size, cleaned
        last = result.rounds[-1]
        before_last, after_last = (
            load_round(last.folder, result.workload, version=result.version, stage=stage)
            for stage in ("before", "after")
        )
        assert len(after_last.segments) < len(before_last.segments)  # the later pass grouped cleaned segments
    elif category == "index-full":
        # a cleaned group's index fills up from KAFKA-806 on: the pass throws, its .cleaned files stay (section 8.4)
        fails = KafkaVersion.parse(result.version).indexes_each_batch
        assert result.rounds[-1].uncleanable is fails
        left = [p for r in result.rounds for p in (r.folder / "after").glob("*/*.log.cleaned")]
        assert bool(left) is fails
    elif category == "decompressed-bound":
        # a record of a compressed batch over max.decompressed.message.bytes makes the pass throw (section 8.4)
        assert result.rounds[-1].uncleanable and not any(r.uncleanable for r in result.rounds[:-1])
        assert bool(list((result.rounds[-1].folder / "after").glob("*/*.log.cleaned"))) is (len(result.rounds) > 1)
    elif category == "rolls":
        assert len(before.segments) >= 4  # rolled
        # then cleaned, or from KAFKA-806 on a cleaned group's tiny index filled up and the pass threw (section 8.4)
        failed = first.uncleanable and KafkaVersion.parse(result.version).indexes_each_batch
        assert after.cleaner_checkpoint == (0 if failed else trigger_offset)
    elif category == "compression":
        assert after.cleaner_checkpoint == trigger_offset
        # in some round Kafka re-encoded compressed batches (filterTo), which the simulator matched byte for byte
        assert any(rewritten_compressed_batches(result, round_) for round_ in result.rounds)
    else:
        assert after.cleaner_checkpoint == trigger_offset


def assert_aborted_entry_kept_as_stored(result: DifferentialResult) -> None:
    """Re-cleaned in the last round, the ``.txnindex`` entry still starts at the aborted transaction's first offset,
    whose batch the first pass removed (spec 8.4): Kafka appends the entry as stored, never rebuilt from what is
    left."""
    folder = result.rounds[-1].folder / "after"
    after = load_round(result.rounds[-1].folder, result.workload, version=result.version, stage="after")
    (path,) = [p for p in folder.glob("*/*.txnindex") if p.stat().st_size]
    (entry,) = decode_txn_index(path.read_bytes(), int(path.stem)).entries
    assert entry.first_offset not in {b.base_offset for b in after.batches()}
    assert any(b.base_offset > entry.first_offset and b.producer_id == entry.producer_id for b in after.batches())


def rewritten_compressed_batches(result: DifferentialResult, round_: RoundResult) -> int:
    """Compressed batches of Kafka's "after" copy whose bytes differ from its "before" copy."""
    before = load_round(round_.folder, result.workload, version=result.version, stage="before")
    after = load_round(round_.folder, result.workload, version=result.version, stage="after")
    kept = {b.base_offset: b.raw for b in before.batches()}
    return sum(b.compression != "none" and b.raw != kept.get(b.base_offset) for b in after.batches())


def test_catalog_covers_every_category_with_at_least_50_workloads():
    categories = {w.category for w in WORKLOADS}
    assert categories == {
        "keys", "batches", "idempotent", "tombstones", "multi-pass", "transactions", "keyless", "min-lag",
        "max-lag", "compact-delete", "partial", "compression", "rule-b", "segment-bytes", "index-full", "rolls",
        "decompressed-bound",
    }  # fmt: skip
    assert len(WORKLOADS) >= 50
    assert len({w.name for w in WORKLOADS}) == len(WORKLOADS)


def test_log_line_facts_keep_only_time_independent_lines():
    from kcompact_nb.fidelity import log_line_facts

    message = (
        "[2026-11-21 17:00:00,000] INFO \n\tLog cleaner thread 0 cleaned log t-0 (dirty section = [0, 7])\n"
        "\t0.0 MB of log processed in 0.1 seconds (0.0 MB/sec).\n"
        "\tIndexed 0.0 MB in 0.0 seconds (0.0 Mb/sec, 40.0% of total time)\n\tBuffer utilization: 0.0%\n"
        "\tCleaned 0.0 MB in 0.1 seconds (0.0 Mb/sec, 60.0% of total time)\n\tStart size: 0.0 MB (7 messages)\n"
        "\tEnd size: 0.0 MB (3 messages)\n\t57.1% size reduction (57.1% fewer messages)\n (kafka.log.LogCleaner)"
    )
    assert log_line_facts(message) == [
        "Log cleaner thread 0 cleaned log t-0 (dirty section = [0, 7])",
        "Buffer utilization: 0.0%",
        "Start size: 0.0 MB (7 messages)",
        "End size: 0.0 MB (3 messages)",
        "57.1% size reduction (57.1% fewer messages)",
    ]


def test_an_uncleanable_warning_and_kip_354s_line_are_compared_by_their_time_independent_facts():
    """The WARN a 4.4.0 broker logged when a cleaned index filled up, its stack trace's root cause, and KIP-354's
    count of delayed partitions (its max delay is milliseconds of wall clock)."""
    from kcompact_nb.core import CleanerFailure
    from kcompact_nb.fidelity import cleaner_messages, log_line_facts, uncleanable_message

    broker_log = (
        "[2026-11-29 01:57:12,943] WARN [kafka-log-cleaner-thread-0]: Unexpected exception thrown when cleaning log "
        "Log(dir=/tmp/data/t-0, topic=t, partition=0, highWatermark=31). Marking its partition (t-0) as uncleanable "
        "(org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread)\n"
        "org.apache.kafka.storage.internals.log.LogCleaningException: Attempt to append to a full time index "
        "(size = 4).\n"
        "\tat org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread.cleanFilthiestLog(LogCleaner.java:569)\n"
        "Caused by: java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4).\n"
        "\t... 3 more\n"
        "[2026-11-29 01:57:13,000] INFO Cleaner 0: Beginning cleaning of log u-0 (org.apache.kafka)\n"
    )
    (theirs,) = cleaner_messages(broker_log, "t-0")
    error = "java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4)."
    ours = uncleanable_message(CleanerFailure("t-0", 0, error, checkpoint=0))
    assert log_line_facts(theirs) == log_line_facts(ours) == ["t-0 marked uncleanable", error]
    delayed = "[2026-11-29 01:57:13,000] INFO \tCleanable partitions: 1, Delayed partitions: 1, max delay: 1234 (x)"
    assert log_line_facts(delayed) == ["Cleanable partitions: 1, Delayed partitions: 1"]
