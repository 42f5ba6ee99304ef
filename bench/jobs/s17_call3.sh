# Session 17, call 3: the staggered consumers as the default (2 k_tiles when K > 512, every cooperative
# k5): the GPU tests that walk the k5 kernels and every variant, fuzz, then the epilogue's cost (FP16,
# BF16; burst and back to back), the compute suite (burst) and s8 at 4096^3 / 8192^3 (both protocols);
# last, the decode suite's roofline: a copy of each shape's bytes beside skinny and the peers.
# Run: scripts/gpu_session.sh bench/jobs/s17_call3.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5*:GpuPlanner.*:GpuOccupancy.*:GpuLadder.*:GpuVerify.*:GpuRefusal.*:GpuSemantics.*"
pg fuzz --count 1000 --dtype f16,bf16 --seed 20261218
for t in f16 bf16; do
  for p in burst b2b; do
    idle=""; [ $p = burst ] && idle="--idle-ms 25"
    pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_${t} \
       --reps 30 --rounds 2 $idle --output "$OUT/epi_${t}_${p}.md"
  done
  pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_${t}_burst.md"
done
for s in 4096x4096x4096 8192x8192x8192; do
  for idle in "--idle-ms 25" ""; do
    pg bench --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 --reps 30 --rounds 2 $idle
  done
done
pg bench --suite bench/suites/decode.txt --dtype f16 --out-dtype f16 --kernel skinny_f16_8x32x256_w4_l2 skinny_f16_16x32x256_w4_l2 \
   --same-bytes-copy --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 --output "$OUT/decode_f16_roofline.md"
