"""Views that explain a log: what the next pass does to each record and why, tables, layouts, histories, and
core values as rows for documents (partition, record, ``LogToClean``, ``PassResult``).

Read-only: nothing here changes a log (a pass that a view needs runs on a copy). Imports the other
parts of core.
"""

from __future__ import annotations

from kcompact_nb.core.views._across_frames import DirtinessPoint, RecordLifetime, dirtiness_series, record_lifetimes
from kcompact_nb.core.views._dedupe_buffer_sizing import DedupeBufferSizing, dedupe_buffer_sizing
from kcompact_nb.core.views._explain import Explanation, TombstoneFate, explain
from kcompact_nb.core.views._log_table import batch_facts, log_table
from kcompact_nb.core.views._next_pass import (
    NextPass,
    Outcome,
    RecordKind,
    RecordOutcome,
    next_pass,
    transaction_states,
)
from kcompact_nb.core.views._offset_buckets import (
    OFFSET_BUCKET_COLUMNS,
    OffsetBucket,
    OffsetBucketTally,
    offset_buckets,
)
from kcompact_nb.core.views._partition_layout import (
    BatchSpan,
    LayoutScale,
    LayoutView,
    LogPart,
    layout_scale,
    layout_view,
    log_parts,
    offset_gaps,
)
from kcompact_nb.core.views._pass_view import (
    OffsetMapEntry,
    OffsetMapView,
    PassDiff,
    filthiest,
    offset_map_view,
    pass_diff,
)
from kcompact_nb.core.views._rows import (
    json_bytes,
    log_to_clean_row,
    partition_row,
    pass_result_row,
    record_row,
)
from kcompact_nb.core.views._segment_regions import SegmentRegion, regions_of, segment_regions
from kcompact_nb.core.views._uncleanable import UnreadableBatch, unreadable_batch_outcome

__all__ = [
    "batch_facts",
    "BatchSpan",
    "dedupe_buffer_sizing",
    "DedupeBufferSizing",
    "dirtiness_series",
    "DirtinessPoint",
    "explain",
    "json_bytes",
    "log_to_clean_row",
    "unreadable_batch_outcome",
    "UnreadableBatch",
    "Explanation",
    "filthiest",
    "layout_scale",
    "layout_view",
    "LayoutScale",
    "LayoutView",
    "log_parts",
    "log_table",
    "LogPart",
    "next_pass",
    "NextPass",
    "OFFSET_BUCKET_COLUMNS",
    "offset_buckets",
    "offset_gaps",
    "offset_map_view",
    "OffsetBucket",
    "OffsetBucketTally",
    "OffsetMapEntry",
    "OffsetMapView",
    "Outcome",
    "partition_row",
    "pass_diff",
    "pass_result_row",
    "PassDiff",
    "record_lifetimes",
    "record_row",
    "RecordKind",
    "RecordLifetime",
    "RecordOutcome",
    "regions_of",
    "segment_regions",
    "SegmentRegion",
    "TombstoneFate",
    "transaction_states",
]
