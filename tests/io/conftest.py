"""Fixtures of the io tests."""

from __future__ import annotations

import pytest

from kcompact_nb.io.codec import _native_kernels


@pytest.fixture(params=["C", "numpy"])
def kernels(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on the C kernels (:mod:`kcompact_nb.io.codec._native`) and again on their numpy and Python twins:
    :data:`NATIVE` None switches every kernel of the table (:mod:`kcompact_nb.io.codec._kernels`) to its twin."""
    if request.param == "C" and _native_kernels.NATIVE is None:
        pytest.skip("the C kernels were not built (no C compiler at install): tests/io/codec/test_native.py says why")
    if request.param == "numpy":
        monkeypatch.setattr(_native_kernels, "NATIVE", None)
    return str(request.param)
