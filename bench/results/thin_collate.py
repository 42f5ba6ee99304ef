#!/usr/bin/env python3
"""Old / new CLI runs of one bench suite side by side (session 31: skinny's any-alignment form).

Reads bench's markdown reports named ..._<type>_<old|new>_<round>.md (the glob in argv[1], e.g.
'bench/results/2026-12-06_h100_s31_call3_thin_*.md') and prints per shape: the fastest skinny
variant's median over the rounds for each CLI, their ratio, the best cuBLAS peer (median over every
run) and each CLI's best skinny against it, then the geometric means.
"""
import collections
import glob
import re
import statistics
import sys

rows = collections.defaultdict(dict)  # (type, shape, variant) -> {(cli, round): ms}
for f in sorted(glob.glob(sys.argv[1])):
    m = re.search(r'_(\w+?)_(old|new)_(\d+)\.md$', f)
    if not m:
        continue
    t, cli, rnd = m.groups()
    for line in open(f):
        c = [x.strip() for x in line.split('|')]
        if len(c) > 10 and re.match(r'\d+x\d+x\d+$', c[1]):
            try:
                rows[(t, c[1], c[3])][(cli, rnd)] = float(c[5])
            except ValueError:
                pass  # a refused or failed entry

for t in sorted({k[0] for k in rows}):
    print(t)
    shapes = list(dict.fromkeys(s for (tt, s, _) in rows if tt == t))
    new_vs_peer, old_vs_peer = [], []
    for s in shapes:
        def best(cli):
            c = [(statistics.median([ms for (w, _), ms in d.items() if w == cli]), v)
                 for (tt, ss, v), d in rows.items()
                 if tt == t and ss == s and v.startswith('skinny') and any(w == cli for w, _ in d)]
            return min(c) if c else (float('nan'), '-')
        bo, bn = best('old'), best('new')
        bp = min((statistics.median(d.values()), v) for (tt, ss, v), d in rows.items()
                 if tt == t and ss == s and v.startswith('cublas'))
        new_vs_peer.append(bp[0] / bn[0])
        old_vs_peer.append(bp[0] / bo[0])
        print(f"{s:14s} old {bo[0] * 1e3:7.1f} new {bn[0] * 1e3:7.1f} us  new/old {bn[0] / bo[0]:.3f} | "
              f"best cuBLAS {bp[0] * 1e3:7.1f} {bp[1]:14s} | its time / ours: new {bp[0] / bn[0]:.3f} "
              f"old {bp[0] / bo[0]:.3f}  ({bn[1]})")
    g = statistics.geometric_mean
    print(f"geomean, best cuBLAS time / best skinny time: new {g(new_vs_peer):.3f}, old {g(old_vs_peer):.3f}")
