# Session 25: auto on the H100 with its completed table (.carry/h100.json, from s25_next.sh): the
# held-out random suite (in no table: auto from neighbours and the model) and the batched suite,
# back to back, FP16 and BF16.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_h100_heldout.sh
export PIPEGEMM_TUNE_CACHE=$PWD/.carry/h100.json
auto_suite bench/suites/random_heldout.txt random_heldout_b2b 200 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/batched.txt batched_b2b 260 --reps 20 --rounds 2 --warmup 3
note "done at $(( $(date +%s) - t0 ))s"
