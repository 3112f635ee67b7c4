"""kcompact_nb: see, predict and test Apache Kafka log compaction.

Importing the package loads the core (standard library and numpy) and io's codecs; Spark, plotly and
ipywidgets are imported by their own subpackages when used. This face lists what users call from notebooks
and scripts: building and simulating logs, the explanations, units for people. Everything else of the core,
plumbing included, is on :mod:`kcompact_nb.core`'s face; each layer has its own (``kcompact_nb.io``,
``kcompact_nb.viz``, ...).

This is also where the layers are wired together, once, whatever is imported first: every import of a
``kcompact_nb`` module runs this file before it, so core's logs size compressed batches with io's Kafka
encoder (Kafka's own bytes) from the start, never with core's estimate in one import order and Kafka's
bytes in another.
"""

from __future__ import annotations

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
    format_bytes,
    format_duration_ms,
    format_instant_ms,
    layout_scale,
    log_table,
    log_to_clean,
    next_eligible_ms,
    next_pass,
    offset_buckets,
    offset_map_view,
    pass_diff,
    pass_frames,
    record_lifetimes,
    segment_regions,
    strategy_for,
)
from kcompact_nb.core import set_default_encoder as _set_default_encoder
from kcompact_nb.io import KafkaBatchEncoder as _KafkaBatchEncoder

_set_default_encoder(_KafkaBatchEncoder())

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "BrokerConfig",
    "Burst",
    "DailyCycle",
    "forecast",
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
