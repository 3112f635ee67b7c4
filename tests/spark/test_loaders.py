"""Every loader yields the one record schema; log dirs decode in tasks; schema errors name columns."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from kcompact_nb.core import RECORD_BATCH_OVERHEAD
from kcompact_nb.io import DumpParseError, read_kcat
from kcompact_nb.spark import (
    RECORD_COLUMNS,
    SchemaMismatchError,
    estimate_note,
    load_checkpoints,
    load_dump_log,
    load_jsonl,
    load_kcat,
    load_log_dir,
    load_parquet,
    load_segments,
    missing_note,
    validate_records,
)
from tests.spark.conftest import SAMPLES

TXN = SAMPLES / "transactional" / "before"
BASIC = SAMPLES / "compaction-basic" / "after"
CONSUMER_VIEW = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers"]


def rows(df, columns=None):
    return [tuple(r) for r in df.select(*(columns or df.columns)).orderBy("topic", "partition", "offset").collect()]


def test_log_dir_records_batches_and_segment_sizes(spark):
    df = load_log_dir(spark, TXN)
    assert df.columns == list(RECORD_COLUMNS)
    got = rows(
        df,
        ["offset", "segment_base_offset", "batch_base_offset", "batch_last_offset", "is_transactional", "is_control"],
    )
    assert got == [
        (0, 0, 0, 1, True, False), (1, 0, 0, 1, True, False), (2, 2, 2, 2, True, True),
        (3, 2, 3, 4, True, False), (4, 2, 3, 4, True, False), (5, 5, 5, 5, True, True), (6, 6, 6, 6, False, False),
    ]  # fmt: skip
    per_segment = df.groupBy("segment_base_offset").agg(
        (F.sum("record_size_bytes") + RECORD_BATCH_OVERHEAD * F.count_distinct("batch_base_offset")).alias("bytes")
    )
    sizes = {r["segment_base_offset"]: r["size_bytes"] for r in load_segments(spark, TXN).collect()}
    assert {r[0]: r[1] for r in per_segment.collect()} == sizes  # exact v2 sizes of uncompressed batches
    assert estimate_note(df, "record_size_bytes") is None


def test_jsonl_dump_and_log_dir_agree_on_what_a_consumer_reads(spark):
    from_dir = rows(load_log_dir(spark, BASIC).filter(~F.col("is_control")), CONSUMER_VIEW)
    jsonl = load_jsonl(spark, BASIC / "records.jsonl")
    assert rows(jsonl, CONSUMER_VIEW) == from_dir
    assert (estimate_note(jsonl, "record_size_bytes") or "").startswith(
        "v2 size formula with offset and timestamp deltas"
    )
    dump = load_dump_log(spark, BASIC / "dump.txt", topic="basic", partition=0)
    assert rows(dump, RECORD_COLUMNS) == rows(load_log_dir(spark, BASIC), RECORD_COLUMNS)


def test_checkpoints_parquet_and_kcat(spark, tmp_path):
    assert [tuple(r) for r in load_checkpoints(spark, BASIC).collect()] == [("basic", 0, 31, None)]
    load_log_dir(spark, TXN).write.parquet(str(tmp_path / "t.parquet"))
    assert rows(load_parquet(spark, tmp_path / "t.parquet")) == rows(load_log_dir(spark, TXN))
    (tmp_path / "k.json").write_text(
        '{"topic":"t","partition":1,"offset":5,"tstype":"create","ts":1000,"broker":1,"headers":["h","x"],'
        '"key":"a","payload":"1"}\n'
        '{"topic":"t","partition":1,"offset":6,"tstype":"create","ts":2000,"broker":1,"key":"a","payload":null}\n'
    )
    kcat = load_kcat(spark, tmp_path / "k.json", topic="t", partition=1)
    assert rows(kcat, ["topic", "partition", "offset", "key", "value", "headers", "record_size_bytes"]) == [
        ("t", 1, 5, b"a", b"1", [("h", b"x")], 13),
        ("t", 1, 6, b"a", None, None, 8),
    ]
    assert [missing_note(kcat, c) for c in kcat.columns] == [None] * len(RECORD_COLUMNS)


def test_kcat_formats_without_a_timestamp_give_nulls_and_say_what_is_missing(spark, tmp_path):
    # kcat -Z -f '%p %o %K %k\n': no %T, %s, %h or %t; -Z prints NULL for the empty key of offset 1
    (tmp_path / "k.txt").write_bytes(b"0 0 1 a\n0 1 0 NULL\n2 0 -1 NULL\n")
    kcat = load_kcat(spark, tmp_path / "k.txt", topic="t", kcat_format=r"%p %o %K %k\n", print_nulls=True)
    assert rows(kcat, ["topic", "partition", "offset", "key", "value", "timestamp", "timestampType"]) == [
        ("t", 0, 0, b"a", None, None, None),
        ("t", 0, 1, b"", None, None, None),
        ("t", 2, 0, None, None, None, None),
    ]
    notes = {c: missing_note(kcat, c) for c in kcat.columns if missing_note(kcat, c)}
    assert notes == {
        "value": "not in the kcat output (the -f format has no %s); the column holds nulls",
        "topic": "not in the kcat output (the -f format has no %t); the column holds load_kcat's topic argument",
        "timestamp": "not in the kcat output (the -f format has no %T); the column holds nulls",
        "timestampType": "not in the kcat output (kcat -f prints no timestamp type); the column holds nulls",
        "headers": "not in the kcat output (the -f format has no %h); the column holds nulls",
    }
    (tmp_path / "several.txt").write_text("0\t10\n1\t11\n0\t12\n")
    with pytest.raises(DumpParseError, match="the partition is unknown") as unknown:
        load_kcat(spark, tmp_path / "several.txt", topic="t", kcat_format=r"%o\t%T\n")
    assert "\n" not in str(unknown.value)


def test_kcat_output_the_parser_refuses_is_refused_by_load_kcat_with_its_one_line_message(spark, tmp_path):
    (tmp_path / "several.txt").write_text("0\t10\n1\t11\n0\t12\n")
    with pytest.raises(DumpParseError) as refused:
        load_kcat(spark, tmp_path / "several.txt", topic="t", kcat_format=r"%o\t%T\n", partition=0)
    with pytest.raises(DumpParseError) as parsed:
        read_kcat(tmp_path / "several.txt", r"%o\t%T\n", partition=0)
    assert str(refused.value) == str(parsed.value)
    assert "offsets of one partition go back" in str(refused.value) and "(at line 3)" in str(refused.value)
    (tmp_path / "records.jsonl").write_text('{"key":"az0=","value":"dg==","topic":"t","partition":0,"offset":0}\n')
    with pytest.raises(DumpParseError, match="not a kcat -J object: no 'tstype'"):
        load_kcat(spark, tmp_path / "records.jsonl", topic="t")
    with pytest.raises(FileNotFoundError, match="no-such.json"):
        load_kcat(spark, tmp_path / "no-such.json", topic="t")


def test_schema_errors_list_missing_and_present_columns(spark, tmp_path):
    spark.createDataFrame([(b"k", 1)], "key binary, offset long").write.parquet(str(tmp_path / "bad.parquet"))
    with pytest.raises(SchemaMismatchError) as caught:
        load_parquet(spark, tmp_path / "bad.parquet")
    assert str(caught.value) == (
        "load_parquet needs the column(s) ['value', 'topic', 'partition', 'timestamp', 'timestampType', 'headers']; "
        "the DataFrame has ['key', 'offset']"
    )
    with pytest.raises(SchemaMismatchError, match=r"needs the column\(s\) \['topic'"):
        validate_records(spark.createDataFrame([(b"k", b"v")], "key binary, value binary"))
