# Session 17, call 1: three experiments.
#  (1) k5 stream-K on (128, 128) tiles for the M = 16..128 rows of the decode suite (32 units on
#      128x4096x4096: 4 workers a unit keep 128 SMs on the weight), verified and timed beside the
#      128x128 k5, skinny and both peers, back to back;
#  (2) s8 ping-pong (64x256x128): the s32 epilogue under the other consumer's IGMMA, 4096^3 and
#      8192^3, burst and back to back, beside the cooperative s8 k5;
#  (3) staggered cooperative consumers ($PIPEGEMM_K5_STAGGER = k_tiles consumer 1 trails consumer 0):
#      verified under stagger 1 and 3, then the compute suite (FP16, burst) at stagger 0 and 2.
# Run: scripts/gpu_session.sh bench/jobs/s17_call1.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5StreamK.*'
for t in f16 bf16; do
  for s in 128x4096x4096 16x6144x4096 100x28672x4100 1x8192x8192; do
    pg verify --shape $s --kernel k5_${t}_128x128x64_s6_streamk --dtype $t --out-dtype $t
  done
  pg verify --shape 128x4096x4096 --kernel k5_${t}_128x128x64_s6_streamk --dtype $t --out-dtype $t --layout NT \
     --alpha 0.5 --beta 2 --bias col --act gelu_tanh --batch 3 --broadcast b
done
for s in 4096x4096x4096 4095x4104x4112 1000x2000x4096 81920x256x256 129x520x1024; do
  pg verify --shape $s --kernel k5_i8_64x256x128_s4_pingpong --dtype i8 --acc i32 --out-dtype i32
done
for g in 1 3; do
  export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  gt pipegemm_gpu_tests 'K5Verify.*:K5StreamK.*:GpuSemantics.K5EveryLayoutOnPartialTilesAndClusters'
  pg verify --shape 4095x4104x4112 --kernel k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_streamk --dtype f16
  pg verify --shape 1000x2040x4096 --dtype bf16 --out-dtype bf16 --layout NT --bias col --act gelu_tanh --kernel k5_bf16_128x256x64_s4
done
unset PIPEGEMM_K5_STAGGER; note "PIPEGEMM_K5_STAGGER unset (0)"
pg bench --suite bench/suites/decode.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x128x64_s6 k5_f16_128x128x64_s6_streamk \
   skinny_f16_16x32x256_w4_l2 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 --output "$OUT/decode_f16_sk128_b2b.md"
for s in 4096x4096x4096 8192x8192x8192; do
  for idle in "--idle-ms 25" ""; do
    pg bench --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 k5_i8_64x256x128_s4_pingpong \
       --reps 30 --rounds 2 $idle
  done
done
for g in 0 2; do
  export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  pg bench --suite bench/suites/compute.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4 \
     --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_f16_stagger$g.md"
done
