"""Notebook kernels keep file-descriptor output (the JVM's, under Spark) out of cell outputs (docs/architecture.md,
Determinism)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parents[1]


def test_python3_resolves_to_the_project_kernel_spec() -> None:
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.resource_dir) == ROOT / "tools" / "jupyter" / "kernels" / "python3"
    assert "--IPKernelApp.capture_fd_output=False" in spec.argv


def test_fd_level_output_is_not_forwarded_to_the_cell() -> None:
    messages: list[dict[str, Any]] = []
    # ipykernel never watches file descriptors under pytest; the kernel must behave as under JupyterLab.
    env = {name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"}
    manager, client = start_new_kernel(
        kernel_name="python3", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        code = "import os; os.write(1, b'from fd 1\\n'); os.write(2, b'from fd 2\\n'); print('from print')"
        client.execute_interactive(code, output_hook=messages.append, timeout=60)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    streams = [m["content"]["text"] for m in messages if m["msg_type"] == "stream"]
    assert "".join(streams) == "from print\n"
