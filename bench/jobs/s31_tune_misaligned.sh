# Session 31, call 8: bench/suites/decode_misaligned.txt tuned into a copy of this card's table
# (tune_copy: $OUT/$CARD.json -> data/tune/$CARD.json), then auto over the untuned thin_misaligned
# suite with its candidates, back to back (call 5 without these entries: 0.945 / 0.938 of the fastest).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s31_tune_misaligned.sh   (carry .carry)
[ "$CARD" = gpu ] && { note "neither an H200 nor an H100: no table to tune"; return 0; }
tune_copy bench/suites/decode_misaligned.txt 150
auto_suite bench/suites/thin_misaligned.txt thin_misaligned_b2b 230 --reps 30 --rounds 2 --candidates
note "done at $(( $(date +%s) - t0 ))s"
