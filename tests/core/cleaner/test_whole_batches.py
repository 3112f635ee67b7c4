"""The whole-batch record loops clean exactly as Kafka's record-by-record loops, and record the same decisions; the
pass chooses them once."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import InMemoryStorage, KeyRegistry, PartitionLog, copy_log, log_to_clean
from kcompact_nb.core.cleaner import PassDecisions
from kcompact_nb.core.cleaner._cleaner import do_clean
from kcompact_nb.core.cleaner._cleaning import Cleaner
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, ExactOffsetMap
from kcompact_nb.core.cleaner._record_loops import RECORD_BY_RECORD, RecordedLoops
from kcompact_nb.core.cleaner._strategies import HeaderStrategy, OffsetStrategy, TimestampStrategy
from kcompact_nb.core.cleaner._whole_batches import RecordedWholeBatches, WholeBatches, record_loops_for, recording
from kcompact_nb.record import PackedRecords
from tests.core.cleaner.test_cleaner_properties import appended, keyless_logs
from tests.core.views.test_views_against_engine import TOPIC, broker_configs, build, operation, topic_configs


def packed(log: PartitionLog) -> PartitionLog:
    """The log's batches as the io reader holds them: packed records, keys numbered by one registry."""
    registry = KeyRegistry()
    for segment in log.segments:
        segment.batches = [replace(b, records=PackedRecords.from_rows(b.records, registry)) for b in segment.batches]
    return log


def passes(params: tuple, *, whole_batches: bool, pack: bool) -> list:
    """Three passes under the offset strategy (the last beyond the tombstones' horizon) over a log switched from
    delete to compact (so it holds keyless records), with the given record loops."""
    segment_bytes, batches, slots = params
    log = appended({"cleanup.policy": "delete", "segment.bytes": segment_bytes, "delete.retention.ms": 100}, batches)
    log.config = log.config.with_properties({"cleanup.policy": "compact"})
    log = packed(log) if pack else log
    outcomes = []
    for now_ms in (1_000, 1_050, 2_000):
        ltc = log_to_clean(log, now_ms=now_ms)
        offset_map = ExactOffsetMap() if slots is None else BoundedOffsetMap(slots, 1.0)
        loops = WholeBatches(offset_map) if whole_batches else RECORD_BY_RECORD
        cleaner = Cleaner(offset_map, OffsetStrategy(), log.broker, InMemoryStorage(), loops)
        cleaned = do_clean(
            cleaner,
            log,
            first_dirty_offset=ltc.first_dirty_offset,
            first_uncleanable_offset=ltc.first_uncleanable_offset,
            now_ms=now_ms,
        )
        log.cleaner_checkpoint = cleaned.end_offset
        outcomes.append((cleaned, offset_map.entries(), list(log.batches())))
    return outcomes


@settings(max_examples=60, deadline=None)
@given(keyless_logs, st.booleans())
def test_whole_batch_loops_clean_as_kafkas_record_loops(params, pack):
    """Same end offsets, stats, map entries and batches (records, sizes, horizons), over tuples and packed records."""
    assert passes(params, whole_batches=True, pack=pack) == passes(params, whole_batches=False, pack=pack)


def test_the_pass_takes_whole_batches_only_under_the_offset_strategy_with_an_offset_table():
    for offset_map in (ExactOffsetMap(), ExactOffsetMap(streaming=True), BoundedOffsetMap(8)):
        assert isinstance(record_loops_for(offset_map, OffsetStrategy()), WholeBatches)
        assert record_loops_for(offset_map, TimestampStrategy()) is RECORD_BY_RECORD
        assert record_loops_for(offset_map, HeaderStrategy("v")) is RECORD_BY_RECORD


def recorded_passes(log: PartitionLog, now_ms: int, slots: int | None, *, at_once: bool, pack: bool) -> list:
    """Two recorded passes over a copy of ``log`` under the offset strategy (at ``now_ms``, then past every delete
    horizon), records filtered by the whole-batch recorded loops (``at_once``) or record by record (what a recorded
    pass did before): each pass's decisions, stats and map, and the batches left."""
    log = packed(copy_log(log)) if pack else copy_log(log)
    outcomes = []
    for at_ms in (now_ms, now_ms + 1_000):
        if log.active_segment.batches:
            log.roll(now_ms=at_ms)  # the whole log cleanable, whatever its lag
        offset_map = ExactOffsetMap() if slots is None else BoundedOffsetMap(slots, 1.0)
        decisions = PassDecisions()
        loops = (RecordedWholeBatches if at_once else RecordedLoops)(WholeBatches(offset_map), decisions)
        cleaner = Cleaner(offset_map, OffsetStrategy(), log.broker, InMemoryStorage(), loops, decisions=decisions)
        cleaned = do_clean(
            cleaner,
            log,
            first_dirty_offset=log_to_clean(log, now_ms=at_ms).first_dirty_offset,
            first_uncleanable_offset=log.log_end_offset,
            now_ms=at_ms,
        )
        log.cleaner_checkpoint = cleaned.end_offset
        outcomes.append((decisions, cleaned.stats, offset_map.entries(), list(log.batches())))
    return outcomes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    topic_configs, broker_configs, st.lists(operation, min_size=3, max_size=25), st.one_of(st.none(), st.integers(1, 5))
)
def test_whole_batches_record_the_decisions_kafkas_record_loops_make(topic, broker, plan, slots):
    """Random brokers' partitions (transactions committed, aborted and open, tombstones, keyless records, rolls,
    passes before), cleaned twice under the offset strategy (now, then past every delete horizon): the same decision
    for every record and batch, the same stats, map and batches, over tuples and packed records."""
    sim = build({**topic, "compaction.strategy": "offset"}, broker, None, plan)
    for partition, pack in ((0, False), (0, True), (1, False)):
        whole = recorded_passes(sim.log(TOPIC, partition), sim.now_ms, slots, at_once=True, pack=pack)
        assert whole == recorded_passes(sim.log(TOPIC, partition), sim.now_ms, slots, at_once=False, pack=pack)
        for rule in {decision.rule.name for outcome in whole for decision in outcome[0].records.values()}:
            event(f"rule {rule}")


def test_a_recorded_pass_records_whole_batches_at_once_under_the_whole_batch_loops():
    decisions = PassDecisions()
    assert isinstance(recording(WholeBatches(ExactOffsetMap()), decisions), RecordedWholeBatches)
    recorded = recording(RECORD_BY_RECORD, decisions)
    assert type(recorded) is RecordedLoops and recorded.inner is RECORD_BY_RECORD
