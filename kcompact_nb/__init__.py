"""kcompact_nb: see, predict and test Apache Kafka log compaction.

Importing the package loads nothing else: the names below load the core and the record format beneath it (the
standard library, numpy and the codecs' bindings) when first used; Spark, plotly and ipywidgets are imported by
their own subpackages when used. This face lists what users call from notebooks and scripts: building and
simulating logs, the explanations, units for people.
Everything else of the core, plumbing included, is on :mod:`kcompact_nb.core`'s face; each layer has its own
(``kcompact_nb.record``, ``kcompact_nb.io``, ``kcompact_nb.viz``, ...).

Nothing is wired at import: importing any module of the package, in any order, changes no results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kcompact_nb.core import (
        BrokerConfig,
        Burst,
        ConfigError,
        DailyCycle,
        InvalidRecordError,
        KcompactError,
        NewRecord,
        OffsetMapSpec,
        PartitionLog,
        ProduceModel,
        ProducerModel,
        Simulation,
        Strategy,
        Timeline,
        TopicConfig,
        TopicLoad,
        Transactions,
        ValueSizes,
        copy_log,
        dedupe_buffer_sizing,
        dirtiness_series,
        explain,
        filthiest,
        forecast,
        forecast_summary,
        format_bytes,
        format_duration_ms,
        format_instant_ms,
        layout_scale,
        lifetimes_table,
        log_table,
        log_to_clean,
        metrics_table,
        next_eligible_ms,
        next_pass,
        offset_buckets,
        offset_map_view,
        partition_table,
        pass_diff,
        pass_frames,
        record_lifetimes,
        segment_regions,
        strategy_for,
        table_text,
        thread_table,
        what_if_table,
    )

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "BrokerConfig",
    "Burst",
    "DailyCycle",
    "forecast",
    "forecast_summary",
    "lifetimes_table",
    "metrics_table",
    "partition_table",
    "table_text",
    "thread_table",
    "what_if_table",
    "ProduceModel",
    "ProducerModel",
    "TopicLoad",
    "Transactions",
    "ValueSizes",
    "ConfigError",
    "copy_log",
    "dedupe_buffer_sizing",
    "dirtiness_series",
    "explain",
    "filthiest",
    "format_bytes",
    "format_duration_ms",
    "format_instant_ms",
    "InvalidRecordError",
    "KcompactError",
    "layout_scale",
    "log_table",
    "log_to_clean",
    "NewRecord",
    "next_eligible_ms",
    "next_pass",
    "offset_buckets",
    "offset_map_view",
    "OffsetMapSpec",
    "PartitionLog",
    "pass_diff",
    "pass_frames",
    "record_lifetimes",
    "segment_regions",
    "Simulation",
    "Strategy",
    "strategy_for",
    "Timeline",
    "TopicConfig",
]


def __getattr__(name: str) -> object:
    """Load the core on first use of a name of this face (PEP 562), so that ``kcompact --version`` loads none of it."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from kcompact_nb import core

    value = getattr(core, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
