"""The cleaner threads' loop resumed across appends, the wakes it skips, and a machine's cleaning speed (spec 3, 11).

A :class:`CleanerLoop` run in pieces, appends in between, makes the passes one that never skipped a back-off wake
makes: the skips are an acceleration, the wakes that remain and what they find are the same.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kcompact_nb.core import BrokerConfig, CleanerManager, PartitionLog, TopicConfig, copy_log
from kcompact_nb.core.cleaner import CleanerLoop, CleanerSpeed
from kcompact_nb.core.simulation import next_eligible_ms
from tests.conftest import rec


def _log(broker: BrokerConfig, name: str = "t", **config: object) -> PartitionLog:
    properties = {"cleanup.policy": "compact", "segment.bytes": 300, **config}
    return PartitionLog(name, config=TopicConfig.from_properties(properties), broker=broker)


def _play(appends: list[tuple[int, int, str]], broker: BrokerConfig, *, skip: bool) -> list[tuple]:
    """Append ``(log index, time, key)`` in time order with the loop run in between; the passes it made."""
    logs = [_log(broker, "a"), _log(broker, "b", **{"min.compaction.lag.ms": 700})]
    manager = CleanerManager(broker)
    loop = CleanerLoop(manager, 0)
    if skip:
        loop.quiet_until = lambda now: min(
            [at for log in logs if (at := next_eligible_ms(log, now_ms=now)) is not None] + [10**9]
        )
    for index, at, key in appends:
        loop.run_until(logs, at)
        info = logs[index].append([rec(key, timestamp=at)], now_ms=at)
        if info.rolled:
            loop.changed(at)
    loop.run_until(logs, 20_000)
    return [(p.name, p.start_ms, p.first_dirty_offset, p.end_offset, p.log_line) for p in loop.passes]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 9_000), st.sampled_from("abcdefgh")), max_size=60),
    st.integers(1, 2),
    st.sampled_from([100, 1000, 2500]),
)
def test_skipping_idle_wakes_changes_no_pass(appends, threads, backoff):
    broker = BrokerConfig.from_properties({"log.cleaner.threads": threads, "log.cleaner.backoff.ms": backoff})
    appends = sorted(appends, key=lambda a: a[1])
    assert _play(appends, broker, skip=True) == _play(appends, broker, skip=False)


def test_a_loop_run_in_pieces_is_one_run():
    broker = BrokerConfig.from_properties({"log.cleaner.backoff.ms": 1000})
    logs = [_log(broker)]
    for t, key in enumerate("abababab"):
        logs[0].append([rec(key, timestamp=t)], now_ms=t)
    whole = CleanerManager(broker).run([copy_log(logs[0])], from_ms=0, until_ms=9000)
    loop = CleanerLoop(CleanerManager(broker), 0)
    pieces = [p for until in (10, 2500, 2501, 9000) for p in loop.run_until(logs, until)]
    assert [(p.start_ms, p.end_offset) for p in pieces] == [(p.start_ms, p.end_offset) for p in whole] == [(0, 6)]


def test_an_idle_thread_keeps_its_back_off_rhythm_across_appends():
    """Kafka's thread sleeps log.cleaner.backoff.ms after finding nothing: a roll at 1,500 ms is cleaned at the
    thread's next wake (2,000 ms), not at the append (spec 3)."""
    broker = BrokerConfig.from_properties({"log.cleaner.backoff.ms": 1000})
    log = _log(broker)
    loop = CleanerLoop(CleanerManager(broker), 0)
    loop.run_until([log], 1500)
    for key in "ababab":
        if log.append([rec(key, timestamp=1500)], now_ms=1500).rolled:
            loop.changed(1500)
    log.append([rec("z" * 200, timestamp=1500)], now_ms=1500)
    passes = loop.run_until([log], 5000)
    assert [p.start_ms for p in passes] == [2000]


def test_a_skipped_wake_comes_back_when_the_logs_change():
    broker = BrokerConfig.from_properties({"log.cleaner.backoff.ms": 1000})
    loop = CleanerLoop(CleanerManager(broker), 0, quiet_until=lambda now: 10**9)
    loop.run_until([], 1)
    assert loop.threads[0].next_ms == 10**9  # idle: nothing can change before then, as the caller says
    loop.changed(4500)
    assert loop.threads[0].next_ms == 5000  # the first back-off wake at or after the change


def test_a_machines_speed_makes_an_unthrottled_pass_take_time():
    """Not Kafka's: a pass takes pass_ms plus its map's bytes at one rate and the bytes it cleans at another."""
    speed = CleanerSpeed(pass_ms=10.0, index_bytes_per_second=316.0, clean_bytes_per_second=158.0)
    broker = BrokerConfig()
    log = _log(broker, **{"segment.bytes": 10**6})
    for key in "abab":
        log.append([rec(key, timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    manager = CleanerManager(broker, speed=speed)
    result = manager.clean_once([log], now_ms=1000)
    assert result is not None
    assert (result.stats.map_bytes_read, result.stats.bytes_read) == (316, 316)
    assert (result.stats.elapsed_index_secs, result.stats.elapsed_secs, result.end_ms) == (1.0, 3.01, 4010)


def test_the_throttle_wins_when_it_is_slower_than_the_machine():
    speed = CleanerSpeed(pass_ms=0.0, index_bytes_per_second=1e9, clean_bytes_per_second=1e9)
    broker = BrokerConfig.from_properties({"log.cleaner.io.max.bytes.per.second": 100.0})
    log = _log(broker, **{"segment.bytes": 10**6})
    for key in "abab":
        log.append([rec(key, timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    result = CleanerManager(broker, speed=speed).clean_once([log], now_ms=1000)
    assert result is not None and result.stats.elapsed_secs == 7.9  # (316 + 316 + 158) / 100, spec 11


def test_the_manager_keeps_what_kafkas_gauges_read():
    """max-dirty-percent reads the dirtiest considered log's ratio at the last selection (LogCleanerManager)."""
    broker = BrokerConfig()
    logs = [_log(broker, "a"), _log(broker, "b")]
    for key in "abab":
        logs[0].append([rec(key, timestamp=0)], now_ms=0)
    logs[0].roll(now_ms=0)
    manager = CleanerManager(broker)
    manager.clean_once(logs, now_ms=0)
    assert (manager.dirtiest_ratio, manager.max_compaction_delay_ms) == (1.0, 0)
    manager.clean_once(logs, now_ms=0)
    assert manager.dirtiest_ratio == 0.0


def _loop_outcome(appends: list[tuple[int, int, str, int]], broker: BrokerConfig, until_ms: int, *, skip: bool):
    """Append ``(log index, time, key, producer id)`` (0: none; a producer's sequence counts from 0), then run
    the loop from the last append to ``until_ms``: its passes, and each log's offsets, log start and producers."""
    logs = [
        _log(broker, "a", **{"max.compaction.lag.ms": 4_000}),
        _log(broker, "b", **{"min.compaction.lag.ms": 700, "delete.retention.ms": 2_000}),
        _log(broker, "c", **{"cleanup.policy": "compact,delete", "retention.ms": 6_000}),
    ]
    sequences: dict[tuple[int, int], int] = {}
    for index, at, key, producer in sorted(appends, key=lambda a: a[1]):
        sequence = sequences.get((index, producer), 0)
        sequences[index, producer] = sequence + 1
        value = None if key == "h" else "v"  # key h is a tombstone
        ids = {"producer_id": producer, "producer_epoch": 0, "base_sequence": sequence} if producer else {}
        logs[index].append([rec(key, value, timestamp=at)], now_ms=at, **ids)
    start = max((at for _, at, _, _ in appends), default=0)
    passes = CleanerManager(broker, started_ms=0).run(logs, from_ms=start, until_ms=until_ms, skip_idle=skip)
    ends = [(p.name, p.start_ms, p.first_dirty_offset, p.end_offset, p.log_line) for p in passes]
    for log in logs:
        offsets = [record.offset for batch in log.batches() for record in batch.records]
        ends.append((offsets, log.log_start_offset, sorted(log.producer_state.producers)))
    return ends


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 9_000), st.sampled_from("abcdefgh"), st.integers(0, 2)),
        max_size=40,
    ),
    st.integers(9_000, 40_000),
    st.sampled_from([100, 1000, 2500]),
)
def test_a_run_that_skips_idle_wakes_leaves_the_logs_as_a_run_that_wakes_at_every_back_off(appends, until, backoff):
    """``CleanerManager.run(skip_idle=True)`` (what ``Simulation.run_cleaner`` runs) against every back-off wake:
    the same passes, and every log the same at the end, its records, log start and producers (producer expiry is
    work a wake finds: an idle run must not end with producers a waking one expired)."""
    broker = BrokerConfig.from_properties(
        {
            "log.cleaner.backoff.ms": backoff,
            "producer.id.expiration.ms": 3_000,
            "producer.id.expiration.check.interval.ms": 1_000,
        }
    )
    assert _loop_outcome(appends, broker, until, skip=True) == _loop_outcome(appends, broker, until, skip=False)
