# Session 26 (an H200): the LLM suite re-tuned (--force: skinny's new tail timed) into a copy of this card's table
# ($OUT/$CARD.json), then through auto with it, back to back (issue 12's LLM criterion).
# Read: $OUT/llm_b2b_*_auto.md; on an H200 also s25_epilogue_tune.sh's $OUT/epilogue_*_auto.md, $OUT/epi_*_s25_run*.md.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_call1.sh
# (the skinny GPU tests passed on an H100 in call 1, bench/results/2026-12-05_h100_s26_call1_*: only the CLI is carried)
[ "$CARD" = gpu ] && { note "neither an H200 nor an H100: no table to re-tune"; return 0; }
tune_copy bench/suites/llm.txt 420
auto_suite bench/suites/llm.txt llm_b2b 520 --reps 20 --rounds 2 --warmup 3
# On an H200, then the queued epilogue tune and GELU cost (bench/jobs/s25_epilogue_tune.sh, into the same table copy).
case "$(nvidia-smi --query-gpu=name --format=csv,noheader)" in *H200*) source bench/jobs/s25_epilogue_tune.sh ;; esac
note "done at $(( $(date +%s) - t0 ))s"
