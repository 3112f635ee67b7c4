"""A broker's cleaner run forward under a produce model: :func:`forecast` and the :class:`Forecast` it returns.

Two ways to run, both with the engine's own cleaner (selection among partitions, passes, back-off, threads, the
I/O throttle, retention):

- **exact**: every record the model draws, in the batches its producer makes, appended at its time;
- **folded** (:mod:`kcompact_nb.core.forecasting._folded_stream`): for loads too large to draw record by record,
  each segment's records are drawn by key, the records a later one in the same segment supersedes are folded
  into one record per stretch that carries their bytes, and big key spaces are sampled. What is exact there and
  what is aggregated, with the error measured against exact runs, is in ``docs/forecast.md``.

A pass's duration is the machine's (``CleanerSpeed``, measured from a real broker's passes) or the throttle's,
the longer; :data:`MEASURED_SPEED` is this project's measurement.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kcompact_nb.core.cleaner import CleanerSpeed
from kcompact_nb.core.forecasting._compression import compression_ratio
from kcompact_nb.core.forecasting._exact_stream import exact_events
from kcompact_nb.core.forecasting._folded_run import RECORDS_BUDGET, folded_forecast
from kcompact_nb.core.forecasting._produce_model import DAY_MS, ProduceModel, ProduceModelError
from kcompact_nb.core.forecasting._rate import RateCurve
from kcompact_nb.core.forecasting._results import Forecast
from kcompact_nb.core.forecasting._run import ForecastRun, forecast_result, new_simulation, speed_note

MEASURED_SPEED = CleanerSpeed(pass_ms=100.0, index_bytes_per_second=300e6, clean_bytes_per_second=200e6)
"""A Kafka 4.4.0 cleaner thread's pace on the 2-core machine this project is tested on (docs/forecast.md, "Pass
durations"): about 100 ms a pass however small (a live broker's passes over tens of KiB), and about 126 MB/s over a
whole dirty partition read twice (``bench/RESULTS.md``: Kafka's own pass over 1M and 5M records)."""
EXACT_RECORDS = 1_500_000
"""``mode="auto"`` runs exactly up to this many expected records, folded beyond."""
MODES = ("auto", "exact", "folded")


def forecast(
    model: ProduceModel,
    *,
    days: float | None = None,
    horizon_ms: int | None = None,
    broker: Mapping[str, Any] | None = None,
    topics: Mapping[str, Mapping[str, Any]] | None = None,
    start_ms: int = 0,
    mode: str = "auto",
    speed: CleanerSpeed | None = MEASURED_SPEED,
    grid_points: int = 400,
    budget: int = RECORDS_BUDGET,
) -> Forecast:
    """Run a broker's cleaner forward over ``days`` (or ``horizon_ms``) under ``model``.

    ``broker`` holds broker properties by Kafka's names; ``topics`` maps a topic to ``{"partitions": n,
    "config": {...}}`` (a model topic not named there gets one partition and ``cleanup.policy=compact``).
    ``start_ms`` is the epoch time the forecast starts at (where the daily cycle stands). ``mode`` is ``exact``,
    ``folded`` or ``auto`` (exact up to :data:`EXACT_RECORDS` expected records). ``speed`` is the cleaner's
    pace (None: passes take only the throttle's time). ``budget`` bounds a folded run's work (records appended,
    and rewritten by passes): a smaller one samples fewer keys, faster and less precise. ``grid_points`` samples
    each partition over the horizon (besides just before and after each pass).
    """
    horizon = _horizon(days, horizon_ms)
    if mode not in MODES:
        raise ProduceModelError(f"mode: {mode!r} is not allowed; expected {', '.join(MODES)}")
    declared = {name: dict(spec) for name, spec in (topics or {}).items()}
    for name in model.topics:
        declared.setdefault(name, {"partitions": 1, "config": {}})
    expected = {
        name: float(RateCurve.of(load, start_ms=start_ms, horizon_ms=horizon).expected(horizon))
        for name, load in model.topics.items()
    }
    chosen = mode if mode != "auto" else ("exact" if sum(expected.values()) <= EXACT_RECORDS else "folded")
    if chosen == "folded":
        return folded_forecast(model, broker, declared, start_ms, horizon, expected, speed, grid_points, budget)
    sim = new_simulation(broker, declared, start_ms=start_ms, speed=speed)
    ratios = {name: compression_ratio(load, sim.topics[name], model.seed, name) for name, load in model.topics.items()}
    run = ForecastRun(sim, model, start_ms, horizon, expected, grid_points=grid_points, ratios=ratios)
    partitions = {name: int(spec.get("partitions", 1)) for name, spec in declared.items()}
    run.play(exact_events(model, partitions, start_ms=start_ms, horizon_ms=horizon))
    notes = [
        "exact: every record the model draws, batched as its producer batches them, appended at its time; every "
        "selection, pass, back-off and retention is the simulated broker's",
        speed_note(speed),
    ]
    return forecast_result(run, sim.broker, declared, "exact", 1.0, speed, notes)


def _horizon(days: float | None, horizon_ms: int | None) -> int:
    if (days is None) == (horizon_ms is None):
        raise ProduceModelError("give days or horizon_ms (exactly one)")
    horizon = int(round(days * DAY_MS)) if days is not None else int(horizon_ms or 0)
    if horizon <= 0:
        raise ProduceModelError(f"horizon: {horizon} ms is not allowed; expected more than 0")
    return horizon
