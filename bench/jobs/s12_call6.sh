# Session 12, call 6: int8 with a C apart never reaches cuBLASLt (call 5's fuzz: 6 wrong results of
# cublaslt_i8 as auto's choice) -- the six reproducers through auto and cublaslt_i8, then the same
# int8 fuzz again.
# Run: scripts/gpu_session.sh bench/jobs/s12_call6.sh pipegemm_cli
I8="--dtype i8 --acc i32 --out-dtype i32 --seed 1212 --kernel auto cublaslt_i8 k0_i8_128x128x32"
pg verify --shape 400x80x192 --lda 400 --ldb 96 --ldd 144 --layout NT --alpha 3 --beta 2 --ldc 128 $I8
pg verify --shape 64x16x16 --lda 16 --ldb 16 --ldd 64 --layout TT --beta -1 --ldc 32 $I8
pg verify --shape 128x864x48 --lda 128 --ldb 864 --ldd 128 --layout NT --d-layout col --beta 3 --ldc 176 $I8
pg verify --shape 80x64x64 --lda 80 --ldb 64 --ldd 64 --layout NN --alpha 3 --beta 3 --ldc 80 $I8
pg verify --shape 16x48x16 --lda 64 --ldb 64 --ldd 16 --layout NT --d-layout col --beta 2 --ldc 64 $I8
pg verify --shape 64x48x16 --lda 64 --ldb 48 --ldd 64 --layout NT --d-layout col --beta 1 --ldc 80 $I8
pg fuzz --count 1000 --seed 1212 --dtype i8
pg fuzz --count 1000 --seed 1213 --dtype i8
