# Session 15, call 2: (a) the BN = 128 k5 (k5_{f16,bf16}_128x128x64_s6, m64n128 wgmma): GPU tests
# (every k5 variant: K5Verify, the layout x epilogue cells of GpuSemantics.K5Every..., stream-K),
# its SASS, and the memory-bound suite beside k5 128x256 and best cuBLAS with the same-bytes copy
# (burst); (b) stream-K's fan-in ($PIPEGEMM_K5_SK_FANIN: workers per unit when there are fewer
# units than SMs; the plan's default 4) on the LLM shapes with few tiles (burst), verified first.
# Run: scripts/gpu_session.sh bench/jobs/s15_call2.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5Verify*:GpuSemantics.K5Every*:K5StreamK*:K5Pdl*'
for k in k5_f16_128x128x64_s6 k5_bf16_128x128x64_s6; do pg sass --kernel $k --arch 90a --brief; done
for t in f16 bf16; do
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x128x64_s6 k5_${t}_128x256x64_s4 \
     --reps 50 --rounds 2 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_${t}_bn128.md"
done
SK=k5_f16_128x256x64_s4_streamk
for s in 128x4096x4096 100x4000x4104 16x8192x8192; do
  PIPEGEMM_K5_SK_FANIN=16 pg verify --shape $s --kernel $SK --dtype f16
done
for f in 4 8 16; do
  echo "# PIPEGEMM_K5_SK_FANIN=$f" >> "$OUT/run.log"
  PIPEGEMM_K5_SK_FANIN=$f pg bench --suite bench/jobs/s15_small_m.txt --dtype f16 --out-dtype f16 \
     --kernel $SK k5_f16_128x256x64_s4 k5_f16_128x128x64_s6 --reps 20 --rounds 2 --warmup 3 --idle-ms 25 --output "$OUT/small_m_fanin$f.md"
done
# diagnose: which LDG-only counters this ncu knows (the coalescing rule should weigh LDG's traffic)
ncu --query-metrics --chip gh100 2>&1 | grep -E "inst_executed_op_global_ld|inst_executed_op_ldgsts|sass_data_bytes_mem_global_op_ld|sass_sectors_mem_global_op_ld|t_sectors_pipe_lsu_mem_global_op_ld" > "$OUT/ncu_ld_metrics.txt"
