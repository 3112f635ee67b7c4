"""Results do not depend on import order (issue #28): a compressed batch is sized with Kafka's own bytes
whether ``kcompact_nb.io`` was imported or not, first or last, checked in fresh interpreters."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

APPEND = """
from kcompact_nb.core import NewRecord, PartitionLog, TopicConfig
log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}))
records = [NewRecord(f"key-{i}".encode(), b'{"price": %d, "currency": "EUR"}' % i, timestamp=i) for i in range(50)]
log.append(records, now_ms=0, compression="gzip")
(batch,) = log.batches()
print(json.dumps([batch.size_bytes, batch.size_estimated]))
"""
ORDERS = {
    "core only": "import json\n",
    "io first": "import json\nimport kcompact_nb.io\n",
    "spark-free root": "import json\nimport kcompact_nb\n",
}


def _size(prelude: str) -> list[object]:
    done = subprocess.run([sys.executable, "-c", prelude + APPEND], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_a_gzip_batch_has_kafkas_exact_size_in_every_import_order(order):
    from kcompact_nb.io import encode_batch

    size, estimated = _size(ORDERS[order])
    assert estimated is False
    assert size == _size(ORDERS["io first"])[0]
    assert size > 61  # a record batch header and gzip's output, not core's estimate (which differs: issue #28)
    assert callable(encode_batch)
