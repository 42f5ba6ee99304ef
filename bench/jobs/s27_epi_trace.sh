# Session 27 (H100 or H200): where BF16 bias + GELU's ~3.3% at 4096^3 goes (issue 13's <= 3%).
# (1) The traced build (docs/trace.md) records k5_bf16_128x256x64_s4 at 4096^3 plain, with a bias, and
#     with bias + GELU (the general form), at stagger 2 (the default) and 3: per consumer its MMA
#     spans, its waits for slots and its epilogue -- whether one consumer's epilogue runs under the
#     other's wgmma, and how long the tensor cores idle at each tile's end.
# (2) The same epilogue_cost suite with k5 only, consumer 1 trailing by 2 and by 3 k_tiles
#     ($PIPEGEMM_K5_STAGGER), alternating processes, burst.
# (Call 4 ran it with both loops written out: 3 BF16 pairs, no FP16; the helpers came after.)
# Run: scripts/gpu_session.sh bench/jobs/s27_epi_trace.sh pipegemm_cli   (carry .deps)
if build_traced 16; then
  for g in 2 3; do PIPEGEMM_K5_STAGGER=$g trace_epilogues stagger$g; done
fi
for i in 1 2 3; do
  for g in 2 3; do
    note "PIPEGEMM_K5_STAGGER=$g"
    PIPEGEMM_K5_STAGGER=$g pg bench --suite bench/suites/epilogue_cost.txt --dtype bf16 --out-dtype bf16 \
        --kernel k5_bf16_128x256x64_s4 --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_bf16_stagger${g}_run$i$g.md"
  done
done
note "done at $(( $(date +%s) - t0 ))s"
