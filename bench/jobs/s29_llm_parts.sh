# Session 29: the LLM suite, BF16, k5's 128x256 beside cuBLAS and cuBLASLt, with the deferred chunks
# in halves (the default from K = 512) and with P = 1, alternating processes, burst: what the new
# default does to k5's share of the best cuBLAS on issue 12's LLM shapes.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s29_llm_parts.sh   (carry .carry)
for i in 1 2; do
  for p in default 1; do
    in_time 300 "llm parts $p round $i" || continue
    if [ $p = default ]; then unset PIPEGEMM_K5_CHUNK_PARTS; else export PIPEGEMM_K5_CHUNK_PARTS=$p; fi
    pg bench --suite bench/suites/llm.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
       --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/llm_bf16_parts${p}_$i.md"
  done
  unset PIPEGEMM_K5_CHUNK_PARTS
done
note "done at $(( $(date +%s) - t0 ))s"
