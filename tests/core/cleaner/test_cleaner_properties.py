"""Hypothesis properties of passes over random logs (Kafka's compaction guarantees, spec 0 and 12)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import BrokerConfig, NewRecord, PartitionLog, TopicConfig, clean_pass, log_to_clean
from kcompact_nb.core.cleaner._offset_map import BoundedOffsetMap, ExactOffsetMap
from kcompact_nb.core.cleaner._strategies import OffsetStrategy, strategy_for
from kcompact_nb.record._record_batch import uncompressed_batch_size

KEYS = [b"a", b"b", b"c", b"d", b"e", b"f"]
records = st.lists(
    st.builds(
        NewRecord,
        key=st.sampled_from(KEYS),
        value=st.one_of(st.none(), st.binary(max_size=6)),
        timestamp=st.integers(0, 1000),
    ),
    min_size=1,
    max_size=4,
)
logs = st.tuples(
    st.integers(100, 400),  # segment.bytes
    st.lists(st.tuples(records, st.booleans()), min_size=1, max_size=25),  # batches, roll after?
    st.one_of(st.none(), st.integers(2, 8)),  # offset map slots (None: exact)
    st.sampled_from(["offset", "timestamp", "header"]),
)


def build(segment_bytes: int, batches: list, strategy: str) -> PartitionLog:
    props = {
        "cleanup.policy": "compact",
        "segment.bytes": segment_bytes,
        "delete.retention.ms": 10**9,
        "compaction.strategy": strategy,
        "compaction.strategy.header": "v",
    }
    return appended(props, batches)


def appended(props: dict, batches: list) -> PartitionLog:
    """A log under ``props`` with ``batches`` appended one per ms (rolling where asked), then rolled."""
    log = PartitionLog("t", config=TopicConfig.from_properties(props), broker=BrokerConfig())
    for i, (recs, roll) in enumerate(batches):
        log.append(recs, now_ms=i)
        if roll:
            log.roll(now_ms=i)
    log.roll(now_ms=len(batches))
    return log


def pass_over(log: PartitionLog, slots: int | None, now_ms: int = 10_000):
    ltc = log_to_clean(log, now_ms=now_ms)
    strategy = strategy_for(log.config)
    offset_map = ExactOffsetMap() if slots is None else BoundedOffsetMap(slots, 1.0, strategy.entry_bytes)
    return clean_pass(
        log,
        now_ms=now_ms,
        first_dirty_offset=ltc.first_dirty_offset,
        first_uncleanable_offset=ltc.first_uncleanable_offset,
        offset_map=offset_map,
    )


def state(log: PartitionLog) -> list[tuple[int, bytes | None, bytes | None]]:
    return [(r.offset, r.key, r.value) for _, r in log.records()]


def winners(pairs: list, log: PartitionLog, upto: int) -> dict[bytes, int]:
    """Per key, the offset of the winning (batch, record) among those at or below ``upto``."""
    strategy = strategy_for(log.config)
    best: dict[bytes, tuple] = {}
    for batch, record in pairs:
        if record.key is None or record.offset > upto or batch.is_control:
            continue
        rank = strategy.rank(batch, record)
        if record.key not in best or rank > best[record.key][0]:
            best[record.key] = (rank, record.offset)
    return {k: v[1] for k, v in best.items()}


def live_state(log: PartitionLog) -> dict[bytes, bytes]:
    """What a consumer rebuilding state with the log's strategy ends with (tombstones delete)."""
    pairs = list(log.records())
    values = {r.offset: r.value for _, r in pairs}
    win = winners(pairs, log, upto=log.log_end_offset)
    return {k: values[o] for k, o in win.items() if values[o] is not None}


@settings(max_examples=150, deadline=None)
@given(logs)
def test_a_pass_keeps_order_winners_live_state_and_sizes(params):
    segment_bytes, batches, slots, strategy = params
    log = build(segment_bytes, batches, strategy)
    before = state(log)
    pairs_before = list(log.records())
    live_before = live_state(log)
    result = pass_over(log, slots)
    after = state(log)
    # offsets only disappear; order never changes
    kept = [e for e in before if e in after]
    assert kept == after
    # every key's winner within the indexed range survives (no horizon is reached: delete.retention.ms is huge)
    indexed_winners = winners(pairs_before, log, upto=result.offset_map.latest_offset)
    after_offsets = {o for o, _, _ in after}
    assert set(indexed_winners.values()) <= after_offsets
    # a consumer reading from the start ends with the same state
    assert live_state(log) == live_before
    # sizes always add up
    for segment in log.segments:
        assert segment.size_bytes == sum(b.size_bytes for b in segment.batches)
        for b in segment.batches:
            expected = 61 if not b.records else uncompressed_batch_size(b.base_offset, b.base_timestamp, b.records)
            assert b.size_bytes == expected
    assert log.cleaner_checkpoint == result.end_offset


@settings(max_examples=100, deadline=None)
@given(logs)
def test_a_second_pass_over_the_same_range_keeps_the_same_records(params):
    segment_bytes, batches, slots, strategy = params
    log = build(segment_bytes, batches, strategy)
    first = pass_over(log, None)
    after_first = state(log)
    clean_pass(
        log,
        now_ms=10_000,
        first_dirty_offset=first.first_dirty_offset,
        first_uncleanable_offset=first.first_uncleanable_offset,
        offset_map=ExactOffsetMap(),
    )
    assert state(log) == after_first


ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), records),
        st.tuples(st.just("roll"), st.none()),
        st.tuples(st.just("clean"), st.one_of(st.none(), st.integers(2, 6))),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(st.integers(100, 400), ops, st.sampled_from(["offset", "timestamp", "header"]))
def test_pass_sequences_never_change_what_a_consumer_sees(segment_bytes, steps, strategy):
    log = build(segment_bytes, [], strategy)
    for i, (op, arg) in enumerate(steps):
        if op == "append":
            log.append(arg, now_ms=i)
        elif op == "roll":
            log.roll(now_ms=i)
        else:
            before = live_state(log)
            offsets_before = [o for o, _, _ in state(log)]
            ltc = log_to_clean(log, now_ms=i)
            if ltc.cleanable_bytes == 0:
                continue
            pass_over(log, arg, now_ms=i)
            assert live_state(log) == before
            assert set(o for o, _, _ in state(log)) <= set(offsets_before)


class OffsetRankedStrategy(OffsetStrategy):
    """Kafka's rule under another name: the pass takes its general, record-by-record paths."""

    name = "offset-record-by-record"
    ranks_by_offset = False


keyless_logs = st.tuples(
    st.integers(100, 400),  # segment.bytes
    st.lists(
        st.tuples(
            st.lists(
                st.builds(
                    NewRecord,
                    key=st.one_of(st.none(), st.sampled_from(KEYS)),
                    value=st.one_of(st.none(), st.just(b"v")),
                ),
                min_size=1,
                max_size=4,
            ),
            st.booleans(),
        ),
        min_size=1,
        max_size=25,
    ),
    st.one_of(st.none(), st.integers(2, 8)),  # offset map slots (None: exact)
)


def passes_with(strategy: OffsetStrategy, params: tuple) -> list:
    """Three passes (the last beyond the tombstones' horizon) over a log switched from delete to compact
    (so it holds keyless records)."""
    segment_bytes, batches, slots = params
    log = appended({"cleanup.policy": "delete", "segment.bytes": segment_bytes, "delete.retention.ms": 100}, batches)
    log.config = log.config.with_properties({"cleanup.policy": "compact"})
    outcomes = []
    for now_ms in (1_000, 1_050, 2_000):
        ltc = log_to_clean(log, now_ms=now_ms)
        offset_map = ExactOffsetMap() if slots is None else BoundedOffsetMap(slots, 1.0, strategy.entry_bytes)
        result = clean_pass(
            log,
            now_ms=now_ms,
            first_dirty_offset=ltc.first_dirty_offset,
            strategy=strategy,
            first_uncleanable_offset=ltc.first_uncleanable_offset,
            offset_map=offset_map,
        )
        outcomes.append((result.end_offset, result.stats, list(log.batches())))
    return outcomes


@settings(max_examples=150, deadline=None)
@given(keyless_logs)
def test_the_offset_strategy_fast_paths_decide_as_the_record_by_record_paths(params):
    assert passes_with(OffsetStrategy(), params) == passes_with(OffsetRankedStrategy(), params)
