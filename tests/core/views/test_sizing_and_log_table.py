"""The dedupe buffer calculator against Kafka's SkimpyOffsetMap arithmetic, and the plain-text log table."""

from __future__ import annotations

import pytest

from kcompact_nb import ConfigError, OffsetMapSpec, dedupe_buffer_sizing, log_table, pass_frames
from kcompact_nb.core import Timeline
from tests.conftest import compacted_log, rec


def test_default_buffer_maps_about_five_million_keys():
    """128 MiB / 24 B = 5,592,405 slots, 90 % usable: the "~5 million keys" of the seed article."""
    sizing = dedupe_buffer_sizing(5_033_164)
    assert (sizing.keys_per_pass, sizing.passes) == (5_033_164, 1)
    assert dedupe_buffer_sizing(5_033_165).passes == 2


@pytest.mark.parametrize(
    ("keys", "entry_bytes", "threads", "passes", "one_pass_bytes"),
    [
        (20_000_000, 24, 1, 4, 533_333_352),
        (20_000_000, 32, 1, 6, 711_111_136),
        (20_000_000, 24, 4, 16, 4 * 533_333_352),
        (0, 24, 1, 0, 0),
        (100_000_000, 24, 1, 20, None),
    ],
)
def test_passes_and_one_pass_buffer(keys, entry_bytes, threads, passes, one_pass_bytes):
    sizing = dedupe_buffer_sizing(keys, entry_bytes=entry_bytes, threads=threads)
    assert (sizing.passes, sizing.buffer_bytes_for_one_pass) == (passes, one_pass_bytes)


def test_one_pass_buffer_is_the_smallest_that_fits():
    for keys in (2, 9, 10, 1_000, 123_457):
        needed = dedupe_buffer_sizing(keys).buffer_bytes_for_one_pass
        assert dedupe_buffer_sizing(keys, dedupe_buffer_size=needed).passes == 1
        assert dedupe_buffer_sizing(keys, dedupe_buffer_size=needed - 24).passes == 2


def test_sizing_agrees_with_the_simulated_passes():
    """30 distinct keys, 16 slots at 0.9 = 14 keys a pass: 3 passes, the last one maps 2 keys."""
    log = compacted_log(segment_bytes=1000, min_cleanable_dirty_ratio=0.01)
    for i in range(30):
        log.append([rec(f"k{i:02}", timestamp=0)], now_ms=0)
    log.roll(now_ms=0)
    frames = Timeline(pass_frames(log, now_ms=0, offset_map=OffsetMapSpec(slots=16))).compute_all()
    sizing = dedupe_buffer_sizing(30, dedupe_buffer_size=16 * 24)
    assert len(frames) - 1 == sizing.passes == 3
    assert frames[-1].passes[0].offset_map.utilization == sizing.utilization_of_last_pass == 2 / 16


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"distinct_keys": -1}, "distinct_keys must be at least 0"),
        ({"distinct_keys": 1, "load_factor": 0.0}, "log.cleaner.io.buffer.load.factor"),
        ({"distinct_keys": 1, "threads": 0}, "log.cleaner.threads"),
        ({"distinct_keys": 1, "dedupe_buffer_size": 10}, "holds no 24-byte entry"),
    ],
)
def test_bad_sizing_inputs_name_the_property(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        dedupe_buffer_sizing(**kwargs)


def test_log_table_rows_facts_and_next_pass():
    log = compacted_log(segment_bytes=1000)
    log.append([rec("grape", "$2.69", timestamp=0)], now_ms=0)
    log.append([rec("grape", None, timestamp=0)], now_ms=0)
    log.append([rec("a-very-long-key-name", "x", timestamp=0)], now_ms=0, producer_id=7, producer_epoch=0)
    assert log_table(log, now_ms=0).splitlines() == [
        "segment     offset  key           value             batch  next pass",
        "0* (240 B)  0       grape         $2.69             -      not reached",
        "            1       grape         null (tombstone)  -      awaiting horizon",
        "            2       a-very-long…  x                 pid=7  kept",
        "* active segment",
    ]
    assert log_table(log).splitlines()[0].split() == ["segment", "offset", "key", "value", "batch"]


def test_log_table_shows_the_delete_horizon_in_human_units():
    """The horizon a pass stamps (pass time + delete.retention.ms, spec 7.4) on a simulated and a wall clock."""
    for now_ms, shown in ((0, "horizon t = 1 d"), (1_767_225_600_000, "horizon 2026-01-02T00:00:00Z")):
        log = compacted_log(segment_bytes=1000, min_cleanable_dirty_ratio=0.01)
        log.append([rec("grape", None, timestamp=now_ms)], now_ms=now_ms)
        log.roll(now_ms=now_ms)
        (frame,) = list(pass_frames(log, now_ms=now_ms))[1:]
        assert f"null (tombstone)  {shown}" in log_table(frame.log)
