# Issue 13, session 7, second call: auto verified as a user's call runs (VerifySession::verify_auto:
# GemmCall's fallback where a cuBLAS peer finds no algorithm), int8 MN-major operands through a
# transposed K-major copy (k0's launch_k_major), the epilogue's cost at 4096^3 with more launches
# in both protocols, and 10,000 fuzz problems over the four input types.
gt pipegemm_gpu_tests '*Semantics*:K5*:GpuFuzz*'
pg verify --shape 64x1x16 --lda 64 --ldb 16 --ldd 64 --dtype i8 --acc i32 --out-dtype i32 --layout NT --d-layout col --beta 2 --ldc 71 --kernel auto --seed 71 --offset 4
pg verify --shape 4x1x32 --lda 4 --ldb 32 --ldd 8 --dtype i8 --acc i32 --out-dtype i32 --layout NN --beta 1 --c d --kernel auto --seed 71 --offset 4
pg verify --shape 2x31x208 --lda 208 --ldb 52 --ldd 52 --dtype i8 --acc i32 --out-dtype i32 --layout TT --beta 3 --ldc 31 --batch 4 --broadcast a --kernel auto --seed 71
pg verify --shape 999x777x1001 --dtype i8 --acc i32 --out-dtype i32 --layout NN --batch 3 --broadcast b --kernel k0_i8_128x128x32 auto
pg verify --shape 999x777x1001 --dtype i8 --acc i32 --out-dtype f32 --layout TT --alpha 0.5 --bias col --act relu --kernel k0_i8_f32out_128x128x32 auto
for idle in 25 0; do
  for epi in "" "--bias col" "--bias col --act gelu_tanh" "--bias col --act relu"; do
    pg bench --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 cublaslt_f16 --reps 100 --rounds 5 --idle-ms $idle $epi
  done
done
pg fuzz --count 2500 --dtype f16,bf16,i8,f32 --seed 1313
