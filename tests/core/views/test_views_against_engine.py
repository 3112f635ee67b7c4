"""Every claim of every view is what the engine then does: a property over random simulated brokers (issue #36).

Random histories of one broker: data, tombstones and keyless records (appended under ``cleanup.policy=delete``, then
switched to ``compact``), transactions committed, aborted and left open, idempotent producers, rolls by size and by
``segment.ms``, ``min``/``max.compaction.lag.ms``, ``delete.retention.ms`` 0 and more, ``compact,delete`` with
``retention.ms`` and ``retention.bytes``, the three strategies (KIP-280's are not Kafka's), 1-5-slot offset maps, two
partitions, and cleaner iterations between the steps. Then the views are asked at ``now`` and each claim is checked
against the simulation run on from there (nothing appended) by its own cleaner loop, which never skips a back-off:

- ``next_eligible_ms`` T: the cleaner does not find the log eligible at T - 1 and does at T;
- ``next_pass``: no pass runs on the partition before the time it names, a pass does then, and every record's fate in
  that iteration (removed by the pass, deleted by retention, kept) is what the claim says; "superseded by X" names the
  pass's own offset-map entry;
- each record's ``goes_at_ms`` G: it is stored after the cleaner ran until G and gone after the iterations at G;
  ``None``: it is still stored after a long run;
- the texts about one record agree: ``explain``'s tombstone lines and the layout figure's hovers say what
  ``next_pass`` says, and no text says a record is both removed and kept;
- ``offset_map_view``'s missed keys are keys a pass over the rest of the range maps;
- ``dirtiness_series``' deadline D: not overdue at D - 1, overdue at D.
"""

from __future__ import annotations

import os
import struct

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import (
    NewRecord,
    OffsetMapSpec,
    Outcome,
    PartitionLog,
    Simulation,
    copy_log,
    explain,
    log_to_clean,
    next_eligible_ms,
    next_pass,
    offset_map_view,
    pass_frames,
    run_forward,
)
from kcompact_nb.core.cleaner import FAR_FUTURE_MS, rank_offset, strategy_for
from kcompact_nb.core.views import dirtiness_series
from kcompact_nb.viz import layout_figure

EXAMPLES = int(os.environ.get("KCOMPACT_FUZZ_EXAMPLES", "60"))
KEYS = ("a", "b", "c", "d")
TOPIC = "t"
BACKOFF_MS = 40
LONG_RUN_MS = 20_000
"""Longer than every time, retention and expiry below: what has not happened by then never does without appends."""

records = st.lists(
    st.tuples(
        st.sampled_from((*KEYS, None)),  # None: a keyless record (only while the topic is cleanup.policy=delete)
        st.one_of(st.none(), st.sampled_from(["1", "22"])),  # None: a tombstone
        st.integers(0, 300),  # timestamp after the append time
        st.one_of(st.none(), st.integers(0, 3)),  # header version (KIP-280 header strategy)
    ),
    min_size=1,
    max_size=3,
)
appends = st.tuples(
    st.just("append"),
    records,
    st.sampled_from(["plain", "plain", "plain", "txn1", "txn2", "idempotent"]),
    st.integers(0, 1),
)
operation = st.one_of(
    appends,
    appends,
    appends,
    st.tuples(st.just("end"), st.booleans(), st.sampled_from((1, 2))),  # commit (True) or abort
    st.tuples(st.just("roll"), st.integers(0, 1)),
    st.tuples(st.just("advance"), st.integers(1, 400)),
    st.tuples(st.just("clean")),
    st.tuples(st.just("compact")),  # cleanup.policy delete -> compact (keyless records stay stored)
)
topic_configs = st.fixed_dictionaries(
    {
        "internal.segment.bytes": st.sampled_from([150, 300, 100_000]),
        "segment.ms": st.sampled_from([604_800_000, 250]),
        "delete.retention.ms": st.sampled_from([0, 25, 400]),
        "min.compaction.lag.ms": st.sampled_from([0, 0, 200]),
        "max.compaction.lag.ms": st.sampled_from([9_223_372_036_854_775_807, 300]),
        "min.cleanable.dirty.ratio": st.sampled_from([0.5, 0.1]),
        "compaction.strategy": st.sampled_from(["offset", "offset", "timestamp", "header"]),
        "retention": st.sampled_from([None, {"retention.ms": 600}, {"retention.bytes": 400, "retention.ms": -1}]),
        "starts_delete": st.booleans(),
    }
)
broker_configs = st.fixed_dictionaries({"producer.id.expiration.ms": st.sampled_from([86_400_000, 300])})
maps = st.one_of(st.none(), st.builds(lambda slots: OffsetMapSpec(slots=slots, load_factor=1.0), st.integers(1, 5)))


def simulation(topic: dict, broker: dict, spec: OffsetMapSpec | None) -> tuple[Simulation, str]:
    """The broker with topic ``t`` (two partitions) and the cleanup.policy it ends with (it may start as delete)."""
    props = {k: v for k, v in topic.items() if k not in ("retention", "starts_delete")}
    props["compaction.strategy.header"] = "v"
    policy = "compact"
    if topic["retention"] is not None:
        policy = "compact,delete"
        props.update(topic["retention"])
    props["cleanup.policy"] = "delete" if topic["starts_delete"] else policy
    sim = Simulation({**broker, "producer.id.expiration.check.interval.ms": 100, "log.cleaner.backoff.ms": BACKOFF_MS})
    sim.create_topic(TOPIC, partitions=2, config=props)
    if spec is not None:
        for partition in (0, 1):
            sim.cleaner.offset_maps[sim.log(TOPIC, partition).name] = spec
    return sim, policy


def apply(sim: Simulation, op: tuple, policy: str, open_txns: set[int], sequences: dict[int, int]) -> None:
    kind = op[0]
    log_policy = sim.log(TOPIC).config
    if kind == "append":
        _, recs, producer, partition = op
        if log_policy.compact:
            recs = [r for r in recs if r[0] is not None]
        if not recs:
            return
        new = [
            NewRecord(None if k is None else k.encode(), v if v is None else v.encode(), sim.now_ms + dt, _headers(ver))
            for k, v, dt, ver in recs
        ]
        if producer == "plain":
            sim.append(TOPIC, new, partition=partition)
        elif producer == "idempotent":
            sequence = sequences.get(partition, 0)
            sim.append(
                TOPIC, new, partition=partition, producer_id=3 + partition, producer_epoch=0, base_sequence=sequence
            )
            sequences[partition] = sequence + len(new)
        else:
            pid = int(producer[-1])
            sim.append(TOPIC, new, partition=0, producer_id=pid, producer_epoch=0, transactional=True)
            open_txns.add(pid)
    elif kind == "end" and op[2] in open_txns:
        sim.end_txn(TOPIC, op[2], 0, commit=op[1])
        open_txns.discard(op[2])
    elif kind == "roll":
        if sim.log(TOPIC, op[1]).active_segment.batches:
            sim.roll(TOPIC, partition=op[1])
    elif kind == "advance":
        sim.advance(op[1])
    elif kind == "clean":
        sim.clean()
    elif kind == "compact" and not log_policy.compact:
        sim.set_config({"cleanup.policy": policy}, topic=TOPIC)


def _headers(version: int | None) -> tuple[tuple[str, bytes], ...]:
    return () if version is None else (("v", struct.pack(">q", version)),)


def build(topic: dict, broker: dict, spec: OffsetMapSpec | None, plan: list[tuple]) -> Simulation:
    sim, policy = simulation(topic, broker, spec)
    open_txns: set[int] = set()
    sequences: dict[int, int] = {}
    for op in plan:
        apply(sim, op, policy, open_txns, sequences)
    if not sim.log(TOPIC).config.compact:
        sim.set_config({"cleanup.policy": policy}, topic=TOPIC)
    return sim


def stored(sim: Simulation, partition: int = 0) -> set[int]:
    return {r.offset for _, r in sim.log(TOPIC, partition).records()}


def run_until(sim: Simulation, until_ms: int) -> list:
    """The simulation's own cleaner loop (every back-off step, no skipping) up to, not including, ``until_ms``."""
    return sim.run_cleaner(until_ms) if until_ms > sim.now_ms else []


def check_eligibility(sim: Simulation) -> None:
    log = sim.log(TOPIC)
    at = next_eligible_ms(log, now_ms=sim.now_ms)
    if at is None:
        assert not log_to_clean(log, now_ms=FAR_FUTURE_MS).eligible
        return
    assert log_to_clean(log, now_ms=at).eligible
    if at > sim.now_ms:
        assert not log_to_clean(log, now_ms=at - 1).eligible


def check_next_pass(sim: Simulation, view) -> None:
    """No pass on the partition before the claimed time; at it, the iteration does what each record's claim says."""
    name = sim.log(TOPIC).name
    later = sim.copy()
    if view.at_ms is None:
        passes = run_until(later, sim.now_ms + LONG_RUN_MS)
        assert not [p for p in passes if p.name == name]
        return
    before = run_until(later, view.at_ms)
    assert not [p for p in before if p.name == name], (view.at_ms, before)
    present = stored(later)
    for record in view.records:
        if record.outcome is not Outcome.DELETED:
            assert record.offset in present, record
    later_before = copy_log(later.log(TOPIC))
    decisions = later.cleaner.decisions = []
    for _ in range(4):  # the iterations at the claimed time, until the one that cleans the partition
        result = later.clean()
        assert decisions[-1].chosen is not None, decisions[-1]
        if result is not None and result.name == name:
            break
    else:
        raise AssertionError(f"no pass on {name} at {view.at_ms}")
    after = stored(later)
    if strategy_for(sim.log(TOPIC).config).ranks_by_offset:  # spec 6.2: each key's latest offset mapped
        log = later_before
        entries = {k: rank_offset(v) for k, v in result.offset_map.entries().items()}
        assert entries == mapped_latest(log, result.first_dirty_offset, result.end_offset)
    for record in view.records:
        text = f"{record.outcome.value}: {record.reason}"
        if record.outcome in (Outcome.REMOVED, Outcome.DELETED):
            assert record.offset not in after, text
        else:
            assert record.offset in after, text
        if record.outcome is Outcome.REMOVED and "superseded by offset" in record.reason:
            entry = result.offset_map.entries()[record.key]
            assert record.superseded_by == rank_offset(entry), text
        if record.outcome is Outcome.REMOVED:
            assert "kept" not in text and "no pass" not in text, text
        else:
            assert "removed by" not in text, text


def mapped_latest(log: PartitionLog, start: int, end: int) -> dict[bytes, int]:
    """Spec 6.2: each key's latest offset in ``[start, end)``, markers and aborted data (spec 7.3) left out."""
    aborted = {
        b.base_offset
        for b in log.batches()
        if b.is_transactional
        and not b.is_control
        and any(
            t.producer_id == b.producer_id and t.first_offset <= b.base_offset <= t.last_offset
            for s in log.segments
            for t in s.aborted_transactions
        )
    }
    latest: dict[bytes, int] = {}
    for batch, record in log.records():
        mapped = not batch.is_control and batch.base_offset not in aborted and record.key is not None
        if mapped and start <= record.offset < end:
            latest[record.key] = record.offset
    return latest


def check_goes_at(sim: Simulation, view) -> None:
    """Each record's claimed removal time: stored after the iterations before it, gone after those at it."""
    by_time: dict[int | None, list[int]] = {}
    for record in view.records:
        by_time.setdefault(record.goes_at_ms, []).append(record.offset)
    for at, offsets in by_time.items():
        later = sim.copy()
        if at is None:
            run_until(later, sim.now_ms + LONG_RUN_MS)
            assert set(offsets) <= stored(later), offsets
            continue
        assert at <= sim.now_ms + LONG_RUN_MS, at
        run_until(later, at)
        assert set(offsets) <= stored(later), (at, offsets)
        run_until(later, at + 1)
        assert not set(offsets) & stored(later), (at, offsets)


def check_views_agree(sim: Simulation, view) -> None:
    log = sim.log(TOPIC)
    said = {r.offset: f"{r.outcome.value}: {r.reason}" for r in view.records}
    hovers = {
        int(x): str(h)
        for trace in layout_figure(log, now_ms=sim.now_ms, simulation=sim).data
        if trace.hovertext is not None and trace.type == "bar" and len(trace.x) == len(trace.hovertext)
        for x, h in zip(trace.x, trace.hovertext, strict=True)
        if str(h).startswith("offset ") and "<br>" in str(h)
    }
    for offset, text in said.items():  # the hover wraps its lines at 80 characters (viz._arrays.wrapped_hovers)
        assert hovers[offset].split("<br>", 1)[1].replace("<br>", " ") == text
    fates = {r.offset: r for r in view.records}
    for tombstone in explain(log, now_ms=sim.now_ms, simulation=sim).tombstones:
        fate = fates[tombstone.offset]
        outcome = fate.outcome.value.removeprefix("tombstone ")
        goes = "" if fate.outcome in (Outcome.REMOVED, Outcome.DELETED) else f"; {fate.goes}"
        assert tombstone.describe(sim.now_ms).endswith(f"at offset {tombstone.offset}: {outcome}: {fate.reason}{goes}")


def check_offset_map_and_deadline(sim: Simulation) -> None:
    log = sim.log(TOPIC)
    frames = list(pass_frames(log, now_ms=sim.now_ms, offset_map=sim.cleaner.offset_maps.get(log.name), max_passes=2))
    if len(frames) > 1:
        result = frames[1].passes[0]
        view = offset_map_view(result, frames[1].log)
        if view.missed_keys:
            rest = copy_log(frames[1].log)
            again = sim.cleaner.copy().clean_log(
                rest,
                now_ms=sim.now_ms,
                first_dirty_offset=result.end_offset,
                first_uncleanable_offset=result.first_uncleanable_offset,
                offset_map=OffsetMapSpec(exact=True),
                force=True,
            )
            assert {key for key, _ in view.missed_keys} <= set(again.offset_map.entries())
    (point, *_) = dirtiness_series(frames)
    if point.deadline_ms is not None:
        assert log_to_clean(log, now_ms=point.deadline_ms).needs_compaction_now
        assert not log_to_clean(log, now_ms=point.deadline_ms - 1).needs_compaction_now


def check_pass_counts(sim: Simulation, view) -> None:
    """A pass's own counts (``records_removed``; bytes read less written) are what its recorded fates sum to, and a
    forward run that records no fates runs the same passes to the same stats."""
    name = sim.log(TOPIC).name
    recorded = view.future.passes(name)
    for iteration in recorded:
        stats, decisions = iteration.result.stats, iteration.result.decisions
        assert stats.records_removed == sum(not d.kept for d in decisions.records.values())
        assert stats.bytes_read - stats.bytes_written == sum(
            b.size_before - b.size_after for b in decisions.batches.values()
        )
    counted = run_forward(sim.partitions_in_creation_order(), now_ms=sim.now_ms, cleaner=sim.cleaner, fates=False)
    assert [(it.at_ms, it.result.end_offset, it.result.stats) for it in counted.passes(name)] == [
        (it.at_ms, it.result.end_offset, it.result.stats) for it in recorded
    ]
    assert all(it.result.decisions is None for it in counted.passes(name))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@given(topic_configs, broker_configs, maps, st.lists(operation, min_size=4, max_size=30), st.booleans())
def test_every_claim_of_every_view_is_what_the_engine_then_does(topic, broker, spec, plan, roll_at_end):
    sim = build(topic, broker, spec, [*plan, ("roll", 0)] if roll_at_end else plan)
    view = next_pass(sim.log(TOPIC), now_ms=sim.now_ms, simulation=sim)
    event("a pass runs now" if view.at_ms == sim.now_ms else "a pass runs later" if view.at_ms else "no pass runs")
    for record in view.records:
        event(f"{record.kind.value}: {record.outcome.short}")
    check_eligibility(sim)
    check_next_pass(sim, view)
    check_goes_at(sim, view)
    check_views_agree(sim, view)
    check_offset_map_and_deadline(sim)
    check_pass_counts(sim, view)
