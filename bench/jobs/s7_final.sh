# Session 7, last call: the C++ torch ops (issue 15: their tests, then the op's host cost over the
# C++ call), k5's layout test, the epilogue's cost at 4096^3 in the burst protocol (the bias's
# early load, C pairs), and 10,000 fuzz problems after the cuBLASLt alignment rule for every
# problem beyond the plain GEMM.
PY_BACKENDS=cpp source bench/jobs/python_ops.sh
gt pipegemm_gpu_tests 'GpuSemantics.K5*'
pg verify --shape 16x130x8 --lda 16 --ldb 8 --ldd 137 --dtype bf16 --acc f32 --out-dtype bf16 --layout NN --beta 0.5 --ldc 130 --act relu --kernel k0_bf16_128x128x16 --seed 1414
pg verify --shape 16x130x8 --lda 16 --ldb 8 --ldd 137 --dtype bf16 --acc f32 --out-dtype bf16 --layout NN --beta 0.5 --ldc 130 --act relu --kernel auto --seed 1414
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_$t --reps 30 --rounds 2 --idle-ms 25
done
pg fuzz --count 2500 --dtype f16,bf16,i8,f32 --seed 1515
