# Session 31, call 5: auto's neighbours weigh a thin variant only over the neighbours it could run on
# (dispatch.cpp, thin_enough). The skinny GPU tests (the NaN tests on one helper now), then auto over
# the thin_misaligned (with its candidates), held-out and random suites, back to back, with the H100
# table of call 4 -- the same table and suites as call 4, only the rule changed.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s31_auto_thin.sh   (carry .carry)
gt pipegemm_gpu_tests "Skinny*"
auto_suite bench/suites/thin_misaligned.txt thin_misaligned_b2b 300 --reps 30 --rounds 2 --candidates
auto_suite bench/suites/random_heldout.txt random_heldout_b2b 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/random.txt random_b2b 520 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
