#!/usr/bin/env python3
"""pipegemm.torch.linear against PyTorch's F.linear, in one process, on the same inputs.

    python3 bench/torch_bench.py [--suites llm,models] [--dtypes bf16,f16] [--out DIR] [--quick]
                                 [--reps N] [--rounds N] [--warmup N] [--idle-ms MS] [--seed S]

Suites: a suite file's shapes (`llm` = bench/suites/llm.txt, or any bench/suites/<name>.txt, or a
path), read as x (M,K) and weight (N,K); `models`: the layers of real models (MODELS below) at a
decode batch and a prefill chunk, their LM heads at decode, and GPT-2's LM head (8192x50257x768).
Each shape runs twice: plain (pipegemm.torch.linear(x, w) against F.linear(x, w)) and with a
bias and GELU(tanh) (pipegemm's fused epilogue against F.gelu(F.linear(x, w, b), approximate="tanh")).

Correct first: before any timing, both outputs are compared with an fp32 reference of the same
inputs (up to 512 rows, spread over M) and a row whose pipegemm output is off by more than the
bound (max |y - ref| / max |ref|: 2^-7 BF16, 2^-10 FP16, twice the unit roundoff of the output)
is reported as failed and not timed; the exit status is then 1.

Timing: CUDA events between consecutive calls in a loop (per call: the GPU's time where the GPU
sets the pace, the host's where the host does), calls grouped so that a sample lasts >= 50 us,
warm-up first (it also pays auto's first use of the shape), the two sides interleaved in rounds,
the median of all samples; inputs rotated over sets of (x, w, b) that together exceed twice the
L2 (small problems read from HBM, as in a model). --idle-ms sleeps before each block: each side
then starts from the same power state (see docs/benchmarks.md, "protocols").

Writes torch_<suite>_<dtype>.{md,csv,json} into --out: GPU, driver, CUDA, cuBLAS, torch and
pipegemm versions, the date and this command, one row per shape and epilogue (ratio = torch's time
/ pipegemm's: above 1, pipegemm is faster), and per epilogue the geomean and the worst ratio.
"""
import argparse
import csv
import ctypes
import datetime
import io
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import pipegemm
import pipegemm.torch as pgt

# (model, layer, N, K): the weight is (N, K). Fused projections as serving stacks run them:
# qkv = q + k + v (grouped-query heads), gate_up = gate + up.
MODELS = [
    ("Llama-3-8B", "qkv", 6144, 4096), ("Llama-3-8B", "o", 4096, 4096),
    ("Llama-3-8B", "gate_up", 28672, 4096), ("Llama-3-8B", "down", 4096, 14336),
    ("Llama-3-70B", "qkv", 10240, 8192), ("Llama-3-70B", "o", 8192, 8192),
    ("Llama-3-70B", "gate_up", 57344, 8192), ("Llama-3-70B", "down", 8192, 28672),
    ("Qwen2-7B", "qkv", 4608, 3584), ("Qwen2-7B", "o", 3584, 3584),
    ("Qwen2-7B", "gate_up", 37888, 3584), ("Qwen2-7B", "down", 3584, 18944),
    ("Mistral-7B", "qkv", 6144, 4096), ("Mistral-7B", "o", 4096, 4096),
    ("Mistral-7B", "gate_up", 28672, 4096), ("Mistral-7B", "down", 4096, 14336),
    ("Phi-3-mini", "qkv", 9216, 3072), ("Phi-3-mini", "o", 3072, 3072),
    ("Phi-3-mini", "gate_up", 16384, 3072), ("Phi-3-mini", "down", 3072, 8192),
]
LM_HEADS = [("Llama-3-8B", 128256, 4096), ("Llama-3-70B", 128256, 8192), ("Qwen2-7B", 152064, 3584),
            ("Mistral-7B", 32000, 4096), ("Phi-3-mini", 32064, 3072)]
TOKENS = (16, 4096)  # a decode batch, a prefill chunk
DECODE = 16          # the LM heads: logits of 16 sequences
GPT2_HEAD = (8192, 50257, 768, "GPT-2 lm_head")  # odd N: rows of D off 16 bytes
EPILOGUES = ("none", "bias+gelu_tanh")
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
TOLERANCE = {"bf16": 2.0 ** -7, "f16": 2.0 ** -10}
SAMPLE_US = 50.0
REF_ROWS = 512


def model_shapes():
    """[(m, n, k, label)], one per distinct shape (Mistral-7B's projections are Llama-3-8B's)."""
    seen, out = {}, []
    for m in TOKENS:
        for model, layer, n, k in MODELS:
            key = (m, n, k)
            if key in seen:
                seen[key][3] += ", " + model
                continue
            seen[key] = [m, n, k, f"{model} {layer}"]
            out.append(seen[key])
    for model, n, k in LM_HEADS:
        key = (DECODE, n, k)
        if key not in seen:
            seen[key] = [DECODE, n, k, f"{model} lm_head"]
            out.append(seen[key])
    out.append(list(GPT2_HEAD))
    return [tuple(x) for x in out]


def suite_shapes(spec):
    """(name, source, [(m, n, k, label)]) of a suite: "models", a bench/suites/<name>.txt or a path."""
    if spec == "models":
        return "models", "models (bench/torch_bench.py)", model_shapes()
    path = spec if os.path.exists(spec) else os.path.join("bench", "suites", spec + ".txt")
    shapes = []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            m, n, k = (int(v) for v in words[0].split("x"))
            shapes.append((m, n, k, ""))
    return os.path.splitext(os.path.basename(path))[0], path, shapes


# ---- the environment a report records --------------------------------------------------------
def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _cuda_driver_version():
    try:
        v = ctypes.c_int(0)
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v))
        return f"{v.value // 1000}.{v.value % 1000 // 10}"
    except OSError:
        return ""


def _cublas_versions():
    """The cuBLAS libraries loaded in this process (torch's, and the one pipegemm links), each as
    "version (folder)"."""
    paths = []
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if "libcublas.so" in os.path.basename(p) and p not in paths:
                paths.append(p)
    out = []
    for p in paths:
        try:
            lib = ctypes.CDLL(p)
            v = [ctypes.c_int(0) for _ in range(3)]
            for i in range(3):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
                lib.cublasGetProperty(i, ctypes.byref(v[i]))
            out.append(f"{v[0].value}.{v[1].value}.{v[2].value} ({os.path.dirname(p)})")
        except (OSError, AttributeError):
            out.append(f"? ({p})")
    return "; ".join(out)


def command_line():
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("PIPEGEMM_"))
    words = [f"{k}={shlex.quote(v)}" for k, v in env] + [os.path.basename(sys.executable)] + sys.argv
    return " ".join(words[: len(env)] + [shlex.quote(w) for w in words[len(env):]])


def environment():
    torch.ones(8, 8, device="cuda") @ torch.ones(8, 8, device="cuda")  # loads torch's cuBLAS
    x = torch.ones(64, 64, device="cuda", dtype=torch.float16)
    pgt.linear(x, x)  # and pipegemm's
    torch.cuda.synchronize()
    smi = _run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit", "--format=csv,noheader,nounits",
                "-i", str(torch.cuda.current_device())]).split(",")
    smi = [s.strip() for s in smi] + ["", "", ""]
    return {
        "gpu": torch.cuda.get_device_name(),
        "driver": _cuda_driver_version(),
        "driver_version": smi[0],
        "sm_clock_max_mhz": smi[1],
        "power_limit_w": smi[2],
        "cuda_runtime": torch.version.cuda or "",
        "cublas": _cublas_versions(),
        "torch": torch.__version__,
        "pipegemm": pipegemm.__version__,
        "pipegemm_torch_backend": pgt.BACKEND + ("" if pgt.CPP_UNAVAILABLE is None else f" ({pgt.CPP_UNAVAILABLE})"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


# ---- one shape -------------------------------------------------------------------------------
def ops(epilogue):
    """(pipegemm's call, torch's call) for an epilogue, each f(x, w, b)."""
    if epilogue == "none":
        return (lambda x, w, b: pgt.linear(x, w)), (lambda x, w, b: F.linear(x, w))
    return ((lambda x, w, b: pgt.linear(x, w, b, activation="gelu_tanh")),
            (lambda x, w, b: F.gelu(F.linear(x, w, b), approximate="tanh")))


def rel_error(y, ref, rows):
    d = y.index_select(0, rows).float()
    if not torch.isfinite(d).all():
        return math.inf
    return ((d - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def time_side(fn, sets, reps, group, events, idle_ms):
    """Per-call times (ms) of `reps` samples, each `group` calls, rotating over the sets."""
    if idle_ms > 0:
        torch.cuda.synchronize()
        time.sleep(idle_ms / 1000.0)
    n = len(sets)
    i = 0
    events[0].record()
    for r in range(reps):
        for _ in range(group):
            fn(*sets[i % n])
            i += 1
        events[r + 1].record()
    events[reps].synchronize()
    return [events[r].elapsed_time(events[r + 1]) / group for r in range(reps)]


def bench_shape(m, n, k, dtype, epilogue, a, l2_bytes, events):
    """One row: correctness, then the timing of both sides."""
    dt = DTYPES[dtype]
    e = torch.finfo(dt).bits // 8
    row = {"shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "epilogue": epilogue, "ok": False, "message": ""}
    set_bytes = (m * k + n * k + n + 2 * m * n) * e  # x, w, b, and both outputs
    n_sets = max(1, min(64, math.ceil(a.l2_factor * l2_bytes / set_bytes)))
    g = torch.Generator(device="cuda").manual_seed(a.seed + 7919 * m + 31 * n + k)
    sets = [(torch.randn(m, k, device="cuda", dtype=dt, generator=g),
             torch.randn(n, k, device="cuda", dtype=dt, generator=g),
             torch.randn(n, device="cuda", dtype=dt, generator=g)) for _ in range(n_sets)]
    row["buffer_sets"] = n_sets
    pg, th = ops(epilogue)
    x, w, b = sets[0]
    # Correct first: both sides against an fp32 reference of up to REF_ROWS rows spread over M.
    try:
        y_pg = pg(x, w, b)
    except (ValueError, RuntimeError) as err:
        row["message"] = f"pipegemm: {err}"
        return row
    y_th = th(x, w, b)
    rows = torch.unique(torch.linspace(0, m - 1, min(m, REF_ROWS), device="cuda").long())
    ref = F.linear(x.index_select(0, rows).float(), w.float(), b.float() if epilogue != "none" else None)
    if epilogue != "none":
        ref = F.gelu(ref, approximate="tanh")
    tol, err_pg, err_th = TOLERANCE[dtype], rel_error(y_pg, ref, rows), rel_error(y_th, ref, rows)
    del y_pg, y_th, ref
    row["tolerance"] = tol
    row["pipegemm_rel_err"] = err_pg if math.isfinite(err_pg) else None  # None: NaN or Inf in the output
    row["torch_rel_err"] = err_th if math.isfinite(err_th) else None
    if not err_pg <= tol:
        row["message"] = (f"pipegemm off the fp32 reference: max |y - ref| / max |ref| = {err_pg:.3g} > {tol:.3g} "
                          f"(torch: {err_th:.3g})")
        return row
    # Warm-up (auto's first use of the shape is paid here), then the estimate that sizes a sample.
    est = {}
    for name, fn in (("pipegemm", pg), ("torch", th)):
        for i in range(a.warmup):
            fn(*sets[i % n_sets])
        t = time_side(fn, sets, 1, max(1, a.warmup), events, 0)[0]
        est[name] = max(t, 1e-4)
    group = max(1, math.ceil(SAMPLE_US / 1000.0 / min(est.values())))
    per_round = max(1, a.reps // a.rounds)  # --reps samples in all, as pipegemm bench counts them
    reps = max(min(5, per_round), min(per_round, int(a.max_ms / (max(est.values()) * group * a.rounds))))
    samples = {"pipegemm": [], "torch": []}
    for r in range(a.rounds):
        order = (("pipegemm", pg), ("torch", th)) if r % 2 == 0 else (("torch", th), ("pipegemm", pg))
        for name, fn in order:
            samples[name] += time_side(fn, sets, reps, group, events, a.idle_ms)
    row["pipegemm_ms"] = statistics.median(samples["pipegemm"])
    row["torch_ms"] = statistics.median(samples["torch"])
    row["ratio"] = row["torch_ms"] / row["pipegemm_ms"]
    row["samples"] = len(samples["pipegemm"])
    row["launches_per_sample"] = group
    row["ok"] = True
    return row


def summarize(rows):
    out = []
    for epi in EPILOGUES:
        rs = [r for r in rows if r["epilogue"] == epi and r["ok"]]
        if not rs:
            continue
        worst = min(rs, key=lambda r: r["ratio"])
        out.append({"epilogue": epi, "shapes": len(rs),
                    "geomean": math.exp(sum(math.log(r["ratio"]) for r in rs) / len(rs)),
                    "worst": worst["ratio"], "worst_shape": worst["shape"],
                    "failed": sum(1 for r in rows if r["epilogue"] == epi and not r["ok"])})
    return out


# ---- the report -------------------------------------------------------------------------------
COLUMNS = ["shape", "m", "n", "k", "model", "epilogue", "pipegemm_ms", "torch_ms", "ratio", "pipegemm_rel_err",
           "torch_rel_err", "tolerance", "ok", "buffer_sets", "samples", "launches_per_sample", "message"]


def fmt(v, digits):
    return "-" if v is None else f"{v:.{digits}f}"


def err(v):
    return "nan/inf" if v is None else f"{v:.2e}"


def write_reports(doc, base):
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    buf = io.StringIO()
    for key in ("suite", "dtype", "command"):
        buf.write(f"# {key}: {doc[key]}\r\n")
    for key, v in doc["environment"].items():
        buf.write(f"# environment.{key}: {v}\r\n")
    for key, v in doc["options"].items():
        buf.write(f"# options.{key}: {v}\r\n")
    buf.write("\r\n# results\r\n")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore")
    w.writeheader()
    w.writerows(doc["results"])
    buf.write("\r\n# summary\r\n")
    w = csv.DictWriter(buf, fieldnames=["epilogue", "shapes", "geomean", "worst", "worst_shape", "failed"])
    w.writeheader()
    w.writerows(doc["summary"])
    with open(base + ".csv", "w", newline="") as f:
        f.write(buf.getvalue())
    e, o = doc["environment"], doc["options"]
    idle = f", {o['idle_ms']} ms idle before each block" if o["idle_ms"] else ""
    md = [f"pipegemm.torch.linear against F.linear, suite {doc['suite']}, {doc['dtype']}, on {e['gpu']}: "
          f"median per call of up to {o['reps']} samples in {o['rounds']} interleaved rounds after "
          f"{o['warmup']} warm-up calls, inputs rotated over >= {o['l2_factor']:g}x L2{idle}", ""]
    md += [f"- **software**: driver {e['driver']} ({e['driver_version']}), CUDA runtime {e['cuda_runtime']}, "
           f"cuBLAS {e['cublas']}, torch {e['torch']}, pipegemm {e['pipegemm']} (torch ops: {e['pipegemm_torch_backend']})",
           f"- **clock**: SM clock (max) {e['sm_clock_max_mhz']} MHz, power limit {e['power_limit_w']} W;  {e['date']}",
           f"- **command**: {doc['command']}", ""]
    md += ["| shape | model | epilogue | pipegemm ms | torch ms | torch / pipegemm | err pipegemm | err torch |",
           "|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        if r["ok"]:
            md.append(f"| {r['shape']} | {r.get('model', '')} | {r['epilogue']} | {fmt(r['pipegemm_ms'], 4)} | "
                      f"{fmt(r['torch_ms'], 4)} | {fmt(r['ratio'], 3)} | {err(r['pipegemm_rel_err'])} | {err(r['torch_rel_err'])} |")
        else:
            md.append(f"| {r['shape']} | {r.get('model', '')} | {r['epilogue']} | FAILED | - | - | - | "
                      f"{r['message'].replace('|', '/')} |")
    md += ["", "per epilogue (ratio = torch's time / pipegemm's; above 1: pipegemm is faster):", "",
           "| epilogue | shapes | geomean | worst | worst at | failed |", "|---|---|---|---|---|---|"]
    for s in doc["summary"]:
        md.append(f"| {s['epilogue']} | {s['shapes']} | {s['geomean']:.3f} | {s['worst']:.3f} | {s['worst_shape']} | "
                  f"{s['failed']} |")
    with open(base + ".md", "w") as f:
        f.write("\n".join(md) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default="llm,models", help="comma-separated: llm (bench/suites/llm.txt), models, a path")
    ap.add_argument("--dtypes", default="bf16,f16", help="comma-separated: bf16, f16")
    ap.add_argument("--out", default=".", help="the folder of the reports")
    ap.add_argument("--quick", action="store_true", help="fewer samples: --reps 20 --rounds 2 --warmup 5 --max-ms 200")
    ap.add_argument("--reps", type=int, help="samples per side, split over the rounds (default 100)")
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 4)")
    ap.add_argument("--warmup", type=int, help="warm-up calls per side (default 10)")
    ap.add_argument("--max-ms", type=float, help="fewer samples (>= 5 a round) where a side's samples would last "
                    "longer than this in all (default 500)")
    ap.add_argument("--idle-ms", type=int, default=0, help="idle before each block (0: back to back)")
    ap.add_argument("--l2-factor", type=float, default=2.0, help="rotated inputs exceed this many L2 sizes")
    ap.add_argument("--seed", type=int, default=20261201)
    a = ap.parse_args()
    quick = {"reps": 20, "rounds": 2, "warmup": 5, "max_ms": 200.0}
    full = {"reps": 100, "rounds": 4, "warmup": 10, "max_ms": 500.0}
    for key, v in (quick if a.quick else full).items():
        if getattr(a, key) is None:
            setattr(a, key, v)
    torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 reference in fp32
    torch.set_float32_matmul_precision("highest")
    os.makedirs(a.out, exist_ok=True)
    env = environment()
    cmd = command_line()
    l2 = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or 50 << 20
    events = [torch.cuda.Event(enable_timing=True) for _ in range(a.reps + 1)]
    options = {"reps": a.reps, "rounds": a.rounds, "warmup": a.warmup, "max_ms": a.max_ms, "idle_ms": a.idle_ms,
               "l2_factor": a.l2_factor, "seed": a.seed, "reference_rows": REF_ROWS}
    failed = 0
    for spec in a.suites.split(","):
        name, source, shapes = suite_shapes(spec.strip())
        for dtype in a.dtypes.split(","):
            dtype = dtype.strip()
            rows = []
            t0 = time.time()
            for i, (m, n, k, label) in enumerate(shapes):
                for epi in EPILOGUES:
                    print(f"[{name} {dtype} {i + 1}/{len(shapes)}] {m}x{n}x{k} {epi} ...", file=sys.stderr, flush=True)
                    try:
                        row = bench_shape(m, n, k, dtype, epi, a, l2, events)
                    except torch.cuda.OutOfMemoryError as err:
                        row = {"shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "epilogue": epi, "ok": False,
                               "message": f"out of memory: {err}".splitlines()[0]}
                    row["model"] = label
                    rows.append(row)
                    failed += not row["ok"]
                torch.cuda.empty_cache()
            doc = {"pipegemm_version": pipegemm.__version__, "suite": source, "dtype": dtype, "command": cmd,
                   "environment": env, "options": options, "results": rows, "summary": summarize(rows)}
            base = os.path.join(a.out, f"torch_{name}_{dtype}")
            write_reports(doc, base)
            s = "; ".join(f"{x['epilogue']}: geomean {x['geomean']:.3f}, worst {x['worst']:.3f} at {x['worst_shape']}"
                          for x in doc["summary"])
            print(f"{base}.md: {s} ({time.time() - t0:.0f} s)", flush=True)
    if failed:
        print(f"torch_bench.py: {failed} row(s) failed (see the reports' message column)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
