# Session 16, call 2: auto on shapes it has not seen. The held-out random suite (seed 20261204: 1 of
# its 200 shapes falls in a tuned bucket) with auto as shipped -- the random (seed 20261201), LLM,
# decode and memory tables, now with the neighbours step -- beside best cuBLAS, back to back; then
# tune over the same shapes into a scratch table: every candidate's time and "the model alone".
# Before, with no GPU work: `tune --replay` of the shipped table (each entry left out in turn).
# Run: scripts/gpu_session.sh bench/jobs/s16_call2.sh pipegemm_cli
"$PG" tune --replay --output data/tune/h200.json --json > "$OUT/replay_h200.json" 2>&1
pg tune --replay --output data/tune/h200.json
for t in f16 bf16; do
  pg bench --suite bench/suites/random_heldout.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/heldout_${t}_auto.md"
done
for t in f16 bf16; do pg tune --suite bench/suites/random_heldout.txt --dtype $t --output "$OUT/heldout_tune.json" --force; done
