# Session 20 (written in session 20, which was lent no device). Strided-batched GEMMs as ML systems
# call them (bench/suites/batched.txt: unfused attention's scores and P V, decode attention, equal
# experts, a broadcast weight, many small products): auto beside every candidate it chose among and
# the best cuBLAS (one strided-batched call), FP16 and BF16, back to back. No tune entry holds a
# batch, so this is the cost model's and the neighbours' first test on them; then tune the suite
# into $OUT/h200_batched.json for a later merge.
# Run: scripts/gpu_session.sh bench/jobs/s20_batched.sh pipegemm_cli
export PIPEGEMM_TUNE_CACHE=off  # the shipped table alone
for t in f16 bf16; do
  if [ $(( $(date +%s) - t0 )) -gt 360 ]; then note "skipped batched $t: out of call time"; continue; fi
  pg bench --suite bench/suites/batched.txt --dtype $t --out-dtype $t --kernel auto --candidates \
     --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 --output "$OUT/batched_${t}_auto.md"
done
unset PIPEGEMM_TUNE_CACHE
if [ $(( $(date +%s) - t0 )) -lt 420 ]; then
  pg tune --suite bench/suites/batched.txt --dtype f16 --out-dtype f16 --output "$OUT/h200_batched.json"
fi
