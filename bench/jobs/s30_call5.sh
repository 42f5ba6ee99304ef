# Session 30: the 128x192 ping-pong beat the 128x256 on 8192^3 (H100, call 4: 1.361 against 1.446 ms
# burst) -- the LLM suite's M >= 1024 rows re-tuned in BF16 (--force) into a copy of the H100 table,
# so tune times the new tuned-only forms beside every candidate, then the whole LLM suite through
# auto with that copy, back to back (issue 12's LLM criterion; s25 on the H100: BF16 0.999).
# Read: $OUT/h100.json (the pick per shape), $OUT/llm_b2b_bf16_auto.md.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_call5.sh   (carry .carry)
[ "$CARD" = h100 ] || [ "$CARD" = h200 ] || { note "neither an H100 nor an H200: no table"; return 0; }
table=$PWD/${CARD}_job.json
cp "data/tune/$CARD.json" "$table"
in_time 60 "tune" && pg tune --suite bench/jobs/s30_llm_large.txt --dtype bf16 --output "$table" --force
cp "$table" "$OUT/$CARD.json"
export PIPEGEMM_TUNE_CACHE=$table
in_time 400 "auto" && pg bench --suite bench/suites/llm.txt --dtype bf16 --out-dtype bf16 --kernel auto --reps 20 \
   --rounds 2 --warmup 3 --output "$OUT/llm_b2b_bf16_auto.md"
note "done at $(( $(date +%s) - t0 ))s"
