"""What a topic's codec makes of the model's values: the stored bytes per value byte, from the real codec."""

from __future__ import annotations

import numpy

from kcompact_nb.core.forecasting._appender import Appender
from kcompact_nb.core.forecasting._events import ProducedBatch
from kcompact_nb.core.forecasting._exact_stream import topic_rng
from kcompact_nb.core.forecasting._produce_model import TopicLoad
from kcompact_nb.core.model import PartitionLog, TopicConfig, stored_compression
from kcompact_nb.record import record_size_of_lengths

SAMPLE_BATCHES = 16
RATIO_STREAM, LENGTHS_STREAM = 3, 4


def compression_ratio(load: TopicLoad, config: TopicConfig, seed: int, name: str) -> float:
    """Stored value bytes per produced value byte under the codec the topic stores (1 when none): sample batches
    of the model's records compressed by the real codec, their sizes compared with the same batches uncompressed."""
    codec, _ = stored_compression(config, load.producer.compression)
    if codec == "none":
        return 1.0
    log = PartitionLog(name, config=config)
    appender = Appender(load.key_bytes, load.value_compressibility, 0, topic_rng(seed, name, RATIO_STREAM))
    rng = topic_rng(seed, name, LENGTHS_STREAM)
    record = record_size_of_lengths(1, 1, load.key_bytes, round(load.value_bytes.mean_bytes))
    per_batch = max(1, min(500, int(load.producer.batch_bytes // record)))
    stored = uncompressed = values = 0
    for i in range(SAMPLE_BATCHES):
        lengths = rng.integers(load.value_bytes.min_bytes, load.value_bytes.max_bytes + 1, per_batch)
        batch = ProducedBatch(name, 0, i, numpy.arange(per_batch), numpy.full(per_batch, i), lengths, compression=codec)
        stored += appender.stored_batch(log, batch).size_bytes
        uncompressed += appender.stored_batch(log, batch, "none").size_bytes
        values += int(lengths.sum())
    return max(0.0, (stored - (uncompressed - values)) / max(values, 1))
