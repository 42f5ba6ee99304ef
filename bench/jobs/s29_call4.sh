# Session 29: the general form's deferred stores, now in halves (call 3, H100: bias 1.015 against 1.022
# of plain, bias + GELU 1.039 / 1.040, beta C 1.086 / 1.089), checked before they become the default:
# the semantics and packed GPU tests and a fuzz with $PIPEGEMM_K5_GENERAL_DEFER=1, then two more
# alternating epilogue_cost rounds DEFER 0 / 1 (k5 alone, burst).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s29_call4.sh   (carry .carry)
export PIPEGEMM_K5_GENERAL_DEFER=1
gt pipegemm_gpu_tests 'GpuSemantics.*:K5Packed.*:K5Verify.*'
fuzz_types 300 60 f16:2941 bf16:2942
unset PIPEGEMM_K5_GENERAL_DEFER
for i in 3 4; do
  in_time 420 "general defer round $i" || continue
  for d in 0 1; do
    PIPEGEMM_K5_GENERAL_DEFER=$d EPI_KERNELS="k5_@_128x256x64_s4 --no-peers" epilogue_cost "gdefer$d" "$i" 4
  done
done
note "done at $(( $(date +%s) - t0 ))s"
