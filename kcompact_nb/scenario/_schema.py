"""The JSON Schema (draft 2020-12) of scenario files, shipped as package data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_SCHEMA = Path(__file__).with_name("scenario.schema.json")


def schema_path() -> Path:
    """Path of ``scenario.schema.json``."""
    return _SCHEMA


def schema() -> dict[str, Any]:
    """The scenario JSON Schema as a dict (for ``jsonschema.validate``, editors, docs)."""
    loaded: dict[str, Any] = json.loads(_SCHEMA.read_text(encoding="utf-8"))
    return loaded
