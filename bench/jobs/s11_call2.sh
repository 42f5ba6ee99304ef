# Session 11, call 2: skinny with the wave-balanced split plan (call 1: 1792 tiles over 528 slots
# ran 3.4 waves; 128 tiles split 5 ways made 640 CTAs, 1.2 waves).
#  1. GPU tests: Skinny*, K4SplitK* (its variant list no longer takes skinny).
#  2. The decode suite, FP16 and BF16 burst: skinny beside both cuBLAS peers and auto.
#  3. Odd K / unaligned decode: skinny's element form beside cuBLAS, auto and k5 packed.
#  4. fuzz 1,500 per type (f16, bf16) with skinny in the draw.
# Run: scripts/gpu_session.sh bench/jobs/s11_call2.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'Skinny*:K4SplitK*'
mkdir -p /tmp/res
SK="skinny_f16_8x32x256_w4 skinny_f16_16x32x256_w4 skinny_f16_32x32x128_w4 skinny_f16_8x64x256_w4 skinny_f16_8x32x512_w8"
for t in f16 bf16; do
  ks=$SK; [ $t = bf16 ] && ks="skinny_bf16_8x32x256_w4 skinny_bf16_16x32x256_w4 skinny_bf16_32x32x128_w4"
  pg bench --suite bench/suites/decode.txt --dtype $t --out-dtype $t --kernel auto $ks --reps 50 --rounds 3 --idle-ms 25 \
     --output /tmp/res/decode_${t}_skinny2.md --output /tmp/res/decode_${t}_skinny2.csv
done
for s in 1x4097x4099 1x11008x4095 16x4096x4095 8x4095x4096 4095x8x4096; do
  pg bench --shape $s --dtype f16 --kernel auto $SK k5_f16_128x256x64_s4_packed --reps 50 --rounds 3 --idle-ms 25
done
pg fuzz --count 1500 --dtype f16,bf16 --seed 20261211
tar czf "$OUT/results.tar.gz" -C /tmp/res .
