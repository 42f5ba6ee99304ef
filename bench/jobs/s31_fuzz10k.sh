# Session 31, call 7: the closing fuzz for skinny's any-alignment form and auto's thin-coverage rule
# (binaries at 4667dd9): 10,000 FP16 + 10,000 BF16 problems at once, every registered variant that
# accepts each problem, auto's choice once.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s31_fuzz10k.sh   (carry .carry)
fuzz_types 10000 500 f16:3121 bf16:3122
note "done at $(( $(date +%s) - t0 ))s"
