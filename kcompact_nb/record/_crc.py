"""CRC-32C (Castagnoli), as Kafka's batches and producer snapshots carry it: the C kernel's (``frame_batches.c``'s,
SSE 4.2 where the processor has it), or its twin, the ``crc32c`` package's C function (the one kafka-python calls),
imported when first used: importing that package reads its metadata (``importlib.metadata``, about 40 ms), which a
command that reads a log dir (``kcompact inspect``) need not pay. Listed in the kernels' table
(:mod:`kcompact_nb.record._kernels`), defined here: the framing imports it."""

from __future__ import annotations

from typing import Any

from kcompact_nb.record._native_kernels import Kernel, c_kernels


def crc32c_in_c(data: Any) -> int:
    """The CRC-32C of ``data`` (bytes, or any buffer), by the C kernel."""
    crc: int = c_kernels().crc32c(data)
    return crc


def crc32c_of_package(data: Any) -> int:
    """:func:`crc32c_in_c`'s twin: the ``crc32c`` package's function."""
    from crc32c import crc32c as package_crc32c

    crc: int = package_crc32c(data)
    return crc


crc32c: Kernel[[Any], int] = Kernel("crc32c", ("crc32c",), crc32c_in_c, crc32c_of_package)
"""The CRC-32C of a batch's attributes onwards, or of a producer snapshot's body."""
