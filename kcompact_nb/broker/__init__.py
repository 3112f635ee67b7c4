"""A real Kafka broker from Maven-resolved jars: start/stop, workloads, waiting for its cleaner.

Optional layer: needs ``java`` (17+) and, once per Kafka version, ``mvn``. Not imported by ``kcompact_nb``.
"""

from __future__ import annotations

from kcompact_nb.broker._broker import KafkaBroker
from kcompact_nb.broker._classpath import (
    DEFAULT_VERSION,
    KAFKA_3_VERSION,
    classpath_dir,
    missing_tools,
    resolve_classpath,
)
from kcompact_nb.broker._errors import BrokerError

__all__ = [
    "DEFAULT_VERSION",
    "KAFKA_3_VERSION",
    "BrokerError",
    "KafkaBroker",
    "classpath_dir",
    "missing_tools",
    "resolve_classpath",
]
