#!/usr/bin/env python3
"""The summary of a folder of reference reports: one row per suite and dtype, with the geomean and
the worst ratio of auto against the best cuBLAS (from `pipegemm bench`'s <suite>_<dtype>.json, or
its .md where no .json was kept) and of pipegemm.torch.linear against torch's F.linear, plain and
with bias + GELU fused (from bench/torch_bench.py's torch_<suite>_<dtype>.json).

    python3 bench/summarize.py bench/results/h100 [bench/results/h200 ...]   # writes <dir>/summary.md
    python3 bench/summarize.py --stdout bench/results/h100                     # prints it

Every ratio is the peer's time over pipegemm's, both timed in the same process on the same
buffers: above 1, pipegemm is faster. Python 3 standard library only.
"""
import json
import math
import os
import re
import sys

SUITES = ("compute", "memory", "random", "llm", "models")
DTYPES = ("f16", "bf16")


def _md_auto(path):
    """auto's summary row, the protocol, GPU and date from a bench report in markdown."""
    text = open(path).read()
    out = {"file": os.path.basename(path)}
    m = re.search(r"^\| auto \| (\d+) \| ([\d.]+) \| ([\d.]+) \| (\S+) \| (\S+) \|", text, re.M)
    if not m:
        return None
    out.update(shapes=int(m.group(1)), geomean=float(m.group(2)), worst=float(m.group(3)), worst_shape=m.group(4),
               worst_peer=m.group(5))
    idle = re.search(r"(\d+) ms idle before each block", text)
    out["idle_ms"] = int(idle.group(1)) if idle else 0
    gpu = re.search(r"^bench suite \S+ on (.+?) \(sm_", text, re.M)
    out["gpu"] = gpu.group(1) if gpu else ""
    date = re.search(r"\*\*clock\*\*:.*;\s+(\S+)", text)
    out["date"] = date.group(1)[:10] if date else ""
    return out


def _json_auto(path):
    d = json.load(open(path))
    for s in d.get("summary", []):
        if s.get("variant") == "auto" and s.get("shapes", 0) > 0:
            env = d.get("environment", {})
            return {"file": os.path.basename(path), "shapes": s["shapes"], "geomean": s["geomean"], "worst": s["worst"],
                    "worst_shape": s.get("worst_shape", ""), "worst_peer": s.get("worst_peer", ""),
                    "idle_ms": d.get("options", {}).get("idle_ms", 0), "gpu": env.get("gpu", ""),
                    "date": env.get("date", "")[:10]}
    return None


def auto_row(folder, suite, dtype):
    base = os.path.join(folder, f"{suite}_{dtype}")
    if os.path.exists(base + ".json"):
        try:
            return _json_auto(base + ".json")
        except (ValueError, KeyError) as e:  # a report cut short: its markdown, if any
            print(f"summarize.py: {base}.json: {e}", file=sys.stderr)
    if os.path.exists(base + ".md"):
        return _md_auto(base + ".md")
    return None


def torch_row(folder, suite, dtype):
    path = os.path.join(folder, f"torch_{suite}_{dtype}.json")
    if not os.path.exists(path):
        return None
    try:
        d = json.load(open(path))
    except ValueError as e:
        print(f"summarize.py: {path}: {e}", file=sys.stderr)
        return None
    out = {"file": os.path.basename(path).replace(".json", ".md"), "gpu": d["environment"].get("gpu", ""),
           "date": d["environment"].get("date", "")[:10], "idle_ms": d["options"].get("idle_ms", 0),
           "shapes": len({r["shape"] for r in d["results"]})}
    for s in d["summary"]:
        out[s["epilogue"]] = s
    return out


def ratio(x, key="geomean"):
    return "-" if x is None else f"{x[key]:.3f}"


def worst(x):
    return "-" if x is None else f"{x['worst']:.3f} ({x['worst_shape']})"


def protocol(idle_ms):
    return "back to back" if not idle_ms else f"{idle_ms} ms idle"


def summary(folder):
    rows, gpus, dates = [], set(), set()
    any_torch = any(torch_row(folder, s, t) for s in SUITES for t in DTYPES)
    for suite in SUITES:
        for dtype in DTYPES:
            a, t = auto_row(folder, suite, dtype), torch_row(folder, suite, dtype)
            if a is None and t is None:
                continue
            for x in (a, t):
                if x:
                    gpus.add(x["gpu"])
                    dates.add(x["date"])
            plain = t.get("none") if t else None
            fused = t.get("bias+gelu_tanh") if t else None
            proto = protocol((a or t)["idle_ms"])
            if a and t and a["idle_ms"] != t["idle_ms"]:
                proto = f"{protocol(a['idle_ms'])} / {protocol(t['idle_ms'])}"
            reports = ", ".join(f"[{x['file'].replace('.json', '.md')}]({x['file'].replace('.json', '.md')})"
                                for x in (a, t) if x)
            shapes = (a or t)["shapes"]
            torch_cells = f"{ratio(plain)} | {worst(plain)} | {ratio(fused)} | {worst(fused)} | " if any_torch else ""
            rows.append(f"| {suite} | {dtype.upper()} | {proto} | {shapes} | {ratio(a)} | {worst(a)} | {torch_cells}{reports} |")
    if not rows:
        return None
    gpu = ", ".join(sorted(g for g in gpus if g)) or os.path.basename(os.path.abspath(folder))
    span = sorted(d for d in dates if d)
    when = span[0] if len(span) == 1 else f"{span[0]} to {span[-1]}" if span else "-"
    head = [
        f"# Reference results: {gpu}",
        "",
        f"Measured {when}; each report names its GPU, driver, CUDA, cuBLAS and pipegemm versions and the "
        "command that made it. Ratio = the peer's time / pipegemm's, same process, same rotated buffers "
        "(above 1: pipegemm is faster); geomean over the suite's shapes, worst = the smallest ratio and its "
        "shape (MxNxK). auto / best cuBLAS: `pipegemm bench --kernel auto` against the faster of "
        "cublasGemmEx and cuBLASLt (its heuristic's candidates timed); pipegemm.torch / torch: "
        "pipegemm.torch.linear against F.linear, and with bias + GELU(tanh) fused against "
        "F.gelu(F.linear(x, w, b), approximate=\"tanh\"). Made by bench/summarize.py; how to regenerate: "
        "docs/benchmarks.md.",
        "",
        "| suite | dtype | protocol | shapes | auto / best cuBLAS | worst | "
        + ("pipegemm.torch / torch | worst | bias + GELU fused / torch | worst | " if any_torch else "") + "reports |",
        "|---|---|---|---|---|---|" + ("---|---|---|---|" if any_torch else "") + "---|",
    ]
    tail = [] if any_torch else [
        "", "pipegemm.torch against torch: no torch_<suite>_<dtype> report in this folder yet "
        "(bench/torch_bench.py, which bench/run_reference.sh runs)."]
    return "\n".join(head + rows + tail) + "\n"


def main(argv):
    to_stdout = "--stdout" in argv
    folders = [a for a in argv if a != "--stdout"]
    if not folders:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rc = 0
    for folder in folders:
        text = summary(folder)
        if text is None:
            print(f"summarize.py: no reports in {folder}", file=sys.stderr)
            rc = 1
            continue
        if to_stdout:
            sys.stdout.write(text)
        else:
            with open(os.path.join(folder, "summary.md"), "w") as f:
                f.write(text)
            print(f"{folder}/summary.md")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
