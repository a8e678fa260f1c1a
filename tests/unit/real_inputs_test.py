# real_inputs_test — the generators of workloads/real/ write the same bytes for
# the same size and seed (the cache is keyed on them: a generator that drew
# from the clock or the hash seed would make another input under the same
# name), another input for another seed (but z3's, which is mimalloc-bench's
# problem whatever the seed), and more work at each size up the ladder (to
# large by the generators' tables). The programs' own size arguments in
# workloads/workloads.json (db_bench's --num, redis-benchmark's -n) grow up the
# ladder too, and are the counts their descriptions state.
import importlib.util
import json
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REAL = os.path.join(ROOT, "workloads", "real")
GENERATORS = ["lua_input.py", "python_input.py", "sqlite_input.py", "pdf_input.py", "z3_input.py"]
SEEDLESS = {"z3_input.py"}


def generate(generator, size, seed, hash_seed="0"):
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    return subprocess.run([sys.executable, os.path.join(REAL, generator), "--size", size, "--seed", str(seed)],
                          check=True, capture_output=True, env=env, timeout=120).stdout


def load(generator):
    """The generator's module, imported from its file (its main does not run)."""
    spec = importlib.util.spec_from_file_location(generator[:-3], os.path.join(REAL, generator))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Generators(unittest.TestCase):
    def test_same_size_and_seed_same_bytes(self):
        for generator in GENERATORS:
            with self.subTest(generator=generator):
                first = generate(generator, "small", 7, hash_seed="1")
                self.assertTrue(first)
                self.assertEqual(first, generate(generator, "small", 7, hash_seed="2"),
                                 "two generations of one size and seed differ")

    def test_another_seed_another_input(self):
        for generator in GENERATORS:
            with self.subTest(generator=generator):
                # Past the first line, which names the seed in a comment (not the input's content).
                one, two = (generate(generator, "small", seed).split(b"\n", 1)[1] for seed in (1, 2))
                if generator in SEEDLESS:
                    self.assertEqual(one, two)
                else:
                    self.assertNotEqual(one, two, "the seed changes nothing")

    def test_sizes_grow_up_the_ladder(self):
        for generator in GENERATORS:
            with self.subTest(generator=generator):
                lengths = [len(generate(generator, size, 1)) for size in ("tiny", "small", "medium")]
                self.assertLess(lengths[0], lengths[1])
                self.assertLessEqual(lengths[1], lengths[2])

    def test_size_tables_grow_up_the_whole_ladder(self):
        # Up to large, read from each generator's SIZES table (large's inputs take seconds and
        # hundreds of MB to write): every parameter at least the rung's below, one of them more.
        ladder = ("tiny", "small", "medium", "large")
        for generator in GENERATORS:
            with self.subTest(generator=generator):
                sizes = load(generator).SIZES
                self.assertEqual(sorted(sizes), sorted(ladder))
                rungs = [sizes[size] if isinstance(sizes[size], tuple) else (sizes[size],) for size in ladder]
                for size, below, above in zip(ladder[1:], rungs, rungs[1:]):
                    self.assertTrue(all(a >= b for a, b in zip(above, below)) and above != below,
                                    f"{size} {above} is not more than the size below it {below}")

    def test_size_arguments_grow_up_the_ladder_as_their_descriptions_say(self):
        # Each real program's arguments by size (its own "sizes", its client's): the numbers in them
        # grow from rung to rung, and where the description states a rung's count ("small 50,000"),
        # that rung's arguments hold it.
        ladder = ("tiny", "small", "medium", "large")
        with open(os.path.join(ROOT, "workloads", "workloads.json"), encoding="utf-8") as f:
            entries = [w for w in json.load(f)["workloads"] if w.get("family") == "real"]
        checked = 0
        for entry in entries:
            for sizes in (entry.get("sizes"), entry.get("client", {}).get("sizes")):
                if not sizes:
                    continue
                checked += 1
                with self.subTest(workload=entry["name"]):
                    self.assertEqual(sorted(sizes), sorted(ladder))
                    numbers = [[int(n) for n in re.findall(r"\d+", " ".join(sizes[size]))] for size in ladder]
                    for size, below, above in zip(ladder[1:], numbers, numbers[1:]):
                        self.assertTrue(all(a >= b for a, b in zip(above, below)) and above != below,
                                        f"{size} {above} is not more than the size below it {below}")
                    # "tiny 2000 keys, small 50,000 ≈ 0.8 s": counts, not times (a number before " s").
                    stated = {size: int(count.replace(",", "")) for size, count in
                              re.findall(r"\b(tiny|small|medium|large) (\d[\d,]*\d|\d)(?![\d.]| s\b)",
                                         entry.get("description", ""))}
                    self.assertTrue(stated, f"{entry['name']}'s description states no size's count")
                    for size, count in stated.items():
                        self.assertIn(count, numbers[ladder.index(size)],
                                      f"{entry['name']}'s description says {size} {count:,}; its arguments: "
                                      f"{sizes[size]}")
        self.assertGreaterEqual(checked, 3, "rocksdb, redis and redis-mixed have arguments by size")

    def test_a_size_off_the_ladder_is_refused(self):
        result = subprocess.run([sys.executable, os.path.join(REAL, "lua_input.py"), "--size", "huge", "--seed", "1"],
                                capture_output=True, timeout=60)
        self.assertEqual(result.returncode, 2)


if __name__ == "__main__":
    unittest.main()
