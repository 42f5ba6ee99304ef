# Session 30: the stagger's every-unit knob ($PIPEGEMM_K5_STAGGER_EVERY, off since session 28) removed
# from the kernel and launcher -- the k5 and semantics GPU tests, fuzz every type's variants (the new
# ping-pong forms among them), the compute suite's k5 BF16 (its plain time against calls 4-5) and the
# epilogue cost at 4096^3 (k5 beside cuBLASLt, burst), as session 29 ran them.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_call6.sh   (carry .carry)
gt pipegemm_gpu_tests 'K5*:GpuSemantics.K5*'
in_time 300 "fuzz" && fuzz_types 150 60 f16:3001 bf16:3002
in_time 400 "compute" && pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
   cublas_bf16 cublaslt_bf16 --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --output "$OUT/compute_bf16_burst.md"
in_time 470 "epilogue cost" && epilogue_cost s30 1 1
note "done at $(( $(date +%s) - t0 ))s"
