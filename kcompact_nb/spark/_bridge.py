"""The one bounded bridge between Spark and the core model.

:func:`to_partition_log` collects one partition (at most ``limit`` records, else an error) into a
:class:`~kcompact_nb.core.PartitionLog` for stepping through passes; :func:`logs_to_dataframe`
goes the other way for small core logs (tests, what-ifs).
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kcompact_nb.core import BrokerConfig, KcompactError, PartitionLog, TopicConfig
from kcompact_nb.spark._file_tasks import ARROW_SCHEMA, to_arrow
from kcompact_nb.spark._log_rows import columns_of, log_rows, rows_to_log
from kcompact_nb.spark._schema import RECORD_COLUMNS, RECORD_SCHEMA, require_columns

DEFAULT_RECORD_LIMIT = 100_000


class BridgeLimitError(KcompactError, ValueError):
    """A partition has more records than the bridge was allowed to collect."""


def to_partition_log(
    records: DataFrame,
    *,
    topic: str,
    partition: int,
    limit: int = DEFAULT_RECORD_LIMIT,
    config: TopicConfig | None = None,
    broker: BrokerConfig | None = None,
    cleaner_checkpoint: int | None = None,
) -> PartitionLog:
    """Collect one partition into a core :class:`PartitionLog` (``collect`` of at most ``limit`` + 1 rows).

    Rows become batches and segments as :mod:`~kcompact_nb.spark._rows_to_log` says (batches rebuilt
    uncompressed, so their sizes are v2 sizes of the records). Raises :class:`BridgeLimitError` past ``limit`` records.
    """
    require_columns(records, RECORD_COLUMNS, what="to_partition_log")
    chosen = records.filter((F.col("topic") == topic) & (F.col("partition") == partition))
    rows = chosen.select(*RECORD_COLUMNS).orderBy("offset").limit(limit + 1).toArrow()
    if rows.num_rows > limit:
        message = (
            f"{topic}-{partition} has more than {limit} records; the bridge collects at most limit={limit} "
            "(raise it deliberately, or filter an offset range first)"
        )
        raise BridgeLimitError(message)
    return rows_to_log(
        columns_of(rows), topic=topic, partition=partition, config=config, broker=broker,
        cleaner_checkpoint=cleaner_checkpoint,
    )  # fmt: skip


def logs_to_dataframe(spark: SparkSession, logs: Iterable[PartitionLog]) -> DataFrame:
    """Core logs as one record DataFrame (built on the driver: for small logs), control records included."""
    rows = [row for log in logs for row in log_rows(log)]
    table = pa.Table.from_batches([to_arrow(rows)]) if rows else ARROW_SCHEMA.empty_table()
    return spark.createDataFrame(table, schema=RECORD_SCHEMA)
