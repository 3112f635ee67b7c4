"""kcompact_nb: see, predict and test Apache Kafka log compaction.

Importing the package loads the core (standard library and numpy) and io's codecs; Spark, plotly and
ipywidgets are imported by their own subpackages when used.

This is also where the layers are wired together, once, whatever is imported first: every import of a
``kcompact_nb`` module runs this file before it, so core's logs size compressed batches with io's Kafka
encoder (Kafka's own bytes) from the start, never with core's estimate in one import order and Kafka's
bytes in another.
"""

from __future__ import annotations

from kcompact_nb.core import *  # noqa: F403
from kcompact_nb.core import __all__ as _core_all
from kcompact_nb.core import set_default_encoder as _set_default_encoder
from kcompact_nb.io import KafkaBatchEncoder as _KafkaBatchEncoder

_set_default_encoder(_KafkaBatchEncoder())

__version__ = "0.1.0"
__all__ = [*_core_all, "__version__"]
