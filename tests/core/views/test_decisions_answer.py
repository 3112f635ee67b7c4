"""The questions a learner asks, answered from the cleaner's recorded decisions (issue #36's found cases first)."""

from __future__ import annotations

from kcompact_nb.core import (
    OffsetMapSpec,
    Outcome,
    Simulation,
    explain,
    layout_view,
    log_to_clean,
    next_eligible_ms,
    next_pass,
    offset_map_view,
    pass_diff,
    pass_frames,
)
from kcompact_nb.core.cleaner import BatchFate, RecordRule, Selection
from tests.conftest import compacted_log, rec

SMALL = {"internal.segment.bytes": 1000}


def offsets(sim: Simulation, topic: str = "t") -> list[int]:
    return [r.offset for _, r in sim.log(topic).records()]


def test_eligible_at_is_the_first_instant_the_cleaner_cleans_not_one_ms_later():
    """Issue #36, found case 1: Kafka's cleanableOffsets keeps a segment uncleanable while its largest timestamp is
    greater than now - min.compaction.lag.ms (docs/cleaner-rules.md 4.2), so the pass runs at 500 + 1000."""
    sim = Simulation(topics={"t": {**SMALL, "min.compaction.lag.ms": 1000}})
    sim.set_time(500)
    sim.append("t", [("k", "1", 500)])
    sim.roll("t")
    sim.set_time(600)
    e = explain(sim.log("t"), now_ms=600, simulation=sim)
    assert e.eligible_at_ms == next_eligible_ms(sim.log("t"), now_ms=600) == 1500
    assert "eligible at t = 1 s 500 ms (in 900 ms)" in e.eligibility
    before = sim.copy()
    before.set_time(1499)
    assert before.clean() is None
    sim.set_time(1500)
    assert log_to_clean(sim.log("t"), now_ms=1500).eligible
    assert sim.clean() is not None


def test_records_retention_deletes_in_the_same_iteration_are_said_deleted():
    """Issue #36, found case 2: one cleaner iteration is a pass, then retention (CleanerThread.doWork; spec 9). Here
    no pass runs (nothing is cleanable past the checkpoint) and retention.ms deletes segment 0: next_pass says so,
    not "kept"."""
    sim = Simulation(topics={"t": {**SMALL, "cleanup.policy": "compact,delete", "retention.ms": 1000}})
    sim.append("t", [("a", "1", 0), ("b", "1", 0)])
    sim.roll("t")
    sim.set_checkpoint("t", 2)
    sim.set_time(1500)
    sim.append("t", [("c", "1", 1500)])
    sim.set_time(2000)
    view = next_pass(sim.log("t"), now_ms=2000, simulation=sim)
    assert view.at_ms is None
    assert [(r.offset, r.outcome, r.goes_at_ms) for r in view.records] == [
        (0, Outcome.DELETED, 2000),
        (1, Outcome.DELETED, 2000),
        (2, Outcome.DELETED, 17_000),  # retention rolls the active segment and deletes it, 15 s back-offs later
    ]
    assert view.records[0].reason == (
        "deleted by retention at t = 2 s with its segment 0: its newest record (t = 0 ms) is older than retention.ms "
        "(1 s)"
    )
    lines = explain(sim.log("t"), now_ms=2000, simulation=sim).lines()
    assert "  retention deletes segment 0 (offsets 0-1) at t = 2 s: retention.ms" in lines
    sim.clean()
    assert offsets(sim) == [2]


def test_the_active_segment_retention_rolls_and_deletes_is_not_said_to_stay_forever():
    """Issue #36, found case 2: explain said "without new appends the active segment never rolls, so never" where
    retention rolls it and deletes it (UnifiedLog.deleteOldSegments rolls first when every segment goes)."""
    sim = Simulation({"log.cleaner.backoff.ms": 40})
    sim.create_topic("t", config={**SMALL, "cleanup.policy": "compact,delete", "retention.ms": 1000})
    sim.append("t", [("a", "1", 0), ("a", "2", 0)])
    lines = explain(sim.log("t"), now_ms=0, simulation=sim).lines()
    assert "  not eligible: nothing is cleanable, and while nothing is appended nothing becomes cleanable" in lines
    assert "  retention deletes segment 0 (offsets 0-1) at t = 1 s 40 ms: retention.ms" in lines
    assert [r.goes_at_ms for r in next_pass(sim.log("t"), now_ms=0, simulation=sim).records] == [1040, 1040]
    sim.run_cleaner(1040)
    assert offsets(sim) == [0, 1]
    sim.run_cleaner(1041)
    assert offsets(sim) == []


def test_missed_keys_are_only_keys_a_pass_maps_not_keys_of_aborted_data():
    """Issue #36, found case 3: a key met only in aborted data is never mapped (spec 7.3), so a full map misses
    nothing of it."""
    log = compacted_log()
    log.append([rec("a", timestamp=0)], now_ms=0)
    log.append([rec("z", timestamp=0)], now_ms=0, producer_id=7, producer_epoch=0, transactional=True)
    log.append_end_txn_marker(7, 0, commit=False, now_ms=0)
    log.append([rec("b", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    _, after = pass_frames(log, now_ms=0, offset_map=OffsetMapSpec(slots=1, load_factor=1.0), max_passes=1)
    view = offset_map_view(after.passes[0], after.log)
    assert view.end_offset == 3  # the map's latest offset moves over the aborted batch and its marker
    assert view.missed_keys == ((b"b", 3),)


def test_a_duplicate_left_by_a_partial_pass_says_where_its_newer_record_is_and_when_it_goes():
    """After a pass whose offset map filled (spec 6.3), the duplicate the next pass keeps names the record that
    supersedes it, why that one is not in the map, and the later pass that removes it."""
    sim = Simulation(topics={"t": {**SMALL, "min.cleanable.dirty.ratio": 0.1}})
    for key, value in (("a", "1"), ("b", "1"), ("c", "1"), ("a", "2")):
        sim.append("t", [(key, value, 0)])
    sim.roll("t")
    sim.cleaner.offset_maps["t-0"] = OffsetMapSpec(slots=1, load_factor=1.0)
    assert sim.clean().end_offset == 1  # maps a@0 only
    view = next_pass(sim.log("t"), now_ms=0, simulation=sim)
    a0 = view.records[0]
    assert (view.at_ms, view.end_offset) == (0, 2)  # maps b@1, then the map is full
    assert (a0.offset, a0.outcome, a0.superseded_by) == (0, Outcome.NEWER_BEYOND, 3)
    assert a0.reason == (
        "its newer record, offset 3, is not in the pass's offset map: at or above offset 2, where the pass stops: "
        "its offset map is full"
    )
    assert (a0.goes_at_ms, a0.goes) == (
        0,
        "removed by the pass at t = 0 ms: its key's entry in the offset map outranks it",
    )
    sim.clean()
    sim.clean()
    assert offsets(sim)[0] == 0
    sim.clean()
    assert offsets(sim) == [1, 2, 3]


def test_a_superseded_record_in_the_active_segment_stays_while_nothing_is_appended():
    log = compacted_log()
    log.append([rec("a", timestamp=0), rec("a", timestamp=0)], now_ms=0)
    first, second = next_pass(log, now_ms=0).records
    assert first.outcome is Outcome.BEYOND and first.superseded_by == 1
    assert (first.goes_at_ms, first.goes) == (None, "stays while nothing is appended")


def test_an_empty_batch_says_which_rule_keeps_it():
    """Spec 7.3 rule A: a live idempotent producer's last batch stays, empty, when its records are superseded; the
    next pass that reads it says so."""
    sim = Simulation(topics={"t": {**SMALL, "min.cleanable.dirty.ratio": 0.1}})
    sim.append("t", [("a", "1", 0)], producer_id=5, producer_epoch=0, base_sequence=0)
    sim.append("t", [("a", "2", 0)])
    sim.roll("t")
    result = sim.clean()
    decision = result.decisions.batches[0] if result.decisions else None
    assert decision is None  # nobody asked: nothing recorded
    sim.append("t", [("b", "1", 0), ("b", "2", 0)])
    sim.roll("t")
    (empty, *_) = layout_view(sim.log("t"), now_ms=0, simulation=sim).batches
    assert (empty.base_offset, empty.record_count) == (0, 0)
    assert empty.kept_because == (
        "the last batch of producer 5 (rule A): Kafka keeps it, empty, so the producer's sequence and epoch survive, "
        "until producer.id.expiration.ms expires the producer; it stays while nothing is appended"
    )
    frames = list(pass_frames(sim.log("t"), now_ms=0, max_passes=1))
    assert frames[1].passes[0].decisions.batches[0].fate is BatchFate.KEPT_EMPTY


def test_a_filthier_partition_goes_first_and_explain_says_so():
    """grabFilthiestCompactedLog (spec 5): of two eligible logs the higher dirty ratio is cleaned first."""
    sim = Simulation(topics={"t": {**SMALL, "min.cleanable.dirty.ratio": 0.1}})
    sim.create_topic("u", config={**SMALL, "min.cleanable.dirty.ratio": 0.1})
    for topic in ("t", "u"):
        sim.append(topic, [("k", "1", 0), ("k", "2", 0)])
        sim.roll(topic)
        sim.append(topic, [("k", "3", 0), ("k", "4", 0)])
        sim.roll(topic)
    sim.set_checkpoint("t", 2)  # t's first segment is clean: its dirty ratio is 0.5, u's 1.0
    e = explain(sim.log("t"), now_ms=0, simulation=sim)
    ((at_ms, chosen, this),) = e.cleaned_first
    assert (at_ms, chosen.name, chosen.selection, this.selection) == (0, "u-0", Selection.CHOSEN, Selection.LESS_FILTHY)
    assert (
        "  at t = 0 ms the cleaner chooses u-0 first: its dirty ratio 1.0000 is above this partition's 0.5000 "
        "(the filthiest eligible log goes first)"
    ) in e.lines()
    assert e.next_pass_ms == 0


def test_a_rewritten_batch_that_grows_says_why():
    """A kept tombstone's batch is rebuilt with a delete horizon as its base timestamp (spec 7.4): longer deltas."""
    log = compacted_log(delete_retention_ms=86_400_000)
    log.append([rec("a", None, timestamp=0), rec("b", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    before, after = pass_frames(log, now_ms=0, max_passes=1)
    diff = pass_diff(before.log, after.log, after.passes[0])
    ((base, size_before, size_after, why),) = diff.grown_batches
    assert base == 0 and size_after > size_before
    assert why.startswith("the pass stamped its delete horizon")
    rules = {d.offset: d.rule for d in after.passes[0].decisions.records.values()}
    assert rules == {0: RecordRule.TOMBSTONE_UNSTAMPED, 1: RecordRule.LATEST}


def test_a_pass_that_will_throw_and_one_that_threw_are_said_in_kafkas_words():
    """Spec 3 and 8.4: on 4.4.0 this partition's next pass throws on a full time index; explain says so before it
    runs, and after it ran, that the partition is marked uncleanable with what its pass left."""
    from tests.core.cleaner.test_index_full import START_MS, failing_simulation

    sim = failing_simulation("4.4.0")
    now = START_MS + 200_000
    before = explain(sim.log("t"), now_ms=now, simulation=sim)
    assert before.pass_failure == (
        'at t = 20 min the pass throws. Kafka logs "Unexpected exception thrown when cleaning log t-0. Marking its '
        "partition (t-0) as uncleanable: java.lang.IllegalArgumentException: Attempt to append to a full time index "
        '(size = 4)."; the checkpoint stays at 0, the groups swapped in before it stay (0, 6), left on disk: '
        "00000000000000000012.log.cleaned, 00000000000000000012.index.cleaned, 00000000000000000012.timeindex.cleaned"
    )
    sim.clean()
    after = explain(sim.log("t"), now_ms=now, simulation=sim)
    assert after.failed is not None and after.failed.startswith("marked uncleanable at t = 20 min: Kafka logged")
    assert after.next_pass_ms is None
    sim.append("t", [("k10", "newer", now)])
    blocked = [r for r in next_pass(sim.log("t"), now_ms=now, simulation=sim).records if r.outcome is Outcome.BEYOND]
    assert [r.offset for r in blocked] == [10]
    for record in blocked:
        assert (
            record.reason == "the partition is marked uncleanable: Kafka's cleaner skips it until the broker restarts"
        )


def test_explain_says_why_the_log_start_offset_moved():
    """Spec 9: DeleteRecords moves the log start offset at once; retention.ms moves it when it deletes segments."""
    sim = Simulation(topics={"t": {**SMALL, "cleanup.policy": "compact,delete", "retention.ms": 1000}})
    sim.append("t", [("a", "1", 0), ("b", "1", 0)])
    sim.roll("t")
    sim.set_time(500)
    sim.append("t", [("c", "1", 500)])
    sim.roll("t")
    sim.append("t", [("d", "1", 500)])
    sim.delete_records("t", 1)
    sim.set_time(1200)
    sim.clean()  # cleans [1, 3): segments 0 and 2 become one, whose newest record is at 500
    sim.set_time(1600)
    sim.clean()
    lines = explain(sim.log("t"), now_ms=1600, simulation=sim).lines()
    assert "  the log start offset moved from 0 to 1 at t = 500 ms: DeleteRecords" in lines
    assert "  the log start offset moved from 1 to 4 at t = 1 s 600 ms: retention.ms" in lines
