#!/usr/bin/env python3
"""Makes the README's k5 table from a gpu_session run.log: per shape and input type, TFLOPS of
cuBLAS (fp32 compute, same run, same buffers) and of each k5 variant, % of cuBLAS, % of the
measured peak (the highest TFLOPS any entry reached in the same log), geometric means.
usage: k5_table.py bench/results/<run>.log"""
import math, re, sys

rows, cur = {}, None
for line in open(sys.argv[1]):
    if line.startswith("$ ") or line.startswith("# PIPEGEMM_"):
        cur = None  # a new command; raster-sweep runs (env overrides) are left out
        if "PIPEGEMM_" in line:
            break
        continue
    m = re.match(r"^(\d+x\d+x\d+)\s+(\w+) in, (\w+) out;", line)
    if m:
        cur = (m.group(1), m.group(2))
        continue
    f = line.split()
    if cur and len(f) >= 7 and (f[0].startswith("k5_") or f[0].startswith("cublas")) and re.match(r"^[\d.]+$", f[2]):
        rows.setdefault(cur, {})[f[0]] = float(f[2])
peak = max(v for r in rows.values() for v in r.values())
variants = sorted({n for r in rows.values() for n in r if n.startswith("k5_")})
for dtype in ("f16", "bf16"):
    vs = [v for v in variants if v.split("_")[4] == dtype]
    print(f"\n{dtype.upper()} in/out, fp32 accumulation (measured peak = {peak:.0f} TFLOPS, the best entry of this run)\n")
    print("| shape | cuBLAS TFLOPS | " + " | ".join(f"{v} TFLOPS (% cuBLAS, % peak)" for v in vs) + " |")
    print("|---" * (2 + len(vs)) + "|")
    logs = {v: [] for v in vs}
    for (shape, dt), r in rows.items():
        if dt != dtype:
            continue
        peer = next(v for k, v in r.items() if k.startswith("cublas"))
        cells = []
        for v in vs:
            if v in r:
                logs[v].append(math.log(r[v] / peer))
                cells.append(f"{r[v]:.0f} ({100 * r[v] / peer:.1f}%, {100 * r[v] / peak:.0f}%)")
            else:
                cells.append("-")
        print(f"| {shape} | {peer:.0f} ({100 * peer / peak:.0f}% peak) | " + " | ".join(cells) + " |")
    print("| geometric mean vs cuBLAS | | " + " | ".join(
        f"{100 * math.exp(sum(l) / len(l)):.1f}%" if l else "-" for l in logs.values()) + " |")
