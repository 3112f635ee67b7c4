"""Plain-language explanations: ranges and why, eligibility, when it would become eligible, tombstones."""

from __future__ import annotations

from kcompact_nb import explain, next_eligible_ms
from tests.conftest import compacted_log, rec
from tests.core.cleaner.test_cleaner_pass import one_pass


def test_active_segment_only_is_never_eligible_without_appends():
    log = compacted_log()
    log.append([rec("a"), rec("a")], now_ms=0)
    e = explain(log, now_ms=0)
    assert e.eligible_at_ms is None
    assert e.lines()[3] == (
        "  log head, uncleanable from 0: the active segment, never cleaned (it rolls only when records are appended)"
    )
    assert e.lines()[5] == (
        "  not eligible: nothing is cleanable, and while nothing is appended nothing becomes cleanable"
    )


def test_min_compaction_lag_gives_a_future_eligibility_time():
    log = compacted_log(min_compaction_lag_ms=1000)
    log.append([rec("a", timestamp=500)], now_ms=500)
    log.roll(now_ms=500)
    log.append([rec("b", timestamp=600)], now_ms=600)
    e = explain(log, now_ms=600)
    assert (
        "segment 0 is younger than min.compaction.lag.ms (1 s): its newest record, at t = 500 ms, is 100 ms old"
        in str(e)
    )
    # Kafka's cleanableOffsets: uncleanable while largestTimestamp > now - minCompactionLagMs, so eligible at 500 + 1000
    assert e.eligible_at_ms == next_eligible_ms(log, now_ms=600) == 1500
    assert "not eligible now; eligible at t = 1 s 500 ms (in 900 ms) if nothing else is produced" in str(e)
    assert e.lines()[:3] == [
        "t-0 at t = 600 ms:",
        "  log tail (cleaned): offsets below the cleaner point 0, 0 B",
        "  log head, cleanable: [0, 0), 0 B",
    ]


def test_open_transaction_is_named_as_the_bound():
    log = compacted_log()
    log.append([rec("a")], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("b")], now_ms=0, producer_id=1, producer_epoch=0, transactional=True)
    log.roll(now_ms=0)
    e = explain(log, now_ms=0)
    assert e.lines()[3] == (
        "  log head, uncleanable from 1: an open transaction holds the last stable offset at 1; "
        "its segment and all later ones wait"
    )
    assert e.lines()[5] == "  eligible now: its dirty ratio is above the minimum"


def test_max_compaction_lag_makes_a_low_ratio_log_due():
    log = compacted_log(min_cleanable_dirty_ratio=0.99, max_compaction_lag_ms=1000)
    log.append([rec("a", timestamp=100)], now_ms=100)
    log.roll(now_ms=100)
    log.cleaner_checkpoint = 1
    log.append([rec("b", timestamp=200)], now_ms=200)
    log.roll(now_ms=200)
    assert next_eligible_ms(log, now_ms=300) == 1201  # KIP-354: overdue once now - maxCompactionLagMs > 200
    assert "eligible now: overdue per max.compaction.lag.ms" in str(explain(log, now_ms=1201))


def test_tombstones_before_and_after_stamping():
    log = compacted_log(delete_retention_ms=1000)
    log.append([rec("a", None)], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("b")], now_ms=0)
    assert explain(log, now_ms=0).lines()[-1] == (
        "  tombstone 'a' at offset 0: kept until its delete horizon: "
        "the pass stamps its delete horizon: t = 1 s (pass time + delete.retention.ms, 1 s); "
        "stays while nothing is appended"
    )
    one_pass(log, now_ms=50)
    later = explain(log, now_ms=60)
    assert later.lines()[-1] == (
        "  tombstone 'a' at offset 0: kept until its delete horizon: delete horizon t = 1 s 50 ms, 990 ms from now; "
        "stays while nothing is appended"
    )
    # Nothing is cleanable now ([1, 1)): no pass runs, whatever the horizon; at another time only the horizon speaks.
    assert explain(log, now_ms=2000).lines()[-1] == (
        "  tombstone 'a' at offset 0: past its delete horizon, kept: no pass reaches it now: "
        "delete horizon t = 1 s 50 ms has passed; nothing is cleanable, so no pass runs: the log head is uncleanable "
        "from 1: the active segment, never cleaned (it rolls only when records are appended); "
        "stays while nothing is appended"
    )
    assert later.tombstones[0].describe(2000) == (
        "tombstone 'a' at offset 0: delete horizon t = 1 s 50 ms has passed: the first pass that reaches it removes it"
    )


def test_streamed_tombstones_say_what_their_horizon_alone_says():
    """Batches streamed from files (``batches=``): no pass is run, the horizon facts hold for any pass."""
    log = compacted_log(delete_retention_ms=1000)
    log.append([rec("a", None)], now_ms=0)
    log.roll(now_ms=0)
    log.append([rec("b")], now_ms=0)
    assert explain(log, now_ms=0, batches=log.batches()).lines()[-1] == (
        "  tombstone 'a' at offset 0: not stamped yet; the first pass that reaches and keeps it stamps its "
        "delete horizon (pass time + delete.retention.ms)"
    )


def test_unset_max_compaction_lag_never_makes_a_low_ratio_log_due():
    """max.compaction.lag.ms unset (Long.MaxValue): a ratio at the minimum stays ineligible.

    Never 'eligible at 9.2e18 ms'.
    """
    log = compacted_log()
    log.append([rec("a", timestamp=100)], now_ms=100)
    log.roll(now_ms=100)
    log.cleaner_checkpoint = 1
    log.append([rec("b", timestamp=200)], now_ms=200)
    log.roll(now_ms=200)
    assert next_eligible_ms(log, now_ms=300) is None
    never = "not eligible: the dirty ratio is not above the minimum, and while nothing is appended it never will be"
    assert never in str(explain(log, now_ms=300))
