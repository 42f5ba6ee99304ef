# Session 15, call 4: tune's new pick (ours only where it beats the fastest peer by 2%): re-tune
# the LLM, decode and memory-bound suites into data/tune/h200.json (copied to $OUT), then the
# LLM suite with auto back to back and in bursts, best cuBLAS beside.
# Run: scripts/gpu_session.sh bench/jobs/s15_call4.sh pipegemm_cli
for s in llm decode memory; do
  for t in f16 bf16; do pg tune --suite bench/suites/$s.txt --dtype $t --output data/tune/h200.json --force; done
done
cp data/tune/h200.json "$OUT/h200.json"
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for t in f16 bf16; do
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 \
     --output "$OUT/llm_${t}_auto_b2b.md"
done
for t in f16 bf16; do
  if [ $(( $(date +%s) - t0 )) -gt 440 ]; then echo "# skipped llm $t burst: out of call time" >> "$OUT/run.log"; continue; fi
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --max-ms-per-variant 200 \
     --output "$OUT/llm_${t}_auto_burst.md"
done
