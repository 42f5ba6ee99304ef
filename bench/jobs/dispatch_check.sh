# Dispatch (issue 11), call 2 of 2: with the table made by call 1 as auto's cache, both
# suites in FP16 and BF16 with `--kernel auto --candidates`: auto beside every variant that
# accepts each shape (cuBLAS included), same run, same buffers, back to back. csv + md reports.
export PIPEGEMM_TUNE_CACHE=$PWD/$BUILD/h200.json
for s in ${SUITES:-random llm}; do
  for t in f16 bf16; do
    pg bench --suite bench/suites/$s.txt --dtype $t --kernel auto --candidates --reps 40 --rounds 2 --warmup 5 \
       --max-ms-per-variant 400 --output "$OUT/${s}_${t}_auto.csv" --output "$OUT/${s}_${t}_auto.md"
  done
done
