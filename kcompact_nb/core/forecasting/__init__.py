"""A broker's compaction forecast: a produce model, and the engine's cleaner run forward under it (not Kafka's).

:class:`ProduceModel` says what producers write to each topic (rates with a daily cycle and bursts, key spaces,
tombstone and update shares, value sizes, batching, idempotence, transactions, compression), seeded.
:func:`forecast` runs a simulated broker's cleaner over days or weeks under it, with the engine's own selection,
passes, back-off, threads, throttle and retention, exactly or, for big loads, folded (``docs/forecast.md``).
Imports :mod:`~kcompact_nb.core.model`, :mod:`~kcompact_nb.core.cleaner`, :mod:`~kcompact_nb.core.simulation` and
:mod:`~kcompact_nb.core.views`.
"""

from __future__ import annotations

from kcompact_nb.core.forecasting._events import ProducedBatch, TxnMarker
from kcompact_nb.core.forecasting._exact_stream import exact_events
from kcompact_nb.core.forecasting._forecast import EXACT_RECORDS, MEASURED_SPEED, forecast
from kcompact_nb.core.forecasting._keys import key_bytes, murmur2, partitions_of
from kcompact_nb.core.forecasting._play import Played, play_model
from kcompact_nb.core.forecasting._produce_model import (
    Burst,
    DailyCycle,
    ProduceModel,
    ProduceModelError,
    ProducerModel,
    TopicLoad,
    Transactions,
    ValueSizes,
)
from kcompact_nb.core.forecasting._rate import RateCurve
from kcompact_nb.core.forecasting._results import (
    Forecast,
    ForecastPass,
    KeepingUp,
    MetricReading,
    PartitionTimeline,
    RecordLifetimes,
)
from kcompact_nb.core.forecasting._summary import (
    forecast_summary,
    lifetimes_table,
    metrics_table,
    partition_table,
    passes_table,
    table_text,
    thread_table,
    what_if_table,
)

__all__ = [
    "Burst",
    "DailyCycle",
    "EXACT_RECORDS",
    "exact_events",
    "Forecast",
    "forecast",
    "forecast_summary",
    "lifetimes_table",
    "metrics_table",
    "partition_table",
    "passes_table",
    "table_text",
    "thread_table",
    "what_if_table",
    "ForecastPass",
    "KeepingUp",
    "key_bytes",
    "MEASURED_SPEED",
    "MetricReading",
    "murmur2",
    "PartitionTimeline",
    "play_model",
    "Played",
    "partitions_of",
    "ProducedBatch",
    "ProduceModel",
    "ProduceModelError",
    "ProducerModel",
    "RateCurve",
    "RecordLifetimes",
    "TopicLoad",
    "Transactions",
    "TxnMarker",
    "ValueSizes",
]
