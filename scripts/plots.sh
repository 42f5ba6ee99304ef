#!/usr/bin/env bash
# Draws the README's charts again from the stored H200 reports in bench/results (no GPU):
# `pipegemm plot` on each, into docs/plots/.   usage: scripts/plots.sh [path/to/pipegemm]
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${1:-build/release/pipegemm}
R=bench/results
mkdir -p docs/plots
"$PG" plot $R/2026-12-01_h200_s5_check_random_f16_auto.csv --kind ratio --only auto -o docs/plots/random_f16_auto.svg \
  --title "random suite, FP16: auto against the fastest candidate and kernels against best cuBLAS (H200)"
"$PG" plot $R/2026-12-01_h200_s5_check_llm_f16_auto.csv --kind ratio --only auto k5 -o docs/plots/llm_f16_auto.svg \
  --title "LLM suite, FP16: auto against the fastest candidate and kernels against best cuBLAS (H200)"
"$PG" plot $R/2026-12-01_h200_s5_splitk_decode_f16.csv --kind tflops -o docs/plots/decode_f16_tflops.svg \
  --title "decode suite, FP16: split-K and k5 beside cuBLAS (H200)"
"$PG" plot $R/2026-12-01_h200_s5_splitk_decode_f16.csv --kind roofline -o docs/plots/decode_f16_roofline.svg \
  --title "decode suite, FP16, on the H200 roofline"
# The memory-bound suite (seed shape first) on the roofline: the bandwidth ceiling is the device copy
# session 9's call 2 measured beside it (4205 GB/s, `..._s9_call2_bresident_trace.log`; that suite
# report predates the %copyBW column, so it is given here).
"$PG" plot $R/2026-12-02_h200_s9_memory_f16_idle.csv --kind roofline --bandwidth 4205 -o docs/plots/memory_f16_roofline.svg \
  --title "memory-bound suite, FP16: the seed kernel, k4, k5 and cuBLAS on the H200 roofline"
