"""A partition as plain text: one row per record (and per empty batch), for notebooks and terminals.

Plain text, not HTML, so notebook cells that print it can be compared by nbval.
"""

from __future__ import annotations

from kcompact_nb.core.model import PartitionLog, format_instant_ms
from kcompact_nb.core.views._next_pass import next_pass
from kcompact_nb.record import Record, RecordBatch, control_record_type

COLUMNS = ("segment", "offset", "key", "value", "batch", "next pass")


def log_table(log: PartitionLog, *, now_ms: int | None = None, max_chars: int = 12) -> str:
    """Every record of ``log`` by segment: offset, key, value, batch facts.

    With ``now_ms``, also what the next pass does to it. The ``batch`` column names the codec of a
    compressed batch, the producer (``pid``), ``txn`` and ``control`` batches, and the delete horizon
    stamped by a pass (``horizon t = 1 d``, spec 7.4); a batch that kept no record (spec 7.3) is one
    ``(empty batch)`` row. The ``next pass`` column is each record's :class:`Outcome` under
    :func:`next_pass` at ``now_ms`` (the broker's pass over the cleanable range), in its short words.
    Keys and values longer than ``max_chars`` are cut with ``…``.
    """
    fates = {r.offset: r.outcome.short for r in next_pass(log, now_ms=now_ms).records} if now_ms is not None else {}
    rows = [COLUMNS if now_ms is not None else COLUMNS[:-1]]
    active = log.active_segment.base_offset
    for segment in log.segments:
        size = f"~{segment.size_bytes} B, estimated" if segment.size_estimated else f"{segment.size_bytes} B"
        label = f"{segment.base_offset}{'*' if segment.base_offset == active else ''} ({size})"
        for batch in segment.batches:
            for cells in _batch_rows(batch, max_chars):
                fate = (fates.get(int(cells[0]), "") if cells[0].isdigit() else "",) if now_ms is not None else ()
                rows.append((label, *cells, *fate))
                label = ""
        if not segment.batches:
            rows.append((label, "", "(empty)", "", "", *(("",) if now_ms is not None else ())))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(lines) + "\n* active segment"


def _batch_rows(batch: RecordBatch, max_chars: int) -> list[tuple[str, str, str, str]]:
    facts = batch_facts(batch)
    if not batch.records:
        return [(f"{batch.base_offset}-{batch.last_offset}", "(empty batch)", "", facts)]
    return [(str(r.offset), *_key_value(batch, r, max_chars), facts) for r in batch.records]


def batch_facts(batch: RecordBatch) -> str:
    """``zstd pid=7 txn control horizon t = 1 d`` (only the facts that apply), ``-`` when none does.

    The delete horizon reads as people read times (``format_instant_ms``: ``t = 8 d 1 ms`` on a
    simulated clock, an ISO time on a wall clock); ``kafka-dump-log``-style output keeps the ms.
    """
    facts = [] if batch.compression == "none" else [batch.compression]
    if batch.has_producer_id:
        facts.append(f"pid={batch.producer_id}")
    if batch.is_transactional:
        facts.append("txn")
    if batch.is_control:
        facts.append("control")
    if batch.delete_horizon_ms is not None:
        facts.append(f"horizon {format_instant_ms(batch.delete_horizon_ms)}")
    return " ".join(facts) or "-"


def _key_value(batch: RecordBatch, record: Record, max_chars: int) -> tuple[str, str]:
    if batch.is_control:
        kind = control_record_type(record)
        return "(marker)", kind.name if kind is not None else "?"
    value = "null (tombstone)" if record.value is None else _text(record.value, max_chars)
    return ("null" if record.key is None else _text(record.key, max_chars)), value


def _text(data: bytes, max_chars: int) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"
