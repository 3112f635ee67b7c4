"""The log pool model against a real JVM: ``ConcurrentHashMap<TopicPartition, ...>`` as the broker builds it.

A small Java program (compiled here with ``javac`` against the broker's ``kafka-clients`` jar) puts
``TopicPartition`` keys into a default ``ConcurrentHashMap`` in the given order and prints its key set;
the simulator's :class:`kcompact_nb.core.cleaner._log_pool.LogPool` must iterate the same keys in the same
order, across table growth, colliding hash codes and tree bins.
"""

from __future__ import annotations

import itertools
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kcompact_nb.broker import DEFAULT_VERSION, resolve_classpath
from kcompact_nb.core.cleaner._log_pool import log_pool_order

from .conftest import require_java_and_maven

PROGRAM = """
import java.io.*;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

public class PoolOrder {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        ConcurrentHashMap<TopicPartition, Boolean> pool = new ConcurrentHashMap<>();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) {  // one case ends: print its order, start the next
                for (TopicPartition tp : pool.keySet()) out.println(tp.topic() + " " + tp.partition());
                out.println();
                pool = new ConcurrentHashMap<>();
                continue;
            }
            int space = line.lastIndexOf(' ');
            pool.put(new TopicPartition(line.substring(0, space), Integer.parseInt(line.substring(space + 1))), true);
        }
    }
}
"""
COLLIDING = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=4)]  # one String hash code


def cases() -> list[list[tuple[str, int]]]:
    rng = random.Random(16)
    made = []
    for index in range(60):
        kind = index % 4
        if kind == 0:  # many topics and partitions: several table growths
            keys = [(f"topic-{rng.randrange(30)}", rng.randrange(60)) for _ in range(rng.randrange(1, 300))]
        elif kind == 1:  # colliding names in a small table: tryPresize instead of a tree
            keys = [(rng.choice(COLLIDING), rng.randrange(3)) for _ in range(rng.randrange(1, 60))]
        elif kind == 2:  # colliding names among many others: tree bins, split when the table grows
            names = [*COLLIDING, "orders", "__consumer_offsets"]
            keys = [(rng.choice(names), rng.randrange(50)) for _ in range(rng.randrange(1, 400))]
        else:  # non-ASCII names (UTF-16 code units, surrogate pairs)
            keys = [("".join(rng.choice("ab\u00e9\U0001f600") for _ in range(rng.randrange(1, 5))), rng.randrange(8))
                    for _ in range(rng.randrange(1, 100))]  # fmt: skip
        made.append(list(dict.fromkeys(keys)))
    return made


def jvm_orders(keys_per_case: list[list[tuple[str, int]]], folder: Path) -> list[list[tuple[str, int]]]:
    classpath = f"{resolve_classpath(DEFAULT_VERSION)}/*"
    (folder / "PoolOrder.java").write_text(PROGRAM)
    subprocess.run(["javac", "-cp", classpath, "-d", str(folder), str(folder / "PoolOrder.java")], check=True)
    text = "".join("".join(f"{t} {p}\n" for t, p in keys) + "\n" for keys in keys_per_case)
    run = subprocess.run(
        ["java", "-cp", f"{classpath}:{folder}", "PoolOrder"], input=text.encode(), capture_output=True, check=True
    )
    blocks = run.stdout.decode("utf-8").split("\n\n")[: len(keys_per_case)]
    return [
        [(line.rsplit(" ", 1)[0], int(line.rsplit(" ", 1)[1])) for line in block.splitlines() if line]
        for block in blocks
    ]


def test_log_pool_iterates_like_a_jvm_concurrent_hash_map(tmp_path):
    require_java_and_maven()
    if shutil.which("javac") is None:
        pytest.skip("javac (a JDK) is needed to compile the reference program")
    keys_per_case = cases()
    expected = jvm_orders(keys_per_case, tmp_path)
    ours = [[keys[i] for i in log_pool_order(keys)] for keys in keys_per_case]
    assert sum(len(k) for k in keys_per_case) > 5000
    mismatched = [i for i, (a, b) in enumerate(zip(ours, expected, strict=True)) if a != b]
    assert mismatched == []
