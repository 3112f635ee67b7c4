"""The benchmark runner repeats, takes the median and tabulates with throughput columns."""

from __future__ import annotations

from bench._machine import describe
from bench._runner import Benchmark, Measurement, format_table, run_all


def test_runner_reports_median_and_throughput():
    seconds = iter([4.0, 1.0, 2.0])
    bench = Benchmark(
        "fake", lambda: Measurement(next(seconds), records=1000, bytes=2 * 1_048_576), repeat=3, target="<= 3 s"
    )
    (row,) = run_all([bench])
    assert (row["benchmark"], row["median s"], row["records/s"], row["MB/s"], row["target"]) == (
        "fake",
        "2.000",
        "500",
        "1.0",
        "<= 3 s",
    )
    table = format_table([row]).splitlines()
    assert table[0].startswith("benchmark | median s | records/s | MB/s")
    assert table[2].startswith("fake      | 2.000")


def test_machine_description_names_cores_and_memory():
    text = describe()
    assert "cores" in text and "GiB RAM" in text and "Python 3." in text


def test_every_benchmark_module_registers_under_a_unique_name():
    import bench.__main__  # noqa: F401  (imports every benchmark module)
    from bench._runner import REGISTRY

    names = [b.name for b in REGISTRY]
    assert len(names) == len(set(names))
    assert any(n.startswith("cleaner:") for n in names) and any(n.startswith("core:") for n in names)
    assert [n for n in names if n.startswith("startup: kcompact --")] == [
        "startup: kcompact --version",
        "startup: kcompact --help",
    ]
    assert any("read" in n for n in names)
