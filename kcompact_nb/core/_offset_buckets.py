"""Column contract of offset-bucketed partition summaries (drawing large partitions without collecting them).

One row per (topic, partition, bucket): records in ``[start_offset, end_offset)`` counted by fate.
The core computes it from a :class:`PartitionLog`, Spark from a DataFrame; figures read either.

========== =====================================================================
column      meaning
========== =====================================================================
topic       topic name
partition   partition number
bucket      bucket index, 0-based from the partition's first offset
start_offset first offset of the bucket (inclusive)
end_offset  end of the bucket (exclusive)
records     data records in the bucket (control records excluded)
size_bytes  sum of the records' v2 sizes (``record_size_bytes``), batch overheads excluded
live        records that are the latest of their key and not tombstones
superseded  records with a later record of the same key in the partition
tombstones  records that are the latest of their key and tombstones
========== =====================================================================
"""

from __future__ import annotations

OFFSET_BUCKET_COLUMNS: tuple[str, ...] = (
    "topic",
    "partition",
    "bucket",
    "start_offset",
    "end_offset",
    "records",
    "size_bytes",
    "live",
    "superseded",
    "tombstones",
)
