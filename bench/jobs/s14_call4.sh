# Session 14, call 4 (warm, after call 3, its table in data/tune/h200.json): the LLM and decode suites
# with auto (burst, best cuBLAS beside), the memory-bound suite with the same-bytes copy, and fuzz with
# PDL on (the default now).
# Run: scripts/gpu_session.sh bench/jobs/s14_call4.sh pipegemm_cli
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for t in f16 bf16; do
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --max-ms-per-variant 200 \
     --output "$OUT/llm_${t}_auto.md"
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel auto --reps 50 --rounds 2 --idle-ms 25 \
     --same-bytes-copy --output "$OUT/memory_${t}_auto.md"
done
pg fuzz --count 1000 --dtype f16,bf16 --seed 20261214
