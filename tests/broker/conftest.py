"""Fixtures for tests against a real Kafka broker: one session-scoped broker per Kafka line."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kcompact_nb.broker import DEFAULT_VERSION, KAFKA_3_VERSION, KafkaBroker, admin_client
from kcompact_nb.maven import missing_tools

#: The two Kafka lines the project checks its simulator against (spec section 15).
BROKER_VERSIONS = (DEFAULT_VERSION, KAFKA_3_VERSION)

#: Fixed record timestamps (2026-01-01T00:00:00Z) so time-based rolls follow the workload, not the clock.
BASE_TS_MS = 1_767_225_600_000


def require_java_and_maven() -> None:
    """Skip when the broker cannot be run at all: it needs ``java`` and, to resolve jars, ``mvn``."""
    missing = missing_tools()
    if missing:
        pytest.skip(f"real-broker tests need {' and '.join(missing)} on PATH (Java 17+, Maven 3)")


def topic_refusal(broker: KafkaBroker, topic: str, configs: dict[str, str]) -> str | None:
    """The broker's CreateTopics error message for a topic with ``configs``, or None when it creates it."""
    from kafka.admin import NewTopic

    with admin_client(broker) as admin:
        response = admin.create_topics([NewTopic(topic, 1, 1, topic_configs=configs)], raise_errors=False)
    (result,) = response["topics"]
    return None if result["error_code"] == 0 else str(result["error_message"])


@pytest.fixture(scope="session", params=BROKER_VERSIONS, ids=lambda v: f"kafka-{v}")
def kafka_broker(request: pytest.FixtureRequest) -> Iterator[KafkaBroker]:
    """A running single-node KRaft broker of each version, shared by the session, stopped at its end."""
    require_java_and_maven()
    with KafkaBroker(request.param) as broker:
        yield broker


@pytest.fixture
def topic_name(request: pytest.FixtureRequest) -> str:
    """A topic name unique to the test (brokers are shared by the session)."""
    return "t-" + request.node.name.split("[")[0].removeprefix("test_").replace("_", "-")
