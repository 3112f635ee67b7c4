"""A batch Kafka's cleaner cannot read (issue #30), on copies of a real broker's pass (compaction-basic, Kafka 4.4.0).

Observed on real 4.4.0 brokers (``tests/broker/test_unreadable_batch_kafka.py``): a batch whose frame, magic or
records are corrupt makes the pass that reads it throw; the broker logs the exception, marks the partition
uncleanable, checkpoints the pass's first dirty offset and cleans the other partitions. A batch that only fails
its CRC is cleaned as any other: the cleaner never checks CRCs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kcompact_nb import BrokerConfig, TopicConfig
from kcompact_nb.fidelity import broker_settings, load_stage, pass_time_ms, topic_settings
from kcompact_nb.io import CLEANER_OFFSET_CHECKPOINT, ReadOptions, clean_log_dir, read_checkpoint, read_log_dir
from tests.cli.conftest import kcompact
from tests.io.kafka_bytes import file_bytes, reads_of, tree_digest

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "samples" / "kafka" / "compaction-basic"
TOPIC = {"cleanup.policy": "compact", "segment.ms": 100, "min.cleanable.dirty.ratio": 0.01,
         "delete.retention.ms": 0, "segment.index.bytes": 4096}  # fmt: skip
BATCH = 144
"""The third batch of segment 0 (k2=v2, 72 bytes): the pass removes it, k2 being written again later."""
CORRUPTIONS = {
    "record length": (BATCH + 61, "Invalid record size"),  # the record's length varint
    "magic": (BATCH + 16, "magic byte 125 is invalid"),
    "batch length": (BATCH + 8, "is truncated"),  # the length field's top byte: far beyond the file
}
CONFIG = TopicConfig.from_properties(TOPIC, broker=BrokerConfig())


def flip(path: Path, position: int) -> None:
    """Flip 7 bits of one byte in place, as a disk or a stray writer might."""
    data = bytearray(path.read_bytes())
    data[position] ^= 0x7F
    path.write_bytes(bytes(data))


def kafka_pass_ms() -> int:
    """When the broker's pass of the sample ran (its "after" copy tells)."""
    broker = broker_settings("4.4.0")
    stages = [load_stage(SAMPLE / s, topic=topic_settings(), broker=broker) for s in ("before", "after")]
    return pass_time_ms(*stages)


def two_partitions(folder: Path) -> Path:
    """The sample's partition as basic-0 and a copy as basic-1, checkpointed half way so basic-0 is the filthiest."""
    shutil.copytree(SAMPLE / "before", folder)
    shutil.copytree(folder / "basic-0", folder / "basic-1")
    (folder / CLEANER_OFFSET_CHECKPOINT).write_text("0\n1\nbasic 1 15\n")
    return folder


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_the_pass_that_meets_an_unreadable_batch_fails_and_the_next_iteration_cleans_another(kind, tmp_path):
    position, reason = CORRUPTIONS[kind]
    source = two_partitions(tmp_path / "logs")
    flip(source / "basic-0" / "00000000000000000000.log", position)
    untouched = tree_digest(source)
    at = kafka_pass_ms()
    cleaning = clean_log_dir(source, tmp_path / "out", now_ms=at, config=CONFIG)
    assert tree_digest(source) == untouched
    (failure,) = cleaning.simulation.cleaner.failures
    assert (failure.name, failure.at_ms) == ("basic-0", at)
    assert failure.error.startswith(str(source / "basic-0" / "00000000000000000000.log"))
    assert reason in failure.error and failure.error.endswith(f"(at byte position {BATCH})")
    assert cleaning.simulation.cleaner.uncleanable == {"basic-0"}
    assert file_bytes(tmp_path / "out" / "basic-0") == file_bytes(source / "basic-0")  # nothing rewritten or lost
    # basic-1 is cleaned by the thread's next iteration, log.cleaner.backoff.ms later, as if basic-0 were not there
    alone = tmp_path / "alone"
    shutil.copytree(source, alone, ignore=shutil.ignore_patterns("basic-0"))
    later = at + BrokerConfig().log_cleaner_backoff_ms
    expected = clean_log_dir(alone, tmp_path / "alone-out", now_ms=later, config=CONFIG)
    assert cleaning.result is not None and expected.result is not None and cleaning.result.name == "basic-1"
    assert (cleaning.result.log_line, cleaning.result.groups) == (expected.result.log_line, expected.result.groups)
    assert file_bytes(tmp_path / "out" / "basic-1") == file_bytes(tmp_path / "alone-out" / "basic-1")
    checkpoints = read_checkpoint(tmp_path / "out" / CLEANER_OFFSET_CHECKPOINT)
    assert checkpoints == {("basic", 0): 0, **read_checkpoint(tmp_path / "alone-out" / CLEANER_OFFSET_CHECKPOINT)}


def test_a_batch_that_only_fails_its_crc_is_cleaned_as_the_broker_cleaned_it(tmp_path):
    """The value byte of k2=v2 flipped: the pass drops the batch as Kafka's did, leaving Kafka's own files."""
    source = tmp_path / "logs"
    shutil.copytree(SAMPLE / "before", source)
    flip(source / "basic-0" / "00000000000000000000.log", BATCH + 69)
    cleaning = clean_log_dir(source, tmp_path / "out", now_ms=kafka_pass_ms(), config=CONFIG)
    assert cleaning.simulation.cleaner.failures == [] and cleaning.result is not None
    assert file_bytes(tmp_path / "out" / "basic-0") == file_bytes(SAMPLE / "after" / "basic-0")


def test_an_unreadable_batch_no_pass_reads_leaves_the_pass_as_it_was(tmp_path):
    """In the active segment (never cleaned): the pass is Kafka's, and only that segment differs from Kafka's."""
    source = tmp_path / "logs"
    shutil.copytree(SAMPLE / "before", source)
    flip(source / "basic-0" / "00000000000000000031.log", 61)
    cleaning = clean_log_dir(source, tmp_path / "out", now_ms=kafka_pass_ms(), config=CONFIG)
    assert cleaning.simulation.cleaner.failures == [] and cleaning.result is not None
    ours, kafka = file_bytes(tmp_path / "out" / "basic-0"), file_bytes(SAMPLE / "after" / "basic-0")
    assert [name for name in sorted(kafka) if ours[name] != kafka[name]] == ["00000000000000000031.log"]
    assert ours["00000000000000000031.log"] == (source / "basic-0" / "00000000000000000031.log").read_bytes()


def test_inspect_and_clean_say_which_partition_is_uncleanable_and_why(tmp_path):
    source = two_partitions(tmp_path / "logs")
    flip(source / "basic-0" / "00000000000000000000.log", CORRUPTIONS["record length"][0])
    flip(source / "basic-1" / "00000000000000000031.log", 61)  # the active segment: no pass reads it
    settings = [f"--config={name}={value}" for name, value in TOPIC.items()]
    at = str(kafka_pass_ms())
    inspected = kcompact("inspect", source, "--now-ms", at, *settings)
    assert inspected.returncode == 1, inspected.stderr
    (uncleanable,) = [line for line in inspected.stdout.splitlines() if "UNCLEANABLE" in line]
    assert uncleanable.startswith(
        "  UNCLEANABLE: its next pass throws on the batch at byte position 144 of segment 0 ("
    )
    assert "Invalid record size" in uncleanable
    assert uncleanable.endswith("): Kafka logs the exception, marks the partition uncleanable "
                                "(uncleanable-partitions-count) until the broker restarts, and cleans the other "
                                "partitions")  # fmt: skip
    (unread,) = [line for line in inspected.stdout.splitlines() if "the cleaner cannot read" in line]
    assert unread.startswith("  the cleaner cannot read the batch at byte position 0 of segment 31 (")
    assert unread.endswith("no pass reads it while its segment lies at or past the first uncleanable offset 31")
    document = json.loads(kcompact("inspect", source, "--now-ms", at, "--json", *settings).stdout)
    unreadable = {p["name"]: p["unreadable_batch"] for p in document["partitions"]}
    assert {name: (Path(u["file"]).name, u["position"]) for name, u in unreadable.items()} == {
        "basic-0": ("00000000000000000000.log", BATCH), "basic-1": ("00000000000000000031.log", 0),
    }  # fmt: skip
    outcomes = [p["cleaner"]["unreadable_batch"] for p in document["partitions"]]
    assert outcomes[0].startswith("UNCLEANABLE: ") and outcomes[1].startswith("the cleaner cannot read ")
    cleaned = kcompact("clean", source, "--out", tmp_path / "out", "--at", at, *settings)
    assert cleaned.returncode == 0, cleaned.stderr
    lines = cleaned.stdout.splitlines()
    assert lines[1].startswith("  basic-0: its pass threw ") and "Invalid record size" in lines[1]
    assert lines[1].endswith("marked uncleanable until the broker restarts; the other partitions are cleaned; "
                             "checkpoint stays at 0")  # fmt: skip
    assert lines[2].startswith("  Kafka logs: Unexpected exception thrown when cleaning log basic-0. Marking its ")
    assert lines[3] == "  cleaned basic-1:"


def test_an_unreadable_batch_in_the_clean_tail_fails_the_pass_that_rewrites_it(tmp_path):
    """The map is built from the dirty range alone (checkpoint 15); cleaning then reads the tail from segment 0 and
    throws there, before swapping anything in: every file stays, the checkpoint goes back to the first dirty offset."""
    source = tmp_path / "logs"
    shutil.copytree(SAMPLE / "before", source)
    (source / CLEANER_OFFSET_CHECKPOINT).write_text("0\n1\nbasic 0 15\n")
    flip(source / "basic-0" / "00000000000000000000.log", CORRUPTIONS["record length"][0])
    cleaning = clean_log_dir(source, tmp_path / "out", now_ms=kafka_pass_ms(), config=CONFIG)
    assert cleaning.result is None
    (failure,) = cleaning.simulation.cleaner.failures
    assert "Invalid record size" in failure.error and failure.error.endswith(f"(at byte position {BATCH})")
    assert file_bytes(tmp_path / "out" / "basic-0") == file_bytes(source / "basic-0")
    assert read_checkpoint(tmp_path / "out" / CLEANER_OFFSET_CHECKPOINT) == {("basic", 0): 15}


def test_groups_swapped_in_before_the_failure_stay(tmp_path):
    """Groups of two segments (internal.segment.bytes 500), dirty from 15, segment 6 unreadable: the map is built,
    group [0, 3] is cleaned and swapped in, group [6, 9] throws. The first group is what the same pass over an
    intact copy writes; every later segment keeps its files; the checkpoint stays at the first dirty offset."""
    config = TopicConfig.from_properties({**TOPIC, "internal.segment.bytes": 500}, broker=BrokerConfig())
    intact, broken = tmp_path / "intact", tmp_path / "broken"
    for source in (intact, broken):
        shutil.copytree(SAMPLE / "before", source)
        (source / CLEANER_OFFSET_CHECKPOINT).write_text("0\n1\nbasic 0 15\n")
    flip(broken / "basic-0" / "00000000000000000006.log", 61)
    at = kafka_pass_ms()
    whole = clean_log_dir(intact, tmp_path / "intact-out", now_ms=at, config=config)
    assert whole.result is not None and whole.result.groups[:2] == ((0, 3), (6, 9))
    failed = clean_log_dir(broken, tmp_path / "out", now_ms=at, config=config)
    assert failed.result is None and [f.name for f in failed.simulation.cleaner.failures] == ["basic-0"]
    ours, cleaned = file_bytes(tmp_path / "out" / "basic-0"), file_bytes(tmp_path / "intact-out" / "basic-0")
    source = file_bytes(broken / "basic-0")
    first_group = {name for name in cleaned if name.startswith("00000000000000000000.")}
    assert first_group and {name: ours[name] for name in first_group} == {name: cleaned[name] for name in first_group}
    assert "00000000000000000003.log" not in ours  # merged into the first group's segment
    later = {name for name in source if name[:20] >= "00000000000000000006"}
    assert {name: ours[name] for name in later} == {name: source[name] for name in later}
    assert read_checkpoint(tmp_path / "out" / CLEANER_OFFSET_CHECKPOINT) == {("basic", 0): 15}


@pytest.mark.parametrize(("on_disk_from_bytes", "scanned_again"), [(None, 0), (0, 1)], ids=["in-memory", "on-disk"])
def test_a_corrupt_partition_is_read_once_and_its_failing_file_twice(on_disk_from_bytes, scanned_again, tmp_path):
    """Issue #38: a partition whose read fails on segment 12 is read as Kafka's cleaner reads it without reading it
    all again. Read in memory, the segments before 12 are kept from the read that failed, and the first batch the
    cleaner cannot read is found while 12 and the later files are scanned: every file is opened once, 12 twice. Read
    on disk, the files before 12 gave their headers only to the read that failed and are scanned once more. Either
    way the log is the one their headers give, read without CRC checks."""
    source = tmp_path / "logs"
    shutil.copytree(SAMPLE / "before", source)
    failing = "00000000000000000012.log"
    flip(source / "basic-0" / failing, 61)  # the record length of segment 12's first batch
    options = ReadOptions(config=CONFIG, as_cleaner_reads=True, on_disk_from_bytes=on_disk_from_bytes)
    with reads_of(source / "basic-0") as reads:
        loaded = read_log_dir(source, options).partitions["basic-0"]
    files = sorted(p.name for p in (source / "basic-0").glob("*.log"))
    assert reads == {name: 1 + (name == failing) + (scanned_again if name < failing else 0) for name in files}
    corrupt = loaded.corrupt
    assert corrupt is not None and (Path(corrupt.file).name, corrupt.position) == (failing, 0)
    assert "Invalid record size" in corrupt.reason and loaded.on_disk
    headers = read_log_dir(source, ReadOptions(config=CONFIG, on_disk_from_bytes=0, verify_crc=False)).logs["basic-0"]
    assert [stored_segment(s) for s in loaded.log.segments] == [stored_segment(s) for s in headers.segments]
    assert loaded.log.producer_state.producers == headers.producer_state.producers


def stored_segment(segment) -> tuple:
    """What a segment read on disk holds: its offsets, bytes, times and index entries."""
    times = (segment.max_timestamp_so_far, segment.last_modified_ms)
    indexes = (segment.offset_index, segment.time_index, segment.aborted_transactions)
    return (segment.base_offset, segment.last_offset, segment.size_bytes, *times, *indexes)
