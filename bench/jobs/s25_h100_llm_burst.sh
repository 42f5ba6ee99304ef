# Session 25: the LLM suite through auto on the H100 with its own table (.carry/h100.json, from
# s25_h100_tune.sh), in bursts (25 ms idle before each block), FP16 and BF16 -- the second protocol.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_h100_llm_burst.sh
export PIPEGEMM_TUNE_CACHE=$PWD/.carry/h100.json
auto_suite bench/suites/llm.txt llm_burst 500 --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
