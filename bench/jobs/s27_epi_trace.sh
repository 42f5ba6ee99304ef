# Session 27 (H100 or H200): where BF16 bias + GELU's ~3.3% at 4096^3 goes (issue 13's <= 3%).
# (1) The traced build (docs/trace.md) records k5_bf16_128x256x64_s4 at 4096^3 plain, with a bias, and
#     with bias + GELU (the general form), at stagger 2 (the default) and 3: per consumer its MMA
#     spans, its waits for slots and its epilogue -- whether one consumer's epilogue runs under the
#     other's wgmma, and how long the tensor cores idle at each tile's end.
# (2) The same epilogue_cost suite (plain, bias, bias + GELU, beta C) with k5 only, consumer 1
#     trailing by 2 and by 3 k_tiles ($PIPEGEMM_K5_STAGGER), alternating processes, burst.
# Run: scripts/gpu_session.sh bench/jobs/s27_epi_trace.sh pipegemm_cli   (carry .deps)
note() { echo "# $*" >> "$OUT/run.log"; }
if build_traced 16; then
  for g in 2 3; do
    export PIPEGEMM_K5_STAGGER=$g
    for e in plain "bias col" "bias col --act gelu_tanh"; do
      tag=$(echo "$e" | tr -d ' -' | sed 's/biascolactgelu_tanh/bias_gelu/;s/biascol/bias/')
      opts=$([ "$e" = plain ] || echo "--$e")
      pgt trace --kernel k5_bf16_128x256x64_s4 --shape 4096x4096x4096 --dtype bf16 --out-dtype bf16 $opts --sms 2 \
          --seed 7 --out "$OUT/trace_${tag}_stagger$g.json" --svg "$OUT/trace_${tag}_stagger$g.svg"
    done
  done
  unset PIPEGEMM_K5_STAGGER
fi
i=0
for g in 2 3 2 3 2 3; do
  i=$((i + 1)); export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  pg bench --suite bench/suites/epilogue_cost.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_bf16_stagger${g}_run$i.md"
done
unset PIPEGEMM_K5_STAGGER
note "done at $(( $(date +%s) - t0 ))s"
