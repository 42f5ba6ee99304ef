#!/usr/bin/env python3
"""Reads `pipegemm trace --out X.json` files of a cooperative k5 kernel and prints, per recorded SM,
where the tensor cores idle: the gaps in the union of both consumers' MMA spans (start after the
SM's first MMA, length, us) and each consumer's epilogue span per tile -- whether one consumer's
epilogue runs under the other's wgmma or both at once.
usage: trace_boundaries.py trace.json ..."""
import collections
import json
import sys


def main():
    for path in sys.argv[1:]:
        d = json.load(open(path))
        ev = d["traceEvents"]
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
        lanes = collections.defaultdict(list)
        for e in ev:
            if e.get("ph") == "X":
                lanes[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
        print("==", path)
        by_sm = collections.defaultdict(dict)
        for k, v in lanes.items():
            by_sm[k[0]][names[k]] = sorted(v)
        for sm, ls in sorted(by_sm.items()):
            mmas, epis = [], []
            for n, v in ls.items():
                mmas += [(a, b) for a, b, nm in v if nm.startswith("mma")]
                epis += [(n, a, b, nm) for a, b, nm in v if nm.startswith("epilogue")]
            if not mmas:
                continue
            mmas.sort()
            t0, t1 = mmas[0][0], max(b for _, b in mmas)
            union, cur = [], list(mmas[0])
            for a, b in mmas[1:]:
                if a <= cur[1]:
                    cur[1] = max(cur[1], b)
                else:
                    union.append(tuple(cur))
                    cur = [a, b]
            union.append(tuple(cur))
            gaps = [(union[i][1], union[i + 1][0]) for i in range(len(union) - 1)]
            big = [(round(a - t0, 2), round(b - a, 3)) for a, b in gaps if b - a > 0.05]
            print(f"SM {sm}: MMA window {t1 - t0:.1f} us, idle {sum(b - a for a, b in gaps):.2f} us in {len(gaps)} gaps;"
                  f" gaps over 50 ns (start, us): {big[:12]}")
            for n, a, b, nm in sorted(epis, key=lambda x: x[1]):
                print(f"   {n:34s} {nm:22s} at {a - t0:8.3f} us, {b - a:.3f} us")


if __name__ == "__main__":
    main()
