"""Results do not depend on import order (issue #28): nothing is wired at import (issue #38), so a compressed batch
is sized with Kafka's own bytes whichever of the package's modules was imported first, or alone, checked in fresh
interpreters."""

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
print(json.dumps([batch.size_bytes, batch.size_estimated, batch.raw.hex()]))
"""
ORDERS = {
    "core only": "import json\n",
    "record first": "import json\nimport kcompact_nb.record\n",
    "io first": "import json\nimport kcompact_nb.io\n",
    "viz first": "import json\nimport kcompact_nb.viz\n",
    "spark-free root": "import json\nimport kcompact_nb\n",
}


def _batch(prelude: str) -> tuple[object, ...]:
    done = subprocess.run([sys.executable, "-c", prelude + APPEND], capture_output=True, text=True, check=True)
    return tuple(json.loads(done.stdout))


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_a_gzip_batch_is_the_same_bytes_in_every_import_order(order):
    from kcompact_nb.core import NewRecord, PartitionLog, TopicConfig
    from kcompact_nb.record import encode_batch

    size, estimated, raw = _batch(ORDERS[order])
    log = PartitionLog("t", config=TopicConfig.from_properties({"cleanup.policy": "compact"}))
    records = [NewRecord(f"key-{i}".encode(), b'{"price": %d, "currency": "EUR"}' % i, timestamp=i) for i in range(50)]
    log.append(records, now_ms=0, compression="gzip")
    (batch,) = log.batches()
    assert (size, estimated, raw) == (batch.size_bytes, False, encode_batch(batch).hex())
    assert size > 61  # a record batch header and gzip's output: Kafka's bytes, not an estimate (issue #28)
