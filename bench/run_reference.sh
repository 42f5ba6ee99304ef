#!/usr/bin/env bash
# Regenerates bench/results/<gpu>/: the reference reports of this GPU. One command per GPU:
#
#   bench/run_reference.sh [--build DIR] [--suites "compute memory random llm"] [--dtypes "f16 bf16"]
#                          [--protocol b2b|idle] [--quick] [--out DIR] [--no-torch]
#
# For each suite (bench/suites/<suite>.txt) and dtype, `pipegemm bench --kernel auto`: auto (what a
# user's call runs) beside both cuBLAS peers, cublasGemmEx and cuBLASLt (its heuristic's candidates
# timed before the run, the fastest kept), in one process on the same rotated buffers; D in the input
# type; the memory suite also times a device copy of each shape's bytes (its roofline). Each report
# as <suite>_<dtype>.md, .csv and .json: GPU, driver, CUDA, cuBLAS and pipegemm versions, the date
# and the exact command inside. Then bench/torch_bench.py (pipegemm.torch.linear against F.linear,
# plain and with bias + GELU fused, over the llm suite when it is asked and the real-model layers):
# torch_<suite>_<dtype>.{md,csv,json}. Last, bench/summarize.py writes summary.md.
#
#   --build DIR     carried binaries (DIR/pipegemm, .xz / .gz unpacked; DIR/pylib/pipegemm for the
#                   Python package) or a CMake build tree; default: build/gpu, configured for this
#                   GPU and built (scripts/gpu_common.sh). $PIPEGEMM_PREBUILT=DIR does the same.
#   --suites LIST   default "compute memory random llm" (any bench/suites/<name>.txt)
#   --dtypes LIST   default "f16 bf16"
#   --protocol P    b2b: launches back to back (sustained clocks, the default); idle: 25 ms of idle
#                   device before each variant's block of launches (`--idle-ms 25`), every round
#   --quick         fewer launches (--reps 20 --rounds 2 --warmup 3; torch_bench.py --quick): about
#                   5 minutes on an H100 with the binaries built (docs/benchmarks.md)
#   --out DIR       default bench/results/<gpu>: h100 (NVIDIA H100 80GB HBM3), h200 (NVIDIA H200),
#                   else the card's name as a lowercase slug (nvidia-h100-nvl, nvidia-a100-sxm4-80gb)
#   --no-torch      skip the PyTorch comparison
#
# auto runs with the tune tables shipped in the build (PIPEGEMM_TUNE_CACHE=off: no user cache).
# Exit status: non-zero when a report could not be made or a row failed (the rest still run).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_common.sh
BUILD_DIR=${PIPEGEMM_PREBUILT:-}
SUITES="compute memory random llm"
DTYPES="f16 bf16"
PROTOCOL=b2b
QUICK=0
OUT_DIR=""
TORCH=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD_DIR=$2; shift 2 ;;
    --suites) SUITES=${2//,/ }; shift 2 ;;
    --dtypes) DTYPES=${2//,/ }; shift 2 ;;
    --protocol) PROTOCOL=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --out) OUT_DIR=$2; shift 2 ;;
    --no-torch) TORCH=0; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/run_reference.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
case "$PROTOCOL" in
  b2b) PROTO_ARGS=() ;;
  idle) PROTO_ARGS=(--idle-ms 25) ;;
  *) echo "bench/run_reference.sh: --protocol b2b or idle, not '$PROTOCOL'" >&2; exit 2 ;;
esac
if [ "$QUICK" = 1 ]; then
  TIMING=(--reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200)
  TORCH_TIMING=(--quick)
else
  TIMING=(--reps 100 --rounds 4 --warmup 10 --max-ms-per-variant 500)
  TORCH_TIMING=()
fi
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$NAME" ] || { echo "bench/run_reference.sh: no GPU (nvidia-smi names none)" >&2; exit 3; }
case "$NAME" in
  "NVIDIA H100 80GB HBM3") GPU=h100 ;;
  "NVIDIA H200") GPU=h200 ;;
  *) GPU=$(echo "$NAME" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//') ;;
esac
OUT_DIR=${OUT_DIR:-bench/results/$GPU}
mkdir -p "$OUT_DIR"
OUT_DIR=$(realpath --relative-to="$PWD" "$OUT_DIR")  # inside the tree: the reports name relative paths
LOG=${LOG:-/tmp/pipegemm_reference_$GPU.log}
: > "$LOG"
T0=$(date +%s)
RC=0
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
say "$NAME -> $OUT_DIR (protocol $PROTOCOL$([ "$QUICK" = 1 ] && echo ', quick'); build log and progress: $LOG)"

PIPEGEMM_TARGETS=pipegemm_cli pipegemm_binaries "$BUILD_DIR" "$LOG" || { echo "no pipegemm binary: $LOG" >&2; exit 1; }
say "pipegemm: $PG ($("$PG" --version 2>/dev/null); tree $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- src include tools data 2>/dev/null || echo ' with local changes'))"

# The command each report records reads as typed: `pipegemm` from PATH, paths relative to the tree.
export PATH=$BUILD:$PATH PIPEGEMM_TUNE_CACHE=off
for s in $SUITES; do
  [ -f "bench/suites/$s.txt" ] || { say "no bench/suites/$s.txt: skipped"; RC=1; continue; }
  extra=()
  [ "$s" = memory ] && extra=(--same-bytes-copy)
  for t in $DTYPES; do
    pipegemm bench --suite "bench/suites/$s.txt" --dtype "$t" --out-dtype "$t" --kernel auto \
      "${TIMING[@]}" ${PROTO_ARGS[@]+"${PROTO_ARGS[@]}"} ${extra[@]+"${extra[@]}"} \
      --output "$OUT_DIR/${s}_$t.md" --output "$OUT_DIR/${s}_$t.csv" --output "$OUT_DIR/${s}_$t.json" >> "$LOG" 2>&1
    rc=$?
    [ $rc -eq 0 ] || RC=1
    say "$s $t: exit $rc; $(grep -m1 '^| auto |' "$OUT_DIR/${s}_$t.md" 2>/dev/null | cut -d'|' -f3-6 | tr -s ' ')"
  done
done
unset PIPEGEMM_TUNE_CACHE

if [ "$TORCH" = 1 ]; then
  if python_package "$LOG"; then
    torch_suites=models
    case " $SUITES " in *" llm "*) torch_suites=llm,models ;; esac
    torch_args=(--suites "$torch_suites" --dtypes "${DTYPES// /,}" --out "$OUT_DIR" ${TORCH_TIMING[@]+"${TORCH_TIMING[@]}"})
    [ "$PROTOCOL" = idle ] && torch_args+=(--idle-ms 25)
    PIPEGEMM_TUNE_CACHE=off "$PYTHON" bench/torch_bench.py "${torch_args[@]}" 2>> "$LOG" | while read -r line; do say "$line"; done
    [ "${PIPESTATUS[0]}" -eq 0 ] || RC=1
  else
    say "pipegemm.torch: no Python package ($LOG): the PyTorch comparison did not run"
    RC=1
  fi
fi

python3 bench/summarize.py "$OUT_DIR" > /dev/null && say "summary: $OUT_DIR/summary.md"
say "done (exit $RC)"
exit $RC
