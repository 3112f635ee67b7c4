"""A produce model played into a simulated broker over a stretch of time, its cleaner running in between.

What a scenario's ``produce`` step and the live-broker proof do: the model's exact stream (its time 0 at
``start_ms``) appended batch by batch at each batch's time, a :class:`CleanerLoop` run up to each append, and on to
the end of the stretch. Nothing is followed beside the logs (:func:`forecast` does that).
"""

from __future__ import annotations

from dataclasses import dataclass

from kcompact_nb.core.cleaner import CleanerLoop, PassResult
from kcompact_nb.core.forecasting._appender import Appender
from kcompact_nb.core.forecasting._events import ProducedBatch
from kcompact_nb.core.forecasting._exact_stream import exact_events, topic_rng
from kcompact_nb.core.forecasting._produce_model import ProduceModel
from kcompact_nb.core.forecasting._run import VALUE_STREAM
from kcompact_nb.core.simulation import Simulation


@dataclass(frozen=True)
class Played:
    """What a stretch of a produce model appended, and the passes the cleaner made meanwhile."""

    batches: int
    records: int
    markers: int
    passes: list[PassResult]


def play_model(
    sim: Simulation, model: ProduceModel, *, start_ms: int, from_ms: int, until_ms: int, horizon_ms: int
) -> Played:
    """Append the batches and markers of ``model`` due in ``(from_ms, until_ms]`` (epoch ms; the model starts at
    ``start_ms`` and is drawn over ``horizon_ms``) to ``sim``'s topics, the cleaner running from ``from_ms``; the
    clock ends at ``until_ms``. Every stretch of the same model draws from the same stream."""
    partitions = {name: sum(1 for log in sim.partitions() if log.topic == name) for name in model.topics}
    appenders = {
        name: Appender(load.key_bytes, load.value_compressibility, start_ms, topic_rng(model.seed, name, VALUE_STREAM))
        for name, load in model.topics.items()
    }
    loop = CleanerLoop(sim.cleaner, from_ms)
    logs = sim.partitions_in_creation_order()
    batches = records = markers = 0
    for chunk in exact_events(model, partitions, start_ms=start_ms, horizon_ms=horizon_ms):
        for event in chunk:
            at = start_ms + event.append_ms
            if at <= from_ms and from_ms > start_ms:
                continue  # appended by the stretch before
            if at > until_ms:
                break
            loop.run_until(logs, at)
            sim.set_time(max(sim.now_ms, at))
            log = sim.log(event.topic, event.partition)
            if isinstance(event, ProducedBatch):
                appenders[event.topic].append(log, event)
                batches, records = batches + 1, records + len(event)
            else:
                appenders[event.topic].append_marker(log, event)
                markers += 1
    loop.run_until(logs, until_ms)
    sim.set_time(until_ms)
    return Played(batches, records, markers, loop.passes)
