#!/usr/bin/env bash
# Draws docs/plots/<gpu>_<suite>_<dtype>.svg from the reference reports in bench/results/<gpu>/
# (no GPU): `pipegemm plot` on each report's .json (else .csv) --
#   random, llm   ratio: auto against the best cuBLAS of the same run, shapes sorted
#   compute       tflops: auto and both cuBLAS peers per shape
#   memory        roofline: under the bandwidth of the device copy the run measured
# A report kept as markdown only is skipped with a note (bench/run_reference.sh writes all three).
#   usage: scripts/plots.sh [path/to/pipegemm]   (default build/release/pipegemm)
set -uo pipefail
cd "$(dirname "$0")/.."
PG=${1:-build/release/pipegemm}
[ -x "$PG" ] || { echo "scripts/plots.sh: no $PG (build first, or pass the CLI's path)" >&2; exit 2; }
mkdir -p docs/plots
RC=0
for dir in bench/results/*/; do
  gpu=$(basename "$dir")
  [ "$gpu" = evidence ] && continue
  GPU=$(echo "$gpu" | tr 'a-z' 'A-Z')
  for t in f16 bf16; do
    T=$(echo "$t" | tr 'a-z' 'A-Z')
    for s in random llm compute memory; do
      src=""
      for ext in json csv; do [ -f "$dir${s}_$t.$ext" ] && { src=$dir${s}_$t.$ext; break; }; done
      if [ -z "$src" ]; then
        [ -f "$dir${s}_$t.md" ] && echo "skipped $dir${s}_$t: markdown only (bench/run_reference.sh writes .json)"
        continue
      fi
      out=docs/plots/${gpu}_${s}_$t.svg
      case "$s" in
        random|llm) args=(--kind ratio --only auto --title "$s suite, $T: auto against the best cuBLAS ($GPU)") ;;
        compute) args=(--kind tflops --title "compute-bound suite, $T: auto and the cuBLAS peers ($GPU)") ;;
        memory) args=(--kind roofline --title "memory-bound suite, $T: auto and the cuBLAS peers on the roofline ($GPU)") ;;
      esac
      "$PG" plot "$src" "${args[@]}" -o "$out" > /dev/null && echo "$out  <- $src" || RC=1
    done
  done
done
exit $RC
