# Session 32, call 2: shortk into the H100 table. tune of the tiny-K suite (random's 54 shapes with
# K <= 16: the same buckets as their random entries, re-timed with shortk among the candidates) into a
# copy of data/tune/h100.json ($OUT/h100.json), then auto with that copy, back to back, over the
# held-out tiny-K suite (in no table), the held-out suite and the random suite.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s32_tune_tinyk.sh
#      (carry .carry: call 1's binaries)
tune_copy bench/suites/tiny_k.txt 200
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout_b2b 300 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
auto_suite bench/suites/random_heldout.txt random_heldout_b2b 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/random.txt random_b2b 530 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
