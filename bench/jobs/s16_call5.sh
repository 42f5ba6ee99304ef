# Session 16, call 5: the final neighbours rule (call 4's, plus M = 1 and N = 1 apart from the rest)
# end to end on the held-out random suite (seed 20261204, in no table), auto beside best cuBLAS,
# back to back, FP16 and BF16; its replay against the held-out tune; fuzz through every variant
# and auto (whose picks now come from neighbours off the tuned shapes).
# Run: scripts/gpu_session.sh bench/jobs/s16_call5.sh pipegemm_cli
pg tune --replay --output data/tune/h200.json
pg tune --replay --output data/tune/h200.json --targets bench/results/2026-12-04_h200_s16_call2_heldout_tune.json
for t in f16 bf16; do
  pg bench --suite bench/suites/random_heldout.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/heldout_${t}_auto.md"
done
pg fuzz --count 1000 --dtype f16,bf16 --seed 20261216
