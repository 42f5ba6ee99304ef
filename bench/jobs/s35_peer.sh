# Session 35: the cuBLASLt peer times cublasGemmEx among its candidates (src/kernels/cublaslt_peer.cpp),
# so auto -- which takes cuBLASLt where both peers accept -- is no longer held to one of cuBLAS's
# paths (428x755x442 BF16, 856x66x1758 FP16 ran cuBLASLt at 0.82 / 0.84 of GemmEx in session 34).
# On an H100: (0) the GPU tests that run the cuBLASLt peer's first use (every accepting variant over the
# semantics matrix on an odd shape: C in place, batches; threads on their own streams);
# (1) verify of both peers and auto, this build, on plain problems where GemmEx may win
# and on those it cannot compute (C apart, an epilogue: the heuristic's candidates alone), C in place
# with beta, a batch, NN; (2) the held-out random suite through auto, this build (pg) then the
# previous one (pgp: CI's build of 5c0f1dc), both peers in each run; (3) fuzz 300 a type.
# On an H200 (none came in sessions 26-34): the closing suites with this build, the criteria first --
# the LLM suite through auto (back to back), the memory-bound suite with each shape's same-bytes copy
# (burst), the epilogue cost at 4096^3 (BF16 twice, FP16 once), the random suite through auto, then the
# k5 and semantics GPU tests (s30_h200.sh's weight-in-registers prototype and LLM bursts left out).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s35_peer.sh
#      (carry .carry: pipegemm.xz, tests/pipegemm_gpu_tests.xz = CI's build of the commit under test,
#      prev/pipegemm.xz = CI's build of 5c0f1dc)
if nvidia-smi -L | grep -q H200; then
  auto_suite bench/suites/llm.txt llm_b2b 200 --reps 20 --rounds 2 --warmup 3
  for t in f16 bf16; do
    in_time 300 "memory $t" && pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel auto \
       --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_${t}_auto.md"
  done
  for i in 1 2; do in_time 400 "epilogue cost $i" && epilogue_cost s35h200 $i 1; done
  auto_suite bench/suites/random.txt random 470 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
  in_time 530 "GPU tests" && gt pipegemm_gpu_tests 'K5*:GpuSemantics.*'
  note "done at $(( $(date +%s) - t0 ))s"
  return 0
fi
gt pipegemm_gpu_tests 'GpuSemantics.VerifyMatrix*:GpuDevice.*'
for t in f16 bf16; do verify_peer_cases $t; done  # (session 35 ran these without the last row)
auto_pair bench/suites/random_heldout.txt random_heldout 300 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
in_time 420 "fuzz" && fuzz_types 300 40 f16:3513 bf16:3514
note "done at $(( $(date +%s) - t0 ))s"
