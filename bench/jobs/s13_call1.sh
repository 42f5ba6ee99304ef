# Session 13, call 1: stream-K in k5 (k5_*_streamk: the last wave's k_tiles shared by every CTA,
# pipeline/stream_k.cuh). Correctness first (every k5 variant's tests now include it), then the
# compute suite: k5 and k5 stream-K beside the best cuBLAS, burst protocol; int8 at 4096^3 / 8192^3.
# Run: scripts/gpu_session.sh bench/jobs/s13_call1.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5StreamK.*:K5Verify.*:K5Refusal.*'
gt pipegemm_gpu_tests 'GpuSemantics.K5EveryLayoutOnPartialTilesAndClusters'
pg verify --shape 4096x4096x4096 --kernel k5_f16_128x256x64_s4_streamk k5_f16_128x256x64_s4 --dtype f16 --bias col --act gelu_tanh
pg verify --shape 2000x3000x5000 --kernel k5_bf16_128x256x64_s4_streamk --dtype bf16 --out-dtype bf16 --layout NN --beta 0.5 --batch 2
for t in f16 bf16; do
  pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 k5_${t}_128x256x64_s4_streamk \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/compute_${t}_streamk_burst.md"
done
for s in 4096x4096x4096 8192x8192x8192; do
  pg bench --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 k5_i8_128x256x128_s4_streamk \
     --reps 30 --rounds 2 --idle-ms 25
done
