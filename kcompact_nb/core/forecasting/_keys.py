"""Keys of a produce model: their bytes, their partition (Kafka's default partitioner), and draws by popularity.

A key is its number written as ``key_bytes`` ASCII digits (``0000000000000042``). Keyed records go to partition
``toPositive(murmur2(key)) % partitions``, as the Java producer's default partitioner sends them
(``Utils.murmur2``, ``BuiltInPartitioner.partitionForKey``). Zipf draws use Hörmann and Derflinger's
rejection-inversion, exact for any key space size (the number of keys may differ per draw, as the space grows).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy

_M = numpy.uint32(0x5BD1E995)
_SEED = 0x9747B28C
_MASK = 0xFFFFFFFF


def key_digits(ids: numpy.ndarray, width: int) -> numpy.ndarray:
    """The keys of ``ids`` as a ``(len(ids), width)`` uint8 array of ASCII digits, zero-padded."""
    ids = numpy.asarray(ids, dtype=numpy.int64)
    digits = numpy.full((len(ids), width), ord("0"), dtype=numpy.uint8)
    rest = ids.copy()
    for column in range(width - 1, max(width - 20, -1), -1):
        digits[:, column] += (rest % 10).astype(numpy.uint8)
        rest //= 10
    return digits


def key_bytes(key_id: int, width: int) -> bytes:
    """One key's bytes."""
    return str(key_id).zfill(width).encode("ascii")


def murmur2(keys: numpy.ndarray) -> numpy.ndarray:
    """Kafka's ``Utils.murmur2`` of each row of ``keys`` (a 2-D uint8 array, one key per row), as int32."""
    rows, length = keys.shape
    with numpy.errstate(over="ignore"):
        h = numpy.full(rows, (_SEED ^ length) & _MASK, dtype=numpy.uint32)
        blocks = length // 4
        for i in range(blocks):
            part = keys[:, 4 * i : 4 * i + 4].astype(numpy.uint32)
            k = part[:, 0] | (part[:, 1] << 8) | (part[:, 2] << 16) | (part[:, 3] << 24)
            k = k * _M
            k ^= k >> numpy.uint32(24)
            k = k * _M
            h = h * _M
            h ^= k
        tail = keys[:, 4 * blocks :].astype(numpy.uint32)
        if tail.shape[1]:
            for index in range(tail.shape[1] - 1, -1, -1):
                h ^= tail[:, index] << numpy.uint32(8 * index)
            h = h * _M
        h ^= h >> numpy.uint32(13)
        h = h * _M
        h ^= h >> numpy.uint32(15)
    return h.view(numpy.int32)


def partitions_of(ids: numpy.ndarray, *, width: int, partitions: int) -> numpy.ndarray:
    """The partition of each key (``toPositive(murmur2(key)) % partitions``)."""
    if partitions == 1 or len(ids) == 0:
        return numpy.zeros(len(ids), dtype=numpy.int64)
    out = numpy.empty(len(ids), dtype=numpy.int64)
    for start in range(0, len(ids), 1 << 20):
        chunk = murmur2(key_digits(ids[start : start + (1 << 20)], width))
        out[start : start + len(chunk)] = (chunk.astype(numpy.int64) & 0x7FFFFFFF) % partitions
    return out


def zipf_ids(rng: numpy.random.Generator, sizes: numpy.ndarray, exponent: float) -> numpy.ndarray:
    """One key id per entry of ``sizes`` (the key space's size at that draw), id ``k`` drawn with weight
    ``(k + 1) ** -exponent`` (rejection-inversion, Hörmann and Derflinger 1996)."""
    sizes = numpy.asarray(sizes, dtype=float)
    out = numpy.zeros(len(sizes), dtype=numpy.int64)
    todo = numpy.arange(len(sizes))
    s = exponent
    x1 = _h_integral(numpy.array(1.5), s) - 1.0
    s_k = 2.0 - _h_integral_inverse(_h_integral(numpy.array(2.5), s) - _h(numpy.array(2.0), s), s)
    while len(todo):
        n_integral = _h_integral(sizes[todo] + 0.5, s)
        u = n_integral + rng.random(len(todo)) * (x1 - n_integral)
        x = _h_integral_inverse(u, s)
        k = numpy.clip(numpy.floor(x + 0.5), 1, sizes[todo])
        accept = (k - x <= s_k) | (u >= _h_integral(k + 0.5, s) - _h(k, s))
        out[todo[accept]] = k[accept].astype(numpy.int64) - 1
        todo = todo[~accept]
    return out


def zipf_weights(ids: numpy.ndarray, size: int, exponent: float) -> numpy.ndarray:
    """The probability of each of ``ids`` among ``size`` keys under Zipf's law."""
    return (numpy.asarray(ids, dtype=float) + 1) ** -exponent / harmonic(size, exponent)


_EXACT_TERMS = 1_000_000


@lru_cache(maxsize=8)
def _partial_sums(exponent: float) -> numpy.ndarray:
    return numpy.concatenate(([0.0], numpy.cumsum(numpy.arange(1, _EXACT_TERMS + 1, dtype=float) ** -exponent)))


def harmonic(size: int, exponent: float) -> float:
    """``sum((k + 1) ** -exponent for k in range(size))``: exactly up to a million terms, beyond by Euler-Maclaurin."""
    exact = min(int(size), _EXACT_TERMS)
    total = float(_partial_sums(exponent)[exact])
    if size > exact:
        a, b = float(exact), float(size)
        power = 1 - exponent
        integral = math.log(b / a) if exponent == 1 else (b**power - a**power) / power
        total += integral + (b**-exponent - a**-exponent) / 2
    return total


def _h(x: numpy.ndarray, s: float) -> numpy.ndarray:
    return numpy.asarray(numpy.exp(-s * numpy.log(x)))


def _h_integral(x: numpy.ndarray, s: float) -> numpy.ndarray:
    log_x = numpy.log(x)
    return numpy.asarray(_helper2((1 - s) * log_x) * log_x)


def _h_integral_inverse(x: numpy.ndarray, s: float) -> numpy.ndarray:
    t = numpy.maximum(x * (1 - s), -1 + 1e-15)
    return numpy.asarray(numpy.exp(_helper1(t) * x))


def _helper1(x: numpy.ndarray) -> numpy.ndarray:
    """``log1p(x) / x``, 1 at 0."""
    x = numpy.asarray(x, dtype=float)
    small = numpy.abs(x) < 1e-8
    safe = numpy.where(small, 1.0, x)
    return numpy.where(small, 1 - x / 2 + x * x / 3, numpy.log1p(safe) / safe)


def _helper2(x: numpy.ndarray) -> numpy.ndarray:
    """``expm1(x) / x``, 1 at 0."""
    x = numpy.asarray(x, dtype=float)
    small = numpy.abs(x) < 1e-8
    safe = numpy.where(small, 1.0, x)
    return numpy.where(small, 1 + x / 2 + x * x / 6, numpy.expm1(safe) / safe)
