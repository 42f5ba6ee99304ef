# Written in session 22 (no device was lent): issue 12's LLM criterion needs kernels of ours on the
# M = 128 rows, where cuBLAS is at 55-75% of the copy bandwidth on the 4096-6144-wide weights
# (bench/results/2026-12-05_h200_s21_call8_llm_*) and our 128x128 tile makes 32 CTAs (23.6 us
# against cuBLAS's 15.1 on 128x4096x4096). k5_{f16,bf16}_64x64x64_s12_pingpong: m64n64 wgmma,
# 12 stages of 16 KB, 2-CTA clusters along M multicasting the weight -- 128 CTAs there, cuBLAS's
# own tiling (ncu, session 21 call 5).
# (1) the k5 GPU tests (every k5 variant on odd, whole-tile and cluster shapes) and verify of the
# new variants on LLM shapes; (2) bench of the mid-M shapes, new variants beside k5 128x128, the
# 128x256 and both cuBLAS peers, back to back and in bursts, FP16 and BF16; (3) tune of the LLM
# suite with the new variants opted in ($PIPEGEMM_AUTO_ALSO) into a copy of the table, and the LLM
# suite through auto with it, back to back -- what auto would reach if they were candidates.
# Read: the %cuBLAS column of $OUT/mid_*; $OUT/llm_b2b_*_auto.md geomean against s21's 1.001/0.999.
# Run: scripts/gpu_session.sh bench/jobs/s22_llm_64x64.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5*"
for t in f16 bf16; do
  for s in 128x4096x4096 136x6144x4104 64x8192x8192 256x4104x1000; do
    pg verify --shape $s --dtype $t --out-dtype $t --kernel k5_${t}_64x64x64_s12_pingpong --no-peers
  done
done
for t in f16 bf16; do
  K="k5_${t}_64x64x64_s12_pingpong k5_${t}_128x128x64_s6 k5_${t}_128x256x64_s4 cublas_$t cublaslt_$t"
  pg bench --suite bench/jobs/s22_mid_m.txt --dtype $t --out-dtype $t --kernel $K --reps 20 --rounds 2 --warmup 3 \
     --output "$OUT/mid_${t}_b2b.md"
  pg bench --suite bench/jobs/s22_mid_m.txt --dtype $t --out-dtype $t --kernel $K --reps 20 --rounds 2 --warmup 3 \
     --idle-ms 25 --output "$OUT/mid_${t}_burst.md"
done
# The memory-bound suite with the ping-pong tiles beside the ring forms (never timed there): a
# 64-row tile halves the first wave's load-only head and the last wave's store-only tail that a
# 128-row one leaves (4.85 tiles a CTA on the seed shape), and one consumer's stores run under the
# other's loads. Burst, each shape's same-bytes memcpy in the same run. FP16.
if in_time 299 "the memory suite"; then
  pg bench --suite bench/suites/memory.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4_nocluster \
     k5_f16_128x128x64_s6 k5_f16_128x256x64_s4_b_resident k5_f16_64x256x64_s4_pingpong k5_f16_64x64x64_s12_pingpong \
     cublaslt_f16 --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_f16_pingpong_burst.md"
fi
export PIPEGEMM_AUTO_ALSO=k5_f16_64x64x64_s12_pingpong,k5_bf16_64x64x64_s12_pingpong
note "PIPEGEMM_AUTO_ALSO=$PIPEGEMM_AUTO_ALSO"
tune_copy bench/jobs/s22_mid_m.txt 420
auto_suite bench/suites/llm.txt llm_b2b 520 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
