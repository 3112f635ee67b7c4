"""Every kernel this pytest run starts (nbval's, JupyterLab's) uses the project's ``python3`` kernel spec."""

from __future__ import annotations

import os
from pathlib import Path

# tools/jupyter/kernels/python3 shadows the stock spec: same kernel, but output written straight to file
# descriptors 1 and 2 (the JVM's, under Spark) stays in the terminal instead of landing in cell outputs.
JUPYTER_DATA = Path(__file__).resolve().parent / "tools" / "jupyter"
os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(JUPYTER_DATA), os.environ.get("JUPYTER_PATH")]))
