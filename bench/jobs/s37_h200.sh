# Session 37: issue 13's closing measurements with this build (the semantics last ran whole on an
# H200 in session 24), after (0) the GPU tests of this session's change -- every rung, the k4 seed and
# split-K launched through one launch_kernel (src/kernels/launch_util.cuh), k0 programmatically
# dependent through it: GpuLadder.*, K4SplitK.*, GpuVerify.*, K5Pdl.*. Then the criteria:
# (1) the semantics matrix through auto and every accepting variant, refusals writing nothing
#     (GpuSemantics.*, GpuRefusal*);
# (2) NN / NT / TT against TN at 4096^3 and 8192x28672x4096, every epilogue, beside both cuBLAS
#     peers (cuBLASLt with its own epilogue): bench/suites/epilogue.txt, BF16 and FP16, burst;
# (3) bias + GELU against plain at 4096^3: epilogue_cost, BF16 twice, FP16 once, alternating lines
#     (its first run before (2): the criterion a short call must not miss);
# (4) fuzz over the new dimensions, 10,000 problems a 16-bit type asked, both at once, as time allows.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s37_h200.sh
#      (carry .carry: pipegemm.xz, tests/pipegemm_gpu_tests.xz = the local build of this commit)
gt pipegemm_gpu_tests 'GpuLadder.*:K4SplitK.*:GpuVerify.*:K5Pdl.*'
gt pipegemm_gpu_tests 'GpuSemantics.*:GpuRefusal*'
epilogue_cost s37 1 1
for t in bf16 f16; do
  in_time 150 "epilogue suite $t" && pg bench --suite bench/suites/epilogue.txt --dtype $t --out-dtype $t \
     --kernel k5_${t}_128x256x64_s4 auto --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_${t}.md"
done
in_time 250 "epilogue cost 2" && epilogue_cost s37 2 1
# What is left of the call (to $FUZZ_END s, default 360: a short device budget) goes to the fuzzer: a count it cannot finish
# ends at the timeout with its progress logged (exit 124).
FUZZ_END=${FUZZ_END:-360}
in_time $(( FUZZ_END - 60 )) "fuzz" && fuzz_types 10000 $(( FUZZ_END - ($(date +%s) - t0) )) f16:3713 bf16:3714
note "done at $(( $(date +%s) - t0 ))s"
