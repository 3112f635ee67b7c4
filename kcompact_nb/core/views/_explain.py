"""Why a partition is (not) cleaned: a plain-language account of its ranges, eligibility and tombstones."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from kcompact_nb.core.cleaner import LogToClean, log_to_clean
from kcompact_nb.core.model import PartitionLog, format_bytes, format_duration_ms, format_instant_ms
from kcompact_nb.core.views._eligibility import eligibility, next_eligible_ms
from kcompact_nb.core.views._next_pass import RecordOutcome, next_pass
from kcompact_nb.core.views._uncleanable import UnreadableBatch, uncleanable_reason, unreadable_batch_outcome
from kcompact_nb.record import RecordBatch, record_keys, record_offsets, record_values


@dataclass(frozen=True)
class TombstoneFate:
    """When one tombstone may go: ``horizon_ms`` once a pass has stamped its batch (spec 7.4).

    ``fate`` is what the next pass at ``judged_ms`` does to it (:func:`next_pass`), when the log holds its
    batches; :meth:`describe` at that time says exactly what :func:`next_pass` says (its outcome and reason).
    """

    offset: int
    key: bytes
    horizon_ms: int | None
    fate: RecordOutcome | None = None
    judged_ms: int | None = None

    def describe(self, now_ms: int) -> str:
        """One line: the next pass's outcome and reason at ``judged_ms``; at another time (or without a pass
        to read), what the delete horizon alone says, which holds whatever pass comes."""
        head = f"tombstone {self.key.decode('utf-8', 'replace')!r} at offset {self.offset}"
        if self.fate is not None and now_ms == self.judged_ms:
            return f"{head}: {self.fate.outcome.value.removeprefix('tombstone ')}: {self.fate.reason}"
        if self.horizon_ms is None:
            return (
                f"{head}: not stamped yet; the first pass that reaches and keeps it stamps its delete horizon "
                "(pass time + delete.retention.ms)"
            )
        horizon = format_instant_ms(self.horizon_ms)
        if self.horizon_ms <= now_ms:
            return f"{head}: delete horizon {horizon} has passed: the first pass that reaches it removes it"
        wait = format_duration_ms(self.horizon_ms - now_ms, max_units=2)
        return (
            f"{head}: delete horizon {horizon}, {wait} from now: passes before then keep it unless a newer record "
            "of its key supersedes it"
        )


@dataclass(frozen=True)
class Explanation:
    """The cleaner's view of one partition at ``now_ms`` and when it would next be eligible."""

    now_ms: int
    log_to_clean: LogToClean
    uncleanable_reason: str
    eligible_at_ms: int | None
    tombstones: tuple[TombstoneFate, ...]
    codecs: tuple[tuple[str, int], ...] = ()
    """(codec, batch count) of the compressed batches, most frequent first."""
    estimated_batches: int = 0
    """Batches whose size is an estimate (no exact encoder for their codec here)."""
    unreadable_batch: str | None = None
    """What a batch the cleaner cannot read does to the partition (:func:`unreadable_batch_outcome`), if it has one."""

    @property
    def dirty_ratio(self) -> str:
        """``dirty ratio 0.4762 vs min.cleanable.dirty.ratio 0.5``."""
        ltc = self.log_to_clean
        return f"dirty ratio {ltc.cleanable_ratio:.4f} vs min.cleanable.dirty.ratio {ltc.min_cleanable_dirty_ratio:g}"

    @property
    def eligibility(self) -> str:
        """Whether the cleaner may pick this partition now, and if not, when (or why never)."""
        return eligibility(self.log_to_clean, self.eligible_at_ms, self.now_ms)

    def lines(self) -> list[str]:
        ltc = self.log_to_clean
        fd, fu = ltc.first_dirty_offset, ltc.first_uncleanable_offset
        lines = [
            f"{ltc.name} at {format_instant_ms(self.now_ms)}:",
            f"  log tail (cleaned): offsets below the cleaner point {fd:,}, "
            f"{format_bytes(ltc.clean_bytes, exact=False)}",
            f"  log head, cleanable: [{fd:,}, {fu:,}), {format_bytes(ltc.cleanable_bytes, exact=False)}",
            f"  log head, uncleanable from {fu:,}: {self.uncleanable_reason}",
            "  " + self.dirty_ratio,
            "  " + self.eligibility,
        ]
        if self.unreadable_batch:
            lines.append(f"  {self.unreadable_batch}")
        if ltc.checkpoint_reset:
            lines.append(f"  checkpoint reset: {ltc.checkpoint_reset}")
        if ltc.checkpoint_warning:
            lines.append(f"  Kafka's cleaner logs: WARN {ltc.checkpoint_warning}")
        lines += ["  " + t.describe(self.now_ms) for t in self.tombstones]
        lines += ["  " + line for line in self._compression_lines()]
        return lines

    def _compression_lines(self) -> list[str]:
        lines = []
        if self.codecs:
            counts = ", ".join(f"{count} {codec}" for codec, count in self.codecs)
            lines.append(
                f"compressed batches: {counts}; a pass rewrites a partly kept one with its codec at the "
                "codec's default level (MemoryRecords.filterTo)"
            )
        if self.estimated_batches:
            n = self.estimated_batches
            lines.append(
                f"sizes estimated: {n} {'batch was' if n == 1 else 'batches were'} sized without Kafka's codec output "
                "(no installed codec library compresses them as this Kafka release does), so the sizes and ratios "
                "above are estimates"
            )
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())


def explain(
    log: PartitionLog,
    *,
    now_ms: int,
    batches: Iterable[RecordBatch] | None = None,
    unreadable_batch: UnreadableBatch | None = None,
) -> Explanation:
    """Explain ``log`` at ``now_ms``: ranges and why, eligibility, next eligible time, tombstones.

    ``batches`` are the log's batches when its segments do not hold them (a partition scanned from its
    segment files: :func:`kcompact_nb.io.partition_batches` streams them); they are read once, in order.
    Without them, each tombstone's line is :func:`next_pass`'s outcome and reason for it; with them no pass
    is run (the log may not fit in memory) and the lines say what the delete horizons alone say.
    ``unreadable_batch`` is a batch of the log's files the cleaner cannot read: whether a pass meets it.
    """
    ltc = log_to_clean(log, now_ms=now_ms)
    tombstones: list[TombstoneFate] = []
    codecs: Counter[str] = Counter()
    estimated = 0
    for batch in log.batches() if batches is None else batches:
        if batch.compression != "none":
            codecs[batch.compression] += 1
        estimated += batch.size_estimated
        if batch.is_control:
            continue
        records = batch.records
        for offset, key, value in zip(
            record_offsets(records), record_keys(records), record_values(records), strict=True
        ):
            if value is None and key is not None:
                tombstones.append(TombstoneFate(offset, key, batch.delete_horizon_ms))
    if batches is None and tombstones:
        fates = {r.offset: r for r in next_pass(log, now_ms=now_ms).records}
        tombstones = [replace(t, fate=fates.get(t.offset), judged_ms=now_ms) for t in tombstones]
    return Explanation(
        now_ms,
        ltc,
        uncleanable_reason(log, ltc, now_ms),
        next_eligible_ms(log, now_ms=now_ms),
        tuple(tombstones),
        codecs=tuple(codecs.most_common()),
        estimated_batches=estimated,
        unreadable_batch=None if unreadable_batch is None else unreadable_batch_outcome(ltc, unreadable_batch),
    )
