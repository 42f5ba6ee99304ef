#!/usr/bin/env python3
"""Writes bench/suites/random.txt: 200 shapes, M, N, K log-uniform in [1, 16384], the first
hundred with even K, the second hundred with odd K (issue 11). Fixed seed: the suite is public and the same for every run.
  make_random_suite.py [OUT] [--seed=S]: another draw; bench/suites/random_heldout.txt is seed 20261204, never
  tuned: what auto does on shapes no tune table holds (its tuned neighbours, else the cost model)."""
import math
import random
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--seed")]
seed = next((int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--seed=")), 20261201)
rng = random.Random(seed)


def log_uniform(lo=1, hi=16384):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


rows = ["# Random suite (issue 11): 200 shapes, M, N, K log-uniform in [1, 16384], shapes 1-100",
        f"# with even K, 101-200 with odd K. Made by scripts/make_random_suite.py (fixed seed {seed}); do not edit."]
for i in range(200):
    m, n, k = log_uniform(), log_uniform(), log_uniform()
    if (k % 2 == 1) != (i >= 100):  # the first hundred even K, the second hundred odd K
        k = k + 1 if k < 16384 else k - 1
    rows.append(f"{m}x{n}x{k}")
out = args[0] if args else "bench/suites/random.txt"
open(out, "w").write("\n".join(rows) + "\n")
