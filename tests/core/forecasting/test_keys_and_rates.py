"""Keys (bytes, Kafka's murmur2 partitioner, Zipf draws) and rates (a daily cycle and bursts, integrated exactly)."""

from __future__ import annotations

import numpy
import pytest
from kafka.partitioner.default import murmur2 as kafka_python_murmur2

from kcompact_nb.core.forecasting import Burst, DailyCycle, RateCurve, TopicLoad, key_bytes, murmur2, partitions_of
from kcompact_nb.core.forecasting._keys import harmonic, key_digits, zipf_ids


@pytest.mark.parametrize("width", [1, 3, 4, 5, 7, 16, 23])
def test_murmur2_is_kafkas(width):
    """``Utils.murmur2`` (kafka-python's port of it as the reference), over every tail length of a 4-byte block."""
    ids = numpy.arange(min(10**width, 3000))
    digits = key_digits(ids, width)
    expected = numpy.array([kafka_python_murmur2(bytes(row)) for row in digits], dtype=numpy.int64)
    assert (murmur2(digits).astype(numpy.int64) == (expected + 2**31) % 2**32 - 2**31).all()
    assert bytes(digits[-1]) == key_bytes(int(ids[-1]), width)


def test_keyed_records_spread_over_partitions_as_the_default_partitioner_sends_them():
    ids = numpy.arange(60_000)
    parts = partitions_of(ids, width=16, partitions=6)
    expected = [(kafka_python_murmur2(key_bytes(i, 16)) & 0x7FFFFFFF) % 6 for i in range(0, 60_000, 997)]
    assert parts[::997].tolist() == expected
    assert numpy.bincount(parts).min() > 9_500  # about a sixth each


def test_zipf_draws_follow_their_weights_whatever_the_key_space_size():
    rng = numpy.random.default_rng(3)
    draws = zipf_ids(rng, numpy.full(400_000, 500.0), 1.2)
    weights = numpy.arange(1, 501.0) ** -1.2 / harmonic(500, 1.2)
    assert numpy.abs(numpy.bincount(draws, minlength=500) / 400_000 - weights).max() < 0.003
    grown = zipf_ids(rng, numpy.array([1.0, 2.0, 3.0] * 1000), 0.8)
    assert (grown < numpy.array([1, 2, 3] * 1000)).all()


def test_harmonic_numbers_beyond_a_million_terms():
    exact = float(numpy.sum(numpy.arange(1, 3_000_001, dtype=float) ** -1.1))
    assert harmonic(3_000_000, 1.1) == pytest.approx(exact, rel=1e-9)


def test_a_constant_rate_integrates_to_its_records():
    curve = RateCurve.of(TopicLoad(records_per_second=250, keys=1), start_ms=0, horizon_ms=60_000)
    assert curve.expected(60_000) == pytest.approx(15_000)
    assert curve.time_of(numpy.array([2_500.0]))[0] == pytest.approx(10_000, abs=1)


def test_a_daily_cycle_averages_to_the_rate_and_peaks_at_its_hour():
    load = TopicLoad(records_per_second=100, keys=1, daily_cycle=DailyCycle(0.5, peak_hour_utc=14))
    curve = RateCurve.of(load, start_ms=0, horizon_ms=86_400_000)
    assert curve.expected(86_400_000) == pytest.approx(8_640_000)
    hours = numpy.arange(24) * 3_600_000
    assert int(numpy.argmax(curve.rate_per_second(hours))) == 14
    assert curve.rate_per_second(hours).min() == pytest.approx(50)


def test_bursts_multiply_the_rate_while_they_last():
    load = TopicLoad(records_per_second=10, keys=1, bursts=(Burst(1_000, 500, 4.0, every_ms=3_000),))
    curve = RateCurve.of(load, start_ms=0, horizon_ms=6_000)
    # 6 s at 10/s, plus two half-second bursts at 3 times more
    assert curve.expected(6_000) == pytest.approx(60 + 2 * 0.5 * 10 * 3)
    grid = numpy.linspace(0, 6_000, 6_001)
    numeric = numpy.trapezoid(curve.rate_per_second(grid) / 1000, grid)
    assert curve.expected(6_000) == pytest.approx(numeric, rel=1e-3)
    counts = numpy.array([5.0, 20.0, 44.0])
    assert curve.expected(curve.time_of(counts)) == pytest.approx(counts, abs=0.05)
