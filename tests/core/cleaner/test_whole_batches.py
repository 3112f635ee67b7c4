"""The whole-batch record loops clean exactly as Kafka's record-by-record loops, and the pass chooses them once."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import KeyRegistry, PartitionLog, log_to_clean
from kcompact_nb.core.cleaner._cleaner import RECORD_BY_RECORD, Cleaner, do_clean
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, ExactOffsetMap
from kcompact_nb.core.cleaner._segment_storage import InMemoryStorage
from kcompact_nb.core.cleaner._strategies import HeaderStrategy, OffsetStrategy, TimestampStrategy
from kcompact_nb.core.cleaner._whole_batches import WholeBatches, record_loops_for
from kcompact_nb.record import PackedRecords
from tests.core.cleaner.test_cleaner_properties import appended, keyless_logs


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
