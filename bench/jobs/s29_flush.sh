# Session 29: the pending tile flushed in whole chunks. Call 6 (bench/results/2026-12-06_h100_s29_call6_*)
# had every LLM shape with M <= 128 0.3-2.5% slower with the halves default: a CTA there runs about one
# tile, whose chunks all go out after its last mainloop, and in halves that flush took twice the
# barriers. Now a flush (a short mainloop's epilogue, a CTA's last tile) finishes the chunk in progress
# part by part and writes the rest whole. (1) correctness where a flush starts mid-chunk (halves or
# quarters forced at K of 3-5 k_tiles) and at the default; the k5 GPU tests; fuzz; (2) the LLM suite,
# BF16, default against P = 1 in alternating processes, burst.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s29_flush.sh   (carry .carry)
for p in 2 4; do
  for t in "f16" "bf16 --out-dtype bf16"; do
    k=${t%% *}
    PIPEGEMM_K5_CHUNK_PARTS=$p pg verify --shape 1000x1064x320 --kernel k5_${k}_128x256x64_s4 k5_${k}_128x256x64_s4_nocluster --dtype $t --no-peers
    PIPEGEMM_K5_CHUNK_PARTS=$p pg verify --shape 4096x4096x192 --kernel k5_${k}_128x256x64_s4 --dtype $t --no-peers
    PIPEGEMM_K5_CHUNK_PARTS=$p pg verify --shape 65536x256x192 --kernel k5_${k}_128x256x64_s5_b_resident_k256 --dtype $t --no-peers
  done
done
for t in "f16" "bf16 --out-dtype bf16"; do
  k=${t%% *}
  pg verify --shape 128x8192x8192 --kernel k5_${k}_128x256x64_s4 --dtype $t --no-peers
  pg verify --shape 2000x3000x1000 --kernel k5_${k}_128x256x64_s4 --dtype $t --no-peers
done
gt pipegemm_gpu_tests 'K5*'
fuzz_types 150 40 f16:2951 bf16:2952
for i in 1 2; do
  for p in default 1; do
    in_time 480 "llm parts $p round $i" || continue
    if [ $p = default ]; then unset PIPEGEMM_K5_CHUNK_PARTS; else export PIPEGEMM_K5_CHUNK_PARTS=$p; fi
    pg bench --suite bench/suites/llm.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
       --no-peers --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/llm_bf16_parts${p}_$i.md"
  done
  unset PIPEGEMM_K5_CHUNK_PARTS
done
note "done at $(( $(date +%s) - t0 ))s"
