"""Compressed batches in the core model: what a broker stores on append, what a pass rewrites, estimates.

The encoder is a protocol (``BatchEncoder``); these tests use a recording fake to pin which codec, level and
Kafka release the model asks for, and the core's estimating fallback. Kafka's bytes themselves are checked
against kafka-clients in ``tests/broker/test_kafka_compression.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from kcompact_nb.core import (
    KafkaModelError,
    KafkaVersion,
    PartitionLog,
    RecordBatch,
    TopicConfig,
    copy_log,
    explain,
    log_table,
    pass_diff,
    segment_regions,
)
from kcompact_nb.core.cleaner import PassDecisions
from kcompact_nb.core.model._compression import stored_compression
from kcompact_nb.record._encoders import EncodedBatch, EstimatingEncoder
from tests.conftest import compacted_log, offsets_in_log, rec
from tests.core.cleaner.test_cleaner_pass import one_pass


@dataclass
class RecordingEncoder:
    """Sizes a compressed batch as 100 + its record count and remembers every request."""

    requests: list[tuple[str, int | None, str]] = field(default_factory=list)

    def encode(self, batch: RecordBatch, *, level: int | None, kafka_version: KafkaVersion) -> EncodedBatch:
        self.requests.append((batch.compression, level, str(kafka_version)))
        return EncodedBatch(100 + len(batch.records), b"", False)

    def check_available(self, codec: str) -> None:
        return None


def topic(**properties: object) -> TopicConfig:
    return TopicConfig.from_properties({"cleanup.policy": "compact", **properties})


@pytest.mark.parametrize(
    ("compression_type", "producer", "stored"),
    [
        ("producer", "lz4", ("lz4", None)),  # the producer's bytes, whatever its level
        ("producer", "none", ("none", None)),
        ("zstd", "none", ("zstd", 7)),  # recompressed at compression.zstd.level
        ("zstd", "zstd", ("zstd", None)),  # same codec: in-place assignment keeps the producer's bytes
        ("gzip", "snappy", ("gzip", 4)),
        ("lz4", "gzip", ("lz4", 12)),
        ("snappy", "none", ("snappy", None)),  # snappy has no level
        ("uncompressed", "gzip", ("none", None)),
    ],
)
def test_stored_compression_follows_log_validator(compression_type, producer, stored):
    # LogValidator.validateMessagesAndAssignOffsetsCompressed: in place when source == target codec, else
    # buildRecordsAndAssignOffsets with BrokerCompressionType.targetCompression (the topic's codec and level)
    config = topic(**{
        "compression.type": compression_type,
        "compression.zstd.level": 7,
        "compression.gzip.level": 4,
        "compression.lz4.level": 12,
    })  # fmt: skip
    assert stored_compression(config, producer) == stored


def test_append_asks_the_encoder_for_the_stored_codec_and_level():
    log = PartitionLog(
        "t", config=topic(**{"compression.type": "zstd", "compression.zstd.level": 7}), encoder=RecordingEncoder()
    )
    log.append([rec("a"), rec("b")], now_ms=0)
    log.append([rec("c")], now_ms=0, compression="zstd")
    assert log.encoder.requests == [("zstd", 7, "4.4.0"), ("zstd", None, "4.4.0")]  # type: ignore[attr-defined]
    assert [(b.compression, b.size_bytes) for b in log.batches()] == [("zstd", 102), ("zstd", 101)]
    assert log.active_segment.size_bytes == 203


def test_the_topic_can_store_a_compressed_producer_batch_uncompressed():
    log = PartitionLog("t", config=topic(**{"compression.type": "uncompressed"}), encoder=RecordingEncoder())
    log.append([rec("a")], now_ms=0, compression="gzip")
    assert log.encoder.requests == []  # type: ignore[attr-defined]
    assert [(b.compression, b.size_bytes) for b in log.batches()] == [("none", 79)]  # 61 + one 18-byte record


def test_an_unknown_codec_is_refused_with_its_name():
    with pytest.raises(KafkaModelError, match="unknown compression 'brotli'; expected one of none, gzip"):
        compacted_log().append([rec("a")], now_ms=0, compression="brotli")


def test_a_pass_rewrites_compressed_batches_at_the_codecs_default_level():
    # MemoryRecords.buildRetainedRecordsInto: Compression.of(originalBatch.compressionType()).build(), the
    # default level, whatever the topic's compression.<codec>.level
    encoder = RecordingEncoder()
    log = PartitionLog("t", config=topic(**{"compression.zstd.level": 19}), encoder=encoder)
    log.append([rec("a"), rec("b"), rec("c")], now_ms=0, compression="zstd")
    log.append([rec("a")], now_ms=0, compression="zstd")
    log.roll(now_ms=0)
    encoder.requests.clear()
    one_pass(log)
    assert encoder.requests == [("zstd", None, "4.4.0")]
    assert offsets_in_log(log) == [1, 2, 3]
    assert [(b.base_offset, b.last_offset, b.compression, b.size_bytes) for b in log.batches()] == [
        (0, 2, "zstd", 102),  # rebuilt: base and last offset kept, 2 records
        (3, 3, "zstd", 101),  # wholly retained: the same batch
    ]


def test_a_wholly_retained_compressed_batch_is_kept_as_it_was():
    log = PartitionLog("t", config=topic(), encoder=RecordingEncoder())
    log.append([rec("a"), rec("b")], now_ms=0, compression="lz4")
    log.append([rec("c")], now_ms=0, compression="lz4")
    log.roll(now_ms=0)
    kept = list(log.batches())
    one_pass(log)
    assert all(a is b for a, b in zip(log.batches(), kept, strict=True))


def test_the_estimating_fallback_marks_batches_and_segments():
    log = PartitionLog("t", config=topic(), encoder=EstimatingEncoder())
    log.append([rec("a", "x" * 200), rec("b", "x" * 200)], now_ms=0, compression="snappy")
    log.append([rec("c")], now_ms=0)
    first, second = log.batches()
    assert (first.size_estimated, first.raw, second.size_estimated) == (True, None, False)
    assert first.size_bytes < 2 * 200  # compressible values come out smaller than they went in
    assert log.active_segment.size_estimated


def estimated_log() -> PartitionLog:
    """Segment 0: a snappy batch sized by the estimating fallback, then an uncompressed one; rolled at 2."""
    log = PartitionLog("t", config=topic(), encoder=EstimatingEncoder())
    log.append([rec("a", "x" * 200)], now_ms=0, compression="snappy")
    log.append([rec("a")], now_ms=0)
    log.roll(now_ms=0)
    return log


def test_explain_names_the_codecs_and_the_estimated_sizes():
    lines = explain(estimated_log(), now_ms=0).lines()
    assert lines[-2:] == [
        "  compressed batches: 1 snappy; a pass rewrites a partly kept one with its codec at the codec's default "
        "level (MemoryRecords.filterTo)",
        "  sizes estimated: 1 batch was sized without Kafka's codec output (no installed codec library compresses "
        "them as this Kafka release does), so the sizes and ratios above are estimates",
    ]


def test_tables_and_regions_mark_estimated_sizes_and_codecs():
    log = estimated_log()
    size = log.segments[0].size_bytes
    assert log_table(log).splitlines()[1].split() == [
        "0",
        f"(~{size}",
        "B,",
        "estimated)",
        "0",
        "a",
        "xxxxxxxxxxx…",
        "snappy",
    ]
    regions = segment_regions(log, now_ms=0)[1]
    assert [(r.codecs, r.size_estimated, r.size_label) for r in regions] == [
        (("none", "snappy"), True, f"~{size} B (estimated), snappy"),
        ((), False, "0 B"),
    ]


def test_a_pass_diff_lists_segments_with_estimated_sizes():
    log = estimated_log()
    before = copy_log(log)
    result = one_pass(log, decisions=PassDecisions())
    diff = pass_diff(before, log, result)
    assert diff.estimated_segments == (0,)  # before: the snappy batch; after it is gone, leaving an exact 79 B
    assert diff.segments_after == ((0, 79), (2, 0))
