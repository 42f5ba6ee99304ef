# Session 17, call 2: staggered cooperative consumers where the epilogue is long -- bias + GELU (BF16,
# issue 13's <= 3%) and the s8 GEMM's s32 tile (128 KB a tile, issue 16's INT8 >= 1.00) -- at
# stagger 0 and 2 in turn (each its own process: $PIPEGEMM_K5_STAGGER is read once), burst.
# Run: scripts/gpu_session.sh bench/jobs/s17_call2.sh pipegemm_cli
i=0
for g in 0 2 0 2; do
  i=$((i + 1)); export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  pg bench --suite bench/suites/epilogue_cost.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 cublaslt_bf16 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_bf16_stagger${g}_run$i.md"
done
for g in 0 1 2 3 0 2; do
  export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  pg bench --shape 4096x4096x4096 --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 --reps 30 --rounds 2 --idle-ms 25
done
for g in 0 2; do
  export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  pg bench --shape 8192x8192x8192 --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 --reps 20 --rounds 2 --idle-ms 25
done
