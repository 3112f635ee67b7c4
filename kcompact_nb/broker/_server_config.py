"""Text of ``server.properties`` and the log configuration for a single-node broker (KRaft or ZooKeeper mode)."""

from __future__ import annotations

from collections.abc import Mapping

#: Cleaner loggers: ``kafka.log.*`` up to 4.0, ``org.apache.kafka.storage.internals.log.*`` from 4.1 (KAFKA-14485).
#: From 4.1 the per-pass summary ("cleaned log ... size reduction") comes from the nested ``LogCleaner$CleanerThread``,
#: which Log4j 2 does not treat as a child of ``LogCleaner`` (observed on 4.4.0).
CLEANER_LOGGERS = (
    "kafka.log.LogCleaner",
    "kafka.log.Cleaner",
    "kafka.log.LogCleanerManager",
    "org.apache.kafka.storage.internals.log.LogCleaner",
    "org.apache.kafka.storage.internals.log.LogCleaner$CleanerThread",
    "org.apache.kafka.storage.internals.log.Cleaner",
    "org.apache.kafka.storage.internals.log.LogCleanerManager",
)

#: Broker settings for a fast cleaner on a small machine (docs/real-broker.md, section 2).
FAST_CLEANER_SETTINGS: dict[str, str] = {
    "log.cleaner.threads": "1",
    "log.cleaner.backoff.ms": "100",
    "log.cleaner.dedupe.buffer.size": "8388608",
    "log.cleaner.io.buffer.size": "524288",
    "log.segment.delete.delay.ms": "100",
}

_SINGLE_NODE_SETTINGS: dict[str, str] = {
    "inter.broker.listener.name": "PLAINTEXT",
    "num.partitions": "1",
    "default.replication.factor": "1",
    "min.insync.replicas": "1",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "1",
    "group.initial.rebalance.delay.ms": "0",
    "auto.create.topics.enable": "false",
    "num.network.threads": "2",
    "num.io.threads": "2",
    "num.recovery.threads.per.data.dir": "1",
    "background.threads": "2",
}

_KRAFT_SETTINGS: dict[str, str] = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
}

_KAFKA4_ONLY_SETTINGS: dict[str, str] = {
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
}


def server_properties(
    *,
    port: int,
    log_dir: str,
    release: tuple[int, int],
    controller_port: int | None = None,
    zookeeper_connect: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> str:
    """``server.properties`` text of a single node on 127.0.0.1: KRaft (combined broker+controller, static
    single voter on ``controller_port``) or, given ``zookeeper_connect``, a ZooKeeper-mode broker ``1``.

    ``release`` is the broker's ``(major, minor)``: before 3.9 ``advertised.listeners`` must not name the
    controller listener (``KafkaConfig`` refuses it; 3.9 allows it for KIP-853's dynamic quorums).
    """
    settings = dict(_SINGLE_NODE_SETTINGS)
    if release >= (4, 0):
        settings.update(_KAFKA4_ONLY_SETTINGS)
    settings.update(FAST_CLEANER_SETTINGS)
    if zookeeper_connect is not None:
        settings.update(_zookeeper_mode(port, zookeeper_connect))
    elif controller_port is not None:
        settings.update(_kraft_mode(port, controller_port, release))
    else:
        raise ValueError("server_properties needs controller_port (KRaft) or zookeeper_connect (ZooKeeper mode)")
    settings["log.dirs"] = log_dir
    settings.update(overrides or {})
    return "".join(f"{name}={value}\n" for name, value in settings.items())


def _kraft_mode(port: int, controller_port: int, release: tuple[int, int]) -> dict[str, str]:
    advertised = f"PLAINTEXT://127.0.0.1:{port}"
    if release >= (3, 9):
        advertised += f",CONTROLLER://127.0.0.1:{controller_port}"
    return {
        **_KRAFT_SETTINGS,
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": advertised,
    }


def _zookeeper_mode(port: int, zookeeper_connect: str) -> dict[str, str]:
    # broker.id 1, as KRaft's node.id: alter_broker_configs addresses broker "1" in both modes
    return {
        "broker.id": "1",
        "zookeeper.connect": zookeeper_connect,
        "listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
    }


def log4j_properties() -> str:
    """reload4j (Kafka 2.x-3.x) configuration: ``server.log`` plus cleaner loggers in ``log-cleaner.log``."""
    lines = [
        "log4j.rootLogger=INFO, server",
        *_log4j_appender("server", "server.log"),
        *_log4j_appender("cleaner", "log-cleaner.log"),
        "log4j.logger.kafka.request.logger=WARN",
    ]
    for name in CLEANER_LOGGERS:
        lines += [f"log4j.logger.{name}=INFO, cleaner", f"log4j.additivity.{name}=false"]
    return "\n".join(lines) + "\n"


def _log4j_appender(name: str, file_name: str) -> list[str]:
    prefix = f"log4j.appender.{name}"
    return [
        f"{prefix}=org.apache.log4j.FileAppender",
        f"{prefix}.File=${{kafka.logs.dir}}/{file_name}",
        f"{prefix}.layout=org.apache.log4j.PatternLayout",
        f"{prefix}.layout.ConversionPattern=[%d] %p %m (%c)%n",
    ]


def log4j2_properties() -> str:
    """Log4j 2 (Kafka 4.x) configuration with the same two files as :func:`log4j_properties`."""
    lines = ["status = warn", *_log4j2_appender("server", "SERVER"), *_log4j2_appender("cleaner", "CLEANER")]
    lines += ["rootLogger.level = INFO", "rootLogger.appenderRef.server.ref = SERVER"]
    lines += ["logger.request.name = kafka.request.logger", "logger.request.level = WARN"]
    for index, name in enumerate(CLEANER_LOGGERS):
        key = f"logger.cleaner{index}"
        lines += [f"{key}.name = {name}", f"{key}.level = INFO", f"{key}.additivity = false"]
        lines += [f"{key}.appenderRef.c.ref = CLEANER"]
    return "\n".join(lines) + "\n"


def _log4j2_appender(name: str, ref: str) -> list[str]:
    file_name = "server.log" if name == "server" else "log-cleaner.log"
    prefix = f"appender.{name}"
    return [
        f"{prefix}.type = File",
        f"{prefix}.name = {ref}",
        f"{prefix}.fileName = ${{sys:kafka.logs.dir}}/{file_name}",
        f"{prefix}.layout.type = PatternLayout",
        f"{prefix}.layout.pattern = [%d] %p %m (%c)%n",
    ]
