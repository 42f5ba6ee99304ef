# Session 12, call 1: what each part of k5's general epilogue costs at 4096^3 (issue 13) and where
# the MUFU time goes (ncu), and the fixed cost of a short weight stream (issue 12).
# Run: scripts/gpu_session.sh bench/jobs/s12_call1.sh pipegemm_cli
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_parts.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_parts_${t}.md"
done
M="--metric sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active --metric sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active --metric smsp__cycles_active.avg"
pg diagnose --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 $M
pg diagnose --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 --bias col $M
pg diagnose --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 --bias col --act gelu_tanh $M
pg bench --suite bench/suites/small_weights.txt --dtype f16 --out-dtype f16 --kernel auto skinny_f16_8x32x256_w4_l2 \
   skinny_f16_16x32x256_w4_l2 --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/small_weights_f16.md"
