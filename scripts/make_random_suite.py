#!/usr/bin/env python3
"""Writes bench/suites/random.txt: 200 shapes, M, N, K log-uniform in [1, 16384], the first
hundred with even K, the second hundred with odd K (issue 11). Fixed seed: the suite is public and the same for every run."""
import math
import random
import sys

rng = random.Random(20261201)


def log_uniform(lo=1, hi=16384):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


rows = ["# Random suite (issue 11): 200 shapes, M, N, K log-uniform in [1, 16384], shapes 1-100",
        "# with even K, 101-200 with odd K. Made by scripts/make_random_suite.py (fixed seed 20261201); do not edit."]
for i in range(200):
    m, n, k = log_uniform(), log_uniform(), log_uniform()
    if (k % 2 == 1) != (i >= 100):  # the first hundred even K, the second hundred odd K
        k = k + 1 if k < 16384 else k - 1
    rows.append(f"{m}x{n}x{k}")
out = sys.argv[1] if len(sys.argv) > 1 else "bench/suites/random.txt"
open(out, "w").write("\n".join(rows) + "\n")
