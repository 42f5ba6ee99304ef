# Session 18, call 2 (written in session 18, which was lent no device; session 19 added the wide
# tile's 1x2-cluster form beside it): the wide k5 tile (256x192, each consumer two m64n192 blocks, 3 stages; issue 16). (1) correctness:
# the k5 GPU tests (every k5 variant on odd, whole-tile and cluster shapes, s8 exact) and verify of the
# wide variants on odd shapes, the s8 packed form (new) verified and timed against k0 and cuBLAS; (2) speed beside the 128x256 k5 and best cuBLAS, same run, same
# buffers: the compute suite FP16 / BF16 burst then back to back, s8 at 4096^3 and 8192^3 in both
# protocols; (3) a short fuzz of the three types.
# Run: scripts/gpu_session.sh bench/jobs/s18_call2.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5*"   # includes K5Packed.Int8AnyAlignmentIsExactWithThePaddingUntouched (new)
for s in 1000x1001x1001 127x129x41; do
  pg verify --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4_packed k0_i8_128x128x32
done
# s8 packed against k0 (odd K: cuBLAS refuses) and cuBLAS (K % 4 = 0 but not 16), burst.
for s in 4096x4096x4095 4096x4096x4092 2000x3000x1001; do
  pg bench --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4_packed k0_i8_128x128x32 \
     --reps 10 --rounds 2 --idle-ms 25
done
# The wide tile, with clusters along M (B multicast) and (session 19) along N (A multicast,
# _cluster1x2): odd N tile counts leave a cluster's second CTA past N (2056, 4104 below).
for s in 127x136x40 1000x1001x1032 4095x4104x264 384x264x2056 1000x392x4096 3000x4104x2056; do
  pg verify --shape $s --dtype f16 --kernel k5_f16_256x192x64_s3 k5_f16_256x192x64_s3_cluster1x2 k5_f16_128x256x64_s4
  pg verify --shape $s --dtype bf16 --out-dtype bf16 --kernel k5_bf16_256x192x64_s3 k5_bf16_256x192x64_s3_cluster1x2
done
for s in 127x136x48 1000x1000x1040 4095x4104x272 1000x392x4096 3000x4104x2048; do
  pg verify --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_256x192x128_s3 k5_i8_256x192x128_s3_cluster1x2 \
     k5_i8_128x256x128_s4
done
for p in burst b2b; do
  idle=""; [ $p = burst ] && idle="--idle-ms 25"
  for t in f16 bf16; do
    pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t \
       --kernel k5_${t}_128x256x64_s4 k5_${t}_256x192x64_s3 k5_${t}_256x192x64_s3_cluster1x2 --reps 20 --rounds 2 $idle \
       --output "$OUT/compute_${t}_wide_${p}.md"
  done
  for s in 4096x4096x4096 8192x8192x8192; do
    pg bench --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 k5_i8_256x192x128_s3 \
       k5_i8_256x192x128_s3_cluster1x2 --reps 30 --rounds 2 $idle
  done
done
# The wide tile with consumer 1 one k_tile behind (off by default: a 3-slot ring), burst, FP16 / BF16.
export PIPEGEMM_K5_STAGGER=1; note "PIPEGEMM_K5_STAGGER=1: the wide tile alone (best cuBLAS beside it)"
for t in f16 bf16; do
  if [ $(( $(date +%s) - t0 )) -gt 450 ]; then note "skipped stagger 1 $t: out of call time"; continue; fi
  pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_256x192x64_s3 \
     --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_${t}_wide_stagger1_burst.md"
done
unset PIPEGEMM_K5_STAGGER
[ $(( $(date +%s) - t0 )) -gt 520 ] && note "skipped fuzz: out of call time" || \
pg fuzz --count 500 --dtype f16,bf16,i8 --seed 20261220
