# Session 11, call 3: skinny with and without the L2::256B prefetch hint (same run), the unit
# tests and the SASS proof of the skinny variants on sm_90a, then a tune of the decode suite
# (skinny among the candidates) into the shipped table and the LLM suite with auto on it.
# Run: scripts/gpu_session.sh bench/jobs/s11_call3.sh pipegemm_cli pipegemm_gpu_tests pipegemm_unit_tests
gt pipegemm_gpu_tests 'Skinny*:K4SplitK*'
gt pipegemm_unit_tests '-*Package*'
for v in $("$PG" list | grep -o "skinny_[a-z0-9_]*" | sort -u); do pg sass --kernel $v --arch 90a --brief; done
mkdir -p /tmp/res
for t in f16 bf16; do
  pg bench --suite bench/suites/decode.txt --dtype $t --out-dtype $t --kernel auto skinny_${t}_8x32x256_w4 skinny_${t}_8x32x256_w4_l2 \
     skinny_${t}_16x32x256_w4 skinny_${t}_16x32x256_w4_l2 skinny_${t}_32x32x128_w4 k4_${t}_16x64x64_s6_splitk --reps 50 --rounds 3 --idle-ms 25 \
     --output /tmp/res/decode_${t}_skinny3.md --output /tmp/res/decode_${t}_skinny3.csv
done
TABLE=$PWD/data/tune/h200.json
for t in f16 bf16; do pg tune --suite bench/suites/decode.txt --dtype $t --output "$TABLE" --force; done
cp "$TABLE" /tmp/res/h200.json
export PIPEGEMM_TUNE_CACHE=$TABLE
for t in f16 bf16; do
  pg bench --suite bench/suites/llm.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 --idle-ms 25 \
     --max-ms-per-variant 200 --output /tmp/res/llm_${t}_auto.md --output /tmp/res/llm_${t}_auto.csv
done
tar czf "$OUT/results.tar.gz" -C /tmp/res .
