# Session 18, call 1 (written in session 18, which was lent no device: run it next session): (1) issue 13's last criterion, decided:
# the epilogue_cost suite (plain, bias, bias+GELU, beta C each three times in turn), burst, ten BF16 and
# four FP16 runs, each its own process, alternating types; the semantics_cost table of each run is the
# measure. (2) issue 12's LLM suite with auto under the session-17 defaults (stagger, deferred stores),
# FP16 and BF16, back to back then burst, best cuBLAS beside.
# Run: scripts/gpu_session.sh bench/jobs/s18_call1.sh pipegemm_cli
note() { echo "# $*" >> "$OUT/run.log"; }
for i in 1 2 3 4 5 6 7 8 9 10; do
  pg bench --suite bench/suites/epilogue_cost.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 cublaslt_bf16 \
     --reps 30 --rounds 2 --idle-ms 25
  if [ $((i % 3)) -eq 1 ]; then
    pg bench --suite bench/suites/epilogue_cost.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4 cublaslt_f16 \
       --reps 30 --rounds 2 --idle-ms 25
  fi
done
for p in b2b burst; do
  for t in f16 bf16; do
    if [ $(( $(date +%s) - t0 )) -gt 500 ]; then note "skipped llm $t $p: out of call time"; continue; fi
    idle=""; [ $p = burst ] && idle="--idle-ms 25"
    pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 $idle \
       --max-ms-per-variant 200 --output "$OUT/llm_${t}_auto_${p}.md"
  done
done
# (3) Which kernels cuBLAS runs on the compute shapes (issue 16: tile, cluster, registers, grid), by ncu:
# the names carry the tile shape; one launch each after the warm-up.
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for spec in "i8 --acc i32 --out-dtype i32:cublas_i8 cublaslt_i8" "f16 --out-dtype f16:cublas_f16 cublaslt_f16" \
            "bf16 --out-dtype bf16:cublas_bf16 cublaslt_bf16"; do
  t=${spec%%:*}; ks=${spec#*:}
  for s in 4096x4096x4096 8192x8192x8192; do
    note "ncu: $s $t $ks"
    $NCU --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__cluster_dim_x,launch__cluster_dim_y,launch__shared_mem_per_block_dynamic \
      --launch-skip 0 --launch-count 60 "$PG" bench --shape $s --dtype $t --kernel $ks --reps 2 --rounds 1 --warmup 1 \
      > "$OUT/ncu_tmp.txt" 2>&1
    grep -E "^  [A-Za-z_].*\(|gpu__time_duration|grid_size|block_size|registers_per|cluster_dim|shared_mem_per" "$OUT/ncu_tmp.txt" \
      | awk '/\(/{name=$1} /duration/{d=$NF} /grid_size/{g=$NF} /block_size/{b=$NF} /registers/{r=$NF} /cluster_dim_x/{cx=$NF} /cluster_dim_y/{cy=$NF} /shared_mem/{sm=$NF; k=name" grid="g" block="b" regs="r" cluster="cx"x"cy" smem="sm; n[k]++} END{for(k in n) print n[k]"x "k}' \
      | sort -rn | head -12 >> "$OUT/run.log"
  done
done
rm -f "$OUT/ncu_tmp.txt"
