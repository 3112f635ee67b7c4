"""``kcompact inspect``: every partition of a log dir as the cleaner sees it, with per-topic configs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import kcompact
from tests.io.kafka_bytes import kafka_batch, rec, simple_batches, tree_digest, write_segments

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "kafka"
BASIC = SAMPLES / "compaction-basic" / "before"
NOW = "1767225601300"  # 2026-01-01T00:00:01.300Z, 1.3 s after the sample's first record


@pytest.fixture
def two_topics(tmp_path) -> Path:
    """A log dir with topics basic (32 records, 12 segments) and tomb (tombstone-lifecycle after pass 1)."""
    log_dir = tmp_path / "logs"
    shutil.copytree(BASIC, log_dir, ignore=shutil.ignore_patterns("*.txt", "*.jsonl"))
    shutil.copytree(SAMPLES / "tombstone-lifecycle" / "1-first-pass" / "tomb-0", log_dir / "tomb-0")
    (log_dir / "cleaner-offset-checkpoint").write_text("0\n1\ntomb 0 3\n")
    return log_dir


def test_inspect_explains_each_partition_with_iso_times():
    before = tree_digest(BASIC)
    done = kcompact("inspect", BASIC, "--config", "segment.ms=100", "--now-ms", NOW)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Log dir {BASIC}: 1 partition, judged at 2026-01-01T00:00:01.300Z by Kafka 4.4.0's rules"
    assert lines[2:6] == [
        "basic-0: 12 segments, 2,324 bytes, offsets [0, 32)",
        "  config (beyond Kafka's defaults): cleanup.policy=compact, segment.ms=100",
        "basic-0 at 2026-01-01T00:00:01.300Z:",
        "  log tail (cleaned): offsets below the cleaner point 0, 0 B",
    ]
    assert "  log head, cleanable: [0, 31), 2.2 KiB" in lines
    assert "  eligible now: its dirty ratio is above the minimum" in lines
    assert " ms" not in done.stdout  # times for people are ISO timestamps
    assert tree_digest(BASIC) == before


def test_not_yet_eligible_names_the_time_it_becomes_eligible(two_topics):
    done = kcompact("inspect", two_topics, "--config", "min.compaction.lag.ms=60000", "--now-ms", NOW)
    assert done.returncode == 0, done.stderr
    assert "  log head, uncleanable from 0: segment 0 is younger than min.compaction.lag.ms (1 min): its newest " \
           "record, at 2026-01-01T00:00:00.080Z, is 1 s 220 ms old" in done.stdout  # fmt: skip
    # cleanableOffsets: the segment is cleanable once its newest record is min.compaction.lag.ms old, not 1 ms later
    assert (
        "  not eligible now; eligible at 2026-01-01T00:01:00.080Z (in 58 s 780 ms) if nothing else is produced"
        in done.stdout
    )


def test_per_topic_configs_from_the_command_line_and_a_config_file(two_topics, tmp_path):
    config_file = tmp_path / "cluster.properties"
    config_file.write_text(
        "# the broker's server.properties\n"
        "listeners=PLAINTEXT://:9092\n"
        "node.id=1\n"
        "log.cleaner.min.cleanable.ratio=0.9\n"
        "kafka.version=3.9.2\n"
        "basic:segment.ms=100\n"
        "\n"
        "Dynamic configs for topic tomb are:\n"
        "  delete.retention.ms=0 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:delete.retention.ms=0, "
        "DEFAULT_CONFIG:log.cleaner.delete.retention.ms=86400000}\n"
        "  segment.bytes=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1000}\n"
        "  message.downconversion.enable=true sensitive=false synonyms={}\n"
    )
    before = tree_digest(tmp_path)
    done = kcompact("inspect", two_topics, "--config-file", config_file, "--config", "segment.ms=500",
                    "--config", "tomb:min.cleanable.dirty.ratio=0.2", "--now-ms", NOW)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("by Kafka 3.9.2's rules")
    assert lines[1] == (
        "  config file: ignored 3 settings the cleaner does not use (listeners, node.id, message.downconversion.enable)"
    )
    # basic: the broker's ratio, its own segment.ms over the --config one for every topic
    assert (
        "  config (beyond Kafka's defaults): cleanup.policy=compact, min.cleanable.dirty.ratio=0.9, segment.ms=100"
        in lines
    )
    assert "  dirty ratio 1.0000 vs min.cleanable.dirty.ratio 0.9" in lines
    # tomb: kafka-configs.sh output from the file, --config for every topic, and --config tomb:...
    assert ("  config (beyond Kafka's defaults): cleanup.policy=compact, min.cleanable.dirty.ratio=0.2, "
            "delete.retention.ms=0, segment.bytes=1000, segment.ms=500") in lines  # fmt: skip
    assert tree_digest(tmp_path) == before
    document = json.loads(
        kcompact("inspect", two_topics, "--config-file", config_file, "--json", "--now-ms", NOW).stdout
    )
    tomb = next(p for p in document["partitions"] if p["name"] == "tomb-0")
    assert (tomb["config"]["segment.bytes"], tomb["config"]["delete.retention.ms"]) == (1000, 0)
    assert document["ignored_config_settings"] == ["listeners", "node.id", "message.downconversion.enable"]


def test_a_config_that_kafka_version_refuses_is_invalid_input(two_topics, tmp_path):
    config_file = tmp_path / "c.properties"
    config_file.write_text("tomb:segment.bytes=1000\n")  # below KIP-1030's 1 MiB under the default 4.4.0
    done = kcompact("inspect", two_topics, "--config-file", config_file)
    assert done.returncode == 2
    assert (
        "config for topic tomb: Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576"
        in done.stderr
    )
    config_file.write_text("kafka.version=9.9.9\n")
    done = kcompact("inspect", two_topics, "--config-file", config_file)
    assert done.returncode == 2 and "known: 2.0-2.8, 3.0-3.9, 4.0-4.4" in done.stderr


def test_inspect_json_has_exact_values(two_topics):
    done = kcompact("inspect", two_topics, "--json", "--config", "segment.ms=100", "--now-ms", NOW)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert (document["now_ms"], document["kafka_version"]) == (1_767_225_601_300, "4.4.0")
    assert [p["name"] for p in document["partitions"]] == ["basic-0", "tomb-0"]
    basic, tomb = document["partitions"]
    assert (basic["segments"], basic["size_bytes"], basic["log_start_offset"], basic["log_end_offset"]) == (
        12,
        2324,
        0,
        32,
    )
    assert basic["cleaner"]["cleanable_bytes"] == 2250 and basic["cleaner"]["eligible"] is True
    assert basic["cleaner"]["tombstones"] == [{"offset": 30, "key": "k2", "horizon_ms": None}]
    assert (tomb["cleaner_checkpoint"], tomb["cleaner"]["first_dirty_offset"]) == (3, 3)
    assert tomb["cleaner"]["tombstones"][0]["horizon_ms"] is not None


def test_a_checkpoint_beyond_the_log_end_is_reset_with_kafkas_warning(two_topics):
    (two_topics / "cleaner-offset-checkpoint").write_text("0\n1\nbasic 0 500\n")
    done = kcompact("inspect", two_topics, "--now-ms", NOW)
    assert done.returncode == 0, done.stderr
    assert "  checkpoint reset: checkpoint 500 is beyond the log end offset 32" in done.stdout
    assert ("  Kafka's cleaner logs: WARN The last checkpoint dirty offset for partition basic-0 is 500, which is "
            "larger than the log end offset 32. Resetting to the log start offset 0.") in done.stdout  # fmt: skip


def test_recover_keeps_the_valid_prefix_and_says_what_it_drops(tmp_path):
    log_dir = tmp_path / "logs"
    write_segments(log_dir / "t-0", {0: [*simple_batches(range(3)), b"\x00" * 20], 3: simple_batches([3])})
    before = tree_digest(tmp_path)
    strict = kcompact("inspect", log_dir, "--now-ms", "0")  # as the cleaner of a broker that loaded it sees it
    assert strict.returncode == 1, strict.stderr
    assert ("  UNCLEANABLE: its next pass throws on the batch at byte position 240 of segment 0 (batch length 0 is "
            "below the minimum 49 of a v2 batch): Kafka logs the exception") in strict.stdout  # fmt: skip
    assert "--recover shows it" in strict.stdout
    recovered = kcompact("inspect", log_dir, "--recover", "--now-ms", "0")
    assert recovered.returncode == 1, recovered.stderr
    assert "t-0: 1 segment, 240 bytes, offsets [0, 3)" in recovered.stdout
    assert ("  DROPPED by recovery: 20 bytes of 00000000000000000000.log from byte position 240: "
            "batch length 0 is below the minimum 49 of a v2 batch") in recovered.stdout  # fmt: skip
    assert (
        "  DROPPED by recovery: 80 bytes of 00000000000000000003.log from byte position 0: follows a truncated segment"
        in recovered.stdout
    )
    document = json.loads(kcompact("inspect", log_dir, "--recover", "--json", "--now-ms", "0").stdout)
    assert [(d["position"], d["bytes"]) for d in document["partitions"][0]["dropped"]] == [(240, 20), (0, 80)]
    assert tree_digest(tmp_path) == before


BAD_LOG_DIRS = {
    "missing": (lambda root: root / "nope", "log dir {path} does not exist"),
    "a file": (lambda root: write_segments(root / "t-0", {0: simple_batches([0])}) / "00000000000000000000.log",
               "log dir {path} is a file, not a folder"),
    "a partition folder": (lambda root: write_segments(root / "t-0", {0: simple_batches([0])}),
                           "{path} is a partition folder, not a log dir: give its parent ({root})"),
    "an unrelated folder": (lambda root: root,
                            "{path} holds no partition folders (<topic>-<partition>/) and no checkpoint"),
    "offset at Long.MAX": (
        lambda root: write_segments(
            root / "t-0", {0: [kafka_batch([rec(0, 1, b"k", b"v")], base_offset=2**63 - 1)]}
        ).parent,
        "batch last offset 9223372036854775807 leaves no next offset: "
        "the log end offset would pass 9223372036854775807 (Long.MAX_VALUE) (at byte position 0)",
    ),
    "a name beyond Long.MAX": (
        lambda root: write_segments(root / "t-0", {0: simple_batches([0])}).parent,
        "the offset in the file name, 99999999999999999999, is beyond 9223372036854775807",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", BAD_LOG_DIRS)
def test_what_is_not_a_readable_log_dir_is_invalid_input(tmp_path, case):
    root = tmp_path / "root"
    root.mkdir()
    make, message = BAD_LOG_DIRS[case]
    path = make(root)
    if case == "a name beyond Long.MAX":
        (path / "t-0" / "00000000000000000000.log").rename(path / "t-0" / ("9" * 20 + ".log"))
    before = tree_digest(tmp_path)
    done = kcompact("inspect", path)
    assert done.returncode == 2 and done.stdout == ""
    assert message.format(path=path, root=root) in done.stderr
    assert tree_digest(tmp_path) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--config", "segment.ms"], "--config 'segment.ms': expected NAME=VALUE or TOPIC:NAME=VALUE"),
        (["--config", "segmnt.ms=5"], "'segmnt.ms' is not a topic config; known: "),
        (["--config", "cleanup.policy=compcat"], "Invalid value 'compcat' for configuration cleanup.policy"),
        (["--now-ms", "-5"], "argument --now-ms: -5 is before 1970-01-01T00:00:00Z"),
        (["--config-file", "missing.properties"], "--config-file missing.properties does not exist"),
    ],
)
def test_bad_options_are_usage_errors(args, message):
    done = kcompact("inspect", BASIC, *args)
    assert done.returncode == 2 and message in done.stderr
    assert "(" not in done.stderr.split("Invalid value")[-1][:12]  # no Python tuple in the value


@pytest.mark.parametrize("output", [[], ["--json"]], ids=["text", "json"])
def test_streamed_partitions_are_explained_as_partitions_read_whole(two_topics, output):
    """``--stream-from 0`` scans every partition and streams its batches: the same explanation, tombstones and all."""
    whole = kcompact("inspect", two_topics, "--config", "segment.ms=100", "--now-ms", NOW, *output)
    streamed = kcompact(
        "inspect", two_topics, "--config", "segment.ms=100", "--now-ms", NOW, "--stream-from", "0", *output
    )
    assert whole.returncode == streamed.returncode == 0, streamed.stderr
    assert streamed.stdout == whole.stdout
    if output:
        tomb = next(p for p in json.loads(streamed.stdout)["partitions"] if p["name"] == "tomb-0")
        assert [t["offset"] for t in tomb["cleaner"]["tombstones"]] == [2]
    else:
        assert "  tombstone 'a' at offset 2: " in streamed.stdout


@pytest.mark.parametrize("stream_from", [None, "0"], ids=["read-whole", "streamed"])
def test_a_failed_passs_cleaned_files_say_the_partition_is_marked_uncleanable_in_kafkas_words(stream_from, tmp_path):
    """The log a 4.4.0 broker's pass failed on (a full cleaned time index, docs/cleaner-rules.md 8.4), as the pass
    left it: its ``.cleaned`` files tell the exception, and that the running broker marked the partition."""
    from kcompact_nb.io import clean_log_dir, write_broker_log_dir
    from tests.core.cleaner.test_index_full import START_MS, failing_simulation

    sim = failing_simulation("4.4.0")
    source = write_broker_log_dir(sim.partitions_in_creation_order(), tmp_path / "before")
    topics = {log.topic: log.config for log in sim.partitions()}
    clean_log_dir(source, tmp_path / "left", now_ms=START_MS + 200_000, broker=sim.broker, topic_configs=topics)
    left = tmp_path / "left"
    untouched = tree_digest(left)
    settings = ["--kafka-version", "4.4.0", "--config", "segment.index.bytes=64", "--config", "index.interval.bytes=1",
                "--config", "segment.ms=100", "--config", "min.cleanable.dirty.ratio=0.01"]  # fmt: skip
    streaming = [] if stream_from is None else ["--stream-from", stream_from]
    done = kcompact("inspect", left, "--now-ms", str(START_MS + 300_000), *settings, *streaming)
    assert done.returncode == 1, done.stderr  # a partition marked uncleanable
    assert tree_digest(left) == untouched
    error = "java.lang.IllegalArgumentException: Attempt to append to a full time index (size = 4)."
    files = ("00000000000000000012.log.cleaned", "00000000000000000012.index.cleaned",
             "00000000000000000012.timeindex.cleaned")  # fmt: skip
    (marked,) = [line for line in done.stdout.splitlines() if "marked uncleanable at" in line]
    assert marked == (
        f'  marked uncleanable at t = 20 min: Kafka logged "Unexpected exception thrown when cleaning log t-0. '
        f'Marking its partition (t-0) as uncleanable: {error}"; its checkpoint stays at 0 and the cleaner skips it '
        f"until the broker restarts; left on disk: {', '.join(files)}"
    )
    leftovers = [line for line in done.stdout.splitlines() if line.startswith("  leftover ")]
    assert leftovers == [
        f"  leftover {name}: a cleaner pass's unfinished output: a pass that threw left it (its broker marked the "
        "partition uncleanable) or one was under way; Kafka deletes it at startup"
        for name in sorted(files)
    ]
    document = json.loads(kcompact("inspect", left, "--now-ms", str(START_MS), "--json", *settings).stdout)
    failed = {p["name"]: p["failed_pass"] for p in document["partitions"]}
    assert failed == {
        "other-0": None,
        "t-0": {"kafka_log_line": marked.split('"')[1], "error": error, "checkpoint": 0, "left_cleaned": list(files),
                "last_written_ms": START_MS + 200_000},
    }  # fmt: skip
