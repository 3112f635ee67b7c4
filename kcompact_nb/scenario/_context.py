"""What validation knows while it walks a scenario's steps (shared by the document parser and the step parsers)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kcompact_nb.core import BrokerConfig, ProduceModel, TopicConfig
from kcompact_nb.scenario._errors import ScenarioError
from kcompact_nb.scenario._fields import check_int, check_str, join


@dataclass
class ParseContext:
    """What validation knows while it walks the steps: configs, partitions, clock, labels."""

    broker_properties: dict[str, Any]
    broker: BrokerConfig
    topic_properties: dict[str, dict[str, Any]]
    topics: dict[str, TopicConfig]
    partitions: dict[str, int]
    now_ms: int
    base_dir: Path | None
    labels: set[str] = field(default_factory=set)
    produce: ProduceModel | None = None
    """The scenario's produce model, which ``produce`` steps play."""

    def target(self, raw: Mapping[str, Any], path: str) -> tuple[str, int]:
        """The step's (topic, partition): ``topic`` may be omitted when there is exactly one."""
        if "topic" in raw:
            topic = check_str(raw["topic"], join(path, "topic"))
            if topic not in self.topics:
                known = ", ".join(sorted(self.topics))
                raise ScenarioError(join(path, "topic"), f"topic {topic!r} is not declared in topics ({known})")
        elif len(self.topics) == 1:
            topic = next(iter(self.topics))
        else:
            raise ScenarioError(join(path, "topic"), "missing: the scenario declares several topics")
        count = self.partitions[topic]
        partition = check_int(raw.get("partition", 0), join(path, "partition"), minimum=0, maximum=count - 1)
        return topic, partition
