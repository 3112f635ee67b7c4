"""Produce record batches that are already encoded: one v2 batch per produce request, several in flight.

kafka-python's producer builds every record in Python and sends about 12,000 records/s here; sending
pre-encoded batches skips that, so a benchmark can load millions of records through the broker's own
append path (the broker still validates each batch and assigns its offsets, as for any producer).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from kafka.net.compat import KafkaNetClient
from kafka.protocol.producer import ProduceRequest

from ._broker import KafkaBroker
from ._errors import BrokerError

_NODE_ID = 1  # the single node of server_properties()
_TIMEOUT_MS = 30_000


def produce_encoded_batches(
    broker: KafkaBroker, topic: str, batches: Iterable[bytes], *, partition: int = 0, in_flight: int = 5
) -> int:
    """Send each v2 batch (its base offset is ignored; the broker assigns offsets) with ``acks=1``.

    Keeps up to ``in_flight`` requests outstanding. Returns the number of batches sent; raises
    :class:`BrokerError` on the first rejected batch.
    """
    return len(_send(broker, topic, ((None, partition, data) for data in batches), in_flight, None))


def produce_timed_batches(
    broker: KafkaBroker,
    topic: str,
    batches: Iterable[tuple[float, int, bytes]],
    *,
    clock: Callable[[], float],
    in_flight: int = 5,
) -> list[float]:
    """Send each ``(at_s, partition, v2 batch)`` no earlier than ``at_s`` by ``clock`` (the wall clock's epoch seconds,
    ``time.time``), in order, with ``acks=1``: a producer's batches at the times a produce model sends them. Returns
    the clock's reading as each batch went out (a loaded machine sends some late); raises :class:`BrokerError` on the
    first rejected batch."""
    return _send(broker, topic, batches, in_flight, clock)


def _send(
    broker: KafkaBroker,
    topic: str,
    batches: Iterable[tuple[float | None, int, bytes]],
    in_flight: int,
    clock: Callable[[], float] | None,
) -> list[float]:
    """Send each batch (at its time by ``clock``, or at once when it has none), ``in_flight`` requests at most; the
    clock's reading as each went out (0.0 without a clock)."""
    client = KafkaNetClient(bootstrap_servers=broker.bootstrap_servers)
    try:
        client.get_broker_version(timeout_ms=_TIMEOUT_MS)
        client.await_ready(_NODE_ID, timeout_ms=_TIMEOUT_MS)
        pending: deque[Any] = deque()
        sent: list[float] = []
        for at_s, partition, data in batches:
            while clock is not None and at_s is not None and (wait := at_s - clock()) > 0:
                client.poll(timeout_ms=max(1, int(wait * 1000)))
                while pending and pending[0].is_done:
                    _complete(client, pending.popleft(), topic)
            while not client.is_ready(_NODE_ID):
                client.poll(timeout_ms=100)
            sent.append(0.0 if clock is None else clock())
            pending.append(client.send(_NODE_ID, _produce_request(topic, partition, data)))
            if len(pending) >= in_flight:
                _complete(client, pending.popleft(), topic)
        while pending:
            _complete(client, pending.popleft(), topic)
        return sent
    finally:
        client.close()


def _produce_request(topic: str, partition: int, data: bytes) -> Any:
    topic_data = ProduceRequest.TopicProduceData
    records = topic_data.PartitionProduceData(index=partition, records=data)
    return ProduceRequest(
        transactional_id=None, acks=1, timeout_ms=_TIMEOUT_MS,
        topic_data=[topic_data(name=topic, partition_data=[records])], max_version=9,
    )  # fmt: skip


def _complete(client: Any, future: Any, topic: str) -> None:
    client.poll(timeout_ms=_TIMEOUT_MS, future=future)
    if not future.succeeded():
        raise BrokerError(f"produce to {topic!r} failed: {future.exception!r}")
    for response in future.value.responses:
        for part in response.partition_responses:
            if part.error_code:
                raise BrokerError(f"produce to {topic!r} rejected: error {part.error_code} {part.error_message}")
