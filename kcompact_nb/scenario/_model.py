"""A parsed, validated scenario: what the runner executes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kcompact_nb.core import ProduceModel

FORMAT = "kcompact-scenario/1"
RESULT_FORMAT = "kcompact-scenario-result/1"


@dataclass(frozen=True)
class TopicSpec:
    """A declared topic: its partition count and its config overrides (Kafka property names)."""

    partitions: int
    config: Mapping[str, Any]


@dataclass(frozen=True)
class Step:
    """One validated step; ``args`` holds converted values (bytes, records) with topic and partition resolved."""

    index: int
    op: str
    args: Mapping[str, Any]

    @property
    def path(self) -> str:
        return f"steps[{self.index}]"


@dataclass(frozen=True)
class Scenario:
    """A ``kcompact-scenario/1`` document after validation; ``base_dir`` resolves relative paths."""

    name: str
    description: str
    start_ms: int
    broker: Mapping[str, Any]
    topics: Mapping[str, TopicSpec]
    steps: tuple[Step, ...]
    base_dir: Path | None = field(default=None, compare=False)
    produce: ProduceModel | None = None
    """The produce model ``produce`` steps play and ``kcompact forecast`` runs forward (docs/forecast.md)."""
