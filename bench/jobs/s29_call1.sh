# (Ran once, call 1; $PIPEGEMM_K5_CHUNK_PAIRS lost and is not in the tree -- docs/hopper.md, "Deferred chunks in halves".)
# Session 29, one H200 call: (1) the queued weight-in-registers run (bench/jobs/s27_wir3.sh: the
# prototype and the memory-bound suite beside the k5 forms, back to back); (2) the deferred chunk
# stores two at a time ($PIPEGEMM_K5_CHUNK_PAIRS=1: one fence.proxy.async and barrier pair for two
# chunks, at 2 k_tiles of the next mainloop instead of 4 -- session 27's traces had each
# chunk-carrying k_tile ~0.25 us slower) against one at a time, in alternating processes, burst:
# epilogue_cost (k5 alone) and the compute suite, BF16; the memory suite's deferred forms; (3) with
# it on: verify (partial tiles, B-resident, the general form deferred), the k5 GPU tests, fuzz.
# Read: semantics_collate.py --group 'pairs\d' $OUT/epi_*_pairs*_run*.md; $OUT/compute_bf16_pairs*.md.
# Run: scripts/gpu_session.sh bench/jobs/s29_call1.sh pipegemm_cli pipegemm_gpu_tests   (carry .deps)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s27_wir3.sh
else
  note "not an H200: the weight-in-registers run is skipped (it is the H200's question)"
fi
for i in 1 2; do
  in_time 330 "pairs run $i" || continue
  for v in 0 1; do
    export PIPEGEMM_K5_CHUNK_PAIRS=$v
    EPI_KERNELS="k5_@_128x256x64_s4 --no-peers" epilogue_cost "pairs$v" "$i" 1
    note "compute suite BF16, PIPEGEMM_K5_CHUNK_PAIRS=$v, round $i"
    pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
       --no-peers --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_bf16_pairs${v}_$i.md"
  done
done
unset PIPEGEMM_K5_CHUNK_PAIRS
for v in 0 1; do
  in_time 400 "memory suite pairs $v" || continue
  PIPEGEMM_K5_CHUNK_PAIRS=$v pg bench --suite bench/suites/memory.txt --dtype f16 --out-dtype f16 \
     --kernel k5_f16_128x256x64_s4 k5_f16_128x256x64_s8_b_resident_k128 --no-peers --reps 20 --rounds 2 \
     --idle-ms 25 --same-bytes-copy --output "$OUT/memory_f16_pairs$v.md"
done
export PIPEGEMM_K5_CHUNK_PAIRS=1
note "PIPEGEMM_K5_CHUNK_PAIRS=1: correctness"
for t in "f16" "bf16 --out-dtype bf16"; do
  in_time 450 "verify $t" || continue
  k=${t%% *}
  pg verify --shape 1000x1064x3000 --kernel k5_${k}_128x256x64_s4 k5_${k}_128x256x64_s4_b_resident k5_${k}_128x256x64_s8_b_resident_k128 --dtype $t
  pg verify --shape 4096x4096x200 --kernel k5_${k}_128x256x64_s4 --dtype $t
  pg verify --shape 81920x256x256 --kernel k5_${k}_128x256x64_s4_b_resident k5_${k}_128x256x64_s5_b_resident_k256 --dtype $t
  PIPEGEMM_K5_GENERAL_DEFER=1 pg verify --shape 520x776x1032 --kernel k5_${k}_128x256x64_s4 --dtype $t --layout TT --alpha 0.5 --beta 2 --batch 3 --broadcast b --bias col --act gelu_tanh
done
in_time 480 "GPU tests" && gt pipegemm_gpu_tests 'K5*'
in_time 530 "fuzz" && fuzz_types 150 40 f16:2911 bf16:2912
unset PIPEGEMM_K5_CHUNK_PAIRS
note "done at $(( $(date +%s) - t0 ))s"
