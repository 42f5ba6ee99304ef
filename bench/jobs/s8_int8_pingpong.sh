# Session 8, call 2 (issue 16): k5's s8 x s8 -> s32 wgmma rung and the ping-pong schedule beside
# the cooperative one. The k5 GPU tests (int8 included), the SASS proof of the new kernels,
# verifies (exact int8; ping-pong on odd and large shapes), then benches: INT8 at 4096^3 and
# 8192^3 beside k4 and cuBLAS (int32 out), and the compute suite FP16 / BF16 with cooperative and
# ping-pong k5 beside the best cuBLAS, burst (--idle-ms 25).
gt pipegemm_gpu_tests 'K5*'
pg sass --kernel k5_i8_128x256x128_s4 k5_i8_f32out_128x256x128_s4 k5_f16_64x256x64_s4_pingpong k5_bf16_64x256x64_s4_pingpong --brief
for s in 2048x2048x4096 4095x4104x4112 81920x256x256; do
  pg verify --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 cublas_i8
done
pg verify --shape 2048x2048x4096 --dtype i8 --acc i32 --out-dtype f32 --kernel k5_i8_f32out_128x256x128_s4
for t in f16 bf16; do
  for s in 1000x2040x4100 383x520x200 81920x256x256; do
    pg verify --shape $s --dtype $t --kernel k5_${t}_64x256x64_s4_pingpong
  done
done
for idle in 25 0; do
  pg bench --shape 4096x4096x4096 --dtype i8 --out-dtype i32 --kernel k5_i8_128x256x128_s4 k4_i8_128x256x64_s4 --reps 30 --rounds 3 --idle-ms $idle
  pg bench --shape 8192x8192x8192 --dtype i8 --out-dtype i32 --kernel k5_i8_128x256x128_s4 --reps 20 --rounds 3 --idle-ms $idle
done
for t in f16 bf16; do
  pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 k5_${t}_64x256x64_s4_pingpong --reps 30 --rounds 3 --idle-ms 25
done
# The general form in ping-pong: the epilogue's cost at 4096^3 (bias + GELU under the other
# consumer's mainloop), cooperative beside it, cuBLASLt with its own epilogue; and every layout.
pg verify --shape 1000x2040x4100 --dtype f16 --layout NT --alpha 0.5 --beta 2 --bias col --act gelu_tanh --kernel k5_f16_64x256x64_s4_pingpong
pg verify --shape 777x520x300 --dtype bf16 --layout TT --bias row --act relu --batch 3 --broadcast b --kernel k5_bf16_64x256x64_s4_pingpong
pg bench --suite bench/suites/epilogue_cost.txt --dtype f16 --kernel k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong --reps 30 --rounds 3 --idle-ms 25
