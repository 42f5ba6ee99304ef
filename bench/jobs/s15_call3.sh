# Session 15, call 3: the memory-bound suite re-tuned with the BN = 128 k5 among the candidates
# (into data/tune/h200.json, copied to $OUT), auto on it with the same-bytes copy (burst); the LLM
# suite with auto in the tune's own protocol, back to back; diagnose's LDG-share rule on stream-K;
# fuzz with the new variants.
# Run: scripts/gpu_session.sh bench/jobs/s15_call3.sh pipegemm_cli
for t in f16 bf16; do pg tune --suite bench/suites/memory.txt --dtype $t --output data/tune/h200.json --force; done
cp data/tune/h200.json "$OUT/h200.json"
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for t in f16 bf16; do
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel auto --reps 50 --rounds 2 --idle-ms 25 \
     --same-bytes-copy --output "$OUT/memory_${t}_auto.md"
done
pg diagnose --kernel k5_f16_128x256x64_s4_streamk --shape 4096x4096x4096 --dtype f16
for t in f16 bf16; do
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 \
     --output "$OUT/llm_${t}_auto_b2b.md"
done
pg fuzz --count 2000 --dtype f16,bf16 --seed 20261215
