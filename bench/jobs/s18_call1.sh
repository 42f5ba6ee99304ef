# Session 18, call 1 (written in session 18, which was lent no device: run it after s19_call1,
# which took over its issue-13 part -- the epilogue_cost runs -- in session 19).
# (2) the kernels cuBLAS runs at 4096^3 and 8192^3 (ncu: names, grid, block). (3) issue 12's
# LLM suite with auto under the session-17 defaults (stagger, deferred stores), FP16 and BF16, back to
# back then burst, best cuBLAS beside.
# Run: scripts/gpu_session.sh bench/jobs/s18_call1.sh pipegemm_cli
# (2) Which kernels cuBLAS runs on the compute shapes (issue 16): ncu's kernel lines carry the name
# (tile, stages, cluster) and grid x block; each distinct line once, with its count.
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for spec in "i8 --acc i32 --out-dtype i32:cublas_i8 cublaslt_i8" "f16 --out-dtype f16:cublas_f16 cublaslt_f16" \
            "bf16 --out-dtype bf16:cublas_bf16 cublaslt_bf16"; do
  t=${spec%%:*}; ks=${spec#*:}
  for s in 4096x4096x4096 8192x8192x8192; do
    if [ $(( $(date +%s) - t0 )) -gt 300 ]; then note "skipped ncu $s $t: out of call time"; continue; fi
    note "ncu kernel names: $s $t $ks"
    $NCU --metrics gpu__time_duration.sum --launch-count 80 "$PG" bench --shape $s --dtype $t --kernel $ks \
      --reps 2 --rounds 1 --warmup 1 2>&1 | grep -E "^  [A-Za-z_].*\([0-9]+, [0-9]+, [0-9]+\)x" | sed -E 's/, Context.*//' \
      | sort | uniq -c | sort -rn | head -12 >> "$OUT/run.log"
  done
done
# (2b) and on the M = 128 rows of the LLM suite, where our best (k5 128x128) is 0.54-0.84 of cuBLAS
# (tune table): which tile, split and grid cuBLAS takes there (session 20's addition).
for s in 128x4096x4096 128x4096x14336; do
  if [ $(( $(date +%s) - t0 )) -gt 330 ]; then note "skipped ncu $s: out of call time"; continue; fi
  note "ncu kernel names: $s f16 cublas_f16 cublaslt_f16"
  $NCU --metrics gpu__time_duration.sum --launch-count 80 "$PG" bench --shape $s --dtype f16 --out-dtype f16 \
    --kernel cublas_f16 cublaslt_f16 --reps 2 --rounds 1 --warmup 1 2>&1 | grep -E "^  [A-Za-z_].*\([0-9]+, [0-9]+, [0-9]+\)x" \
    | sed -E 's/, Context.*//' | sort | uniq -c | sort -rn | head -12 >> "$OUT/run.log"
done
# (3) The LLM suite (guarded: what the call's time leaves).
for p in b2b burst; do
  for t in f16 bf16; do
    if [ $(( $(date +%s) - t0 )) -gt 500 ]; then note "skipped llm $t $p: out of call time"; continue; fi
    idle=""; [ $p = burst ] && idle="--idle-ms 25"
    pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 $idle \
       --max-ms-per-variant 200 --output "$OUT/llm_${t}_auto_${p}.md"
  done
done
