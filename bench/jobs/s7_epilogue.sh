# Issue 13, session 7, third call: beta C with paired loads of C (in D's type), GELU in five fp32
# ops, cublasGemmEx's NOT_SUPPORTED as a refusal (auto falls back); the GPU tests, the epilogue's
# cost in both protocols (plain, bias, bias + GELU, beta C alternating, k5 beside cuBLASLt), the
# layout lines of the epilogue suite, 10,000 fuzz problems.
gt pipegemm_gpu_tests '*Semantics*:K5*:GpuFuzz*:GpuVerify*'
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_$t --reps 40 --rounds 3 --idle-ms 25
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_$t --reps 40 --rounds 3
done
pg verify --shape 2000x3000x1000 --dtype f16 --out-dtype f16 --beta 1 --c d --kernel k5_f16_128x256x64_s4
pg verify --shape 2000x3000x1000 --dtype bf16 --out-dtype bf16 --beta 0.5 --c apart --bias row --act gelu_tanh --kernel k5_bf16_128x256x64_s4
pg verify --shape 2000x3000x1000 --dtype f16 --out-dtype f32 --beta -1 --c apart --c-dtype f32 --kernel k5_f16_f32out_128x256x64_s4
pg fuzz --count 2500 --dtype f16,bf16,i8,f32 --seed 1414
