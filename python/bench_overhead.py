"""The cost of pipegemm's Python and torch layers over its C++ call (issue 15): CUDA-event medians
of the same GEMM through `_pipegemm.gemm_into` (the extension, output preallocated), through
`pipegemm.gemm` (allocation, stream lookup), through `pipegemm.torch.linear` on the C++ ops
("cpp op", where they are built) and on the Python custom ops ("py op": torch.ops.pipegemm_py
beside the C++ ones, or pipegemm.torch's own when it uses them), and torch.matmul beside them, at
1024^3 and 4096^3 FP16, same buffers, interleaved rounds.

    python3 python/bench_overhead.py [--reps 200]

An op's overhead is its host time per call minus that of gemm_into ("cpp - into", "py - into";
the target is <= 5 us); the GPU time per call beside it says whether the host or the GPU sets
the pace.
"""
import argparse
import statistics
import time

import torch

import pipegemm
import pipegemm.torch as pgt
from pipegemm import gemm_into


def time_block(fn, reps):
    """(GPU us per call from CUDA events, host us per call to issue it)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    start.record()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    host = (time.perf_counter() - t0) * 1e6 / reps
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0 / reps, host


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, pipegemm {pipegemm.__version__}, "
          f"pipegemm.torch.BACKEND {pgt.BACKEND}" + ("" if pgt.CPP_UNAVAILABLE is None else f" ({pgt.CPP_UNAVAILABLE})"))
    py_linear = pgt._frontend(pgt._python_ops("pipegemm_py")).linear if pgt.BACKEND == "cpp" else pgt.linear
    print(f"{'shape':>16} {'path':>10} {'GPU us':>10} {'host us':>10}  (per call, median of {args.rounds} blocks of {args.reps})")
    for n in (1024, 4096):
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        w = torch.randn(n, n, device="cuda", dtype=torch.float16)
        out = torch.empty(n, n, device="cuda", dtype=torch.float16)
        stream = torch.cuda.current_stream().cuda_stream
        cases = {
            "gemm_into": lambda: gemm_into(a, w, out, stream=stream),
            "gemm": lambda: pipegemm.gemm(a, w),
            "cpp op": lambda: pgt.linear(a, w),
            "py op": lambda: py_linear(a, w),
            "matmul": lambda: torch.matmul(a, w.t()),
        }
        if pgt.BACKEND != "cpp":
            del cases["cpp op"]
        samples = {k: [] for k in cases}
        for _ in range(args.rounds):
            for k, fn in cases.items():
                samples[k].append(time_block(fn, args.reps))
        for k, v in samples.items():
            gpu = statistics.median(x[0] for x in v)
            host = statistics.median(x[1] for x in v)
            print(f"{f'{n}x{n}x{n}':>16} {k:>10} {gpu:10.2f} {host:10.2f}")
        into = statistics.median(x[1] for x in samples["gemm_into"])
        for k, what in (("cpp op", "the C++ op's"), ("py op", "the Python op's")):
            if k in samples:
                op = statistics.median(x[1] for x in samples[k])
                print(f"{'':>16} {k[:-3] + ' - into':>10} {'':>10} {op - into:10.2f}  host us: {what} cost over the C++ call")


if __name__ == "__main__":
    main()
