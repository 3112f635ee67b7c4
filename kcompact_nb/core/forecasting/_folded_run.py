"""A folded forecast: how many keys to follow, the broker scaled to them, and the run over the folded stream.

Following every ``stride``-th key, the simulated broker is the real one scaled by ``1 / stride`` wherever a size
decides (``segment.bytes``, ``retention.bytes``, each thread's dedupe buffer, the I/O throttle, the cleaner's
speed), so segments roll, logs are chosen and passes take their time as the real broker's do; every byte the run
reports is scaled back. The stride is the smallest that keeps the run within a budget of appended batches and of
batches rewritten by passes, and never follows fewer than :data:`FOLLOWED_KEYS_LEAST` keys of a topic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy

from kcompact_nb.core.cleaner import CleanerSpeed, OffsetMapSpec, thread_map_memory_bytes
from kcompact_nb.core.forecasting._compression import compression_ratio
from kcompact_nb.core.forecasting._folded_stream import Folding, SegmentLimits, folded_events
from kcompact_nb.core.forecasting._keys import harmonic
from kcompact_nb.core.forecasting._produce_model import ProduceModel, TopicLoad
from kcompact_nb.core.forecasting._results import Forecast
from kcompact_nb.core.forecasting._run import ForecastRun, forecast_result, new_simulation, speed_note
from kcompact_nb.core.model import DOUBLE_MAX, BrokerConfig, KafkaVersion, TopicConfig
from kcompact_nb.record import record_size_of_lengths

RECORDS_BUDGET = 3_000_000
"""About how many records a folded run appends (its windows' winners) and its passes rewrite (the clean tail, pass
after pass), together."""
FOLLOWED_KEYS_LEAST = 2_000
_INTERNAL_SEGMENT_BYTES_FROM = KafkaVersion(4, 1)


def folded_forecast(
    model: ProduceModel,
    broker_properties: Mapping[str, Any] | None,
    topics: Mapping[str, Mapping[str, Any]],
    start_ms: int,
    horizon_ms: int,
    expected: Mapping[str, float],
    speed: CleanerSpeed | None,
    grid_points: int,
    budget: int = RECORDS_BUDGET,
) -> Forecast:
    """The folded run of :func:`~kcompact_nb.core.forecasting.forecast`."""
    broker = BrokerConfig.from_properties(dict(broker_properties or {}))
    configs = {
        name: TopicConfig.from_properties({"cleanup.policy": "compact", **spec.get("config", {})}, broker=broker)
        for name, spec in topics.items()
    }
    partitions = {name: int(spec.get("partitions", 1)) for name, spec in topics.items()}
    stride = choose_stride(model, configs, partitions, expected, horizon_ms, budget)
    ratios = {name: compression_ratio(load, configs[name], model.seed, name) for name, load in model.topics.items()}
    scaled = {
        name: {
            "partitions": partitions[name],
            "config": _scaled_topic(spec.get("config", {}), configs[name], broker, stride),
        }
        for name, spec in topics.items()
    }
    sim = new_simulation(
        _scaled_broker(broker_properties or {}, broker, stride),
        scaled,
        start_ms=start_ms,
        speed=None if speed is None else speed.scaled(1 / stride),
    )
    memory = thread_map_memory_bytes(broker) // stride
    sim.cleaner.map_spec = OffsetMapSpec(memory_bytes=memory, load_factor=broker.log_cleaner_io_buffer_load_factor)
    limits = {
        name: SegmentLimits(sim.topics[name].effective_segment_bytes, sim.topics[name].max_segment_ms)
        for name in model.topics
    }
    run = ForecastRun(
        sim, model, start_ms, horizon_ms, dict(expected), scale=1 / stride, grid_points=grid_points, ratios=ratios
    )
    folding = Folding(stride, model.seed % stride)
    run.play(folded_events(model, partitions, limits, folding, start_ms=start_ms, horizon_ms=horizon_ms, ratios=ratios))
    notes = _notes(model, stride, ratios) + [speed_note(speed)]
    return forecast_result(run, broker, topics, "folded", 1 / stride, speed, notes)


def choose_stride(
    model: ProduceModel,
    configs: Mapping[str, TopicConfig],
    partitions: Mapping[str, int],
    expected: Mapping[str, float],
    horizon_ms: int,
    budget: int = RECORDS_BUDGET,
) -> int:
    """The smallest stride whose run appends and rewrites about ``budget`` records at most together, but following at
    least
    :data:`FOLLOWED_KEYS_LEAST` keys of the smallest key space."""
    appended = rewrites = 0.0
    for name, load in model.topics.items():
        records = expected[name]
        per_window = _window_records(load, configs[name], partitions[name], records, horizon_ms)
        windows = records / max(per_window, 1.0)
        winners = _distinct_keys(load, per_window) + load.inserts * per_window
        appended += windows * winners
        rewrites += windows * _live_keys(load, records)
    stride = max(1, math.ceil((appended + rewrites) / budget))
    most = max(1, min(load.keys for load in model.topics.values()) // FOLLOWED_KEYS_LEAST)
    return min(stride, most)


def _window_records(load: TopicLoad, config: TopicConfig, partitions: int, records: float, horizon_ms: int) -> float:
    """Records of the topic while one partition fills a segment (by size or by ``segment.ms``)."""
    per_record = _record_size_of_lengths(load) + 61 / max(
        1.0, load.records_per_second / partitions * load.producer.linger_ms / 1000
    )
    by_size = config.effective_segment_bytes / per_record * partitions
    by_time = records * min(config.max_segment_ms, horizon_ms) / horizon_ms
    return min(by_size, by_time, records)


def _record_size_of_lengths(load: TopicLoad) -> float:
    value = round(load.value_bytes.mean_bytes)
    return float(record_size_of_lengths(1, 1, load.key_bytes, value))


def _distinct_keys(load: TopicLoad, records: float) -> float:
    """Expected distinct existing keys among ``records`` draws of the topic's key distribution."""
    share = (load.tombstone_share + load.updates) * records
    if load.key_distribution == "uniform":
        return load.keys * -math.expm1(-share / load.keys)
    ranks = numpy.unique(numpy.geomspace(1, load.keys, 4000).round())
    weights = ranks**-load.zipf_exponent / harmonic(load.keys, load.zipf_exponent)
    hit = -numpy.expm1(-share * weights)
    return float(numpy.trapezoid(hit, ranks) + hit[0])


def _live_keys(load: TopicLoad, records: float) -> float:
    return (load.keys + load.inserts * records) * (1 - load.tombstone_share)


def _scaled_topic(
    properties: Mapping[str, Any], config: TopicConfig, broker: BrokerConfig, stride: int
) -> dict[str, Any]:
    scaled = dict(properties)
    segment = max(1024, round(config.effective_segment_bytes / stride))
    if broker.version >= _INTERNAL_SEGMENT_BYTES_FROM:
        scaled["internal.segment.bytes"] = segment
    else:
        scaled["segment.bytes"] = segment
    if config.retention_bytes >= 0:
        scaled["retention.bytes"] = round(config.retention_bytes / stride)
    scaled["compression.type"] = "producer"  # sizes already carry the codec's ratio
    return scaled


def _scaled_broker(properties: Mapping[str, Any], broker: BrokerConfig, stride: int) -> dict[str, Any]:
    scaled = dict(properties)
    rate = broker.log_cleaner_io_max_bytes_per_second
    if rate < DOUBLE_MAX:
        scaled["log.cleaner.io.max.bytes.per.second"] = rate / stride
    return scaled


def _notes(model: ProduceModel, stride: int, ratios: Mapping[str, float]) -> list[str]:
    notes = [
        "folded: each partition's records are drawn by key a segment at a time; records superseded within their "
        "segment are folded into one record per stretch between kept batches, which carries their bytes and goes "
        "in the first pass over the segment; the latest record of each key is drawn exactly and sits in its "
        "batch at its offset, so what passes keep is laid out as in the real log (error measured against exact "
        "runs: docs/forecast.md)",
    ]
    if stride > 1:
        notes.append(
            f"sampled: one key in {stride:,} is followed and the broker scaled by 1/{stride:,} (segment bytes, "
            "retention bytes, dedupe buffer, throttle, speed); sizes and key counts are scaled back; keys with "
            "several records per segment are folded at their expected rate"
        )
    if any(load.producer.transactions for load in model.topics.values()):
        notes.append("transactions: one marker per sampled transaction; its data follows the folded stream")
    for name, ratio in ratios.items():
        if ratio != 1.0:
            notes.append(f"{name}: compressed sizes from the codec's ratio on sample batches ({ratio:.3f} of a value)")
    return notes
