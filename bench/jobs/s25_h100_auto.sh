# Session 25, after s25_h100_tune.sh: auto on the H100 with its own table ($PIPEGEMM_TUNE_CACHE = the
# h100.json that call made, carried in .carry/): the random suite back to back, the memory-bound
# suite in bursts with each shape's same-bytes memcpy, FP16 and BF16.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_h100_auto.sh
export PIPEGEMM_TUNE_CACHE=$PWD/.carry/h100.json
auto_suite bench/suites/random.txt random_b2b 380 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/memory.txt memory_burst 540 --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy
note "done at $(( $(date +%s) - t0 ))s"
