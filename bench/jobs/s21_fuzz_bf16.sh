# Written in session 21: the bf16 fuzz of call 7 again (seed 19, 10,000 problems, every variant), now
# that both cuBLAS peers refuse K = 8 mod 16 from 8192 with small outputs -- its one mismatch was
# cuBLASLt's own wrong sums on 24x40x13448 -- and that problem through auto and every accepting variant
# on its own first. Issue 12's "fuzz passes again, 10,000 per type" for bf16.
# Session 22: f16 beside it (a fresh seed, 22), since both types have a new variant (the 64x64
# ping-pong k5); the two fuzz processes run at once, each its own log, summaries into run.log.
# Run: scripts/gpu_session.sh bench/jobs/s21_fuzz_bf16.sh pipegemm_cli
pg verify --shape 24x40x13448 --lda 13456 --ldb 13448 --ldd 40 --dtype bf16 --acc f32 --out-dtype f32 \
   --kernel all --seed 19
pg verify --shape 24x40x13448 --lda 13456 --ldb 13448 --ldd 40 --dtype bf16 --acc f32 --out-dtype f32 --kernel auto --seed 19
fuzz_types 10000 540 bf16:19 f16:22
