# Session 18, call 4 (written in session 18, which was lent no device; run it after s18_call2 if the
# wide tile verified and won somewhere): the compute and LLM suites re-tuned with the wide k5 tile
# among the candidates ($PIPEGEMM_AUTO_ALSO) and the session-17 defaults, FP16 and BF16, into
# data/tune/h200.json (copied to $OUT: the table to commit); then both suites with auto, back to
# back, best cuBLAS beside -- issue 12's LLM criterion and issue 16's compute geomean through auto.
# Run: scripts/gpu_session.sh bench/jobs/s18_call4.sh pipegemm_cli
# Session 19: the wide tile's 1x2-cluster form too (drop what s18_call2 found wrong or slower).
export PIPEGEMM_AUTO_ALSO=k5_f16_256x192x64_s3,k5_bf16_256x192x64_s3,k5_f16_256x192x64_s3_cluster1x2,k5_bf16_256x192x64_s3_cluster1x2
note "PIPEGEMM_AUTO_ALSO=$PIPEGEMM_AUTO_ALSO"
for s in compute llm; do
  for t in f16 bf16; do pg tune --suite bench/suites/$s.txt --dtype $t --output data/tune/h200.json --force; done
done
cp data/tune/h200.json "$OUT/h200.json"
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for s in compute llm; do
  for t in f16 bf16; do
    if [ $(( $(date +%s) - t0 )) -gt 520 ]; then note "skipped $s $t: out of call time"; continue; fi
    pg bench --suite bench/suites/$s.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
       --max-ms-per-variant 200 --output "$OUT/${s}_${t}_auto_b2b.md"
  done
done
