#!/usr/bin/env bash
# Draws the charts of the reference reports (bench/results/<gpu>/<suite>_<dtype>.json or .csv, as
# bench/run_reference.sh writes them) with `pipegemm plot`, into docs/plots/. No GPU.
#   docs/plots/<gpu>_<suite>_<dtype>_auto.svg      compute, llm, random: auto against the best cuBLAS
#                                                  of the same run, shape by shape (geomean, worst)
#   docs/plots/<gpu>_memory_<dtype>_roofline.svg   the memory-bound suite under the bandwidth of the
#                                                  device copy timed beside it (--same-bytes-copy)
# A report kept as markdown only is skipped with a note.
#   usage: scripts/plots.sh [path/to/pipegemm] [gpu ...]   (defaults: build/release/pipegemm, every
#          folder of bench/results/ but evidence/)
set -uo pipefail
cd "$(dirname "$0")/.."
PG=${1:-build/release/pipegemm}
[ -x "$PG" ] || { echo "scripts/plots.sh: no $PG (build first, or pass the CLI's path)" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
GPUS=("$@")
if [ ${#GPUS[@]} -eq 0 ]; then
  for d in bench/results/*/; do
    d=$(basename "$d")
    [ "$d" = evidence ] || GPUS+=("$d")
  done
fi
mkdir -p docs/plots
RC=0
# report GPU NAME: the report of a suite and dtype in a format `pipegemm plot` reads, else "".
report() {
  local ext
  for ext in json csv; do
    if [ -f "bench/results/$1/$2.$ext" ]; then echo "bench/results/$1/$2.$ext"; return; fi
  done
  [ -f "bench/results/$1/$2.md" ] && echo "skipped bench/results/$1/$2: markdown only (bench/run_reference.sh writes .json)" >&2
}
for gpu in "${GPUS[@]}"; do
  NAME=$(printf '%s' "$gpu" | tr '[:lower:]' '[:upper:]')
  for dtype in f16 bf16; do
    D=$(printf '%s' "$dtype" | tr '[:lower:]' '[:upper:]')
    for suite in compute llm random; do
      f=$(report "$gpu" "${suite}_$dtype")
      [ -n "$f" ] || continue
      case $suite in compute) label=compute-bound ;; llm) label=LLM ;; *) label=$suite ;; esac
      out=docs/plots/${gpu}_${suite}_${dtype}_auto.svg
      "$PG" plot "$f" --kind ratio --only auto -o "$out" --title "$label suite, $D: auto against the best cuBLAS ($NAME)" \
        > /dev/null && echo "$out  <- $f" || RC=1
    done
    f=$(report "$gpu" "memory_$dtype")
    [ -n "$f" ] || continue
    out=docs/plots/${gpu}_memory_${dtype}_roofline.svg
    "$PG" plot "$f" --kind roofline -o "$out" --title "memory-bound suite, $D: auto and cuBLAS on the $NAME roofline" \
      > /dev/null && echo "$out  <- $f" || RC=1
  done
done
exit $RC
