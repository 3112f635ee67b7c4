"""``kcompact clean``: the log dir the broker's next cleaner iteration leaves (issue 16 point 4)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from kcompact_nb.cli._arguments import LAST_ISO_MS, instant_ms
from kcompact_nb.cli._topic_configs import config_settings
from kcompact_nb.core import log_line_note
from kcompact_nb.fidelity import broker_settings, load_stage, pass_time_ms, topic_settings
from kcompact_nb.record._libzstd import built_releases
from tests.cli.conftest import kcompact
from tests.io.kafka_bytes import tree_digest

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
SAMPLE_TOPIC_CONFIGS = ["--config", "segment.ms=100", "--config", "min.cleanable.dirty.ratio=0.01",
                        "--config", "delete.retention.ms=0", "--config", "segment.index.bytes=4096"]  # fmt: skip


def broker_pass_time(sample: str) -> int:
    """When Kafka's pass over the sample ran (its delete horizon, ``delete.retention.ms=0``)."""
    broker, topic = broker_settings("4.4.0"), topic_settings()
    before = load_stage(SAMPLES / sample / "before", topic=topic, broker=broker)
    return pass_time_ms(before, load_stage(SAMPLES / sample / "after", topic=topic, broker=broker))


@pytest.mark.parametrize("stream_from", ["1GiB", "0"], ids=["read-whole", "streamed"])
@pytest.mark.parametrize("sample", ["compaction-basic", "transactional", "idempotent-producer", "compressed-topic"])
def test_clean_writes_the_folder_kafka_left_and_never_touches_its_input(sample, stream_from, tmp_path):
    """Read whole or streamed segment file by segment file (``--stream-from 0``), the same files as Kafka's."""
    source = tmp_path / "before"
    shutil.copytree(SAMPLES / sample / "before", source)
    untouched = tree_digest(source)
    at = broker_pass_time(sample)
    done = kcompact(
        "clean", source, "--out", tmp_path / "out", "--at", str(at), "--stream-from", stream_from, *SAMPLE_TOPIC_CONFIGS
    )
    assert done.returncode == 0, done.stderr
    assert tree_digest(source) == untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["before", "out"]  # no cleaned groups left behind
    (partition,) = [p.name for p in source.iterdir() if p.is_dir()]
    kafka = SAMPLES / sample / "after" / partition
    ours = tmp_path / "out" / partition
    assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in kafka.iterdir())
    assert [p.name for p in sorted(kafka.iterdir()) if p.read_bytes() != (ours / p.name).read_bytes()] == []
    assert (tmp_path / "out" / "cleaner-offset-checkpoint").read_text() == (
        SAMPLES / sample / "after" / "cleaner-offset-checkpoint"
    ).read_text()
    assert "the cleaner's next iteration at " in done.stdout and f"({at} ms):" in done.stdout
    assert (
        f"  cleaned {partition}:\n    Log cleaner thread 0 cleaned log {partition} (dirty section = [0, " in done.stdout
    )
    lines = done.stdout.splitlines()  # Kafka's line, then why it reads Infinity and NaN (a pass of no elapsed time)
    reduction = next(i for i, line in enumerate(lines) if line.endswith("fewer messages)"))
    assert "(Infinity MB/sec)" in done.stdout
    assert lines[reduction + 1] == f"    ({log_line_note(done.stdout)})"


def test_clean_refuses_a_non_empty_out_unless_told(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("keep")
    source = SAMPLES / "compaction-basic" / "after"  # cleaned up to the active segment: nothing to do
    refused = kcompact("clean", source, "--out", tmp_path / "out", "--at", "0")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        f"kcompact clean: --out {tmp_path / 'out'} is not empty; "
        "give an empty or new folder, or add --overwrite to write into it\n"
    )
    allowed = kcompact("clean", source, "--out", tmp_path / "out", "--at", "2026-01-02T00:00:00Z", "--overwrite")
    assert allowed.returncode == 0 and (tmp_path / "out" / "mine.txt").read_text() == "keep"
    assert allowed.stdout.splitlines()[:2] == [
        "1 partition; the cleaner's next iteration at 2026-01-02T00:00:00.000Z (1767312000000 ms):",
        "  no partition is eligible for cleaning",
    ]
    copied = {p.name: p.read_bytes() for p in (tmp_path / "out" / "basic-0").iterdir()}
    assert copied == {p.name: p.read_bytes() for p in (source / "basic-0").iterdir()}


def test_clean_names_bad_input(tmp_path):
    source = SAMPLES / "compaction-basic" / "before"
    missing = kcompact("clean", tmp_path / "nope", "--out", tmp_path / "out")
    assert (missing.returncode, missing.stderr) == (2, f"kcompact clean: log dir {tmp_path / 'nope'} does not exist\n")
    bad_time = kcompact("clean", source, "--out", tmp_path / "out", "--at", "yesterday")
    assert bad_time.returncode == 2 and "argument --at: 'yesterday': expected epoch milliseconds" in bad_time.stderr
    bad_config = kcompact("clean", source, "--out", tmp_path / "out", "--config", "segment.msec=5")
    assert (
        bad_config.returncode == 2
        and "--config 'segment.msec=5': 'segment.msec' is not a topic config" in bad_config.stderr
    )
    bad_version = kcompact("clean", source, "--out", tmp_path / "out", "--kafka-version", "four")
    assert bad_version.returncode == 2 and "kafka.version" in bad_version.stderr
    assert not (tmp_path / "out").exists()


def test_at_takes_epoch_ms_or_iso_times():
    assert instant_ms("1767225600000") == 1_767_225_600_000
    assert instant_ms("2026-01-01T00:00:00Z") == 1_767_225_600_000
    assert instant_ms("2026-01-01T00:00:00") == 1_767_225_600_000  # UTC when no offset is given
    assert instant_ms("2026-01-01T01:00:00.250+01:00") == 1_767_225_600_250
    assert instant_ms(str(LAST_ISO_MS)) == LAST_ISO_MS
    with pytest.raises(argparse.ArgumentTypeError, match="ISO-8601"):
        instant_ms("1/1/2026")


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ("-1", "-1 is before 1970-01-01T00:00:00Z"),
        ("1969-12-31T23:59:59Z", "is before 1970-01-01T00:00:00Z"),
        ("99999999999999999999", "is after 9999-12-31T23:59:59.999Z"),
        ("9223372036854775807", "is after 9999-12-31T23:59:59.999Z"),
    ],
)
def test_at_outside_what_a_time_can_show_is_refused_before_any_output(at, message, tmp_path):
    result = kcompact("clean", SAMPLES / "compaction-basic" / "before", "--out", tmp_path / "out", f"--at={at}")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_configs_go_to_every_topic_one_topic_or_the_broker(tmp_path):
    (tmp_path / "cluster.properties").write_text("log.cleaner.dedupe.buffer.size=8388608\norders:segment.ms=5\n")
    items = ["segment.ms=100", "log.cleaner.threads=2", "payments:delete.retention.ms=0"]
    settings = config_settings(items, tmp_path / "cluster.properties", "3.9.2")
    assert settings.every_topic == {"segment.ms": "100"}
    assert settings.per_topic == {"orders": {"segment.ms": "5"}, "payments": {"delete.retention.ms": "0"}}
    assert settings.broker == {
        "log.cleaner.dedupe.buffer.size": "8388608",
        "log.cleaner.threads": "2",
        "kafka.version": "3.9.2",
    }


def test_clean_marks_sizes_it_could_only_estimate(tmp_path):
    # Kafka 3.6's zstd-jni holds libzstd 1.5.5, which no installed binding has (kcompact_nb.record._codec_releases)
    # and which, in an empty cache folder, make codecs did not build: the rewritten zstd batches are valid but their
    # size is an estimate, and the command says so (312 bytes is what the first installed binding, libzstd 1.5.7,
    # gives: exactly Kafka 4.4.0's after segment). With libzstd 1.5.5 built, the same size is exact.
    source = SAMPLES / "compressed-topic" / "before"
    lines = {}
    for cache in ("empty", "built"):
        env = {"KCOMPACT_CACHE_DIR": str(tmp_path / "empty-cache")} if cache == "empty" else None
        done = kcompact("clean", source, "--out", tmp_path / cache, "--at", "1795558534122", "--kafka-version",
                        "3.6.2", *SAMPLE_TOPIC_CONFIGS, env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        lines[cache] = [line for line in done.stdout.splitlines() if "is an estimate" in line]
    assert lines["empty"] == [
        "  segment 0: size 312 bytes is an estimate "
        "(no installed codec writes its compressed batches exactly as Kafka 3.6.2 does)"
    ]
    assert lines["built"] == [] and (1, 5, 5) in built_releases()
