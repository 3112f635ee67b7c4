"""A real Kafka broker from Maven-resolved jars: start/stop, workloads, waiting for its cleaner.

Optional layer: needs ``java`` (17+) and, once per Kafka version, ``mvn``. Releases 2.0-3.2 run in ZooKeeper
mode. Not imported by ``kcompact_nb``.
"""

from __future__ import annotations

from kcompact_nb.broker._broker import KafkaBroker
from kcompact_nb.broker._classpath import (
    DEFAULT_VERSION,
    KAFKA_3_VERSION,
    KRAFT_RELEASES,
    MATRIX_RELEASES,
    ZOOKEEPER_RELEASES,
    classpath_dir,
    release_line,
    resolve_classpath,
    uses_kraft,
)
from kcompact_nb.broker._cleaner import (
    cleaned_log_order,
    cleaned_sections,
    cleaner_checkpoint,
    copy_partition,
    dump_log_segments,
    log_creation_order,
    partition_dir,
    uncleanable_partitions,
    wait_for_cleaner,
)
from kcompact_nb.broker._consume import SPARK_KAFKA_COLUMNS, consume_rows, rows_to_jsonl
from kcompact_nb.broker._errors import BrokerError
from kcompact_nb.broker._jmx import cleaner_gauges
from kcompact_nb.broker._offsets import partition_offsets, wait_for_offsets
from kcompact_nb.broker._raw_produce import produce_encoded_batches, produce_timed_batches
from kcompact_nb.broker._server_config import CLEANER_LOGGERS, FAST_CLEANER_SETTINGS
from kcompact_nb.broker._workload import (
    COMPACTED_TOPIC_CONFIGS,
    admin_client,
    alter_broker_configs,
    alter_topic_configs,
    create_topic,
    produce,
    produce_batches,
    produce_transaction,
)

__all__ = [
    "CLEANER_LOGGERS",
    "COMPACTED_TOPIC_CONFIGS",
    "DEFAULT_VERSION",
    "FAST_CLEANER_SETTINGS",
    "KAFKA_3_VERSION",
    "KRAFT_RELEASES",
    "MATRIX_RELEASES",
    "SPARK_KAFKA_COLUMNS",
    "ZOOKEEPER_RELEASES",
    "BrokerError",
    "KafkaBroker",
    "admin_client",
    "alter_broker_configs",
    "alter_topic_configs",
    "classpath_dir",
    "cleaner_gauges",
    "cleaned_log_order",
    "uncleanable_partitions",
    "cleaned_sections",
    "cleaner_checkpoint",
    "consume_rows",
    "copy_partition",
    "create_topic",
    "dump_log_segments",
    "log_creation_order",
    "partition_dir",
    "partition_offsets",
    "produce",
    "produce_batches",
    "produce_encoded_batches",
    "produce_timed_batches",
    "produce_transaction",
    "release_line",
    "resolve_classpath",
    "rows_to_jsonl",
    "uses_kraft",
    "wait_for_cleaner",
    "wait_for_offsets",
]
