# Session 30: fuzz 10,000 problems a 16-bit type (both at once), every registered variant that accepts
# each problem -- the 128-row ping-pong forms among them -- on whatever card comes (issue 12's closing
# fuzz names an H200; this is the H100's check of the new forms at that count).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_fuzz10k.sh   (carry .carry)
fuzz_types 10000 540 f16:3011 bf16:3012
note "done at $(( $(date +%s) - t0 ))s"
