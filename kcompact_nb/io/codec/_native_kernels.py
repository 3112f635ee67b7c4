"""The C kernels (:mod:`kcompact_nb.io.codec._native`, built by ``pip install`` when a C compiler is there), or None.

The segment reader's record decoding, decompression of compressed batches and key numbering, the writer's record
encoding, a streamed pass's offset map, a streamed offset-bucket tally's latest entries and snappy's compressor run in C
when they were built, and in numpy and Python otherwise (:mod:`kcompact_nb.io.codec._vector_decoder`,
:mod:`kcompact_nb.io.codec._block_inflation`, :mod:`kcompact_nb.io.codec._key_numbering`,
:mod:`kcompact_nb.io.codec._record_encoder`, a dict, :mod:`kcompact_nb.io.logdir._streamed_buckets`,
:mod:`kcompact_nb.io.codec._snappy`): the same results either way (tests/io/codec/test_native.py and the ``kernels``
fixture of tests/io), the C loops several times faster. Callers read :data:`NATIVE` when they run, so a test can set it
to None to run the other paths.
"""

from __future__ import annotations

from types import ModuleType


def _built() -> ModuleType | None:
    try:
        import kcompact_nb.io.codec._native as native
    except ImportError:  # installed without a C compiler
        return None
    return native


NATIVE = _built()
