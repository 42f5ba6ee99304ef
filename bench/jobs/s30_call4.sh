# Session 30: the 128x192 and 128x128 ping-pong (k5_{f16,bf16}_128x192x64_s4_pingpong,
# k5_*_128x128x64_s6_pingpong: each consumer a whole (128, BN) tile, two m64 blocks, turns as in the
# 64x256 form) -- the plain GEMM first, since
# the general form (bias + GELU under the other consumer's wgmma) is only worth building if this
# comes near the cooperative 128x256. (1) verify on whole, partial and cluster shapes and the k5
# GPU tests (every k5 variant); (2) the compute suite, the new tile beside the 128x256, the wide
# 256x192 and both cuBLAS peers, burst (--idle-ms 25) both types, then back to back BF16.
# Read: %cuBLAS of $OUT/compute_*_pp192_*.md.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_call4.sh   (carry .carry)
for t in bf16 f16; do
  for s in 4096x4096x4096 1000x1000x1000 4095x4104x264 264x520x2048 130x200x4096 3000x4104x2056 8192x8192x64; do
    pg verify --shape $s --dtype $t --out-dtype $t --kernel k5_${t}_128x192x64_s4_pingpong k5_${t}_128x128x64_s6_pingpong --no-peers
  done
done
in_time 200 "GPU tests" && gt pipegemm_gpu_tests 'K5*'
for t in bf16 f16; do
  in_time 420 "compute $t burst" || continue
  pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     k5_${t}_128x192x64_s4_pingpong k5_${t}_128x128x64_s6_pingpong k5_${t}_256x192x64_s3 cublas_$t cublaslt_$t --reps 20 --rounds 2 --warmup 3 \
     --idle-ms 25 --output "$OUT/compute_${t}_pp192_burst.md"
done
in_time 500 "compute bf16 b2b" && pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 \
   --kernel k5_bf16_128x256x64_s4 k5_bf16_128x192x64_s4_pingpong k5_bf16_128x128x64_s6_pingpong cublas_bf16 cublaslt_bf16 --reps 20 --rounds 2 \
   --warmup 3 --output "$OUT/compute_bf16_pp192_b2b.md"
note "done at $(( $(date +%s) - t0 ))s"
