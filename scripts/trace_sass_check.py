#!/usr/bin/env python3
"""Tracing costs nothing when off: the instrumented kernels' SASS against the same kernels
without a stamp, compiled the same way (no GPU needed; docs/trace.md).

    scripts/trace_sass_check.py [--against REV] [--arch 80 90a] [--unit NAME ...] [--traced] [-j N] [--cutlass DIR]

For each kernel unit below (the seed kernel, k4, k4 persistent, k5 and its ping-pong: the units the trace pictures
show) and each arch, two cubins from one nvcc command line, PIPEGEMM_TRACE undefined:
  new  the working tree's headers, stamps and all;
  old  the same include/ tree with every header that includes pipeline/trace.cuh stripped of
       its trace lines (the include, each PIPEGEMM_TRACE_* statement), or with --against REV
       those headers as REV has them (the kernels before they were instrumented).
`cuobjdump -sass` of both, compared by scripts/sass_diff.py (every instruction word). --traced
also compiles each unit with -DPIPEGEMM_TRACE (host and device) and prints ptxas's registers
and spills, traced against not.

Exit status: 0 every kernel identical (and, with --traced, every traced unit compiled), 1 not.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The variants.def lines of the traced kernels, as CMake's generated units have them, and the
# archs each is built for (k5: sm_90a only).
UNITS = {
    "seed_f16_128_128_32_3": ('kernels/k4_multistage_seed.cuh', "PIPEGEMM_SEED(f16, 128, 128, 32, 3)", None),
    "k4_f16_256_128_64_3_4_2_8": ('pipegemm/kernels/k4_multistage/kernel.cuh"\n#include "kernels/ladder_variant.cuh',
                                  "PIPEGEMM_K4(f16, 256, 128, 64, 3, 4, 2, 8)", None),
    "k4_persistent_f16_256_128_64_3_4_2_8": ('pipegemm/kernels/k4_multistage/kernel.cuh"\n#include "kernels/ladder_variant.cuh',
                                             "PIPEGEMM_K4_PERSISTENT(f16, 256, 128, 64, 3, 4, 2, 8)", None),
    # plain, nocluster and packed launches of one kernel family, the general form included
    "k5_f16_128_256_64_4_2": ('kernels/k5_ws_tma_wgmma.cuh', "PIPEGEMM_K5(f16, 128, 256, 64, 4, 2, deferred, general, candidate)", ["90a"]),
    "k5_pingpong_f16_64_256_64_4_2": ('kernels/k5_ws_tma_wgmma.cuh', "PIPEGEMM_K5_PINGPONG(f16, 64, 256, 64, 4, 2, every_k, general, tuned)", ["90a"]),
}
TRACE_INCLUDE = '#include "pipegemm/pipeline/trace.cuh"'


def strip_trace(text):
    """The header without its trace: the include line and each PIPEGEMM_TRACE_* statement (up to
    the line ending its `;`). Comments stay (they compile to nothing)."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        if line.strip() == TRACE_INCLUDE:
            continue
        if skipping or re.match(r"\s*PIPEGEMM_TRACE_", line):
            skipping = not line.split("//")[0].rstrip().endswith(";")  # a trailing comment may follow
            continue
        out.append(line)
    return "".join(out)


def instrumented_headers():
    hits = []
    for d, _, files in os.walk(os.path.join(ROOT, "include")):
        for f in files:
            p = os.path.join(d, f)
            if f.endswith((".cuh", ".hpp")) and TRACE_INCLUDE in open(p).read():
                hits.append(os.path.relpath(p, ROOT))
    return sorted(hits)


def make_overlay(tmp, against):
    inc = os.path.join(tmp, "include")
    shutil.copytree(os.path.join(ROOT, "include"), inc)
    for rel in instrumented_headers():
        dst = os.path.join(tmp, rel)
        if against:
            text = subprocess.run(["git", "-C", ROOT, "show", f"{against}:{rel}"], check=True,
                                  capture_output=True, text=True).stdout
        else:
            text = strip_trace(open(os.path.join(ROOT, rel)).read())
        with open(dst, "w") as f:
            f.write(text)
    return inc


def cutlass_dir(arg):
    for d in [arg, os.environ.get("CUTLASS_DIR"), os.path.join(ROOT, ".deps", "cutlass")]:
        if d and os.path.exists(os.path.join(d, "include", "cute", "tensor.hpp")):
            return d
    py = os.path.join(ROOT, ".venv", "bin", "python3")
    r = subprocess.run([py if os.path.exists(py) else "python3", "-c",
                        "import cutlass_library,os;print(os.path.join(os.path.dirname(cutlass_library.__file__),'source'))"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def nvcc(unit, include, arch, out, cutlass, extra):
    # The library's flags for a kernel unit (CMakeLists.txt), one arch, device code only.
    cmd = ["nvcc", "-O3", "-DNDEBUG", "-std=c++17", "--expt-relaxed-constexpr", "-Xptxas=-warn-spills",
           f"--generate-code=arch=compute_{arch},code=sm_{arch}", "-I", include, "-I", os.path.join(ROOT, "src"),
           "-isystem", os.path.join(cutlass, "include"), "-isystem", os.path.join(cutlass, "tools", "util", "include"),
           "-x", "cu", unit, "-o", out] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stderr


def unit_archs(asked, built_for):
    return [ar for ar in asked if built_for is None or ar in built_for]


def registers(log):
    """ptxas -v: 'Used N registers' and spill stores per kernel entry, as one short string."""
    regs = re.findall(r"Used (\d+) registers", log)
    spills = re.findall(r"(\d+) bytes spill stores", log)
    return f"{max(map(int, regs)) if regs else '?'} regs, {max(map(int, spills)) if spills else 0} B spilled"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--against", metavar="REV", help="compare with the headers as REV has them")
    ap.add_argument("--arch", nargs="+", default=["80", "90a"])
    ap.add_argument("--unit", nargs="+", choices=sorted(UNITS), help="only these units (default: all)")
    ap.add_argument("--traced", action="store_true", help="also compile each unit with -DPIPEGEMM_TRACE")
    ap.add_argument("--cutlass", help="CUTLASS root (default: $CUTLASS_DIR, .deps/cutlass, .venv's cutlass_library)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    units = {k: v for k, v in UNITS.items() if not a.unit or k in a.unit}
    cutlass = cutlass_dir(a.cutlass)
    cuobjdump = shutil.which("cuobjdump") or os.environ.get("PIPEGEMM_CUOBJDUMP")
    if not cutlass or not cuobjdump:
        print("trace_sass_check: needs CuTe headers (--cutlass) and cuobjdump on PATH", file=sys.stderr)
        return 2
    print("instrumented:", ", ".join(instrumented_headers()))
    print("against:", f"{a.against} (git)" if a.against else "the same headers with the trace lines stripped")
    tmp = tempfile.mkdtemp(prefix="trace_sass_")
    old_inc, new_inc = make_overlay(tmp, a.against), os.path.join(ROOT, "include")
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
        for name, (header, line, archs) in units.items():
            unit = os.path.join(tmp, name + ".cu")
            with open(unit, "w") as f:
                f.write(f'#include "{header}"\n{line}\n')
            for arch in unit_archs(a.arch, archs):
                for side, inc in (("old", old_inc), ("new", new_inc)):
                    out = os.path.join(tmp, f"{name}.sm_{arch}.{side}.cubin")
                    jobs[(name, arch, side)] = (out, pool.submit(nvcc, unit, inc, arch, out, cutlass, ["-cubin", "-Xptxas=-v"]))
                if a.traced:
                    out = os.path.join(tmp, f"{name}.sm_{arch}.traced.o")
                    jobs[(name, arch, "traced")] = (out, pool.submit(nvcc, unit, new_inc, arch, out, cutlass,
                                                                     ["-c", "-DPIPEGEMM_TRACE", "-Xptxas=-v"]))
    ok = True
    for name, (_, _, archs) in units.items():
        for arch in unit_archs(a.arch, archs):
            res = {side: (out, fut.result()) for (n, ar, side), (out, fut) in jobs.items() if n == name and ar == arch}
            failed = [s for s, (_, (rc, _)) in res.items() if rc != 0]
            if failed:
                ok = False
                for s in failed:
                    print(f"FAIL {name} sm_{arch} ({s}): nvcc failed\n{res[s][1][1][-3000:]}")
                continue
            listings = []
            for side in ("old", "new"):
                sass = res[side][0] + ".sass"
                with open(sass, "w") as f:
                    subprocess.run([cuobjdump, "-sass", res[side][0]], stdout=f, check=True)
                listings.append(sass)
            d = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "sass_diff.py"), *listings, "--anon"],
                               capture_output=True, text=True)
            same = d.returncode == 0
            ok &= same
            line = f"{'SAME' if same else 'DIFFERENT'} {name} sm_{arch}: {registers(res['new'][1][1])}"
            if "traced" in res:
                line += f"; traced: {registers(res['traced'][1][1])}"
            print(line)
            if not same:
                print(d.stdout[-4000:])
    shutil.rmtree(tmp, ignore_errors=True)
    print("trace_sass_check:", "every kernel's SASS is identical with the stamps compiled out" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
