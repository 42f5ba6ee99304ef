# Session 26: fuzz after session 25's skinny 16-byte tail (the last 10,000-problem runs predate it):
# every type at once, 10,000 problems each through auto and every variant that takes them, every
# element compared (either card: correctness).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_fuzz.sh
fuzz_types 10000 540 f16:2601 bf16:2602
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
