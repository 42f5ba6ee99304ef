# Session 15, call 2: stream-K's fan-in ($PIPEGEMM_K5_SK_FANIN: workers per unit when there are
# fewer units than SMs; the plan's default is 4) on the LLM shapes with few tiles, beside k5 and
# best cuBLAS (burst). Verify first at each fan-in.
# Run: scripts/gpu_session.sh bench/jobs/s15_call2.sh pipegemm_cli
SK=k5_f16_128x256x64_s4_streamk
for f in 4 6 8 16; do
  for s in 128x4096x4096 100x4000x4104 16x8192x8192 1024x6144x4096; do
    PIPEGEMM_K5_SK_FANIN=$f pg verify --shape $s --kernel $SK --dtype f16
  done
done
for f in 4 6 8 16; do
  echo "# PIPEGEMM_K5_SK_FANIN=$f" >> "$OUT/run.log"
  PIPEGEMM_K5_SK_FANIN=$f pg bench --suite bench/jobs/s15_small_m.txt --dtype f16 --out-dtype f16 \
     --kernel $SK k5_f16_128x256x64_s4 --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --output "$OUT/small_m_fanin$f.md"
done
# diagnose: which LDG-only counters this ncu knows (the coalescing rule should weigh LDG's traffic)
ncu --query-metrics --chip gh100 2>&1 | grep -E "inst_executed_op_global_ld|inst_executed_op_ldgsts|sass_data_bytes_mem_global_op_ld|sass_sectors_mem_global_op_ld|t_sectors_pipe_lsu_mem_global_op_ld" > "$OUT/ncu_ld_metrics.txt"
# The LLM suite with auto on the session-15 table (data/tune/h200.json, tuned back to back) in the
# tune's own protocol: back to back (sustained), best cuBLAS beside.
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for t in f16 bf16; do
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 \
     --output "$OUT/llm_${t}_auto_b2b.md"
done
