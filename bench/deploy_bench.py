#!/usr/bin/env python3
"""Deployment benchmarks (docs/deployment.md): what a serving stack sees of pipegemm.torch.

    python3 bench/deploy_bench.py first-call  [--count 50] [--seed S] [--out DIR] [--rounds N]
    python3 bench/deploy_bench.py decode      [--dtype bf16] [--prepare] [--calls N] [--rounds N] [--out DIR]
    python3 bench/deploy_bench.py determinism --out FILE [--suite random] [--max-gb 1] [--load-choices FILE]
    python3 bench/deploy_bench.py determinism --compare A B [--out FILE]

Each writes <name>.csv, .md and .json (json: the environment -- GPU, driver, CUDA, cuBLAS, torch
and pipegemm versions, pipegemm.torch's backend, the date -- the exact command, the options, one row
per case, a summary); first-call and decode write deploy_first_call.* and deploy_decode_<dtype>.*
into --out (default .). Correct first: a row whose pipegemm output is off an fp32 reference of the
same inputs (max |y - ref| / max |ref| over up to 256 rows x 512 columns spread over the output:
2^-7 BF16, 2^-10 FP16) is failed and not timed, and the exit status is 1.

first-call -- the first pipegemm.torch.linear call on shapes never seen before in the process.
  --count shapes from a fixed-seed generator (--seed): M log-uniform in [1, 8192], N and K in
  [64, 16384], N and K rounded up to multiples of 8 for every other shape; BF16, x (M,K) @ w (N,K)^T.
  Before the shapes: calls on 16x48x48 (auto, cuBLASLt and cublasGemmEx by name, F.linear: handles
  and libraries loaded, no bucket of the shapes touched). For each shape: torch's caching allocator
  is given a cached block of the output's size and more (so neither side's first call pays a
  cudaMalloc), the device is synchronized, and the host time of the first call alone is taken
  (time.perf_counter around the call, nothing synchronized inside); then the median of 20 warmed
  calls timed the same way (each after a synchronize); the same for F.linear after it. The output of
  the first call is checked. Then the GPU time of the kernel that first call chose (auto's choice
  before any measuring: the shipped tables, their neighbours, the cost model, cuBLASLt's heuristic)
  against the kernel pipegemm.prepare([the shape]) keeps: each captured as a CUDA graph of
  back-to-back pipegemm.gemm_into calls (enough to last ~0.3 ms, inputs rotated over copies that
  exceed twice the L2) -- a graph keeps the first choice's cuBLASLt algorithm after prepare has
  timed another -- replayed in --rounds interleaved rounds, each sample the second of two replays
  (the first hides the host's submission), the median per launch. Then
  pipegemm.clear_choices(): the next shape starts from the shipped tables again.
  A kernel launched for the first time in the process also pays CUDA's lazy module loading (the
  column variant_new says which; CUDA_MODULE_LOADING=EAGER in the environment loads every kernel at
  start instead; the report records the setting).
  Columns: shape, m, n, k, aligned8 (N and K multiples of 8), first_us (host time of the first call),
  warm_us (median warmed call), extra_us (first_us - warm_us), torch_first_us, torch_warm_us,
  torch_extra_us, first_variant (auto's choice at the first call), variant_new (the variant's first
  run in the process; for a cuBLAS peer, the peer's, whichever of cuBLAS's kernels it runs),
  tuned_variant (after prepare), prepare_ms (host time of prepare), bucket (the tune bucket prepare
  keyed), first_gpu_us, tuned_gpu_us (GPU time per launch), ratio (tuned_gpu_us / first_gpu_us:
  about 1 where the first choice is the tuned one; the target is >= 0.97 in geomean),
  launches (per graph), timing (graph, or eager where a capture failed), rel_err, ok, message.
  Summary: the worst extra_us (target <= 200 us) overall and over shapes whose kernel had run
  before, the geomean and the worst ratio, how many first choices differ from the tuned one.

decode -- pipegemm.torch.linear against F.linear at decode sizes.
  M in {1, 2, 4, 8, 16} over five weights (Llama-3-8B qkv 6144x4096, o 4096x4096, gate_up
  28672x4096, down 4096x14336; Qwen2-7B o 3584x3584), plain (linear(x, w) against F.linear(x, w))
  and with a bias and GELU(tanh) (pipegemm's fused epilogue against F.gelu(F.linear(x, w, b),
  approximate="tanh")). Per call: CUDA events around --calls back-to-back calls, divided by the
  calls: the GPU's time where the GPU sets the pace, the host's where the host does -- what a decode
  step that is not graph-captured pays. The two sides alternate over --rounds rounds; the medians.
  Weights rotated over copies that exceed twice the L2 (a model's layers are read from HBM).
  --prepare: pipegemm.torch.prepare over these layers and batch sizes first (otherwise the shipped
  tables decide, as for a user who prepares nothing).
  Columns: shape, m, n, k, layer, epilogue, variant (auto's choice), pipegemm_us, torch_us, ratio
  (pipegemm_us / torch_us: at most 1 is the target), pipegemm_rel_err, torch_rel_err, ok, message.
  Summary per epilogue: the geomean and the worst ratio, and where.

determinism -- the same problems, the same kernels, the same bits, in every process.
  --out FILE: the shapes of --suite (bench/suites/<name>.txt or a path; the first word of a line,
  MxNxK; default random: 200 shapes) in BF16, x (M,K) and w (N,K) from torch's CUDA generator seeded
  with --seed + the shape's index, D = x @ w^T by pipegemm.gemm_into (auto, the stream's default
  workspace); records the variant auto ran and the sha256 of D's bytes (and of the inputs', to tell
  a difference of inputs from one of results), runs it again and checks the same bits in-process.
  Shapes whose operands (A, B, D) exceed --max-gb GiB are skipped and recorded as such. FILE gets
  .json (the record), .csv and .md beside it (FILE without .json names the three). Exit 1 if a call
  failed or a repeat in the process wrote other bits.
  --compare A B: two such records (made by two processes); lists every shape whose variant, D hash
  or inputs differ, or that one of them skipped; exit 1 on any difference. With --out FILE the
  comparison is written as FILE.{json,csv,md} too.
  Columns: index, shape, m, n, k, variant, d_sha256, inputs_sha256, repeat_equal, skipped, message.
"""
import argparse
import csv
import gc
import hashlib
import io
import json
import math
import os
import random
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import pipegemm
import pipegemm.torch as pgt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_bench  # noqa: E402  (environment(), command_line(): the same report header as torch_bench.py)

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
TOLERANCE = {"bf16": 2.0 ** -7, "f16": 2.0 ** -10}
REF_ROWS, REF_COLS = 256, 512
FIRST_CALL_HOST_TARGET_US = 200.0
TUNED_RATIO_TARGET = 0.97
GRAPH_US = 300.0  # a timing graph's launches last about this long
DECODE_M = (1, 2, 4, 8, 16)
DECODE_WEIGHTS = [("Llama-3-8B qkv", 6144, 4096), ("Llama-3-8B o", 4096, 4096), ("Llama-3-8B gate_up", 28672, 4096),
                  ("Llama-3-8B down", 4096, 14336), ("Qwen2-7B o", 3584, 3584)]
EPILOGUES = ("none", "bias+gelu_tanh")


# ---- shared --------------------------------------------------------------------------------------
def environment():
    env = torch_bench.environment()
    env["cuda_module_loading"] = os.environ.get("CUDA_MODULE_LOADING", "") or "unset (CUDA's default: LAZY)"
    env["l2_bytes"] = l2_bytes()
    return env


def l2_bytes():
    return getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or 50 << 20


def stream():
    return torch.cuda.current_stream().cuda_stream


def n_sets(set_bytes, factor=2.0, cap=64):
    """Copies of a problem's operands that together exceed `factor` L2 sizes."""
    return max(1, min(cap, math.ceil(factor * l2_bytes() / max(1, set_bytes))))


def rel_error(y, x, w, b=None, act="none"):
    """max |y - ref| / max |ref| over up to REF_ROWS x REF_COLS elements spread over y, ref in fp32;
    inf where y holds NaN or Inf there."""
    m, n = y.shape
    rows = torch.unique(torch.linspace(0, m - 1, min(m, REF_ROWS), device=y.device).long())
    cols = torch.unique(torch.linspace(0, n - 1, min(n, REF_COLS), device=y.device).long())
    ref = F.linear(x.index_select(0, rows).float(), w.index_select(0, cols).float(),
                   None if b is None else b.index_select(0, cols).float())
    if act == "gelu_tanh":
        ref = F.gelu(ref, approximate="tanh")
    got = y.index_select(0, rows).index_select(1, cols).float()
    if not bool(torch.isfinite(got).all()):
        return math.inf
    return float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "inf" if math.isinf(v) else f"{v:.{digits}f}"
    return str(v)


def write_reports(doc, base, columns, summary_columns, md):
    """base.json (doc), base.csv (header lines, the rows, the summary), base.md (md: a list of lines)."""
    d = os.path.dirname(base)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    buf = io.StringIO()
    buf.write(f"# command: {doc['command']}\r\n")
    for key, v in doc["environment"].items():
        buf.write(f"# environment.{key}: {v}\r\n")
    for key, v in doc.get("options", {}).items():
        buf.write(f"# options.{key}: {v}\r\n")
    buf.write("\r\n# results\r\n")
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore")
    w.writeheader()
    w.writerows(doc["results"])
    if summary_columns:
        buf.write("\r\n# summary\r\n")
        w = csv.DictWriter(buf, fieldnames=summary_columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(doc["summary"] if isinstance(doc["summary"], list) else [doc["summary"]])
    with open(base + ".csv", "w", newline="") as f:
        f.write(buf.getvalue())
    with open(base + ".md", "w") as f:
        f.write("\n".join(md) + "\n")


def header_md(title, doc):
    e = doc["environment"]
    return [title, "",
            f"- **GPU**: {e['gpu']} (driver {e['driver']}, {e['driver_version']}; SM clock max {e['sm_clock_max_mhz']} MHz, "
            f"power limit {e['power_limit_w']} W)",
            f"- **software**: CUDA runtime {e['cuda_runtime']}, cuBLAS {e['cublas']}, torch {e['torch']}, "
            f"pipegemm {e['pipegemm']} (torch ops: {e['pipegemm_torch_backend']}); CUDA_MODULE_LOADING "
            f"{e['cuda_module_loading']}",
            f"- **date**: {e['date']}",
            f"- **command**: `{doc['command']}`", ""]


def warm_up_process(dtype):
    """Handles, libraries and the ops' first use, on 16x48x48: no shape of first-call's generator
    (N, K >= 64) falls in its bucket."""
    x = torch.randn(16, 48, device="cuda", dtype=dtype)
    w = torch.randn(48, 48, device="cuda", dtype=dtype)
    b = torch.randn(48, device="cuda", dtype=dtype)
    out = torch.empty(16, 48, device="cuda", dtype=dtype)
    names = set(pipegemm.variants())
    seen = {pipegemm.gemm_into(x, w, out, stream=stream())}
    t = {torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]
    for peer in (f"cublaslt_{t}", f"cublas_{t}"):
        if peer in names:
            seen.add(pipegemm.gemm_into(x, w, out, peer, stream=stream()))
    pgt.linear(x, w)
    pgt.linear(x, w, b, activation="gelu_tanh")
    F.linear(x, w)
    F.gelu(F.linear(x, w, b), approximate="tanh")
    torch.cuda.synchronize()
    return seen


# ---- first-call ----------------------------------------------------------------------------------
def first_call_shapes(count, seed):
    rng = random.Random(seed)

    def log_uniform(lo, hi):
        return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))

    out, seen = [], set()
    while len(out) < count:
        i = len(out)
        m, n, k = log_uniform(1, 8192), log_uniform(64, 16384), log_uniform(64, 16384)
        aligned = i % 2 == 0
        if aligned:
            n, k = (n + 7) // 8 * 8, (k + 7) // 8 * 8
        if (m, n, k) in seen:
            continue
        seen.add((m, n, k))
        out.append((m, n, k, aligned))
    return out


def prewarm_allocator(nbytes):
    """A cached block of at least nbytes in torch's caching allocator (and a small-pool segment), so
    that the timed call's output and workspace come from the cache, not from cudaMalloc."""
    big = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    small = torch.empty(4096, dtype=torch.uint8, device="cuda")
    del big, small


def host_time_us(fn, reps=1):
    """Host time of fn() alone, each call after a device synchronize; the median over reps."""
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        gc_was = gc.isenabled()
        gc.disable()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        if gc_was:
            gc.enable()
        ts.append((t1 - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(ts)


def launch_graph(launch, sets, launches):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(launches):
            launch(*sets[i % len(sets)])
    return g


def eager_us(launch, sets, reps=3):
    """GPU-paced time per launch of a few back-to-back launches after one warm-up launch (an estimate)."""
    launch(*sets[0])
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for i in range(reps):
        launch(*sets[i % len(sets)])
    e1.record()
    e1.synchronize()
    return max(e0.elapsed_time(e1) * 1e3 / reps, 1e-3)


def time_graphs(graphs, rounds):
    """graphs: {name: (callable replaying `launches` launches, launches)}. Median us per launch, the
    names alternating order round by round. Each sample is the second of two replays: the first
    keeps the GPU busy while the host submits the second, so the events time the GPU alone."""
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for run, _ in graphs.values():
        run()
    torch.cuda.synchronize()
    samples = {name: [] for name in graphs}
    names = list(graphs)
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            run, launches = graphs[name]
            run()
            e0.record()
            run()
            e1.record()
            e1.synchronize()
            samples[name].append(e0.elapsed_time(e1) * 1e3 / launches)
    return {name: statistics.median(v) for name, v in samples.items()}


def timer_for(launch, sets, launches):
    """(replay, launches, "graph") -- or, where the capture fails, an eager loop (host launch gaps
    included) and the reason."""
    try:
        g = launch_graph(launch, sets, launches)
        return (g.replay, launches, "graph"), g, ""
    except Exception as err:  # noqa: BLE001 -- reported in the row, timed eagerly instead
        torch.cuda.synchronize()

        def run():
            for i in range(launches):
                launch(*sets[i % len(sets)])

        return (run, launches, "eager"), None, f"capture failed: {str(err).splitlines()[0]}"


def first_call_row(m, n, k, aligned, a, seen_variants):
    dt = DTYPES["bf16"]
    e = 2
    row = {"shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "aligned8": aligned, "ok": False, "message": ""}
    set_bytes = (m * k + n * k + m * n) * e
    g = torch.Generator(device="cuda").manual_seed(a.seed + 7919 * m + 31 * n + k)
    sets = [(torch.randn(m, k, device="cuda", dtype=dt, generator=g),
             torch.randn(n, k, device="cuda", dtype=dt, generator=g),
             torch.empty(m, n, device="cuda", dtype=dt)) for _ in range(n_sets(set_bytes))]
    x, w, _ = sets[0]
    prewarm = m * n * e + 4 * m * n + (64 << 20)  # the output, an fp32 copy of it, 64 MiB: output and workspace
    # 1. Host time of the first call, then of warmed ones; torch's the same way after it.
    prewarm_allocator(prewarm)
    box = {}
    row["first_us"] = host_time_us(lambda: box.__setitem__("y", pgt.linear(x, w)))
    y = box.pop("y")
    err = rel_error(y, x, w)
    row["rel_err"] = err if math.isfinite(err) else None
    del y
    row["warm_us"] = host_time_us(lambda: pgt.linear(x, w), reps=a.warm_calls)
    row["extra_us"] = row["first_us"] - row["warm_us"]
    prewarm_allocator(prewarm)
    row["torch_first_us"] = host_time_us(lambda: F.linear(x, w))
    row["torch_warm_us"] = host_time_us(lambda: F.linear(x, w), reps=a.warm_calls)
    row["torch_extra_us"] = row["torch_first_us"] - row["torch_warm_us"]
    if not err <= TOLERANCE["bf16"]:
        row["message"] = f"the first call's output is off the fp32 reference: {err:.3g} > {TOLERANCE['bf16']:.3g}"
        return row
    # 2. The first choice's GPU time, captured before prepare changes the choice.
    def launch(xx, ww, out):
        return pipegemm.gemm_into(xx, ww, out, stream=stream())

    row["first_variant"] = launch(*sets[0])
    row["variant_new"] = row["first_variant"] not in seen_variants
    seen_variants.add(row["first_variant"])
    est = eager_us(launch, sets)
    launches = max(1, min(256, math.ceil(GRAPH_US / est)))
    first_timer, first_graph, why = timer_for(launch, sets, launches)
    # 3. prepare, then the tuned choice (checked, then captured).
    t0 = time.perf_counter()
    res = pipegemm.prepare([dict(m=m, n=n, k=k, dtype="bf16")])[0]
    row["prepare_ms"] = (time.perf_counter() - t0) * 1e3
    row["bucket"] = res.get("bucket", "")
    if res.get("error"):
        row["message"] = f"prepare: {res['error']}"
        return row
    _, _, out = sets[0]
    out.fill_(float("nan"))
    row["tuned_variant"] = launch(*sets[0])
    terr = rel_error(out, x, w)
    if not terr <= TOLERANCE["bf16"]:
        row["message"] = f"the tuned choice's output is off the fp32 reference: {terr:.3g}"
        return row
    if res.get("best") and res["best"] != row["tuned_variant"]:
        row["message"] = f"prepare kept {res['best']}, the call ran {row['tuned_variant']}; "
    tuned_timer, tuned_graph, why2 = timer_for(launch, sets, launches)
    times = time_graphs({"first": first_timer[:2], "tuned": tuned_timer[:2]}, a.rounds)
    row["first_gpu_us"], row["tuned_gpu_us"] = times["first"], times["tuned"]
    row["ratio"] = times["tuned"] / times["first"]
    row["launches"] = launches
    row["timing"] = "graph" if first_timer[2] == tuned_timer[2] == "graph" else "eager"
    row["message"] += "; ".join(s for s in (why, why2) if s)
    row["ok"] = True
    del first_graph, tuned_graph
    return row


def first_call_summary(rows):
    ok = [r for r in rows if r["ok"]]
    s = {"shapes": len(rows), "failed": len(rows) - len(ok)}
    if not ok:
        return s
    worst = max(ok, key=lambda r: r["extra_us"])
    s.update(worst_extra_us=worst["extra_us"], worst_extra_shape=worst["shape"],
             worst_extra_variant=worst.get("first_variant", ""), extra_target_us=FIRST_CALL_HOST_TARGET_US)
    old = [r for r in ok if not r.get("variant_new")]
    if old:
        w2 = max(old, key=lambda r: r["extra_us"])
        s.update(worst_extra_us_kernel_loaded=w2["extra_us"], worst_extra_shape_kernel_loaded=w2["shape"])
    s["median_extra_us"] = statistics.median(r["extra_us"] for r in ok)
    s["worst_torch_extra_us"] = max(r["torch_extra_us"] for r in ok)
    s["geomean_ratio"] = geomean([r["ratio"] for r in ok])
    w3 = min(ok, key=lambda r: r["ratio"])
    s.update(worst_ratio=w3["ratio"], worst_ratio_shape=w3["shape"], ratio_target=TUNED_RATIO_TARGET)
    s["first_choice_differs"] = sum(1 for r in ok if r.get("first_variant") != r.get("tuned_variant"))
    s["extra_within_target"] = s["worst_extra_us"] <= FIRST_CALL_HOST_TARGET_US
    s["ratio_within_target"] = s["geomean_ratio"] is not None and s["geomean_ratio"] >= TUNED_RATIO_TARGET
    return s


FIRST_COLUMNS = ["shape", "m", "n", "k", "aligned8", "first_us", "warm_us", "extra_us", "torch_first_us", "torch_warm_us",
                 "torch_extra_us", "first_variant", "variant_new", "tuned_variant", "prepare_ms", "bucket", "first_gpu_us",
                 "tuned_gpu_us", "ratio", "launches", "timing", "rel_err", "ok", "message"]
FIRST_SUMMARY = ["shapes", "failed", "worst_extra_us", "worst_extra_shape", "worst_extra_variant", "extra_target_us",
                 "extra_within_target", "worst_extra_us_kernel_loaded", "worst_extra_shape_kernel_loaded",
                 "median_extra_us", "worst_torch_extra_us", "geomean_ratio", "worst_ratio", "worst_ratio_shape",
                 "ratio_target", "ratio_within_target", "first_choice_differs"]


def first_call_md(doc):
    o, rows, summary = doc["options"], doc["results"], doc["summary"]
    md = header_md(f"First pipegemm.torch.linear call on {o['count']} shapes never seen before (BF16, seed {o['seed']})", doc)
    if "worst_extra_us" in summary:
        md += [f"- **first call**: worst {summary['worst_extra_us']:.0f} us more host time than a warmed call "
               f"({summary['worst_extra_shape']}, {summary['worst_extra_variant']}; target <= "
               f"{FIRST_CALL_HOST_TARGET_US:.0f} us), median {summary['median_extra_us']:.0f} us; over shapes whose "
               f"kernel had run before: worst {fmt(summary.get('worst_extra_us_kernel_loaded'), 0)} us; "
               f"F.linear's worst {summary['worst_torch_extra_us']:.0f} us",
               f"- **first choice vs tuned**: tuned / first GPU time, geomean {fmt(summary['geomean_ratio'], 3)}, worst "
               f"{summary['worst_ratio']:.3f} ({summary['worst_ratio_shape']}; target >= {TUNED_RATIO_TARGET} geomean); "
               f"{summary['first_choice_differs']} of {summary['shapes'] - summary['failed']} first choices differ "
               f"from the tuned one", ""]
    md += ["| shape | first us | warm us | extra us | torch extra us | first choice | new | tuned choice | "
           "first GPU us | tuned GPU us | tuned / first | prepare ms | note |", "|---|" + "---|" * 12]
    for r in rows:
        md.append(f"| {r['shape']} | {fmt(r.get('first_us'), 0)} | {fmt(r.get('warm_us'), 0)} | {fmt(r.get('extra_us'), 0)} | "
                  f"{fmt(r.get('torch_extra_us'), 0)} | {r.get('first_variant', '-')} | {'yes' if r.get('variant_new') else ''} | "
                  f"{r.get('tuned_variant', '-')} | {fmt(r.get('first_gpu_us'), 1)} | {fmt(r.get('tuned_gpu_us'), 1)} | "
                  f"{fmt(r.get('ratio'), 3)} | {fmt(r.get('prepare_ms'), 0)} | "
                  f"{'' if r['ok'] else 'FAILED: '}{r.get('message', '').replace('|', '/')} |")
    return md


def cmd_first_call(a):
    env, cmd = environment(), torch_bench.command_line()
    seen = warm_up_process(torch.bfloat16)
    pipegemm.clear_choices()
    rows = []
    for i, (m, n, k, aligned) in enumerate(first_call_shapes(a.count, a.seed)):
        print(f"[first-call {i + 1}/{a.count}] {m}x{n}x{k} ...", file=sys.stderr, flush=True)
        try:
            row = first_call_row(m, n, k, aligned, a, seen)
        except torch.cuda.OutOfMemoryError as err:
            row = {"shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "aligned8": aligned, "ok": False,
                   "message": f"out of memory: {str(err).splitlines()[0]}"}
        pipegemm.clear_choices()  # the next shape's first call sees the shipped tables only
        gc.collect()
        torch.cuda.empty_cache()
        rows.append(row)
        if row["ok"]:
            print(f"  first {row['first_us']:.0f} us, warm {row['warm_us']:.0f} us; {row['first_variant']} "
                  f"{row['first_gpu_us']:.1f} us, tuned {row['tuned_variant']} {row['tuned_gpu_us']:.1f} us",
                  file=sys.stderr, flush=True)
        else:
            print(f"  FAILED: {row['message']}", file=sys.stderr, flush=True)
    summary = first_call_summary(rows)
    doc = {"benchmark": "first-call", "pipegemm_version": pipegemm.__version__, "command": cmd, "environment": env,
           "options": {"count": a.count, "seed": a.seed, "warm_calls": a.warm_calls, "rounds": a.rounds,
                       "graph_us": GRAPH_US, "dtype": "bf16", "tolerance": TOLERANCE["bf16"]},
           "results": rows, "summary": summary}
    md = first_call_md(doc)
    base = os.path.join(a.out, "deploy_first_call")
    write_reports(doc, base, FIRST_COLUMNS, FIRST_SUMMARY, md)
    print(f"{base}.md: {json.dumps({k: summary.get(k) for k in ('worst_extra_us', 'geomean_ratio', 'failed')})}")
    return 1 if summary["failed"] else 0


# ---- decode --------------------------------------------------------------------------------------
def decode_ops(epilogue):
    """(pipegemm's call, torch's call, the same problem through gemm_into -> the variant name)."""
    if epilogue == "none":
        return ((lambda x, w, b: pgt.linear(x, w)), (lambda x, w, b: F.linear(x, w)),
                (lambda x, w, b, out: pipegemm.gemm_into(x, w, out, stream=stream())))
    return ((lambda x, w, b: pgt.linear(x, w, b, activation="gelu_tanh")),
            (lambda x, w, b: F.gelu(F.linear(x, w, b), approximate="tanh")),
            (lambda x, w, b, out: pipegemm.gemm_into(x, w, out, stream=stream(), bias=b, activation="gelu_tanh")))


def loop_us(fn, sets, calls, e0, e1):
    """CUDA events around `calls` back-to-back calls, per call (us)."""
    n = len(sets)
    e0.record()
    for i in range(calls):
        fn(*sets[i % n])
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) * 1e3 / calls


def decode_row(layer, m, n, k, epilogue, dtype, a):
    dt = DTYPES[dtype]
    e = torch.finfo(dt).bits // 8
    row = {"shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "layer": layer, "epilogue": epilogue, "ok": False,
           "message": ""}
    g = torch.Generator(device="cuda").manual_seed(a.seed + 7919 * m + 31 * n + k)
    count = n_sets((m * k + n * k + n + 2 * m * n) * e)
    sets = [(torch.randn(m, k, device="cuda", dtype=dt, generator=g),
             torch.randn(n, k, device="cuda", dtype=dt, generator=g) / math.sqrt(k),
             torch.randn(n, device="cuda", dtype=dt, generator=g)) for _ in range(count)]
    row["weight_sets"] = count
    pg, th, named = decode_ops(epilogue)
    x, w, b = sets[0]
    act = "gelu_tanh" if epilogue != "none" else "none"
    bias = b if epilogue != "none" else None
    err_pg, err_th = rel_error(pg(x, w, b), x, w, bias, act), rel_error(th(x, w, b), x, w, bias, act)
    row["pipegemm_rel_err"] = err_pg if math.isfinite(err_pg) else None
    row["torch_rel_err"] = err_th if math.isfinite(err_th) else None
    row["variant"] = named(x, w, b, torch.empty(m, n, device="cuda", dtype=dt))
    if not err_pg <= TOLERANCE[dtype]:
        row["message"] = f"pipegemm off the fp32 reference: {err_pg:.3g} > {TOLERANCE[dtype]:.3g} (torch {err_th:.3g})"
        return row
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for fn in (pg, th):
        loop_us(fn, sets, a.warmup, e0, e1)
    samples = {"pipegemm": [], "torch": []}
    for r in range(a.rounds):
        order = (("pipegemm", pg), ("torch", th)) if r % 2 == 0 else (("torch", th), ("pipegemm", pg))
        for name, fn in order:
            samples[name].append(loop_us(fn, sets, a.calls, e0, e1))
    row["pipegemm_us"] = statistics.median(samples["pipegemm"])
    row["torch_us"] = statistics.median(samples["torch"])
    row["ratio"] = row["pipegemm_us"] / row["torch_us"]
    row["ok"] = True
    return row


DECODE_COLUMNS = ["shape", "m", "n", "k", "layer", "epilogue", "variant", "pipegemm_us", "torch_us", "ratio",
                  "pipegemm_rel_err", "torch_rel_err", "weight_sets", "ok", "message"]
DECODE_SUMMARY = ["epilogue", "rows", "failed", "geomean_ratio", "worst_ratio", "worst_shape", "worst_layer",
                  "rows_above_1", "within_target"]


def decode_md(doc):
    o, rows, summary = doc["options"], doc["results"], doc["summary"]
    md = header_md(f"pipegemm.torch.linear against F.linear at decode sizes ({o['dtype']}): host+GPU time per call, "
                   f"CUDA events around {o['calls']} back-to-back calls, median of {o['rounds']} interleaved rounds; "
                   f"{'after pipegemm.torch.prepare' if o['prepare'] else 'no prepare (the shipped tables)'}", doc)
    for s in summary:
        if s["rows"]:
            md.append(f"- **{s['epilogue']}**: pipegemm / torch geomean {s['geomean_ratio']:.3f}, worst "
                      f"{s['worst_ratio']:.3f} ({s['worst_layer']} {s['worst_shape']}); {s['rows_above_1']} of "
                      f"{s['rows']} rows above 1 (target: none); {s['failed']} failed")
    md += ["", "| layer | shape | epilogue | variant | pipegemm us | torch us | pipegemm / torch | note |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['layer']} | {r['shape']} | {r['epilogue']} | {r.get('variant', '-')} | "
                  f"{fmt(r.get('pipegemm_us'))} | {fmt(r.get('torch_us'))} | {fmt(r.get('ratio'), 3)} | "
                  f"{'' if r['ok'] else 'FAILED: ' + r['message'].replace('|', '/')} |")
    return md


def cmd_decode(a):
    env, cmd = environment(), torch_bench.command_line()
    dt = DTYPES[a.dtype]
    warm_up_process(dt)
    prepared = None
    if a.prepare:
        t0 = time.perf_counter()
        res = pgt.prepare([(n, k, False) for _, n, k in DECODE_WEIGHTS], batch_sizes=DECODE_M, dtype=dt)
        res += pgt.prepare([(n, k, True) for _, n, k in DECODE_WEIGHTS], batch_sizes=DECODE_M, dtype=dt,
                           activation="gelu_tanh")
        prepared = {"problems": len(res), "errors": [r["error"] for r in res if r.get("error")],
                    "seconds": time.perf_counter() - t0}
    rows = []
    for layer, n, k in DECODE_WEIGHTS:
        for m in DECODE_M:
            for epi in EPILOGUES:
                print(f"[decode {a.dtype}] {layer} {m}x{n}x{k} {epi} ...", file=sys.stderr, flush=True)
                rows.append(decode_row(layer, m, n, k, epi, a.dtype, a))
        torch.cuda.empty_cache()
    summary = []
    for epi in EPILOGUES:
        rs = [r for r in rows if r["epilogue"] == epi and r["ok"]]
        s = {"epilogue": epi, "rows": len(rs), "failed": sum(1 for r in rows if r["epilogue"] == epi and not r["ok"])}
        if rs:
            worst = max(rs, key=lambda r: r["ratio"])
            s.update(geomean_ratio=geomean([r["ratio"] for r in rs]), worst_ratio=worst["ratio"],
                     worst_shape=worst["shape"], worst_layer=worst["layer"],
                     rows_above_1=sum(1 for r in rs if r["ratio"] > 1.0), within_target=worst["ratio"] <= 1.0)
        summary.append(s)
    doc = {"benchmark": "decode", "pipegemm_version": pipegemm.__version__, "command": cmd, "environment": env,
           "options": {"dtype": a.dtype, "calls": a.calls, "rounds": a.rounds, "warmup": a.warmup, "seed": a.seed,
                       "prepare": bool(a.prepare), "tolerance": TOLERANCE[a.dtype]},
           "prepared": prepared, "results": rows, "summary": summary}
    md = decode_md(doc)
    base = os.path.join(a.out, f"deploy_decode_{a.dtype}")
    write_reports(doc, base, DECODE_COLUMNS, DECODE_SUMMARY, md)
    print(f"{base}.md: " + "; ".join(f"{s['epilogue']}: worst {fmt(s.get('worst_ratio'), 3)}" for s in summary))
    return 1 if any(s["failed"] for s in summary) else 0


# ---- determinism ---------------------------------------------------------------------------------
def suite_path(spec):
    return spec if os.path.exists(spec) else os.path.join(os.path.dirname(os.path.abspath(__file__)), "suites", spec + ".txt")


def read_suite(path):
    shapes = []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                m, n, k = (int(v) for v in words[0].replace(",", "x").split("x"))
                shapes.append((m, n, k))
    return shapes


def sha256_of(*tensors):
    h = hashlib.sha256()
    for t in tensors:
        b = t.detach().contiguous().reshape(-1).view(torch.uint8).cpu()
        try:
            h.update(b.numpy().data)
        except (RuntimeError, TypeError):  # torch without numpy
            h.update(bytes(b.untyped_storage()))
    return h.hexdigest()


def base_of(path):
    return path[:-5] if path.endswith(".json") else path


DET_COLUMNS = ["index", "shape", "m", "n", "k", "variant", "d_sha256", "inputs_sha256", "repeat_equal", "skipped", "message"]


def cmd_determinism_record(a):
    env, cmd = environment(), torch_bench.command_line()
    path = suite_path(a.suite)
    shapes = read_suite(path)
    if a.load_choices:
        pipegemm.load_choices(a.load_choices)
    dt = DTYPES["bf16"]
    limit = a.max_gb * (1 << 30)
    rows, failed = [], 0
    for i, (m, n, k) in enumerate(shapes):
        row = {"index": i, "shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "skipped": False, "message": ""}
        nbytes = (m * k + n * k + m * n) * 2
        if nbytes > limit:
            row.update(skipped=True, message=f"operands {nbytes / 2**30:.2f} GiB > --max-gb {a.max_gb:g}")
            rows.append(row)
            continue
        try:
            g = torch.Generator(device="cuda").manual_seed(a.seed + i)
            x = torch.randn(m, k, device="cuda", dtype=dt, generator=g)
            w = torch.randn(n, k, device="cuda", dtype=dt, generator=g)
            d = torch.empty(m, n, device="cuda", dtype=dt)
            d2 = torch.empty(m, n, device="cuda", dtype=dt)
            row["variant"] = pipegemm.gemm_into(x, w, d, stream=stream())
            again = pipegemm.gemm_into(x, w, d2, stream=stream())
            torch.cuda.synchronize()
            row["repeat_equal"] = bool(torch.equal(d.view(torch.int16), d2.view(torch.int16))) and again == row["variant"]
            row["d_sha256"] = sha256_of(d)
            row["inputs_sha256"] = sha256_of(x, w)
            if not row["repeat_equal"]:
                row["message"] = f"a second call in this process ({again}) wrote other bits"
                failed += 1
            del x, w, d, d2
        except (ValueError, RuntimeError) as err:
            row["message"] = f"{type(err).__name__}: {str(err).splitlines()[0]}"
            failed += 1
        rows.append(row)
        if i % 20 == 19:
            print(f"[determinism] {i + 1}/{len(shapes)}", file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
    skipped = sum(1 for r in rows if r["skipped"])
    summary = {"shapes": len(rows), "skipped": skipped, "failed": failed,
               "variants": len({r.get("variant") for r in rows if r.get("variant")})}
    doc = {"benchmark": "determinism", "pipegemm_version": pipegemm.__version__, "command": cmd, "environment": env,
           "options": {"suite": os.path.relpath(path), "seed": a.seed, "dtype": "bf16", "max_gb": a.max_gb,
                       "load_choices": a.load_choices or ""},
           "results": rows, "summary": summary}
    md = header_md(f"Determinism record: {len(rows)} shapes of {os.path.relpath(path)}, BF16, seed {a.seed}", doc)
    md += [f"- {summary['shapes']} shapes, {summary['variants']} distinct variants, {skipped} skipped "
           f"(operands above {a.max_gb:g} GiB), {failed} failed or not repeatable in-process", "",
           "| # | shape | variant | D sha256 | repeat | note |", "|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['index']} | {r['shape']} | {r.get('variant', '-')} | {r.get('d_sha256', '-')[:16]} | "
                  f"{'-' if r['skipped'] else ('same' if r.get('repeat_equal') else 'DIFFERS')} | "
                  f"{r['message'].replace('|', '/')} |")
    base = base_of(a.out)
    write_reports(doc, base, DET_COLUMNS, ["shapes", "skipped", "failed", "variants"], md)
    print(f"{base}.json: {summary}")
    return 1 if failed else 0


def cmd_determinism_compare(a):
    docs = []
    for p in a.compare:
        with open(p if p.endswith(".json") or not os.path.exists(p + ".json") else p + ".json") as f:
            docs.append(json.load(f))
    A, B = docs
    notes = []
    for key in ("gpu", "pipegemm", "torch", "cuda_runtime", "pipegemm_torch_backend"):
        va, vb = A["environment"].get(key), B["environment"].get(key)
        if va != vb:
            notes.append(f"environment.{key} differs: {va!r} / {vb!r} (the choice may then differ by design)")
    for key in ("suite", "seed", "load_choices"):
        va, vb = A["options"].get(key), B["options"].get(key)
        if va != vb:
            notes.append(f"options.{key} differs: {va!r} / {vb!r}")
    ra = {r["shape"] + f"#{r['index']}": r for r in A["results"]}
    rb = {r["shape"] + f"#{r['index']}": r for r in B["results"]}
    rows = []
    for key in sorted(set(ra) | set(rb), key=lambda s: int(s.split("#")[1])):
        x, y = ra.get(key), rb.get(key)
        shape = key.split("#")[0]
        row = {"index": int(key.split("#")[1]), "shape": shape, "a_variant": (x or {}).get("variant", ""),
               "b_variant": (y or {}).get("variant", ""), "a_d_sha256": (x or {}).get("d_sha256", ""),
               "b_d_sha256": (y or {}).get("d_sha256", ""), "difference": ""}
        if x is None or y is None:
            row["difference"] = "in one record only"
        elif x.get("skipped") or y.get("skipped"):
            row["difference"] = "" if x.get("skipped") and y.get("skipped") else "skipped in one record only"
        elif x.get("message") or y.get("message"):
            row["difference"] = f"failed: {x.get('message') or y.get('message')}"
        else:
            diffs = []
            if x.get("inputs_sha256") != y.get("inputs_sha256"):
                diffs.append("inputs")
            if x.get("variant") != y.get("variant"):
                diffs.append("variant")
            if x.get("d_sha256") != y.get("d_sha256"):
                diffs.append("D bits")
            row["difference"] = ", ".join(diffs)
        rows.append(row)
    bad = [r for r in rows if r["difference"]]
    compared = sum(1 for r in rows if not r["difference"] and r["a_d_sha256"])
    summary = {"shapes": len(rows), "identical": compared, "different": len(bad),
               "skipped_both": sum(1 for r in rows if not r["difference"] and not r["a_d_sha256"]), "notes": "; ".join(notes)}
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    for r in bad:
        print(f"DIFFERENT #{r['index']} {r['shape']}: {r['difference']} ({r['a_variant']} / {r['b_variant']})")
    print(f"determinism: {summary['identical']} of {summary['shapes']} shapes identical (variant and D bits), "
          f"{summary['different']} different, {summary['skipped_both']} skipped by both")
    if a.out:  # the environment is record A's (B's beside it): a comparison runs without a GPU
        doc = {"benchmark": "determinism-compare", "pipegemm_version": pipegemm.__version__,
               "command": torch_bench.command_line(), "environment": A["environment"],
               "environment_b": B["environment"],
               "options": {"a": a.compare[0], "b": a.compare[1], "a_date": A["environment"].get("date"),
                           "b_date": B["environment"].get("date"), "a_command": A["command"], "b_command": B["command"]},
               "results": rows, "summary": summary}
        md = header_md(f"Determinism: {a.compare[0]} against {a.compare[1]}", doc)
        md += [f"- records made by `{A['command']}` ({A['environment'].get('date')}) and `{B['command']}` "
               f"({B['environment'].get('date')}), on {A['environment'].get('gpu')} / {B['environment'].get('gpu')}",
               f"- **{summary['identical']} of {summary['shapes']} shapes identical** (the same variant, the same D bits), "
               f"{summary['different']} different, {summary['skipped_both']} skipped by both"]
        md += [f"- note: {n}" for n in notes]
        md += ["", "| # | shape | variant A | variant B | difference |", "|---|---|---|---|---|"]
        for r in (bad or []):
            md.append(f"| {r['index']} | {r['shape']} | {r['a_variant']} | {r['b_variant']} | {r['difference']} |")
        if not bad:
            md.append("| - | - | - | - | none |")
        write_reports(doc, base_of(a.out), ["index", "shape", "a_variant", "b_variant", "a_d_sha256", "b_d_sha256",
                                            "difference"], ["shapes", "identical", "different", "skipped_both", "notes"], md)
    return 1 if bad else 0


# ---- main ----------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("first-call", help="the first call on 50 never-seen shapes: host time, and its choice's GPU time "
                       "against the tuned choice")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--seed", type=int, default=20261205)
    p.add_argument("--warm-calls", type=int, default=20, help="warmed calls timed (the median kept)")
    p.add_argument("--rounds", type=int, default=15, help="interleaved graph replays per choice")
    p.add_argument("--out", default=".")
    p = sub.add_parser("decode", help="pipegemm.torch.linear against F.linear at M 1-16 on five real weights")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--prepare", action="store_true", help="pipegemm.torch.prepare these layers first")
    p.add_argument("--calls", type=int, default=200, help="back-to-back calls between two events")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--warmup", type=int, default=50, help="calls per side before the rounds")
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--out", default=".")
    p = sub.add_parser("determinism", help="record chosen variants and D hashes (--out), or compare two records")
    p.add_argument("--out", help="the record (FILE.json, .csv, .md); with --compare: the comparison's report")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"))
    p.add_argument("--suite", default="random", help="bench/suites/<name>.txt or a path (default random)")
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--max-gb", type=float, default=1.0, help="skip shapes whose A, B and D exceed this many GiB")
    p.add_argument("--load-choices", help="pipegemm.load_choices(FILE) first")
    a = ap.parse_args()
    if a.cmd == "determinism" and a.compare:
        return cmd_determinism_compare(a)
    if not torch.cuda.is_available():
        print("deploy_bench.py: no CUDA device", file=sys.stderr)
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 references in fp32
    torch.set_float32_matmul_precision("highest")
    if a.cmd == "first-call":
        return cmd_first_call(a)
    if a.cmd == "decode":
        return cmd_decode(a)
    if not a.out:
        ap.error("determinism needs --out FILE (record) or --compare A B")
    return cmd_determinism_record(a)


if __name__ == "__main__":
    sys.exit(main())
