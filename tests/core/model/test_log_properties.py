"""Hypothesis properties of appends: offsets increase, segments are contiguous, sizes add up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import NewRecord, PartitionLog, TopicConfig
from kcompact_nb.record._record_batch import uncompressed_batch_size

record = st.builds(
    NewRecord,
    key=st.binary(min_size=1, max_size=8),
    value=st.one_of(st.none(), st.binary(max_size=64)),
    timestamp=st.integers(0, 10_000),
)
append_op = st.tuples(st.just("append"), st.lists(record, min_size=1, max_size=5), st.integers(0, 3))
roll_op = st.tuples(st.just("roll"), st.none(), st.integers(0, 3))
configs = st.fixed_dictionaries(
    {
        "cleanup.policy": st.just("compact"),
        "segment.bytes": st.integers(14, 600),
        "segment.ms": st.integers(1, 5_000),
        "segment.index.bytes": st.integers(12, 200),
        "index.interval.bytes": st.integers(0, 300),
    }
)


@settings(max_examples=200, deadline=None)
@given(configs, st.lists(st.one_of(append_op, roll_op), max_size=40))
def test_random_appends_keep_the_log_well_formed(props, ops):
    log = PartitionLog("t", config=TopicConfig.from_properties(props))
    now = 0
    for kind, records, gap in ops:
        now += gap
        if kind == "roll":
            log.roll(now_ms=now)
            continue
        explicit = gap == 3
        if explicit:
            records = [
                NewRecord(r.key, r.value, r.timestamp, offset=log.log_end_offset + 2 * i + 1)
                for i, r in enumerate(records)
            ]
        log.append(records, now_ms=now)
    offsets = [r.offset for _, r in log.records()]
    assert offsets == sorted(set(offsets))
    bases = [s.base_offset for s in log.segments]
    assert bases == sorted(set(bases))
    for segment, next_base in zip(log.segments, bases[1:] + [log.log_end_offset + 1], strict=False):
        assert segment.size_bytes == sum(b.size_bytes for b in segment.batches)
        for batch in segment.batches:
            assert segment.base_offset <= batch.base_offset <= batch.last_offset < next_base
            assert batch.size_bytes == uncompressed_batch_size(batch.base_offset, batch.base_timestamp, batch.records)
        # segment.bytes is only exceeded by a segment holding a single oversized batch
        assert segment.size_bytes <= log.config.segment_bytes or len(segment.batches) == 1
    assert log.log_end_offset == (offsets[-1] + 1 if offsets else 0)
    assert log.size_bytes == sum(b.size_bytes for b in log.batches())
