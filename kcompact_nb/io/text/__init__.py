"""Kafka's text formats read into records: ``kafka-dump-log.sh`` output and kcat output (``-J`` and ``-f``), and
what a consumer's offsets tell about the last compaction (gaps)."""

from __future__ import annotations

from kcompact_nb.io.text._config_text import (
    TOPIC_SCOPED,
    ConfigSettings,
    ResolvedConfigs,
    parse_config_text,
    resolve_configs,
)
from kcompact_nb.io.text._dump_text import DumpLogParse, ParsedSegment, parse_dump_log, read_dump_log
from kcompact_nb.io.text._gaps import CompactionGap, format_gap_report, last_compaction_gap
from kcompact_nb.io.text._kcat import read_kcat
from kcompact_nb.io.text._kcat_format import KcatFormat, compile_kcat_format
from kcompact_nb.io.text._kcat_json import parse_kcat_json
from kcompact_nb.io.text._kcat_records import UNKNOWN_PARTITION, ConsumedRecord, KcatParse
from kcompact_nb.io.text._kcat_text import parse_kcat_format

__all__ = [
    "TOPIC_SCOPED",
    "ConfigSettings",
    "ResolvedConfigs",
    "parse_config_text",
    "resolve_configs",
    "CompactionGap",
    "ConsumedRecord",
    "DumpLogParse",
    "KcatFormat",
    "KcatParse",
    "ParsedSegment",
    "UNKNOWN_PARTITION",
    "compile_kcat_format",
    "format_gap_report",
    "last_compaction_gap",
    "parse_dump_log",
    "parse_kcat_format",
    "parse_kcat_json",
    "read_dump_log",
    "read_kcat",
]
