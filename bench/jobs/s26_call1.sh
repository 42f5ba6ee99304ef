# Session 26, call 1 (either card; a device build): (1) the skinny GPU tests on session 25's
# 16-byte tail (SkinnyVerify.VectorFormTailIgnoresNaNPaddingPastK included) and the stream-K ones;
# (2) the LLM suite re-tuned (--force: skinny's new tail timed) into a copy of this card's table
# ($OUT/$CARD.json), then through auto with it, back to back (issue 12's LLM criterion).
# Read: $OUT/llm_b2b_*_auto.md.
# Run: scripts/gpu_session.sh bench/jobs/s26_call1.sh pipegemm_cli pipegemm_gpu_tests
note() { echo "# $*" >> "$OUT/run.log"; }
gt pipegemm_gpu_tests "Skinny*:K5StreamK*"
[ "$CARD" = gpu ] && { note "neither an H200 nor an H100: no table to re-tune"; return 0; }
tune_copy bench/suites/llm.txt 420
auto_suite bench/suites/llm.txt llm_b2b 520 --reps 20 --rounds 2 --warmup 3
note "done at $(( $(date +%s) - t0 ))s"
