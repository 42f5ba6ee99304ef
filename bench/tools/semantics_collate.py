#!/usr/bin/env python3
"""Collates the semantics_cost tables of several `bench --suite ... --output X.md` reports run in
alternating processes (what an epilogue costs: its time over the plain run of its kernel, e.g.
bench/suites/epilogue_cost.txt with an environment knob at 0 and 1 in turn): per setting -- the
part of the file name that GROUP_RE captures, e.g. defer0 / defer1 -- and per (kernel, shape, semantics), the median of the runs' "x plain" medians, their lowest and highest,
and how many runs. The setting with the lower median is the one the numbers favour; within one
setting the spread says how far a single run can be trusted.
usage: semantics_collate.py [--group REGEX] report.md ...   (default REGEX: defer\\d)"""
import argparse
import re
import statistics
from collections import defaultdict


def semantics_rows(path):
    """(kernel, shape, semantics, x plain) of the report's semantics_cost table."""
    rows, inside, header = [], False, None
    for line in open(path):
        if line.startswith("each run with semantics against the plain TN runs"):
            inside, header = True, None
            continue
        if not inside:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|"):
            if header is not None:
                break  # the table ended
            continue
        if header is None:
            header = cells
            continue
        if set(line.strip()) <= set("|-: "):
            continue  # the markdown rule under the header
        row = dict(zip(header, cells))
        try:
            rows.append((row["kernel"], row["shape"], row["semantics"], float(row["x plain"])))
        except (KeyError, ValueError):
            pass
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--group", default=r"defer\d", help="regex whose match in a file name is its setting")
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()
    by = defaultdict(list)  # (setting, kernel, shape, semantics) -> x plain of each run
    for path in args.reports:
        m = re.search(args.group, path)
        setting = m.group(0) if m else "(none)"
        rows = semantics_rows(path)
        if not rows:
            print(f"# {path}: no semantics_cost table")
        for kernel, shape, sem, x in rows:
            by[(setting, kernel, shape, sem)].append(x)
    print("| setting | kernel | shape | semantics | runs | median x plain | lowest | highest |")
    print("|---|---|---|---|---|---|---|---|")
    for (setting, kernel, shape, sem), xs in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][3], kv[0][0])):
        print(f"| {setting} | {kernel} | {shape} | {sem} | {len(xs)} | {statistics.median(xs):.3f} | {min(xs):.3f} | "
              f"{max(xs):.3f} |")


if __name__ == "__main__":
    main()
