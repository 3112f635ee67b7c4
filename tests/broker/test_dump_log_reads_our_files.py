"""Kafka's own DumpLogSegments reads the segment files we write, batch for batch (issue: real Kafka formats).

The log is cleaned by the simulator first, so the files hold every kind of batch the cleaner writes:
rebuilt batches, delete-horizon batches, 61-byte empty shells, control batches and untouched originals.
"""

from __future__ import annotations

from kcompact_nb.broker import dump_log_segments
from kcompact_nb.io import parse_dump_log, write_partition_dir
from tests.conftest import cleaned_mixed_log
from tests.io.test_samples_against_dump_log import batch_fields

from .conftest import require_java_and_maven


def test_dump_log_segments_reads_what_we_write(tmp_path):
    require_java_and_maven()
    log = cleaned_mixed_log()
    kinds = {(b.size_bytes == 61, b.delete_horizon_ms is not None, b.is_control) for b in log.batches()}
    assert {(True, False, False), (False, True, False), (False, False, True)} <= kinds  # shell, stamped, marker
    folder = write_partition_dir(log, tmp_path)
    parsed = parse_dump_log(dump_log_segments(sorted(folder.glob("*.log"))))
    assert parsed.invalid_batches == () and parsed.missing == frozenset()
    assert [batch_fields(b) for b in parsed.batches()] == [batch_fields(b) for b in log.batches()]
