# Session 29: the plain kernel's deferred chunk stores spread thinner. Call 1 (H100,
# bench/results/2026-12-06_h100_s29_call1_*) wrote two chunks a k_tile with one fence for both and
# the plain GEMM got 1.5-4% slower -- a k_tile's extra shared-memory traffic (8 KB of stmatrix and
# 8 KB of TMA-store reads a consumer a chunk, beside ~128 KB of wgmma operand reads and TMA writes)
# costs more than its fences. $PIPEGEMM_K5_CHUNK_PARTS=P (1, 2, 4) spreads each chunk over P k_tiles
# (4 / P of its stmatrix a k_tile; fence, barrier and TMA store with the last part).
# (1) on an H200 first the queued weight-in-registers run (s27_wir3.sh); (2) P = 1 / 2 / 4 in
# alternating processes, burst: the compute suite BF16 (k5 alone), epilogue_cost (k5 alone), the
# memory suite's deferred forms; (3) correctness at P = 2 and 4: verify where a short mainloop
# leaves steps for the epilogue's flush, the k5 GPU tests, fuzz.
# Read: $OUT/compute_bf16_parts*_*.md; semantics_collate.py --group 'parts\d' $OUT/epi_*_parts*_run*.md.
# Run: scripts/gpu_session.sh bench/jobs/s29_call2.sh pipegemm_cli pipegemm_gpu_tests   (carry .deps)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s27_wir3.sh
else
  note "not an H200: the weight-in-registers run is skipped (it is the H200's question)"
fi
for i in 1 2 3; do
  in_time 300 "parts round $i" || continue
  for p in 1 2 4; do
    export PIPEGEMM_K5_CHUNK_PARTS=$p
    note "compute suite BF16, PIPEGEMM_K5_CHUNK_PARTS=$p, round $i"
    pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
       --no-peers --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_bf16_parts${p}_$i.md"
    [ $i -le 2 ] && EPI_KERNELS="k5_@_128x256x64_s4 --no-peers" epilogue_cost "parts$p" "$i" 1
  done
done
for p in 1 2 4; do
  in_time 380 "memory suite parts $p" || continue
  PIPEGEMM_K5_CHUNK_PARTS=$p pg bench --suite bench/suites/memory.txt --dtype f16 --out-dtype f16 \
     --kernel k5_f16_128x256x64_s4 k5_f16_128x256x64_s5_b_resident_k256 k5_f16_128x256x64_s4_b_resident --no-peers \
     --reps 20 --rounds 2 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_f16_parts$p.md"
done
unset PIPEGEMM_K5_CHUNK_PARTS
for p in 2 4; do
  export PIPEGEMM_K5_CHUNK_PARTS=$p
  note "PIPEGEMM_K5_CHUNK_PARTS=$p: correctness"
  for t in "f16" "bf16 --out-dtype bf16"; do
    in_time 450 "verify $t parts $p" || continue
    k=${t%% *}
    pg verify --shape 1000x1064x3000 --kernel k5_${k}_128x256x64_s4 k5_${k}_128x256x64_s4_nocluster --dtype $t
    pg verify --shape 4096x4096x200 --kernel k5_${k}_128x256x64_s4 --dtype $t
    pg verify --shape 2000x1000x456 --kernel k5_${k}_128x256x64_s4 --dtype $t
    pg verify --shape 81920x256x256 --kernel k5_${k}_128x256x64_s4_b_resident k5_${k}_128x256x64_s5_b_resident_k256 --dtype $t
    pg verify --shape 131072x256x128 --kernel k5_${k}_128x256x64_s8_b_resident_k128 --dtype $t
    PIPEGEMM_K5_GENERAL_DEFER=1 pg verify --shape 520x776x1032 --kernel k5_${k}_128x256x64_s4 --dtype $t --layout TT --alpha 0.5 --beta 2 --batch 3 --broadcast b --bias col --act gelu_tanh
  done
  in_time 490 "GPU tests parts $p" && gt pipegemm_gpu_tests 'K5*'
  in_time 530 "fuzz parts $p" && fuzz_types 120 30 f16:29${p}1 bf16:29${p}2
done
unset PIPEGEMM_K5_CHUNK_PARTS
note "done at $(( $(date +%s) - t0 ))s"
