#!/usr/bin/env python3
"""Reads `pipegemm trace --out X.json` files of a cooperative k5 kernel and prints, per consumer, the
mean k_tile period (one wgmma issue to the next, within a tile; the first tile left out) of each
tile's first four k_tiles and of the rest, and the mean full-barrier wait of each -- where a deferred
store under the mainloop costs, it shows as a longer period of the k_tiles that carry it.
usage: trace_ktiles.py trace.json ..."""
import collections
import json
import statistics
import sys


def main():
    for path in sys.argv[1:]:
        ev = json.load(open(path))["traceEvents"]
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
        per = collections.defaultdict(dict)  # (sm, "CTA c consumer i") -> {(tile, k_tile, kind): (ts, dur)}
        for e in ev:
            if e.get("ph") != "X" or not e["name"].startswith(("mma", "wait")):
                continue
            lane = names[(e["pid"], e["tid"])]
            consumer = lane.rsplit(" ", 2)[0] if " MMA " in lane else lane.rsplit(" ", 1)[0]
            a = e["args"]
            per[(e["pid"], consumer)][(a["tile"], a["k_tile"], e["name"][:3])] = (e["ts"], e["dur"])
        print(path)
        for (sm, consumer), m in sorted(per.items()):
            early, late, wait_early, wait_late = [], [], [], []
            tiles = sorted({t for t, _, _ in m})
            for t in tiles[1:]:
                k = 0
                while (t, k + 1, "mma") in m:
                    (early if k < 4 else late).append(m[(t, k + 1, "mma")][0] - m[(t, k, "mma")][0])
                    if (t, k, "wai") in m:
                        (wait_early if k < 4 else wait_late).append(m[(t, k, "wai")][1])
                    k += 1
            if early and late:
                mean = statistics.mean
                print(f"  SM {sm} {consumer:20s} k_tiles 0-3: period {mean(early):.3f} us, wait {mean(wait_early):.3f};"
                      f" 4+: period {mean(late):.3f} us, wait {mean(wait_late):.3f}")


if __name__ == "__main__":
    main()
