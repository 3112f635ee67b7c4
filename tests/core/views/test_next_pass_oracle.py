"""Every reason ``next_pass`` gives is what a real pass does: a property over random logs.

Random logs of a few keys: data, tombstones, transactions (committed, aborted, left open), rolls, and
several rounds of appends each followed (or not) by a pass, under each strategy (offset, and KIP-280's
timestamp and header), with partial passes through a small offset map. Then, for every record:

- its outcome is the fate a pass run independently on a copy (``CleanerManager.clean_log``) gives it:
  removed exactly when absent afterwards;
- "superseded by X" names the pass's offset-map entry for its key; under the offset strategy that is its
  key's latest offset in the mapped range ``[first dirty, end offset)``, aborted data left out (spec 6.2);
- a record said to wait, or not to be reached, names what truly blocks it: no pass (nothing cleanable,
  and the bound that makes it so), the active segment, the first uncleanable offset, a full map, or a
  delete horizon in the future (with its time), or the horizon this pass stamps;
- the texts about one record agree: ``explain``'s tombstone line and the figure's hover say what
  ``next_pass`` says, and no text says a record is both removed and kept.
"""

from __future__ import annotations

import itertools
import os
import re
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kcompact_nb.core import (
    NewRecord,
    OffsetMapSpec,
    Outcome,
    PartitionLog,
    RecordKind,
    TopicConfig,
    explain,
    format_instant_ms,
    log_to_clean,
    next_pass,
    pass_frames,
)
from kcompact_nb.core.cleaner import CleanerManager, PassResult, strategy_for
from kcompact_nb.core.model import copy_log
from kcompact_nb.viz import layout_figure

EXAMPLES = int(os.environ.get("KCOMPACT_FUZZ_EXAMPLES", "80"))
KEYS = ("a", "b", "c", "d")
PRODUCERS = (1, 2)
SUPERSEDED = re.compile(r"superseded by offset (\d+)")

records = st.lists(
    st.tuples(
        st.sampled_from(KEYS),
        st.one_of(st.none(), st.sampled_from(["1", "22"])),  # None: a tombstone
        st.integers(0, 300),  # timestamp after the append time
        st.one_of(st.none(), st.integers(0, 3)),  # header version (KIP-280 header strategy)
    ),
    min_size=1,
    max_size=3,
)
operation = st.one_of(
    st.tuples(st.just("append"), records, st.sampled_from([None, None, *PRODUCERS])),  # producer: transactional
    st.tuples(st.just("end"), st.booleans(), st.sampled_from(PRODUCERS)),  # commit (True) or abort
    st.tuples(st.just("roll")),
)
rounds = st.lists(st.tuples(st.lists(operation, max_size=12), st.booleans()), min_size=1, max_size=4)
configs = st.fixed_dictionaries(
    {
        "segment.bytes": st.sampled_from([150, 300, 100_000]),
        "delete.retention.ms": st.sampled_from([0, 25, 400]),
        "min.compaction.lag.ms": st.sampled_from([0, 0, 200]),
        "compaction.strategy": st.sampled_from(["offset", "timestamp", "header"]),
    }
)
maps = st.one_of(st.none(), st.builds(lambda slots: OffsetMapSpec(slots=slots, load_factor=1.0), st.integers(1, 4)))


def build(config: dict[str, Any], plan: list, round_map: OffsetMapSpec | None) -> tuple[PartitionLog, int]:
    """The log after ``plan``'s rounds (each a list of operations, then a pass or not); returns it and the time."""
    props = {"cleanup.policy": "compact", "compaction.strategy.header": "v", **config}
    log = PartitionLog("t", config=TopicConfig.from_properties(props))
    now, open_txns = 0, set[int]()
    for operations, then_pass in plan:
        for op in operations:
            now += 10
            apply(log, op, now, open_txns)
        now += 100
        ltc = log_to_clean(log, now_ms=now)
        if then_pass and ltc.first_dirty_offset < ltc.first_uncleanable_offset:
            CleanerManager(log.broker).clean_log(log, now_ms=now, offset_map=round_map, force=True)
    return log, now


def apply(log: PartitionLog, op: tuple, now: int, open_txns: set[int]) -> None:
    """Append a batch (transactional when a producer is named), end a producer's open transaction, or roll."""
    if op[0] == "append":
        _, recs, producer = op
        new = [NewRecord(k.encode(), v if v is None else v.encode(), now + dt, _headers(ver)) for k, v, dt, ver in recs]
        if producer is None:
            log.append(new, now_ms=now)
        else:
            log.append(new, now_ms=now, producer_id=producer, producer_epoch=0, transactional=True)
            open_txns.add(producer)
    elif op[0] == "end" and op[2] in open_txns:
        log.append_end_txn_marker(op[2], 0, commit=op[1], now_ms=now)
        open_txns.discard(op[2])
    elif op[0] == "roll" and log.active_segment.batches:
        log.roll(now_ms=now)


def _headers(version: int | None) -> tuple[tuple[str, bytes], ...]:
    return () if version is None else (("v", struct.pack(">q", version)),)


def independent_pass(log: PartitionLog, now_ms: int, spec: OffsetMapSpec | None) -> tuple[PassResult | None, dict]:
    """Kafka's pass on a copy, run by the cleaner manager as the broker runs it; offset -> batch afterwards."""
    ltc = log_to_clean(log, now_ms=now_ms)
    if ltc.first_dirty_offset >= ltc.first_uncleanable_offset:
        return None, {r.offset: b for b, r in log.records()}
    work = copy_log(log)
    result = CleanerManager(work.broker).clean_log(work, now_ms=now_ms, offset_map=spec, force=True)
    return result, {r.offset: b for b, r in work.records()}


def mapped_latest(log: PartitionLog, start: int, end: int, aborted: set[int]) -> dict[bytes, int]:
    """Spec 6.2: each key's latest offset in ``[start, end)``, markers and aborted data left out."""
    latest: dict[bytes, int] = {}
    for batch, record in log.records():
        if start <= record.offset < end and not batch.is_control and batch.base_offset not in aborted:
            latest[record.key] = record.offset
    return latest


def blocker(log: PartitionLog, now_ms: int, offset: int, result: PassResult | None) -> str:
    """What keeps a pass from ``offset`` now, in words the reason must contain (spec 4.2, 6.3)."""
    fu = log_to_clean(log, now_ms=now_ms).first_uncleanable_offset
    active = log.active_segment.base_offset
    if result is not None and offset >= active:
        return "in the active segment, never cleaned"
    if result is not None and offset < fu:
        assert result.map_full and offset >= result.end_offset
        return f"at or above offset {result.end_offset}, where the pass stops: its offset map is full"
    lso, lag = log.last_stable_offset, log.config.min_compaction_lag_ms
    if lso < active and log.floor_segment(lso).base_offset == fu:
        cause = f"an open transaction holds the last stable offset at {lso}"
    elif fu < active:
        assert lag > 0 and log.floor_segment(fu).largest_timestamp > now_ms - lag
        cause = f"segment {fu} is younger than min.compaction.lag.ms"
    else:
        cause = "the active segment, never cleaned"
    if result is None:
        return f"nothing is cleanable, so no pass runs: the log head is uncleanable from {fu}: {cause}"
    return f"at or above the first uncleanable offset {fu}: {cause}"


def check_record(log, now_ms, outcome, result, after, aborted, entries) -> None:
    text = f"{outcome.outcome.value}: {outcome.reason}"
    offset = outcome.offset
    # 1. The fate is the pass's.
    assert (outcome.outcome is Outcome.REMOVED) == (offset not in after), text
    reached = result is not None and offset < result.end_offset
    # 2. "superseded by X" is the pass's offset-map entry for the key, in the mapped range.
    named = SUPERSEDED.search(outcome.reason)
    if named is not None:
        x = int(named.group(1))
        assert outcome.outcome is Outcome.REMOVED and outcome.superseded_by == x, text
        assert result is not None and x == _offset_of(result.offset_map.entries()[outcome.key]), text
        if strategy_for(log.config).ranks_by_offset:
            assert x == entries[outcome.key] and result.first_dirty_offset <= x < result.end_offset, text
    elif outcome.outcome is Outcome.REMOVED and outcome.kind is RecordKind.DATA:
        raise AssertionError(f"a removed data record must name the entry that superseded it: {text}")
    assert (outcome.kind is RecordKind.ABORTED) == (outcome.batch_base_offset in aborted), text
    if outcome.outcome is Outcome.REMOVED and outcome.kind is RecordKind.TOMBSTONE:
        batch, record = next((b, r) for b, r in log.records() if r.offset == offset)
        entry = result.offset_map.entries().get(outcome.key)
        outranked = entry is not None and strategy_for(log.config).rank(batch, record) < entry
        assert outranked == (named is not None), text
    # 3. A record not reached, or waiting, names its true blocker (and its time).
    if outcome.outcome in (Outcome.BEYOND, Outcome.DUE) or "not stamped yet" in outcome.reason:
        assert not reached, text
        assert blocker(log, now_ms, offset, result) in outcome.reason, text
    horizon = next(b for b, r in log.records() if r.offset == offset).delete_horizon_ms
    if outcome.outcome is Outcome.DUE:
        assert horizon is not None and horizon <= now_ms and format_instant_ms(horizon) in outcome.reason, text
    if outcome.outcome is Outcome.WAITING:
        stamped = after[offset].delete_horizon_ms
        if horizon is None and stamped is not None:
            assert stamped == now_ms + log.config.delete_retention_ms, text
            when = "pass time" if "the pass waits" in outcome.reason else format_instant_ms(stamped)
            assert f"the pass stamps its delete horizon: {when}" in outcome.reason, text
        elif horizon is not None:
            assert horizon > now_ms and f"delete horizon {format_instant_ms(horizon)}" in outcome.reason, text
    if "log end offset - 1" in outcome.reason:
        assert strategy_for(log.config).retains_log_end_record and offset == log.log_end_offset - 1, text
    if outcome.outcome is Outcome.NEWER_BEYOND:
        assert reached and outcome.superseded_by is not None, text
    # A pass over a non-empty range that does not run now (the log is not eligible) says so where it acts.
    eligible = log_to_clean(log, now_ms=now_ms).eligible
    acts = outcome.outcome is Outcome.REMOVED or "the pass stamps" in outcome.reason
    assert (acts and result is not None and not eligible) == ("the pass waits: not eligible" in outcome.reason), text
    # 4. No text says a record is both removed and kept.
    if outcome.outcome is Outcome.REMOVED:
        assert "kept" not in text and "no pass" not in text, text
    else:
        assert "removed" not in text and "removes it" not in text, text


def _offset_of(rank: Any) -> int:
    return int(rank[-1]) if isinstance(rank, tuple) else int(rank)


def aborted_bases(log: PartitionLog) -> set[int]:
    """Base offsets of aborted data batches, as the cleaner reads the transaction index (spec 7.3)."""
    return {
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


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@given(configs, rounds, maps, maps, st.integers(0, 600))
def test_every_reason_is_what_the_pass_does(config, plan, round_map, spec, later_ms):
    log, now = build(config, plan, round_map)
    now_ms = now + later_ms
    view = next_pass(log, now_ms=now_ms, offset_map=spec)
    result, after = independent_pass(log, now_ms, spec)
    assert (view.result is None) == (result is None)
    aborted = aborted_bases(log)
    entries = {} if result is None else mapped_latest(log, result.first_dirty_offset, result.end_offset, aborted)
    if result is not None and strategy_for(log.config).ranks_by_offset:
        assert {k: _offset_of(v) for k, v in result.offset_map.entries().items()} == entries
    assert [r.offset for r in view.records] == [r.offset for _, r in log.records()]
    for outcome in view.records:
        event(f"{outcome.kind.value}: {outcome.outcome.short}")
        check_record(log, now_ms, outcome, result, after, aborted, entries)
    # explain's tombstone lines and the figure's hovers say what next_pass says about the same record.
    said = {r.offset: f"{r.outcome.value}: {r.reason}" for r in view.records}
    hovers = {
        int(x): str(h)
        for trace in layout_figure(log, now_ms=now_ms, offset_map=spec).data
        if trace.hovertext is not None and trace.type == "bar" and len(trace.x) == len(trace.hovertext)
        for x, h in zip(trace.x, trace.hovertext, strict=True)
        if str(h).startswith("offset ") and "<br>" in str(h)
    }
    for offset, text in said.items():  # the hover wraps its lines at 80 characters (viz._arrays.wrapped_hovers)
        assert hovers[offset].split("<br>", 1)[1].replace("<br>", " ") == text
    default = {r.offset: f"{r.outcome.value}: {r.reason}" for r in next_pass(log, now_ms=now_ms).records}
    for tombstone in explain(log, now_ms=now_ms).tombstones:
        line = tombstone.describe(now_ms)
        assert line.endswith(f"at offset {tombstone.offset}: {default[tombstone.offset].removeprefix('tombstone ')}")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(configs, rounds, maps, maps, st.integers(0, 600))
def test_the_next_pass_read_from_the_frame_it_made_is_the_pass_run_again(config, plan, round_map, spec, later_ms):
    """A stepper's next step over a log's passes is the pass its layout shows coming: read from that frame, every
    record's fate and reason are those of the pass run again; a frame of another time is refused."""
    log, now = build({**config, "min.cleanable.dirty.ratio": 0.01}, plan, round_map)  # eligible when dirty
    now_ms = now + later_ms
    frames = list(itertools.islice(pass_frames(log, now_ms=now_ms, offset_map=spec), 2))
    event(f"{len(frames) - 1} pass(es) at now_ms")
    if len(frames) < 2:
        return
    read = next_pass(frames[0].log, now_ms=now_ms, offset_map=spec, next_frame=frames[1])
    run = next_pass(frames[0].log, now_ms=now_ms, offset_map=spec)
    assert (read.log_to_clean, read.records, read.end_offset) == (run.log_to_clean, run.records, run.end_offset)
    assert read.result is frames[1].passes[0]
    with pytest.raises(ValueError, match=r"^frame 1 \(pass 1: .*\) is not the next pass at"):
        next_pass(frames[0].log, now_ms=now_ms + 1, offset_map=spec, next_frame=frames[1])
    with pytest.raises(ValueError, match=r"^frame 0 \(start\) is not the next pass at"):
        next_pass(frames[0].log, now_ms=now_ms, offset_map=spec, next_frame=frames[0])
