# Session 13, call 5: the fuzz's one mismatch (call 4): cuBLASLt, f16 in, f32 out, 8x32x16136 with
# padded lda/ldb -- auto's choice. Does it repeat in a fresh process, with other seeds, packed
# leading dimensions, other K; does cublasGemmEx agree?
# Run: scripts/gpu_session.sh bench/jobs/s13_call5.sh pipegemm_cli
V="--kernel cublaslt_f16_f32out cublas_f16_f32out k5_f16_f32out_128x256x64_s4"
pg verify --shape 8x32x16136 --lda 16168 --ldb 16168 --ldd 40 --dtype f16 --acc f32 --out-dtype f32 $V --seed 13
pg verify --shape 8x32x16136 --lda 16168 --ldb 16168 --ldd 40 --dtype f16 --acc f32 --out-dtype f32 $V --seed 14
pg verify --shape 8x32x16136 --dtype f16 --acc f32 --out-dtype f32 $V --seed 13
for k in 4096 8192 16128 16384 32768; do
  pg verify --shape 8x32x$k --dtype f16 --acc f32 --out-dtype f32 $V --seed 15
done
pg verify --shape 8x32x16136 --dtype f16 --out-dtype f16 --kernel cublaslt_f16 cublas_f16 --seed 13
pg verify --shape 8x32x16136 --dtype bf16 --out-dtype f32 --kernel cublaslt_bf16_f32out cublas_bf16_f32out --seed 13
