# Session 31, call 4: skinny's any-alignment form (97c011b) closed out on this card. (1) correctness:
# the skinny GPU tests, the same under compute-sanitizer memcheck, fuzz 2,000 FP16 + 2,000 BF16;
# (2) the suites with thin problems re-timed (--force) into a copy of this card's table (tune_copy:
# $OUT/$CARD.json -> data/tune/$CARD.json), as session 26 did; (3) auto over the random, held-out and
# thin_misaligned suites with it, back to back (the held-out and thin_misaligned shapes are in no table).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s31_retune.sh   (carry .carry)
gt pipegemm_gpu_tests "Skinny*"
gt_memcheck pipegemm_gpu_tests 'SkinnyVerify.*' 90
in_time 150 "fuzz" && fuzz_types 2000 150 f16:3111 bf16:3112
[ "$CARD" = gpu ] && { note "neither an H200 nor an H100: no table to re-tune"; return 0; }
for s in random decode small_weights; do tune_copy bench/suites/$s.txt 400; done
auto_suite bench/suites/random.txt random_b2b 460 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/random_heldout.txt random_heldout_b2b 500 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/thin_misaligned.txt thin_misaligned_b2b 540 --reps 30 --rounds 2 --candidates
note "done at $(( $(date +%s) - t0 ))s"
