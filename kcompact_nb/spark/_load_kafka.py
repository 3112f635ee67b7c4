"""A live topic through Spark's Kafka source (``format("kafka")``, docs/real-broker.md, section 5), in the record
schema."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kcompact_nb.spark._schema import ESTIMATE_METADATA_KEY, validate_records
from kcompact_nb.spark._sizes import SIZE_ESTIMATE_NOTE, estimated_record_size


def load_kafka(
    spark: SparkSession,
    bootstrap_servers: str,
    topics: str | Sequence[str],
    *,
    starting_offsets: str = "earliest",
    ending_offsets: str = "latest",
    options: Mapping[str, str] | None = None,
) -> DataFrame:
    """Batch-read ``topics`` from a broker with headers, in the record schema.

    Needs a session started with ``spark_session(kafka=True)``. Records come as a consumer with
    ``isolation.level=read_uncommitted`` sees them (Spark's default): markers never, aborted data
    until the cleaner removes it. Batch columns are null; ``record_size_bytes`` is an estimate
    (column metadata ``kcompact.estimate`` says how, see :func:`kcompact_nb.spark.estimate_note`).
    Compaction gaps are not data loss: the source skips them (docs/real-broker.md, section 5).

    Parameters
    ----------
    bootstrap_servers : ``host:port[,host:port]`` (``kafka.bootstrap.servers``).
    topics : a topic name or several (``subscribe``).
    starting_offsets, ending_offsets : the source's ``startingOffsets`` / ``endingOffsets``
        (JSON per partition allowed).
    options : further source options (``kafka.security.protocol``...), they win over the ones here.
    """
    names = [topics] if isinstance(topics, str) else list(topics)
    reader = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap_servers)
        .option("subscribe", ",".join(names))
        .option("startingOffsets", starting_offsets)
        .option("endingOffsets", ending_offsets)
        .option("includeHeaders", "true")
    )
    for key, value in (options or {}).items():
        reader = reader.option(key, value)
    return with_estimated_sizes(reader.load())


def with_estimated_sizes(df: DataFrame) -> DataFrame:
    """``df`` in the record schema with ``record_size_bytes`` estimated and labelled as an estimate."""
    # Columns by name, not df["key"]: Spark Connect resolves df[...] against df's plan, not the dropped one below.
    size = estimated_record_size(F.col("key"), F.col("value"), F.col("headers"))
    labelled = size.alias("record_size_bytes", metadata={ESTIMATE_METADATA_KEY: SIZE_ESTIMATE_NOTE})
    return validate_records(df.drop("record_size_bytes").select("*", labelled))
