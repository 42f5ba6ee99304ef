# Session 16, call 4: the neighbours step as chosen (8 within 5 octaves, half the worst log as risk,
# cublasGemmEx yielding to cuBLASLt) end to end on shapes no table holds: the held-out random suite
# (seed 20261204) with auto beside best cuBLAS, back to back, FP16 and BF16; the mid-size squares of
# call 1 (512-1024, untuned) again; the replays (no GPU work) for the record.
# Run: scripts/gpu_session.sh bench/jobs/s16_call4.sh pipegemm_cli
pg tune --replay --output data/tune/h200.json
pg tune --replay --output data/tune/h200.json --targets bench/results/2026-12-04_h200_s16_call2_heldout_tune.json
for t in f16 bf16; do
  pg bench --suite bench/suites/random_heldout.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/heldout_${t}_auto.md"
done
pg bench --shape 512:1024:256x512:1024:256x512:1024:256 --dtype f16 --out-dtype f16 --kernel auto --reps 40 --rounds 2 \
   --idle-ms 25 --output "$OUT/midsize_auto.md"
