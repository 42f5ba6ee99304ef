#!/usr/bin/env python3
"""Writes bench/suites/grouped/moe.txt: the grouped GEMMs of four mixture-of-experts layers, per expert
the rows routed to it, at 64, 512, 4096 and 16384 tokens, balanced and skewed routing, the gate/up and
the down projection. Fixed seed: the suite is public and the same for every run.

  make_moe_suite.py [OUT] [--seed=S]

A line is one grouped problem, G groups sharing N and K (group g: M = m_g rows of the tokens routed
to expert g, times its (N, K) weight; D_g = X_g W_g^T), then a comment naming what it is:

  GxNxK: m_0,m_1,...,m_{G-1}  # model projection tokens routing

Routing: every token picks top_k distinct experts. balanced: uniformly at random (the counts close
to tokens * top_k / G, as a trained router with a load-balancing loss gives); skewed: with
probability proportional to 1 / rank^1.2 over a fixed random order of the experts (Zipf, s = 1.2:
a few hot experts, many nearly idle ones, some with no rows at all). gate/up is the fused gate and
up projection (N = 2 x FFN, K = H), down the expert's output (N = H, K = FFN)."""
import random
import sys

MODELS = [  # name, experts, top_k, hidden H, expert FFN
    ("mixtral-8x7b", 8, 2, 4096, 14336),
    ("deepseek-v3", 256, 8, 7168, 2048),
    ("qwen3-30b-a3b", 128, 8, 2048, 768),
    ("gpt-oss-20b", 32, 4, 2880, 2880),
]
TOKENS = (64, 512, 4096, 16384)
ZIPF_S = 1.2

args = [a for a in sys.argv[1:] if not a.startswith("--seed")]
seed = next((int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--seed=")), 20261208)
rng = random.Random(seed)


def route(tokens, experts, top_k, skewed):
    """Rows per expert: each token's top_k distinct experts."""
    if skewed:
        order = list(range(experts))
        rng.shuffle(order)
        weight = [0.0] * experts
        for rank, e in enumerate(order):
            weight[e] = 1.0 / (rank + 1) ** ZIPF_S
    counts = [0] * experts
    for _ in range(tokens):
        if skewed:
            chosen = set()
            while len(chosen) < top_k:  # weighted draws without replacement
                chosen.add(rng.choices(range(experts), weights=weight)[0])
        else:
            chosen = rng.sample(range(experts), top_k)
        for e in chosen:
            counts[e] += 1
    return counts


rows = [
    "# MoE suite (grouped GEMM): four models' expert layers at 64, 512, 4096 and 16384 tokens, balanced",
    "# and Zipf-skewed routing, gate/up and down. 'GxNxK: m_0,...' = G groups sharing N and K, group g",
    f"# M = m_g. Made by scripts/make_moe_suite.py (fixed seed {seed}); do not edit.",
]
for name, experts, top_k, hidden, ffn in MODELS:
    for tokens in TOKENS:
        for routing in ("balanced", "skewed"):
            counts = route(tokens, experts, top_k, routing == "skewed")
            assert sum(counts) == tokens * top_k
            m = ",".join(map(str, counts))
            rows.append(f"{experts}x{2 * ffn}x{hidden}: {m}  # {name} gate_up {tokens} {routing}")
            rows.append(f"{experts}x{hidden}x{ffn}: {m}  # {name} down {tokens} {routing}")
out = args[0] if args else "bench/suites/grouped/moe.txt"
open(out, "w").write("\n".join(rows) + "\n")
