"""The stepper's texts: which step is shown, the checks made on it, why no further pass runs, a pass's stats.

Times are shown as people read them (``format_instant_ms``: a duration since the start on a simulated
clock, an ISO time on a wall clock); sizes in KiB/MiB.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from kcompact_nb.core import Frame, PassResult, explain, format_bytes, format_instant_ms, log_line_note
from kcompact_nb.widgets._sources import FrameSource
from kcompact_nb.widgets._steps import Steps

NOTE_STYLE = "font-size:11px; color:#555; max-width:560px"
PLURALS = {"step": "steps", "pass": "passes"}
BYTE_COUNTERS = frozenset({"bytes_read", "bytes_written", "map_bytes_read"})


def step_name(source: FrameSource, frame: Frame) -> str:
    """``start``, ``step 7`` (a scenario's step, numbered as in its file) or ``pass 2``."""
    number = source.step_number(frame)
    return "start" if number is None else f"{source.unit} {number}"


def step_detail(source: FrameSource, frame: Frame) -> str:
    """The frame's label without its own step name: ``clean: [0, 4) cleaned``."""
    return frame.label.removeprefix(step_name(source, frame)).lstrip(": ") or frame.label


def header_html(source: FrameSource, frame: Frame, last: Frame, *, exhausted: bool) -> str:
    """``step 7 of steps 0–16 · t = 7 d 1 ms · clean: [0, 4) cleaned``; while passes are still being
    computed, ``pass 1 of at least 2 passes`` (``start, before at least 1 pass``)."""
    first_number = 0 if source.unit == "step" else 1
    last_number = source.step_number(last)
    units = PLURALS[source.unit]
    if last_number is None:
        where = f"start, no {units}" + ("" if exhausted else " yet")
    elif not exhausted:
        count = last_number - first_number + 1
        span = f"at least {count} {source.unit if count == 1 else units}"
        where = f"{step_name(source, frame)} of {span}" if frame.index else f"start, before {span}"
    else:
        span = (
            f"{source.unit} {last_number}" if last_number == first_number else f"{units} {first_number}–{last_number}"
        )
        where = f"{step_name(source, frame)} of {span}" if frame.index else f"start, before {span}"
    detail = "" if not frame.index else f" · {html.escape(step_detail(source, frame))}"
    return f"<b>{html.escape(where)}</b> · {html.escape(format_instant_ms(frame.now_ms))}{detail}"


def checks_html(source: FrameSource, checks: Sequence[Frame]) -> str:
    """One line per check step on the frame shown: ``✔ step 9 expect: passed`` (``✘`` when it failed)."""
    lines = []
    for check in checks:
        mark, color = ("✘", "#c0392b") if "FAILED" in check.label else ("✔", "#1e8449")
        text = f"{step_name(source, check)} {step_detail(source, check)}"
        lines.append(f"<div style='color:{color}; line-height:1.4'>{mark} {html.escape(text)}</div>")
    return "".join(lines)


def end_html(source: FrameSource, frame: Frame) -> str:
    """Why nothing follows the last step: the end of the scenario, why no further pass runs (``explain``), or the
    pass that threw, in Kafka's words (spec 8.4)."""
    if frame.failure is not None:
        failure = frame.failure
        return (
            f"<div style='line-height:1.4'><b>No further pass: the pass threw.</b> Kafka logs "
            f"&ldquo;{html.escape(failure.kafka_log_line)}&rdquo;. {html.escape(failure.describe())}.</div>"
        )
    explanation = explain(frame.log, now_ms=frame.now_ms)
    lead = "End of the scenario. The cleaner now" if source.unit == "step" else "No further pass"
    return (
        f"<div style='line-height:1.4'><b>{lead}:</b> {html.escape(explanation.eligibility)} "
        f"({html.escape(explanation.dirty_ratio)}).</div>"
    )


def placeholder_html(source: FrameSource, steps: Steps) -> str:
    """The plain text shown where the last pass's offset map and statistics go, before any pass."""
    first = steps.first_with_pass()
    if first is not None:
        when = f"from {step_name(source, first)} on"
    elif steps.exhausted:
        when = f"once a pass runs; none runs in these {PLURALS[source.unit]}"
    else:
        when = "after the first pass"
    return (
        "<div style='padding:12px; border:1px dashed #999; color:#555'>No cleaner pass yet. "
        f"The offset map and the statistics of the latest pass appear here {html.escape(when)}.</div>"
    )


def stats_html(result: PassResult, source: FrameSource, after: Frame) -> str:
    """Kafka's INFO message for ``result`` next to its ``CleanerStats`` counters (bytes in KiB/MiB)."""
    message = html.escape(result.log_line.strip("\n").replace("\t", ""))
    rows = "".join(
        f"<tr><td style='padding:0 12px 0 0'>{html.escape(name)}</td>"
        f"<td style='text-align:right'>{html.escape(_counter(name, value))}</td></tr>"
        for name, value in result.stats.counters().items()
    )
    explained = log_line_note(result.log_line)
    note = "" if explained is None else f"<div style='{NOTE_STYLE}'>{html.escape(explained)}</div>"
    title = (
        f"Latest pass: {step_name(source, after)}, {result.name}, "
        f"dirty section [{result.first_dirty_offset}, {result.end_offset})"
    )
    return (
        f"<div style='line-height:1.4'><div><b>{html.escape(title)}</b></div>"
        "<div style='display:flex; flex-wrap:wrap; gap:8px 32px; align-items:flex-start'>"
        f"<div style='flex:1 1 420px; min-width:0'><div>LogCleaner INFO message</div>"
        f"<pre style='white-space:pre-wrap; margin:0; font-size:12px'>{message}</pre>"
        f"{note}</div>"
        f"<div style='flex:0 1 auto'><div>CleanerStats</div><table style='font-size:12px'>{rows}</table></div>"
        "</div></div>"
    )


def _counter(name: str, value: float) -> str:
    if name in BYTE_COUNTERS:
        return format_bytes(int(value), exact=False)
    if name == "buffer_utilization":
        return f"{100 * value:.1f}%"
    return f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
