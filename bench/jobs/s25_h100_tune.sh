# Session 25: the device lent H100s (no H200 came in an hour of tries). auto on an H100 has no tune
# entries of its own (data/tune/ held only h200.json): through the model and neighbours alone the LLM
# suite ran at 0.972 of the best cuBLAS, worst 0.701 (call 2, BF16, a partial table). Tune the suites
# users' shapes come from -- LLM, memory-bound, epilogue, then the 200 random shapes -- into a fresh
# table ($OUT/h100.json: data/tune/h100.json if it holds), then the LLM suite through auto with it,
# back to back, FP16 and BF16.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_h100_tune.sh
T=$PWD/h100_job.json
for s in llm memory epilogue random; do
  for t in f16 bf16; do
    in_time 380 "tune $s $t" && pg tune --suite bench/suites/$s.txt --dtype $t --output "$T"
  done
  [ -f "$T" ] && cp "$T" "$OUT/h100.json"
done
export PIPEGEMM_TUNE_CACHE=$T
auto_suite bench/suites/llm.txt llm_b2b 500 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
