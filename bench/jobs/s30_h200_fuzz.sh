# Session 30: issue 12's closing fuzz on the H200 -- 10,000 problems a 16-bit type (both at once), every
# registered variant that accepts each problem (the 128-row ping-pong forms among them; on the H100,
# call 9: 0 mismatches in ~310 s), then i8 and f32 1,000 each. On any other card it stops at once.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_h200_fuzz.sh   (carry .carry)
if ! nvidia-smi -L | grep -q H200; then
  note "not an H200: nothing to run"
  return 0
fi
fuzz_types 10000 480 f16:3021 bf16:3022
in_time 500 "fuzz i8 f32" && fuzz_types 1000 80 i8:3023 f32:3024
note "done at $(( $(date +%s) - t0 ))s"
