"""The C kernels (:mod:`kcompact_nb.record._native`, built by ``pip install`` when a C compiler is there), or None,
and :class:`Kernel`: one kernel's C function and its Python twin under one name.

:data:`NATIVE` is the one switch: every kernel runs its C function while it is the built extension and its twin
while it is None (a test sets it to None to run the twins: the ``kernels`` fixture of tests/io). The table of
kernels is :mod:`kcompact_nb.record._kernels`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def _built() -> ModuleType | None:
    try:
        import kcompact_nb.record._native as native
    except ImportError:  # installed without a C compiler
        return None
    return native


NATIVE = _built()


def c_kernels() -> Any:
    """:data:`NATIVE` for a kernel's ``c`` function, which runs only while it is built."""
    return NATIVE


@dataclass(frozen=True)
class Kernel(Generic[P, R]):
    """A hot loop written twice: ``c`` calls the C kernel's ``native`` functions (exports of
    :mod:`~kcompact_nb.record._native`), ``python`` is its numpy or Python twin, with the same signature and the
    same results. Calling the kernel runs the one :meth:`selected` now."""

    name: str
    native: tuple[str, ...]
    c: Callable[P, R]
    python: Callable[P, R]

    def selected(self) -> Callable[P, R]:
        """``c`` while the C kernels are built (and not switched off: :data:`NATIVE`), ``python`` otherwise."""
        return self.python if NATIVE is None else self.c

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.selected()(*args, **kwargs)
