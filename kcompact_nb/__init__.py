"""kcompact_nb: see, predict and test Apache Kafka log compaction.

Importing the package loads only the core (standard library and numpy); Spark, plotly and ipywidgets are
imported by their own subpackages when used.
"""

from __future__ import annotations

from kcompact_nb.core import *  # noqa: F403
from kcompact_nb.core import __all__ as _core_all

__version__ = "0.1.0"
__all__ = [*_core_all, "__version__"]
