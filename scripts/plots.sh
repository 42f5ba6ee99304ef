#!/usr/bin/env bash
# Draws the charts of one GPU's reference reports (bench/results/<gpu>/<suite>_<dtype>.csv or .json,
# as bench/run_reference.sh writes them) with `pipegemm plot`, into docs/plots/<gpu>_*.svg. No GPU.
#   usage: scripts/plots.sh [path/to/pipegemm] [gpu]      (defaults: build/release/pipegemm, h200)
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${1:-build/release/pipegemm}
GPU=${2:-h200}
R=bench/results/$GPU
NAME=$(printf '%s' "$GPU" | tr '[:lower:]' '[:upper:]')
mkdir -p docs/plots

# The report of a suite and dtype, in a format `pipegemm plot` reads.
report() {
  local ext
  for ext in csv json; do
    if [[ -f $R/$1.$ext ]]; then echo "$R/$1.$ext"; return 0; fi
  done
  echo "scripts/plots.sh: no $R/$1.csv or $R/$1.json (bench/run_reference.sh writes them)" >&2
  return 1
}

for dtype in f16 bf16; do
  if [[ $dtype == f16 ]]; then D=FP16; else D=BF16; fi
  # auto against the best cuBLAS, shape by shape (geomean and worst in the legend).
  for suite in compute llm random; do
    f=$(report "${suite}_$dtype")
    case $suite in compute) label=compute-bound ;; llm) label=LLM ;; *) label=$suite ;; esac
    "$PG" plot "$f" --kind ratio --only auto -o "docs/plots/${GPU}_${suite}_${dtype}_auto.svg" \
      --title "$label suite, $D: auto against the best cuBLAS ($NAME)"
  done
  # The memory-bound suite on the roofline: the bandwidth ceiling is the device copy the report
  # timed beside the kernels (bench --same-bytes-copy), else the GPU table's DRAM bandwidth.
  f=$(report "memory_$dtype")
  "$PG" plot "$f" --kind roofline -o "docs/plots/${GPU}_memory_${dtype}_roofline.svg" \
    --title "memory-bound suite, $D: auto and cuBLAS on the $NAME roofline"
done
