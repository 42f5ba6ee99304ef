# Session 15, call 1: re-tune the LLM and decode suites with PDL on (the default since session 14),
# into a copy of data/tune/h200.json ($OUT/h200.json), then the LLM suite with auto on that table
# (burst, best cuBLAS beside) while time is left in the call.
# Run: scripts/gpu_session.sh bench/jobs/s15_call1.sh pipegemm_cli
cp data/tune/h200.json "$OUT/h200.json"
for s in llm decode; do
  for t in f16 bf16; do
    pg tune --suite bench/suites/$s.txt --dtype $t --output "$OUT/h200.json" --force
  done
done
export PIPEGEMM_TUNE_CACHE=$OUT/h200.json
for t in f16 bf16; do
  if [ $(( $(date +%s) - t0 )) -gt 440 ]; then echo "# skipped llm $t auto: out of call time" >> "$OUT/run.log"; continue; fi
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --max-ms-per-variant 200 \
     --output "$OUT/llm_${t}_auto.md"
done
