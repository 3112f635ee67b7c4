"""``python -m kcompact_nb``: the ``kcompact`` command line."""

from __future__ import annotations

import sys

from kcompact_nb.cli import main

if __name__ == "__main__":
    sys.exit(main())
